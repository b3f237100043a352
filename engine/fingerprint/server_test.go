package fingerprint_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"

	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// newServer starts a recording Server on 127.0.0.1 whose handler sends each request's
// Fingerprint to the returned channel. Its certificate is for "fp.test" and 127.0.0.1.
func newServer(t *testing.T) (*fingerprint.Server, *fingerprint.CA, chan *fingerprint.Fingerprint) {
	t.Helper()
	ca, err := fingerprint.NewCA("fingerprint test CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue("fp.test", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *fingerprint.Fingerprint, 16)
	s := fingerprint.Serve(ln, &tls.Config{Certificates: []tls.Certificate{cert}}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- fingerprint.FromRequest(r)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(func() { _ = s.Close() })
	return s, ca, got
}

// TestServerGoClient: Go's client over HTTP/2 and HTTP/1.1. Its ClientHello is
// crypto/tls's (TLS 1.3, no GREASE) and its HTTP/2 pseudo-headers come in Go's order
// :authority, :method, :path, :scheme (x/net/http2 encodeHeaders).
func TestServerGoClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		h2    bool
		alpn  string
		proto string
	}{
		{"h2", true, "h2", "HTTP/2.0"},
		{"http/1.1", false, "http/1.1", "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, ca, got := newServer(t)
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), ServerName: "fp.test"}, ForceAttemptHTTP2: tc.h2}
			if !tc.h2 {
				tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
				tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
			}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequest("GET", "https://"+s.Addr().String()+"/page", nil)
			req.Header.Set("User-Agent", "fp-test/1")
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.Proto != tc.proto {
				t.Errorf("proto %s, want %s", resp.Proto, tc.proto)
			}
			f := <-got
			if f == nil || f.Hello == nil {
				t.Fatal("no fingerprint in the request's context")
			}
			if f.ALPN != tc.alpn || f.Hello.ServerName != "fp.test" || !strings.HasPrefix(f.JA4, "t13d") || f.JA3Hash == "" {
				t.Errorf("fingerprint: alpn %q sni %q ja4 %s ja3 %s", f.ALPN, f.Hello.ServerName, f.JA4, f.JA3Hash)
			}
			if slices.ContainsFunc(f.Hello.CipherSuites, fingerprint.IsGREASE) {
				t.Error("Go's ClientHello has GREASE")
			}
			if f.Header("user-agent") != "fp-test/1" {
				t.Errorf("headers %v", f.Headers)
			}
			if tc.h2 {
				if f.HTTP2 == nil || !strings.HasSuffix(f.HTTP2Fingerprint, "|a,m,p,s") || len(f.HTTP2.Settings) == 0 {
					t.Errorf("HTTP/2 fingerprint %q", f.HTTP2Fingerprint)
				}
			} else if f.HTTP2 != nil || f.Headers[0][0] != "Host" {
				t.Errorf("HTTP/1.1: %v %v", f.HTTP2, f.Headers)
			}
			if cs := s.Connections(); len(cs) != 1 || cs[0].JA4 != f.JA4 {
				t.Errorf("Connections %v", cs)
			}
		})
	}
}

