package impersonate

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	fhttp "github.com/bogdanfinn/fhttp"
	"github.com/bogdanfinn/fhttp/http2"
	tls "github.com/bogdanfinn/utls"
	xproxy "golang.org/x/net/proxy"
)

// The connections of one browser through one proxy: TLS dials presenting the browser's
// ClientHello, and each host's protocol as ALPN chose it.

// conns are the connections of one browser through one proxy: an fhttp HTTP/1.1
// Transport for http URLs and https hosts that chose HTTP/1.1, and an fhttp HTTP/2
// Transport over h2Pool for the others.
type conns struct {
	t     *Transport
	b     *Browser
	proxy *url.URL             // nil: direct
	socks xproxy.ContextDialer // the proxy's, for socks5 and socks5h
	cache tls.ClientSessionCache
	h1    *fhttp.Transport
	h2    *http2.Transport

	mu      sync.Mutex
	alpn    map[string]string        // host:port → "h2" or "http/1.1", once known
	probing map[string]chan struct{} // host:port → closed when its first connection is made
	spare   map[string][]net.Conn    // TLS connections that chose HTTP/1.1, for h1 to take
	h2conns map[string][]*http2.ClientConn
	dialing map[string]chan struct{} // host:port → closed when its HTTP/2 dial ends
}

// maxKnownHosts bounds the protocols remembered per browser and proxy: past it they
// are forgotten (and learnt again by the next connection of each host).
const maxKnownHosts = 1 << 16

func newConns(t *Transport, b *Browser, proxyURL *url.URL) (*conns, error) {
	c := &conns{t: t, b: b, proxy: proxyURL,
		alpn: map[string]string{}, probing: map[string]chan struct{}{}, spare: map[string][]net.Conn{},
		h2conns: map[string][]*http2.ClientConn{}, dialing: map[string]chan struct{}{}}
	if supportsResumption(b) {
		c.cache = tls.NewLRUClientSessionCache(64)
	}
	if proxyURL != nil {
		switch strings.ToLower(proxyURL.Scheme) {
		case "http", "https":
		case "socks5", "socks5h":
			var auth *xproxy.Auth
			if u := proxyURL.User; u != nil {
				pass, _ := u.Password()
				auth = &xproxy.Auth{User: u.Username(), Password: pass}
			}
			d, err := xproxy.SOCKS5("tcp", hostPort(proxyURL.Host, "1080"), auth, dialFunc(t.opts.DialContext))
			if err != nil {
				return nil, fmt.Errorf("impersonate: socks5 proxy %s: %w", proxyURL.Host, err)
			}
			cd, ok := d.(xproxy.ContextDialer)
			if !ok {
				return nil, errors.New("impersonate: the socks5 dialer has no DialContext")
			}
			c.socks = cd
		default:
			return nil, fmt.Errorf("impersonate: proxy %s: scheme %q is not http, https, socks5 or socks5h", proxyURL.Host, proxyURL.Scheme)
		}
	}
	httpProxy := proxyURL != nil && c.socks == nil
	c.h1 = &fhttp.Transport{
		Proxy: func(r *fhttp.Request) (*url.URL, error) {
			if httpProxy && r.URL.Scheme == "http" {
				return proxyURL, nil // absolute-form requests; https goes through DialTLSContext
			}
			return nil, nil
		},
		DialContext:         c.dialPlain,
		DialTLSContext:      c.dialTLSH1,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: t.opts.InsecureSkipVerify, RootCAs: t.opts.RootCAs}, // an https proxy's
		TLSNextProto:        map[string]func(string, *tls.Conn) fhttp.RoundTripper{},                             // HTTP/2 is h2's
		DisableCompression:  true,
		MaxIdleConns:        t.opts.MaxIdleConns,
		MaxIdleConnsPerHost: t.opts.MaxIdleConnsPerHost,
		IdleConnTimeout:     t.opts.IdleConnTimeout,
		TLSHandshakeTimeout: t.opts.TLSHandshakeTimeout,
	}
	p := b.client
	pseudo := p.GetPseudoHeaderOrder()
	if len(pseudo) == 0 {
		pseudo = []string{":method", ":authority", ":scheme", ":path"}
	}
	c.h2 = &http2.Transport{
		ConnPool:           (*h2Pool)(c),
		Settings:           p.GetSettings(),
		SettingsOrder:      p.GetSettingsOrder(),
		ConnectionFlow:     p.GetConnectionFlow(),
		HeaderPriority:     p.GetHeaderPriority(),
		Priorities:         p.GetPriorities(),
		PseudoHeaderOrder:  pseudo,
		DisableCompression: true,
		IdleConnTimeout:    t.opts.IdleConnTimeout,
	}
	return c, nil
}

