package enginetest

// This file holds real proxies for tests: an HTTP forward proxy that also tunnels
// CONNECT, and a SOCKS5 server. Each listens on an address of the test's choice (any of
// 127.0.0.0/8, which is all loopback on Linux), dials out from its own address so that a
// site tells the proxies apart by r.RemoteAddr, records what it saw, and can be killed and
// restarted on the same address.

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// ProxyVia is the Via header the HTTP proxy adds to the requests it forwards.
const ProxyVia = "1.1 enginetest-proxy"

// ProxyOptions configures StartHTTPProxy and StartSOCKS5.
type ProxyOptions struct {
	// Addr is the address to listen on (default "127.0.0.1:0"); 127.0.0.2:0 gives the
	// proxy an address of its own.
	Addr string
	// User and Pass, when User is set, are the credentials the proxy demands (HTTP: Basic
	// Proxy-Authorization, else 407; SOCKS5: RFC 1929, else the handshake fails).
	User, Pass string
	// Upstream maps the host:port a client asks for to the address the proxy dials (nil:
	// the one asked), so that a test can send made-up host names to its server.
	Upstream func(hostport string) string
	// TLS makes the HTTP proxy an https:// one, with httptest's self-signed certificate
	// (a client must skip verification, or it fails the handshake).
	TLS bool
}

// ProxyRequest is what a test proxy saw of one request.
type ProxyRequest struct {
	// Method is the HTTP method of a forwarded request, "CONNECT" for an HTTP tunnel or
	// "SOCKS5" for a SOCKS5 CONNECT.
	Method string
	// Target is the absolute URL of a forwarded request, the host:port of a tunnel.
	Target string
	// Header is the request's header as received (before the proxy strips hop-by-hop
	// and Proxy-* headers); nil for SOCKS5.
	Header http.Header
	// Auth is the Proxy-Authorization received, or "user:pass" given to the SOCKS5 server.
	Auth string
	// Refused reports that the proxy turned the request away (407, or a failed SOCKS5
	// authentication).
	Refused bool
	// Client is the address the request came from.
	Client string
}

// proxyBase is what both test proxies share: the listener, the live connections and the
// record.
type proxyBase struct {
	opts  ProxyOptions
	addr  string // the address listened on, kept for Restart
	local *net.TCPAddr
	tls   *tls.Config // ProxyOptions.TLS

	mu    sync.Mutex
	l     net.Listener
	conns map[net.Conn]struct{} // both ends of every live connection
	seen  []ProxyRequest
	wg    sync.WaitGroup
}

func (b *proxyBase) listen(t testing.TB, opts ProxyOptions) {
	t.Helper()
	b.opts = opts
	if b.opts.Addr == "" {
		b.opts.Addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", b.opts.Addr)
	if err != nil {
		t.Fatalf("test proxy: %v", err)
	}
	b.l, b.addr = l, l.Addr().String()
	ta := l.Addr().(*net.TCPAddr)
	b.local = &net.TCPAddr{IP: ta.IP}
	b.conns = map[net.Conn]struct{}{}
	if b.opts.TLS {
		b.tls = testTLS()
		b.l = tls.NewListener(l, b.tls)
	}
}

// testTLS returns a server TLS config with httptest's certificate.
func testTLS() *tls.Config {
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	cfg := s.TLS.Clone()
	s.Close()
	cfg.NextProtos = []string{"http/1.1"}
	return cfg
}

// Addr returns the host:port the proxy listens on.
func (b *proxyBase) Addr() string { return b.addr }

// Seen returns what the proxy saw, in order.
func (b *proxyBase) Seen() []ProxyRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]ProxyRequest(nil), b.seen...)
}

func (b *proxyBase) record(r ProxyRequest) {
	b.mu.Lock()
	b.seen = append(b.seen, r)
	b.mu.Unlock()
}

// track adds c to the live connections, or closes it and returns false once the proxy
// is closed.
func (b *proxyBase) track(c net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.l == nil {
		c.Close()
		return false
	}
	b.conns[c] = struct{}{}
	return true
}

func (b *proxyBase) untrack(c net.Conn) {
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
}

// dial connects to the upstream of hostport from the proxy's own address.
func (b *proxyBase) dial(ctx context.Context, hostport string) (net.Conn, error) {
	if b.opts.Upstream != nil {
		hostport = b.opts.Upstream(hostport)
	}
	d := net.Dialer{LocalAddr: b.local}
	c, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return nil, err
	}
	if !b.track(c) {
		return nil, net.ErrClosed
	}
	return c, nil
}

