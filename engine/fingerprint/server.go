package fingerprint

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"

	"github.com/jscrawl/jscrawl/engine/impersonate"
)

// recordLimit bounds the bytes a connection's record keeps after the handshake: enough
// for the first request of any client, small enough for a long-lived connection.
const recordLimit = 256 << 10

// handshakeTimeout bounds the wait for a client's ClientHello and handshake.
const handshakeTimeout = 10 * time.Second

// Fingerprint is what a server sees of one connection's client: its ClientHello with the
// JA3 and JA4 fingerprints, the protocol ALPN chose, and how it made its first request:
// the HTTP/2 frames before it (Akamai's fingerprint) and its headers in the order sent.
type Fingerprint struct {
	// RemoteAddr is the client's address, "IP:port".
	RemoteAddr string
	// Accepted is when the connection was accepted.
	Accepted time.Time
	// Hello is the parsed ClientHello; Hello.Raw is the handshake message.
	Hello *ClientHello
	// JA3 is the JA3 string, JA3Hash its MD5.
	JA3, JA3Hash string
	// JA4 is the JA4 fingerprint; JA4R and JA4O its raw and original-order forms.
	JA4, JA4R, JA4O string
	// ALPN is the protocol negotiated: "h2", "http/1.1" or "" (none: HTTP/1.1).
	ALPN string
	// HTTP2 is the start of an HTTP/2 connection (nil over HTTP/1.1, or before its first
	// request has arrived).
	HTTP2 *HTTP2
	// HTTP2Fingerprint is HTTP2.Akamai() ("" without HTTP2).
	HTTP2Fingerprint string
	// Headers are the first request's header fields in the order received, pseudo-headers
	// excluded: over HTTP/2 as sent (lower case), over HTTP/1.1 as the raw lines have them.
	Headers [][2]string
}

// Header returns the value of the first of Headers named name (case-insensitive).
func (f *Fingerprint) Header(name string) string {
	for _, h := range f.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// Profile returns the impersonate.Profile of the client: its ClientHello, how it opens an
// HTTP/2 connection and its first request's headers (names in lower case, Host and
// Cookie left out) with the User-Agent, named name.
func (f *Fingerprint) Profile(name string) *impersonate.Profile {
	p := &impersonate.Profile{Name: name, UserAgent: f.Header("user-agent")}
	if f.Hello != nil {
		p.ClientHello = hex.EncodeToString(f.Hello.Raw)
	}
	if h := f.HTTP2; h != nil {
		p.HTTP2 = impersonate.HTTP2{
			Settings:          h.Settings,
			WindowUpdate:      h.WindowUpdate,
			Priorities:        h.Priorities,
			PseudoHeaderOrder: h.PseudoHeaderOrder(),
			HeadersPriority:   h.HeadersPriority,
		}
	}
	for _, hd := range f.Headers {
		n := strings.ToLower(hd[0])
		if n == "host" || n == "cookie" {
			continue
		}
		p.Headers = append(p.Headers, [2]string{n, hd[1]})
	}
	return p
}

// Server is a TLS server that records what each client presents (Fingerprint) while it
// serves the connection normally: it reads the raw ClientHello before crypto/tls does,
// completes the handshake with its *tls.Config, and keeps the bytes of the first request
// (HTTP/2 frames or the HTTP/1.1 head) to read the HTTP/2 fingerprint and the header order
// from. The handler gets the connection's Fingerprint with FromRequest. Start it with
// Serve; it is safe for concurrent use.
type Server struct {
	ln      net.Listener
	config  *tls.Config
	handler http.Handler
	h1      *http.Server
	h1conns *chanListener
	h2      *http2.Server
	logger  *slog.Logger

	mu     sync.Mutex
	conns  []*connRecord
	open   map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// connRecord is what Server keeps of one connection; mu guards the fields below it.
type connRecord struct {
	remote   string
	accepted time.Time
	hello    *ClientHello

	mu      sync.Mutex
	ready   bool   // the handshake is done
	alpn    string // the protocol it chose
	buf     []byte // the bytes read after the handshake, up to recordLimit
	done    bool   // the first request has been parsed (or given up on): stop recording
	http2   *HTTP2
	headers [][2]string
}

type recordKey struct{}

// Serve starts a Server on ln that answers with handler. config must hold the
// certificate; its NextProtos are set to h2 and http/1.1 unless given. Close stops it.
func Serve(ln net.Listener, config *tls.Config, handler http.Handler) *Server {
	config = config.Clone()
	if len(config.NextProtos) == 0 {
		config.NextProtos = []string{"h2", "http/1.1"}
	}
	s := &Server{ln: ln, config: config, handler: handler, open: map[net.Conn]struct{}{},
		h2: &http2.Server{}, logger: slog.New(slog.DiscardHandler)}
	s.h1conns = &chanListener{addr: ln.Addr(), conns: make(chan net.Conn), done: make(chan struct{})}
	s.h1 = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: handshakeTimeout,
		ErrorLog:          log.New(io.Discard, "", 0),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if t, ok := c.(*teeConn); ok {
				return context.WithValue(ctx, recordKey{}, t.rec)
			}
			return ctx
		},
	}
	s.wg.Go(func() { _ = s.h1.Serve(s.h1conns) })
	s.wg.Go(s.accept)
	return s
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server: it closes the listener and every connection, and waits for
// their goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.open {
		_ = c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.h1conns.close()
	_ = s.h1.Close()
	s.wg.Wait()
	return err
}

