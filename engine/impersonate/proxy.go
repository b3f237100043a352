package impersonate

import (
	"bufio"
	"context"
	cryptotls "crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	xproxy "golang.org/x/net/proxy"
)

// Dials through the proxies: direct or socks dials, and CONNECT tunnels of HTTP(S) proxies.

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

// Interface guards
var (
	_ xproxy.ContextDialer = dialFunc(nil)
	_ net.Conn             = (*bufferedConn)(nil)
)