// Close stops listening and drops every live connection, as a killed proxy does: a
// client then gets "connection refused". Restart brings the proxy back.
func (b *proxyBase) Close() {
	b.mu.Lock()
	l := b.l
	b.l = nil
	for c := range b.conns {
		c.Close()
	}
	clear(b.conns)
	b.mu.Unlock()
	if l != nil {
		l.Close()
	}
	b.wg.Wait()
}

// relay copies between a and b until both directions end, then closes both.
func relay(a, b net.Conn, ar io.Reader) {
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = io.Copy(b, ar)
		if tc, ok := b.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	})
	_, _ = io.Copy(a, b)
	a.Close()
	wg.Wait()
	b.Close()
}

// HTTPProxy is a forward HTTP proxy for tests (what Squid or a proxy service does): it
// serves absolute-URI requests by fetching them, and CONNECT requests with a tunnel, both
// dialled from the address it listens on. It strips hop-by-hop headers and every Proxy-*
// header before it forwards a request, and adds Via: ProxyVia. Safe for concurrent use.
type HTTPProxy struct{ proxyBase }

// StartHTTPProxy starts an HTTPProxy for the test (closed by t.Cleanup).
func StartHTTPProxy(t testing.TB, opts ProxyOptions) *HTTPProxy {
	t.Helper()
	p := &HTTPProxy{}
	p.listen(t, opts)
	p.serve(p.l)
	t.Cleanup(p.Close)
	return p
}

// URL returns the proxy's URL with its credentials ("http://user:pass@127.0.0.2:1234";
// https:// with ProxyOptions.TLS).
func (p *HTTPProxy) URL() string {
	scheme := "http://"
	if p.tls != nil {
		scheme = "https://"
	}
	return scheme + userinfo(p.opts.User, p.opts.Pass) + p.addr
}

// Restart listens again on the address of a closed proxy.
func (p *HTTPProxy) Restart() error {
	l, err := reListen(&p.proxyBase)
	if err != nil {
		return err
	}
	p.serve(l)
	return nil
}

func (p *HTTPProxy) serve(l net.Listener) {
	p.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !p.track(c) {
				continue
			}
			p.wg.Go(func() {
				defer p.untrack(c)
				p.conn(c)
			})
		}
	})
}

// conn serves the requests of one client connection.
func (p *HTTPProxy) conn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	tr := &http.Transport{
		Proxy:              nil,
		DialContext:        func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dial(ctx, addr) },
		DisableCompression: true,
		DisableKeepAlives:  true,
	}
	defer tr.CloseIdleConnections()
	for {
		r, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		rec := ProxyRequest{Method: r.Method, Header: r.Header.Clone(), Auth: r.Header.Get("Proxy-Authorization"), Client: c.RemoteAddr().String()}
		if r.Method == http.MethodConnect {
			rec.Target = r.Host
		} else {
			rec.Target = r.URL.String()
		}
		if p.opts.User != "" && rec.Auth != "Basic "+base64.StdEncoding.EncodeToString([]byte(p.opts.User+":"+p.opts.Pass)) {
			rec.Refused = true
			p.record(rec)
			_, _ = io.Copy(io.Discard, r.Body)
			fmt.Fprint(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"enginetest\"\r\nContent-Length: 0\r\n\r\n")
			continue
		}
		p.record(rec)
		if r.Method == http.MethodConnect {
			up, err := p.dial(context.Background(), r.Host)
			if err != nil {
				fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				return
			}
			fmt.Fprint(c, "HTTP/1.1 200 Connection established\r\n\r\n")
			relay(c, up, br)
			return
		}
		if !r.URL.IsAbs() {
			fmt.Fprint(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			continue
		}
		if !p.forward(c, r, tr) {
			return
		}
	}
}

// forward sends r on to its URL and copies the answer to c; false when c cannot go on.
func (p *HTTPProxy) forward(c net.Conn, r *http.Request, tr *http.Transport) bool {
	out, err := http.NewRequestWithContext(context.Background(), r.Method, r.URL.String(), r.Body)
	if err != nil {
		return false
	}
	out.ContentLength = r.ContentLength
	out.Header = r.Header.Clone()
	stripHop(out.Header)
	out.Header.Set("Via", ProxyVia)
	resp, err := tr.RoundTrip(out)
	if err != nil {
		fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return true
	}
	defer resp.Body.Close()
	stripHop(resp.Header)
	resp.Close = false
	return resp.Write(c) == nil && !r.Close
}

// hopByHop are the headers that concern one connection only (RFC 9110 7.6.1), which a
// proxy does not forward.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Transfer-Encoding", "Upgrade"}

// stripHop removes from h the hop-by-hop headers, those named in Connection and every
// Proxy-* header (Proxy-Authorization included).
func stripHop(h http.Header) {
	for _, v := range h["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, k := range hopByHop {
		h.Del(k)
	}
	for k := range h {
		if strings.HasPrefix(k, "Proxy-") {
			delete(h, k)
		}
	}
}

