package impersonate

import (
	"context"

	fhttp "github.com/bogdanfinn/fhttp"
	"github.com/bogdanfinn/fhttp/http2"
)

// The HTTP/2 connection pool of a browser's connections (one multiplexed connection per
// host, as a browser keeps).

// h2Pool is the HTTP/2 connection pool of conns (http2.ClientConnPool): a request takes
// a connection of its host that has room for a stream, else dials one (one dial at a
// time per host, with the context of the request that dials; the others wait for it).
type h2Pool conns

// GetClientConn implements http2.ClientConnPool.
func (p *h2Pool) GetClientConn(req *fhttp.Request, _ string) (*http2.ClientConn, error) {
	c := (*conns)(p)
	addr := hostPort(req.URL.Host, "443")
	ctx := req.Context()
	for {
		c.mu.Lock()
		for _, cc := range c.h2conns[addr] {
			if cc.CanTakeNewRequest() {
				c.mu.Unlock()
				return cc, nil
			}
		}
		if ch, ok := c.dialing[addr]; ok {
			c.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		c.dialing[addr] = ch
		c.mu.Unlock()

		cc, err := p.dial(ctx, addr)
		c.mu.Lock()
		delete(c.dialing, addr)
		close(ch)
		if err == nil {
			c.h2conns[addr] = append(c.h2conns[addr], cc)
		}
		c.mu.Unlock()
		return cc, err
	}
}

// dial opens a new HTTP/2 connection to addr.
func (p *h2Pool) dial(ctx context.Context, addr string) (*http2.ClientConn, error) {
	c := (*conns)(p)
	uc, err := c.dialTLS(ctx, addr)
	if err != nil {
		return nil, err
	}
	if uc.ConnectionState().NegotiatedProtocol != http2.NextProtoTLS {
		c.mu.Lock()
		c.alpn[addr] = "http/1.1"
		c.spare[addr] = append(c.spare[addr], uc)
		c.mu.Unlock()
		return nil, errNotH2
	}
	return c.h2.NewClientConn(uc)
}

// MarkDead implements http2.ClientConnPool: cc is closed or going away.
func (p *h2Pool) MarkDead(cc *http2.ClientConn) {
	c := (*conns)(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	for addr, ccs := range c.h2conns {
		for i, x := range ccs {
			if x == cc {
				ccs = append(ccs[:i], ccs[i+1:]...)
				if len(ccs) == 0 {
					delete(c.h2conns, addr)
				} else {
					c.h2conns[addr] = ccs
				}
				return
			}
		}
	}
}

// Interface guards
var _ http2.ClientConnPool = (*h2Pool)(nil)
