package impersonate

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	fhttp "github.com/bogdanfinn/fhttp"
	tls "github.com/bogdanfinn/utls"

	"github.com/jscrawl/jscrawl/engine"
)

// Options configure a Transport.
type Options struct {
	// Browser is presented to a request whose context carries none (WithBrowser).
	Browser *Browser
	// ConnOptions are how the connections are made and kept: dials, proxies,
	// certificates, pools.
	engine.ConnOptions
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

// Interface guards
var _ http.RoundTripper = (*Transport)(nil)