// Connections returns the Fingerprints of the connections accepted so far whose
// ClientHello was read, in the order accepted.
func (s *Server) Connections() []*Fingerprint {
	s.mu.Lock()
	recs := append([]*connRecord{}, s.conns...)
	s.mu.Unlock()
	out := make([]*Fingerprint, len(recs))
	for i, r := range recs {
		out[i] = r.fingerprint()
	}
	return out
}

// FromRequest returns the Fingerprint of the connection r came on, when r reached the
// handler of a Server (nil otherwise).
func FromRequest(r *http.Request) *Fingerprint { return FromContext(r.Context()) }

// FromContext returns the Fingerprint of the connection of the request whose context ctx
// is (nil outside a Server's handler).
func FromContext(ctx context.Context) *Fingerprint {
	r, _ := ctx.Value(recordKey{}).(*connRecord)
	if r == nil {
		return nil
	}
	return r.fingerprint()
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.open[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Go(func() {
			if handedOff := s.serve(c); !handedOff {
				s.forget(c)
			}
		})
	}
}

// forget closes c and drops it from the open connections.
func (s *Server) forget(c net.Conn) {
	_ = c.Close()
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// serve reads the ClientHello of c, completes the handshake and serves the connection. It
// reports whether c went to the HTTP/1.1 server, which closes it (teeConn.Close forgets
// it then); Close closes it too, as any open connection.
func (s *Server) serve(c net.Conn) bool {
	rec := &connRecord{remote: c.RemoteAddr().String(), accepted: time.Now()}
	_ = c.SetReadDeadline(time.Now().Add(handshakeTimeout))
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		h, perr := ParseClientHello(buf)
		if perr == nil {
			rec.hello = h
			break
		}
		if !errors.Is(perr, ErrIncomplete) || err != nil || len(buf) > 1<<20 {
			s.logger.Debug("fingerprint: no ClientHello", "remote", rec.remote, "err", errors.Join(perr, err))
			return false
		}
	}
	s.mu.Lock()
	s.conns = append(s.conns, rec)
	s.mu.Unlock()
	tc := tls.Server(&prefixConn{Conn: c, prefix: buf}, s.config)
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		return false
	}
	_ = c.SetReadDeadline(time.Time{})
	alpn := tc.ConnectionState().NegotiatedProtocol
	rec.mu.Lock()
	rec.alpn, rec.ready = alpn, true
	rec.mu.Unlock()
	tee := &teeConn{Conn: tc, tls: tc, rec: rec, onClose: func() { s.forget(c) }}
	if alpn == "h2" {
		s.h2.ServeConn(tee, &http2.ServeConnOpts{
			Context:    context.WithValue(context.Background(), recordKey{}, rec),
			BaseConfig: s.h1,
			Handler:    s.handler,
		})
		return false
	}
	return s.h1conns.push(tee)
}

// fingerprint returns the record's Fingerprint, parsing the first request from the bytes
// recorded so far if that is not done yet.
func (r *connRecord) fingerprint() *Fingerprint {
	f := &Fingerprint{RemoteAddr: r.remote, Accepted: r.accepted, Hello: r.hello}
	if h := r.hello; h != nil {
		f.JA3, f.JA3Hash = h.JA3(), h.JA3Hash()
		f.JA4, f.JA4R, f.JA4O = h.JA4(), h.JA4R(), h.JA4O()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f.ALPN = r.alpn
	if r.ready && !r.done {
		r.parse()
	}
	f.HTTP2 = r.http2
	if r.http2 != nil {
		f.HTTP2Fingerprint = r.http2.Akamai()
	}
	f.Headers = r.headers
	return f
}

// parse reads the first request from buf; r.mu is held.
func (r *connRecord) parse() {
	if r.alpn == "h2" {
		h, err := ParseHTTP2(r.buf)
		if errors.Is(err, ErrIncomplete) && len(r.buf) < recordLimit {
			return
		}
		r.done, r.buf = true, nil
		if err == nil {
			r.http2, r.headers = h, h.Headers
		}
		return
	}
	end := bytes.Index(r.buf, []byte("\r\n\r\n"))
	if end < 0 && len(r.buf) < recordLimit {
		return
	}
	if end >= 0 {
		lines := strings.Split(string(r.buf[:end]), "\r\n")
		for _, l := range lines[1:] { // lines[0] is the request line
			name, value, ok := strings.Cut(l, ":")
			if ok {
				r.headers = append(r.headers, [2]string{name, strings.TrimSpace(value)})
			}
		}
	}
	r.done, r.buf = true, nil
}

// prefixConn reads prefix before the rest of Conn: the ClientHello bytes Server read.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// teeConn records what the client sends after the handshake into its record, until the
// record has its first request.
type teeConn struct {
	net.Conn
	tls     *tls.Conn
	rec     *connRecord
	onClose func()
	once    sync.Once
}

// Close closes the connection and its raw one, which it forgets.
func (c *teeConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.onClose)
	return err
}

func (c *teeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.rec.mu.Lock()
		if !c.rec.done {
			c.rec.buf = append(c.rec.buf, p[:n]...)
			if len(c.rec.buf) >= recordLimit {
				c.rec.parse()
			}
		}
		c.rec.mu.Unlock()
	}
	return n, err
}

// ConnectionState is the TLS state, for the HTTP/2 server's Request.TLS.
func (c *teeConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// chanListener hands the HTTP/1.1 connections to http.Server.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func (l *chanListener) push(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) close() { l.once.Do(func() { close(l.done) }) }

func (l *chanListener) Close() error { l.close(); return nil }

func (l *chanListener) Addr() net.Addr { return l.addr }

// Interface guards
var (
	_ net.Listener = (*chanListener)(nil)
	_ io.Reader    = (*prefixConn)(nil)
)