// supportsResumption reports whether b's ClientHello offers pre-shared keys, which then
// resume sessions as the browser does.
func supportsResumption(b *Browser) bool {
	spec, err := b.client.GetClientHelloSpec()
	if err != nil {
		return false
	}
	for _, ext := range spec.Extensions {
		if _, ok := ext.(*tls.UtlsPreSharedKeyExtension); ok {
			return true
		}
	}
	return false
}

// dialTLS opens a TLS connection to addr presenting the browser's ClientHello.
func (c *conns) dialTLS(ctx context.Context, addr string) (*tls.UConn, error) {
	raw, err := c.tunnel(ctx, addr)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	cfg := &tls.Config{
		ServerName:         host,
		InsecureSkipVerify: c.t.opts.InsecureSkipVerify,
		RootCAs:            c.t.opts.RootCAs,
		ClientSessionCache: c.cache,
		OmitEmptyPsk:       true,
	}
	uc := tls.UClient(raw, cfg, c.b.client.GetClientHelloId(), c.b.shuffle, false, true)
	hctx, cancel := context.WithTimeout(ctx, c.t.opts.TLSHandshakeTimeout)
	defer cancel()
	if err := uc.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	return uc, nil
}

// dialTLSH1 is h1's dial of https hosts: a connection that chose HTTP/1.1 when the
// host's protocol was learnt, else a new one.
func (c *conns) dialTLSH1(ctx context.Context, _, addr string) (net.Conn, error) {
	c.mu.Lock()
	if s := c.spare[addr]; len(s) > 0 {
		conn := s[len(s)-1]
		if len(s) == 1 {
			delete(c.spare, addr)
		} else {
			c.spare[addr] = s[:len(s)-1]
		}
		c.mu.Unlock()
		return conn, nil
	}
	c.mu.Unlock()
	return c.dialTLS(ctx, addr)
}

// roundTripTLS sends an https request with the protocol the host chose.
func (c *conns) roundTripTLS(req *fhttp.Request) (*fhttp.Response, error) {
	addr := hostPort(req.URL.Host, "443")
	proto, err := c.protocol(req.Context(), addr)
	if err != nil {
		closeFBody(req)
		return nil, err
	}
	if proto == "h2" {
		// HTTP/2 sends names in lower case: fhttp sorts them by lower-cased name, which
		// costs nothing for names that are already.
		h2req := *req
		h2req.Header = make(fhttp.Header, len(req.Header))
		for k, vs := range req.Header {
			if k != fhttp.HeaderOrderKey && k != fhttp.PHeaderOrderKey {
				k = strings.ToLower(k)
			}
			h2req.Header[k] = vs
		}
		resp, err := c.h2.RoundTrip(&h2req)
		if !errors.Is(err, errNotH2) {
			return resp, err
		}
	}
	return c.h1.RoundTrip(req)
}

func closeFBody(req *fhttp.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// errNotH2 is an HTTP/2 dial that got a server choosing HTTP/1.1 (its connection went to
// h1).
var errNotH2 = errors.New("impersonate: the server chose HTTP/1.1")

// protocol returns the protocol addr chose by ALPN, making its first connection when it
// is not known yet (one at a time per host; the others wait for it): an HTTP/2 one goes
// to the HTTP/2 pool, an HTTP/1.1 one waits for h1 in spare.
func (c *conns) protocol(ctx context.Context, addr string) (string, error) {
	for {
		c.mu.Lock()
		if p, ok := c.alpn[addr]; ok {
			c.mu.Unlock()
			return p, nil
		}
		if ch, ok := c.probing[addr]; ok {
			c.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		ch := make(chan struct{})
		c.probing[addr] = ch
		c.mu.Unlock()

		proto, err := c.probe(ctx, addr)
		c.mu.Lock()
		delete(c.probing, addr)
		close(ch)
		c.mu.Unlock()
		return proto, err
	}
}

// probe makes addr's first connection and files it by its protocol.
func (c *conns) probe(ctx context.Context, addr string) (string, error) {
	uc, err := c.dialTLS(ctx, addr)
	if err != nil {
		return "", err
	}
	proto := "http/1.1"
	var cc *http2.ClientConn
	if uc.ConnectionState().NegotiatedProtocol == http2.NextProtoTLS {
		proto = "h2"
		if cc, err = c.h2.NewClientConn(uc); err != nil {
			return "", err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.alpn) >= maxKnownHosts {
		clear(c.alpn)
	}
	c.alpn[addr] = proto
	if cc != nil {
		c.h2conns[addr] = append(c.h2conns[addr], cc)
	} else {
		c.spare[addr] = append(c.spare[addr], uc)
	}
	return proto, nil
}

// hostPort returns hostport with port added when it has none.
func hostPort(hostport, port string) string {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return net.JoinHostPort(h, p)
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), port)
}
