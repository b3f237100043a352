package engine

// This file holds what the http(s) Transport tells HTTPProxyMiddleware about a pool's
// proxy: whether the download used it, and whether it failed because of it.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/jscrawl/jscrawl/types"
)

// proxyTry follows one download through a pool's proxy: the Transport's hooks record
// there that it took the proxy and what a SOCKS5 proxy answered. The hooks may run on the
// Transport's dial goroutine, hence the atomics.
type proxyTry struct {
	used      atomic.Bool
	socksRep  atomic.Int32 // the SOCKS5 CONNECT reply code + 1; 0 before the reply
	socksAddr string       // the SOCKS5 proxy's host:port, as the Transport dials it
}

// TunnelError is a proxy's answer to CONNECT other than 200 (Scrapy: TunnelError). Proxy
// is the proxy's URL with its credentials masked.
type TunnelError struct {
	Proxy  string
	Target string // the host:port of the CONNECT
	Status int
	Text   string // the status line's text
}

// Error implements error.
func (e *TunnelError) Error() string {
	return fmt.Sprintf("could not open CONNECT tunnel with proxy %s to %s: %d %s", e.Proxy, e.Target, e.Status, e.Text)
}

// ErrorName returns NameTunnel.
func (e *TunnelError) ErrorName() string { return NameTunnel }

// ProxyError marks a download that failed because of its proxy, not of the site: a
// download handler with a Transport of its own (HTTP_IMPERSONATE) wraps such failures in
// it, so that a pool's proxy is benched and the download tried on another. Proxy is the
// proxy's URL with its credentials masked.
type ProxyError struct {
	Proxy string
	Err   error
}

// Error implements error.
func (e *ProxyError) Error() string { return fmt.Sprintf("proxy %s: %v", e.Proxy, e.Err) }

// Unwrap returns the cause.
func (e *ProxyError) Unwrap() error { return e.Err }

// watchProxies sets t's hooks that tell HTTPProxyMiddleware how a proxy did: CONNECT
// answers become TunnelErrors (tunnelCheck), and the SOCKS5 replies of a pool's downloads
// are watched (watchSOCKS) when t dials with DialContext.
func watchProxies(t *http.Transport) {
	t.OnProxyConnectResponse = tunnelCheck(t.OnProxyConnectResponse)
	if t.DialContext != nil {
		t.DialContext = watchSOCKS(t.DialContext)
	}
}

// tunnelCheck returns the Transport's OnProxyConnectResponse: prev's, then a TunnelError
// for a status other than 200 (net/http's own error would be the bare status text).
func tunnelCheck(prev func(context.Context, *url.URL, *http.Request, *http.Response) error) func(context.Context, *url.URL, *http.Request, *http.Response) error {
	return func(ctx context.Context, proxy *url.URL, creq *http.Request, cresp *http.Response) error {
		if prev != nil {
			if err := prev(ctx, proxy, creq, cresp); err != nil {
				return err
			}
		}
		if cresp.StatusCode == http.StatusOK {
			return nil
		}
		_, text, _ := strings.Cut(cresp.Status, " ")
		return &TunnelError{Proxy: redactProxy(proxy), Target: creq.Host, Status: cresp.StatusCode, Text: text}
	}
}

// watchSOCKS wraps the Transport's dial: the connection to the SOCKS5 proxy of a pool's
// download is watched for the proxy's reply to CONNECT (see socksWatch), which tells a
// proxy that failed from a target the proxy could not reach.
func watchSOCKS(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return c, err
		}
		if ch, ok := ctx.Value(proxyKey{}).(proxyChoice); ok && ch.try != nil && ch.try.socksAddr == addr {
			return &socksWatch{Conn: c, try: ch.try}, nil
		}
		return c, nil
	}
}

// socksWatch is a connection to a SOCKS5 proxy that records the reply code of its CONNECT
// (RFC 1928 section 6) as the client reads it: the method selection (2 bytes), the
// RFC 1929 status when the proxy chose user/password (2 bytes), then VER REP. The
// SOCKS client reads those with io.ReadFull of exactly their sizes, on the dial
// goroutine, before the connection carries HTTP.
type socksWatch struct {
	net.Conn
	try  *proxyTry
	head []byte // bytes read so far, up to the reply code
	done bool
}

// Read implements net.Conn.
func (w *socksWatch) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if !w.done && n > 0 {
		w.head = append(w.head, b[:n]...)
		at := 2 // the CONNECT reply follows the method selection
		if len(w.head) >= 2 && w.head[1] == 2 {
			at = 4 // and the user/password status
		}
		if len(w.head) >= at+2 {
			w.try.socksRep.Store(int32(w.head[at+1]) + 1)
			w.done, w.head = true, nil
		}
	}
	return n, err
}

// socksTargetFailed reports whether a SOCKS5 reply code says the proxy could not reach
// the target (network or host unreachable, connection refused, TTL expired): the site's
// failure, not the proxy's.
func socksTargetFailed(rep int32) bool { return rep >= 3 && rep <= 6 }

// proxyFault returns why a download through a pool's proxy failed because of the proxy,
// or nil when it did not (it succeeded, or the site failed): the proxy could not be
// dialled or its TLS handshake failed (net/http's "proxyconnect" error), it answered
// CONNECT with another status than 200, 502 and 504 (which say the target could not be
// reached), its SOCKS5 handshake or authentication failed, it answered a plain-http
// request with 407, or a handler said so with a ProxyError. ctx is the middleware's: once
// it is done, nothing is the proxy's fault.
func proxyFault(ctx context.Context, try *proxyTry, resp *types.Response, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		if resp != nil && resp.Status == http.StatusProxyAuthRequired {
			return fmt.Errorf("the proxy answered %d to %s", resp.Status, resp.URL)
		}
		return nil
	}
	var pe *ProxyError
	if errors.As(err, &pe) {
		return err
	}
	var te *TunnelError
	if errors.As(err, &te) {
		if te.Status == http.StatusBadGateway || te.Status == http.StatusGatewayTimeout {
			return nil
		}
		return err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		switch {
		case op.Op == "proxyconnect":
			return err
		case strings.Contains(op.Op, "socks"): // x/net/internal/socks: "socks connect"
			if socksTargetFailed(try.socksRep.Load() - 1) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Interface guards
var (
	_ net.Conn = (*socksWatch)(nil)
	_ error    = (*TunnelError)(nil)
	_ error    = (*ProxyError)(nil)
)
