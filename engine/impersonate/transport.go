package impersonate

import (
	"bufio"
	"context"
	cryptotls "crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"

	fhttp "github.com/bogdanfinn/fhttp"
	"github.com/bogdanfinn/fhttp/http2"
	fhttptrace "github.com/bogdanfinn/fhttp/httptrace"
	tls "github.com/bogdanfinn/utls"
	xproxy "golang.org/x/net/proxy"
)

// Options configure a Transport.
type Options struct {
	// Browser is presented to a request whose context carries none (WithBrowser).
	Browser *Browser
	// DialContext opens the TCP connections, to a server or to a proxy (nil: a
	// net.Dialer's).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy returns the proxy of a request, as http.Transport.Proxy does (nil, or a nil
	// URL: none): http:// and https:// proxies (CONNECT for https targets, absolute-form
	// requests for http ones, Basic Proxy-Authorization from the URL's user info) and
	// socks5:// or socks5h:// ones (with user and password).
	Proxy func(*http.Request) (*url.URL, error)
	// InsecureSkipVerify skips the verification of the servers' certificates.
	InsecureSkipVerify bool
	// RootCAs are the authorities the servers' certificates are verified with (nil: the
	// system's).
	RootCAs *x509.CertPool
	// MaxIdleConns bounds the idle HTTP/1.1 connections of each browser and proxy (0: no
	// limit); MaxIdleConnsPerHost bounds them per host (0: 2).
	MaxIdleConns, MaxIdleConnsPerHost int
	// IdleConnTimeout closes a connection idle that long (0: 90s).
	IdleConnTimeout time.Duration
	// TLSHandshakeTimeout bounds a TLS handshake (0: 10s).
	TLSHandshakeTimeout time.Duration
}

// Transport is an http.RoundTripper that presents a Browser on the wire: its TLS
// ClientHello (through uTLS), ALPN, HTTP/2 SETTINGS, connection WINDOW_UPDATE, PRIORITY
// frames, HEADERS priority and pseudo-header order (through fhttp), and the request's
// headers in the browser's order (Browser.Order; names it lacks follow, sorted). It sends
// the headers it is given: filling in the browser's defaults is the caller's (the
// download handler's) work. It never follows redirects and never decodes bodies.
//
// Connections are kept alive per browser, proxy and host: an https host's first
// connection tells by ALPN whether it speaks HTTP/2 (one multiplexed connection, as a
// browser keeps) or HTTP/1.1 (a pool of keep-alive connections). Safe for concurrent
// use by the download goroutines.
type Transport struct {
	opts Options

	mu    sync.Mutex
	conns map[connsKey]*conns
}

// connsKey names the connections of one browser through one proxy ("": none).
type connsKey struct {
	b     *Browser
	proxy string
}

// NewTransport returns a Transport configured by opts.
func NewTransport(opts Options) *Transport {
	if opts.DialContext == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		opts.DialContext = d.DialContext
	}
	if opts.MaxIdleConnsPerHost <= 0 {
		opts.MaxIdleConnsPerHost = 2
	}
	if opts.IdleConnTimeout <= 0 {
		opts.IdleConnTimeout = 90 * time.Second
	}
	if opts.TLSHandshakeTimeout <= 0 {
		opts.TLSHandshakeTimeout = 10 * time.Second
	}
	return &Transport{opts: opts, conns: map[connsKey]*conns{}}
}