// TestServerHeaderOrder: the order of the headers as sent on the wire, which net/http's
// Request.Header (a map) loses: raw HTTP/1.1 lines, and an HTTP/2 connection opened as
// Chrome does (chromeStart) with its priority flag.
func TestServerHeaderOrder(t *testing.T) {
	t.Parallel()
	t.Run("http/1.1", func(t *testing.T) {
		t.Parallel()
		s, ca, got := newServer(t)
		c, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: ca.Pool(), ServerName: "fp.test", NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: fp.test\r\nZ-First: 1\r\nuser-agent: raw/1\r\nA-Last: 2, 3\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		f := <-got
		want := [][2]string{{"Host", "fp.test"}, {"Z-First", "1"}, {"user-agent", "raw/1"}, {"A-Last", "2, 3"}, {"Connection", "close"}}
		if !slices.Equal(f.Headers, want) {
			t.Errorf("Headers = %v, want %v", f.Headers, want)
		}
		if p := f.Profile("x"); p.UserAgent != "raw/1" || p.Headers[0] != [2]string{"z-first", "1"} {
			t.Errorf("Profile %+v", p)
		}
	})
	t.Run("h2", func(t *testing.T) {
		t.Parallel()
		s, ca, got := newServer(t)
		c, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: ca.Pool(), ServerName: "fp.test", NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write(chromeStart(t, nil, false, false)); err != nil {
			t.Fatal(err)
		}
		fr := http2.NewFramer(c, c)
		for { // until the response's HEADERS
			frame, err := fr.ReadFrame()
			if err != nil {
				t.Fatal(err)
			}
			if sf, ok := frame.(*http2.SettingsFrame); ok && !sf.IsAck() {
				_ = fr.WriteSettingsAck()
			}
			if _, ok := frame.(*http2.HeadersFrame); ok {
				break
			}
		}
		f := <-got
		if f.HTTP2Fingerprint != "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p" {
			t.Errorf("HTTP2Fingerprint = %s", f.HTTP2Fingerprint)
		}
		p := f.Profile("chrome-like")
		if p.HTTP2.WindowUpdate != 15663105 || p.HTTP2.HeadersPriority == nil || p.HTTP2.HeadersPriority.Weight != 255 ||
			!slices.Equal(p.HTTP2.PseudoHeaderOrder, []string{":method", ":authority", ":scheme", ":path"}) ||
			p.Headers[0][0] != "sec-ch-ua" || p.UserAgent != "Mozilla/5.0" {
			t.Errorf("Profile %+v", p)
		}
		h, err := fingerprint.ParseClientHello(f.Hello.Raw)
		if err != nil || h.JA4() != f.JA4 {
			t.Errorf("Hello.Raw: %v", err)
		}
	})
}

// TestServerNotTLS: a client that does not speak TLS is dropped, and the server still
// serves the next one.
func TestServerNotTLS(t *testing.T) {
	t.Parallel()
	s, ca, got := newServer(t)
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("plain HTTP got an answer")
	}
	_ = c.Close()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), ServerName: "fp.test"}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://" + s.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	<-got
	if n := len(s.Connections()); n != 1 {
		t.Errorf("%d connections recorded, want the TLS one", n)
	}
}

// splitConn splits the client's first TLS record (its ClientHello) into records of at
// most n bytes of payload each, as RFC 8446 §5.1 allows and clients with large key shares
// do.
type splitConn struct {
	net.Conn
	n    int
	done bool
}

func (c *splitConn) Write(p []byte) (int, error) {
	if c.done || len(p) < 5 || p[0] != 0x16 {
		return c.Conn.Write(p)
	}
	c.done = true
	l := int(p[3])<<8 | int(p[4])
	body, rest := p[5:5+l], p[5+l:]
	var out []byte
	for len(body) > 0 {
		k := min(c.n, len(body))
		out = append(out, 0x16, p[1], p[2], byte(k>>8), byte(k))
		out = append(out, body[:k]...)
		body = body[k:]
	}
	if _, err := c.Conn.Write(append(out, rest...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// TestServerClientHelloAcrossRecords: a ClientHello split over several records is read
// whole, and the handshake still completes on the bytes the server peeked.
func TestServerClientHelloAcrossRecords(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 7, 100} {
		t.Run("records of "+strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			s, ca, got := newServer(t)
			tr := &http.Transport{
				TLSClientConfig:   &tls.Config{RootCAs: ca.Pool(), ServerName: "fp.test"},
				ForceAttemptHTTP2: true,
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					return &splitConn{Conn: c, n: n}, nil
				},
			}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get("https://" + s.Addr().String() + "/")
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			f := <-got
			if f.Hello.ServerName != "fp.test" || f.HTTP2 == nil || f.Hello.Raw[0] != 1 {
				t.Errorf("fingerprint %+v", f)
			}
		})
	}
}