// SOCKS5 is a SOCKS5 server for tests (RFC 1928, with RFC 1929 user/password
// authentication when ProxyOptions.User is set): it serves CONNECT to any address,
// dialled from the address it listens on. Safe for concurrent use.
type SOCKS5 struct{ proxyBase }

// StartSOCKS5 starts a SOCKS5 server for the test (closed by t.Cleanup).
func StartSOCKS5(t testing.TB, opts ProxyOptions) *SOCKS5 {
	t.Helper()
	s := &SOCKS5{}
	s.listen(t, opts)
	s.serve(s.l)
	t.Cleanup(s.Close)
	return s
}

// URL returns the server's URL with its credentials, with scheme ("socks5" or "socks5h").
func (s *SOCKS5) URL(scheme string) string {
	return scheme + "://" + userinfo(s.opts.User, s.opts.Pass) + s.addr
}

// Restart listens again on the address of a closed server.
func (s *SOCKS5) Restart() error {
	l, err := reListen(&s.proxyBase)
	if err != nil {
		return err
	}
	s.serve(l)
	return nil
}

func (s *SOCKS5) serve(l net.Listener) {
	s.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !s.track(c) {
				continue
			}
			s.wg.Go(func() {
				defer s.untrack(c)
				s.conn(c)
			})
		}
	})
}

func (s *SOCKS5) conn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	buf := make([]byte, 262)
	// Greeting: VER NMETHODS METHODS...
	if _, err := io.ReadFull(r, buf[:2]); err != nil || buf[0] != 5 {
		return
	}
	methods := buf[2 : 2+int(buf[1])]
	if _, err := io.ReadFull(r, methods); err != nil {
		return
	}
	method := byte(0)
	if s.opts.User != "" {
		method = 2
	}
	if !strings.ContainsRune(string(methods), rune(method)) {
		// Recorded before the reply: a client that sees the refusal finds it in Requests.
		s.record(ProxyRequest{Method: "SOCKS5", Refused: true, Client: c.RemoteAddr().String()})
		_, _ = c.Write([]byte{5, 0xff})
		return
	}
	_, _ = c.Write([]byte{5, method})
	auth := ""
	if method == 2 { // VER ULEN UNAME PLEN PASSWD
		if _, err := io.ReadFull(r, buf[:2]); err != nil {
			return
		}
		u := make([]byte, buf[1])
		_, _ = io.ReadFull(r, u)
		_, _ = io.ReadFull(r, buf[:1])
		pw := make([]byte, buf[0])
		_, _ = io.ReadFull(r, pw)
		auth = string(u) + ":" + string(pw)
		if string(u) != s.opts.User || string(pw) != s.opts.Pass {
			s.record(ProxyRequest{Method: "SOCKS5", Auth: auth, Refused: true, Client: c.RemoteAddr().String()})
			_, _ = c.Write([]byte{1, 1})
			return
		}
		_, _ = c.Write([]byte{1, 0})
	}
	// Request: VER CMD RSV ATYP DST.ADDR DST.PORT
	if _, err := io.ReadFull(r, buf[:4]); err != nil || buf[1] != 1 {
		return
	}
	var host string
	switch buf[3] {
	case 1:
		_, _ = io.ReadFull(r, buf[:4])
		host = net.IP(buf[:4]).String()
	case 3:
		_, _ = io.ReadFull(r, buf[:1])
		n := int(buf[0])
		_, _ = io.ReadFull(r, buf[:n])
		host = string(buf[:n])
	case 4:
		_, _ = io.ReadFull(r, buf[:16])
		host = net.IP(buf[:16]).String()
	default:
		return
	}
	_, _ = io.ReadFull(r, buf[:2])
	target := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(buf[:2]))))
	s.record(ProxyRequest{Method: "SOCKS5", Target: target, Auth: auth, Client: c.RemoteAddr().String()})
	up, err := s.dial(context.Background(), target)
	if err != nil {
		_, _ = c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0}) // connection refused
		return
	}
	_, _ = c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	relay(c, up, r)
}

// reListen listens again on b's address after Close.
func reListen(b *proxyBase) (net.Listener, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.l != nil {
		return nil, errors.New("test proxy: Restart of a proxy that is running")
	}
	l, err := net.Listen("tcp", b.addr)
	if err != nil {
		return nil, fmt.Errorf("test proxy: %w", err)
	}
	if b.tls != nil {
		l = tls.NewListener(l, b.tls)
	}
	b.l = l
	return l, nil
}

func userinfo(user, pass string) string {
	if user == "" {
		return ""
	}
	return user + ":" + pass + "@"
}