// RoundTrip implements http.RoundTripper: it presents the Browser of req's context (or
// the default) through the proxy Options.Proxy gives. The response's Proto is the
// protocol spoken ("HTTP/2.0" or "HTTP/1.1"); its body streams from the connection,
// undecoded. The net/http/httptrace hooks of req's context (GotConn, WroteHeaders,
// WroteRequest, GotFirstResponseByte, ConnectStart, ConnectDone) are called.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	b := BrowserOf(req.Context())
	if b == nil {
		b = t.opts.Browser
	}
	if b == nil {
		closeBody(req)
		return nil, errors.New("impersonate: no browser to present")
	}
	var proxyURL *url.URL
	if t.opts.Proxy != nil {
		var err error
		if proxyURL, err = t.opts.Proxy(req); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	c, err := t.connsFor(b, proxyURL)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	freq := toFHTTP(req, b)
	var fresp *fhttp.Response
	switch strings.ToLower(req.URL.Scheme) {
	case "http":
		fresp, err = c.h1.RoundTrip(freq)
	case "https":
		fresp, err = c.roundTripTLS(freq)
	default:
		closeBody(req)
		return nil, fmt.Errorf("impersonate: unsupported protocol scheme %q", req.URL.Scheme)
	}
	if err != nil {
		return nil, err
	}
	return toNet(fresp, req), nil
}

