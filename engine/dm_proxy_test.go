package engine_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// httpProxy is a forward HTTP proxy for tests: it serves absolute-URI requests by fetching
// them from the site (whatever the host), answering 407 without the expected
// Proxy-Authorization. It records the hosts it was asked for.
type httpProxy struct {
	*httptest.Server
	mu    sync.Mutex
	hosts []string
}

func newHTTPProxy(t *testing.T, target *redirectSite, user, pass string) *httpProxy {
	t.Helper()
	p := &httpProxy{}
	want := ""
	if user != "" {
		want = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	client := target.client()
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		if r.Header.Get("Proxy-Authorization") != want {
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			http.Error(w, "proxy auth", http.StatusProxyAuthRequired)
			return
		}
		p.mu.Lock()
		p.hosts = append(p.hosts, r.URL.Host)
		p.mu.Unlock()
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), r.Body)
		out.Header = r.Header.Clone()
		out.Header.Del("Proxy-Authorization")
		out.Header.Set("Via", "test-proxy")
		relay(w, client.Transport, out)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *httpProxy) Hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hosts...)
}

// socks5Server is a minimal SOCKS5 server (RFC 1928, with RFC 1929 user/password auth
// when user is set): it CONNECTs every request to target, whatever address is asked, and
// records the addresses.
type socks5Server struct {
	l     net.Listener
	mu    sync.Mutex
	addrs []string
	conns []net.Conn
	wg    sync.WaitGroup
}

func newSOCKS5(t *testing.T, target, user, pass string) *socks5Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &socks5Server{l: l}
	s.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Go(func() { s.serve(c, target, user, pass) })
		}
	})
	t.Cleanup(func() {
		l.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close() // keep-alive connections of the crawler's Transport
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *socks5Server) Addrs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.addrs...)
}

func (s *socks5Server) serve(c net.Conn, target, user, pass string) {
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
	if user != "" {
		method = 2
	}
	if !strings.ContainsRune(string(methods), rune(method)) {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, method})
	if method == 2 { // VER ULEN UNAME PLEN PASSWD
		if _, err := io.ReadFull(r, buf[:2]); err != nil {
			return
		}
		u := make([]byte, buf[1])
		io.ReadFull(r, u)
		io.ReadFull(r, buf[:1])
		p := make([]byte, buf[0])
		io.ReadFull(r, p)
		if string(u) != user || string(p) != pass {
			c.Write([]byte{1, 1})
			return
		}
		c.Write([]byte{1, 0})
	}
	// Request: VER CMD RSV ATYP DST.ADDR DST.PORT
	if _, err := io.ReadFull(r, buf[:4]); err != nil || buf[1] != 1 {
		return
	}
	var host string
	switch buf[3] {
	case 1:
		io.ReadFull(r, buf[:4])
		host = net.IP(buf[:4]).String()
	case 3:
		io.ReadFull(r, buf[:1])
		n := int(buf[0])
		io.ReadFull(r, buf[:n])
		host = string(buf[:n])
	case 4:
		io.ReadFull(r, buf[:16])
		host = net.IP(buf[:16]).String()
	default:
		return
	}
	io.ReadFull(r, buf[:2])
	port := binary.BigEndian.Uint16(buf[:2])
	s.mu.Lock()
	s.addrs = append(s.addrs, net.JoinHostPort(host, strconv.Itoa(int(port))))
	s.mu.Unlock()
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	var copying sync.WaitGroup
	copying.Go(func() { io.Copy(up, r); up.Close() })
	io.Copy(c, up)
	c.Close()
	copying.Wait()
}