// CloseIdleConnections closes the idle HTTP/1.1 connections; idle HTTP/2 ones close
// after Options.IdleConnTimeout.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		c.h1.CloseIdleConnections()
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// connsFor returns the connections of b through proxyURL, made on first use.
func (t *Transport) connsFor(b *Browser, proxyURL *url.URL) (*conns, error) {
	key := connsKey{b: b}
	if proxyURL != nil {
		key.proxy = proxyURL.String()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.conns[key]; ok {
		return c, nil
	}
	c, err := newConns(t, b, proxyURL)
	if err != nil {
		return nil, err
	}
	t.conns[key] = c
	return c, nil
}

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

// dialFunc adapts a dial function to x/net/proxy's dialers.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Dial dials without a deadline but the dial function's own.
func (f dialFunc) Dial(network, addr string) (net.Conn, error) {
	return f(context.Background(), network, addr)
}

// DialContext calls f.
func (f dialFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

// dialPlain is h1's dial of http URLs: through a socks proxy, or directly (to the
// server, or to the HTTP proxy h1 sends the request to).
func (c *conns) dialPlain(ctx context.Context, network, addr string) (net.Conn, error) {
	if c.socks != nil {
		return c.socks.DialContext(ctx, network, addr)
	}
	return c.t.opts.DialContext(ctx, network, addr)
}

// tunnel returns a connection to addr: direct, through the socks proxy, or a CONNECT
// tunnel of the HTTP proxy.
func (c *conns) tunnel(ctx context.Context, addr string) (net.Conn, error) {
	switch {
	case c.proxy == nil:
		return c.t.opts.DialContext(ctx, "tcp", addr)
	case c.socks != nil:
		return c.socks.DialContext(ctx, "tcp", addr)
	default:
		return c.connect(ctx, addr)
	}
}

// connect opens a CONNECT tunnel to addr through the HTTP(S) proxy.
func (c *conns) connect(ctx context.Context, addr string) (net.Conn, error) {
	p := c.proxy
	https := strings.EqualFold(p.Scheme, "https")
	port := "80"
	if https {
		port = "443"
	}
	conn, err := c.t.opts.DialContext(ctx, "tcp", hostPort(p.Host, port))
	if err != nil {
		return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if https {
		tc := cryptotls.Client(conn, &cryptotls.Config{ServerName: p.Hostname(), InsecureSkipVerify: c.t.opts.InsecureSkipVerify, RootCAs: c.t.opts.RootCAs})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
		}
		conn = tc
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n", addr, addr)
	if u := p.User; u != nil {
		pass, _ := u.Password()
		sb.WriteString("Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)) + "\r\n")
	}
	sb.WriteString("\r\n")
	if _, err := io.WriteString(conn, sb.String()); err != nil {
		conn.Close()
		return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		conn.Close()
		return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
	}
	// The body is not closed: a 200 has none, and closing would read the tunnel.
	if resp.StatusCode != http.StatusOK {
		conn.Close()
		return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: errors.New(resp.Status)}
	}
	if !stop() && ctx.Err() != nil {
		conn.Close()
		return nil, ctx.Err()
	}
	_ = conn.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

// bufferedConn is a tunnel whose first bytes were read with the proxy's answer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

// Read reads what the proxy's answer left buffered, then the connection.
func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

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

// hostPort returns hostport with port added when it has none.
func hostPort(hostport, port string) string {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return net.JoinHostPort(h, p)
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), port)
}

// toFHTTP converts req to fhttp's request, its headers in b's order and its httptrace
// hooks bridged to fhttp's.
func toFHTTP(req *http.Request, b *Browser) *fhttp.Request {
	h := make(fhttp.Header, len(req.Header)+1)
	for k, vs := range req.Header {
		h[k] = vs
	}
	h[fhttp.HeaderOrderKey] = b.order[:len(b.order):len(b.order)] // shared: an append copies
	body := req.Body
	if body == http.NoBody {
		body = fhttp.NoBody
	}
	var getBody func() (io.ReadCloser, error)
	if req.GetBody != nil {
		getBody = func() (io.ReadCloser, error) {
			rc, err := req.GetBody()
			if rc == http.NoBody {
				rc = fhttp.NoBody
			}
			return rc, err
		}
	}
	freq := &fhttp.Request{
		Method:           req.Method,
		URL:              req.URL,
		Proto:            "HTTP/1.1",
		ProtoMajor:       1,
		ProtoMinor:       1,
		Header:           h,
		Body:             body,
		GetBody:          getBody,
		ContentLength:    req.ContentLength,
		TransferEncoding: req.TransferEncoding,
		Close:            req.Close,
		Host:             req.Host,
		Trailer:          fhttp.Header(req.Trailer),
	}
	ctx := req.Context()
	if tr := httptrace.ContextClientTrace(ctx); tr != nil {
		ctx = fhttptrace.WithClientTrace(ctx, bridgeTrace(tr))
	}
	return freq.WithContext(ctx)
}

// bridgeTrace calls tr's hooks from fhttp's.
func bridgeTrace(tr *httptrace.ClientTrace) *fhttptrace.ClientTrace {
	out := &fhttptrace.ClientTrace{
		WroteHeaders:         tr.WroteHeaders,
		GotFirstResponseByte: tr.GotFirstResponseByte,
		ConnectStart:         tr.ConnectStart,
		ConnectDone:          tr.ConnectDone,
	}
	if tr.GotConn != nil {
		out.GotConn = func(i fhttptrace.GotConnInfo) {
			tr.GotConn(httptrace.GotConnInfo{Conn: i.Conn, Reused: i.Reused, WasIdle: i.WasIdle, IdleTime: i.IdleTime})
		}
	}
	if tr.WroteRequest != nil {
		out.WroteRequest = func(i fhttptrace.WroteRequestInfo) { tr.WroteRequest(httptrace.WroteRequestInfo{Err: i.Err}) }
	}
	return out
}

// toNet converts fhttp's response to net/http's, req its request.
func toNet(r *fhttp.Response, req *http.Request) *http.Response {
	body := r.Body
	if body == fhttp.NoBody {
		body = http.NoBody
	}
	return &http.Response{
		Status:           r.Status,
		StatusCode:       r.StatusCode,
		Proto:            r.Proto,
		ProtoMajor:       r.ProtoMajor,
		ProtoMinor:       r.ProtoMinor,
		Header:           http.Header(r.Header),
		Body:             body,
		ContentLength:    r.ContentLength,
		TransferEncoding: r.TransferEncoding,
		Close:            r.Close,
		Uncompressed:     r.Uncompressed,
		Trailer:          http.Header(r.Trailer),
		Request:          req,
	}
}

// Interface guards
var (
	_ http.RoundTripper    = (*Transport)(nil)
	_ http2.ClientConnPool = (*h2Pool)(nil)
	_ xproxy.ContextDialer = dialFunc(nil)
	_ net.Conn             = (*bufferedConn)(nil)
)

// IsTLSError reports whether err comes from a uTLS handshake or certificate check (the
// counterparts of crypto/tls's error types; x509's are shared).
func IsTLSError(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		rh tls.RecordHeaderError
		al tls.AlertError
	)
	return errors.As(err, &cv) || errors.As(err, &rh) || errors.As(err, &al)
}