func TestProxy(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	open := newHTTPProxy(t, s, "", "")
	authed := newHTTPProxy(t, s, "alice", "s3cret")
	socks := newSOCKS5(t, s.Listener.Addr().String(), "", "")
	socksAuthed := newSOCKS5(t, s.Listener.Addr().String(), "bob", "pw")
	hostport := func(u string) string { return strings.TrimPrefix(u, "http://") }

	for _, tc := range []struct {
		name   string
		proxy  any
		kv     map[string]any
		status int
		via    string // the Via header the HTTP proxy adds
		check  func(t *testing.T)
	}{
		{"http proxy", open.URL, nil, 200, "test-proxy", func(t *testing.T) {
			if h := open.Hosts(); len(h) == 0 || h[len(h)-1] != "site.test" {
				t.Errorf("proxy saw %v", h)
			}
		}},
		{"bare host:port", hostport(open.URL), nil, 200, "test-proxy", nil},
		{"http proxy with credentials", "http://alice:s3cret@" + hostport(authed.URL), nil, 200, "test-proxy", nil},
		{"http proxy, wrong credentials", "http://alice:nope@" + hostport(authed.URL), nil, 407, "", nil},
		{"socks5", "socks5://" + socks.l.Addr().String(), nil, 200, "", func(t *testing.T) {
			if a := socks.Addrs(); len(a) == 0 {
				t.Error("the SOCKS5 server saw nothing")
			}
		}},
		{"socks5h with credentials", "socks5h://bob:pw@" + socksAuthed.l.Addr().String(), nil, 200, "", func(t *testing.T) {
			if a := socksAuthed.Addrs(); len(a) == 0 || a[len(a)-1] != "site.test:80" {
				t.Errorf("SOCKS5 CONNECT to %v, want site.test:80 (resolved by the proxy)", a)
			}
		}},
		{"HTTPPROXY_ENABLED false ignores meta.proxy", "http://127.0.0.1:1", map[string]any{types.HTTPProxyEnabled: false}, 200, "", nil},
		{"null is no proxy", nil, nil, 200, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Not parallel: the proxies' records are shared.
			e, _ := newEngine(t, &enginetest.Spider{}, tc.kv, engine.WithHTTPClient(s.client()))
			if tc.proxy != nil && !strings.Contains(tc.name, "HTTPPROXY_ENABLED") {
				// A real client, so the proxy is dialled (dialTo would skip it).
				e, _ = newEngine(t, &enginetest.Spider{}, tc.kv)
			}
			resp, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/echo",
				Meta: types.Item{{Key: "proxy", Value: tc.proxy}}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
			}
			if tc.status == 200 {
				ec := decodeEcho(t, resp)
				if ec.Headers.Get("Via") != tc.via {
					t.Errorf("Via = %q, want %q", ec.Headers.Get("Via"), tc.via)
				}
				if ec.Headers.Get("Proxy-Authorization") != "" {
					t.Error("Proxy-Authorization reached the site")
				}
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}

	t.Run("bad meta.proxy", func(t *testing.T) {
		e, _ := newEngine(t, &enginetest.Spider{}, nil)
		for _, p := range []any{"ftp://x:1", int64(3)} {
			_, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/echo", Meta: types.Item{{Key: "proxy", Value: p}}})
			if engine.ErrorName(err) != engine.NameInvalidURL {
				t.Errorf("proxy %v: %v", p, err)
			}
		}
		if n := stat(e, "downloader/exception_type_count/InvalidURLError"); n != 2 {
			t.Errorf("downloader/exception_type_count/InvalidURLError = %d, want 2", n)
		}
	})
}

// TestProxyConnect: an https URL goes through an HTTP proxy with CONNECT, the credentials
// of meta.proxy in the CONNECT request; WithHTTPClient's Transport (here trusting the test
// certificate) is kept.
func TestProxyConnect(t *testing.T) {
	t.Parallel()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls %s %s", r.Host, r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(tlsSrv.Close)
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
	var mu sync.Mutex
	var connects []string
	proxy := connectProxy(t, tlsSrv.Listener.Addr().String(), func(r *http.Request) bool {
		if r.Method != http.MethodConnect || r.Header.Get("Proxy-Authorization") != want {
			return false
		}
		mu.Lock()
		connects = append(connects, r.Host)
		mu.Unlock()
		return true
	})

	e, _ := newEngine(t, &enginetest.Spider{}, nil, engine.WithHTTPClient(tlsSrv.Client()))
	resp, err := e.Download(context.Background(), &types.Request{URL: "https://example.com/x",
		Meta: types.Item{{Key: "proxy", Value: "http://u:p@" + strings.TrimPrefix(proxy.URL, "http://")}}})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "tls example.com " {
		t.Errorf("body %q (the site must not see Proxy-Authorization)", resp.Body)
	}
	mu.Lock()
	got := fmt.Sprint(connects)
	mu.Unlock()
	if got != "[example.com:443]" {
		t.Errorf("CONNECTs %s", got)
	}
}

// connectProxy starts an HTTP proxy that answers CONNECT requests ok accepts (407
// otherwise) with a tunnel to upstream, the address of a test server whatever host the
// request names. Its tunnels are closed and waited for when the test ends (the crawler's
// Transport would keep them alive).
func connectProxy(t *testing.T, upstream string, ok func(r *http.Request) bool) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	var open []net.Conn // both ends of each tunnel
	var tunnels sync.WaitGroup
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ok(r) {
			http.Error(w, "CONNECT with credentials only", http.StatusProxyAuthRequired)
			return
		}
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		c, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		mu.Lock()
		open = append(open, c, up)
		mu.Unlock()
		tunnels.Go(func() { _, _ = buf.WriteTo(up); up.Close() })
		_, _ = io.Copy(c, up)
		c.Close()
	}))
	t.Cleanup(func() {
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		proxy.Close()
		tunnels.Wait()
	})
	return proxy
}
