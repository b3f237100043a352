package engine_test

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/impersonate"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// wireRequest is what a wire server read of one request: the connection's SETTINGS (in
// order) and WINDOW_UPDATE (HTTP/2), the pseudo-headers' and headers' names in order and
// the headers' values.
type wireRequest struct {
	settings     [][2]uint32
	windowUpdate uint32
	pseudo       []string
	path         string
	names        []string // in lower case, in the order sent
	header       map[string]string
}

// testCert returns the certificate httptest's TLS servers use.
func testCert(t *testing.T) tls.Certificate {
	t.Helper()
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	defer s.Close()
	return s.TLS.Certificates[0]
}

// wireServer is a TLS server on 127.0.0.1 that speaks just enough HTTP/2 (h2) or
// HTTP/1.1 to answer "ok" to GET requests, and sends what it read of each request to
// Requests: the HTTP/2 frames through x/net's Framer and hpack, which keep their order
// (Go's http.Server does not).
type wireServer struct {
	addr     string
	Requests chan wireRequest
	drop     atomic.Int32 // requests to answer by closing the connection
}

func newWireServer(t *testing.T, proto string) *wireServer {
	t.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{testCert(t)}, NextProtos: []string{proto}})
	if err != nil {
		t.Fatal(err)
	}
	s := &wireServer{addr: l.Addr().String(), Requests: make(chan wireRequest, 16)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				if proto == "h2" {
					s.serveH2(c)
				} else {
					s.serveH1(c)
				}
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

func (s *wireServer) serveH2(c net.Conn) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(65536, nil)
	if fr.WriteSettings() != nil {
		return
	}
	var conn wireRequest
	var hbuf strings.Builder
	enc := hpack.NewEncoder(&hbuf)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			_ = f.ForeachSetting(func(st http2.Setting) error {
				conn.settings = append(conn.settings, [2]uint32{uint32(st.ID), st.Val})
				return nil
			})
			if fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 && conn.windowUpdate == 0 {
				conn.windowUpdate = f.Increment
			}
		case *http2.MetaHeadersFrame:
			if s.drop.Add(-1) >= 0 {
				return // the connection closes with the request unanswered
			}
			r := wireRequest{settings: conn.settings, windowUpdate: conn.windowUpdate, header: map[string]string{}}
			for _, hf := range f.Fields {
				if strings.HasPrefix(hf.Name, ":") {
					r.pseudo = append(r.pseudo, hf.Name)
					if hf.Name == ":path" {
						r.path = hf.Value
					}
					continue
				}
				if !slices.Contains(r.names, hf.Name) {
					r.names = append(r.names, hf.Name)
				}
				r.header[hf.Name] = hf.Value
			}
			hbuf.Reset()
			_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			_ = enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "text/plain"})
			if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: []byte(hbuf.String()), EndHeaders: true}) != nil ||
				fr.WriteData(f.StreamID, true, []byte("ok")) != nil {
				return
			}
			s.Requests <- r
		}
	}
}

func (s *wireServer) serveH1(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		r := wireRequest{header: map[string]string{}}
		if f := strings.Fields(line); len(f) == 3 {
			r.path = f[1]
		}
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			k, v, _ := strings.Cut(line, ":")
			k = strings.ToLower(k)
			r.names = append(r.names, k)
			r.header[k] = strings.TrimSpace(v)
		}
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
		s.Requests <- r
	}
}

// next returns the request for path the server read (robots.txt comes first).
func (s *wireServer) next(t *testing.T, path string) wireRequest {
	t.Helper()
	for r := range s.Requests {
		if r.path == path {
			return r
		}
	}
	t.Fatal("no request")
	return wireRequest{}
}

// testSession is a DownloadSession presenting profile.
type testSession struct{ profile string }

func (s testSession) Name() string            { return "s1" }
func (s testSession) Jar() http.CookieJar     { j, _ := cookiejar.New(nil); return j }
func (s testSession) Profile() string         { return s.profile }
func (s testSession) UsedProxy(masked string) {}

func browser(t *testing.T, name string) *impersonate.Browser {
	t.Helper()
	b, err := impersonate.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func header(b *impersonate.Browser, name string) string {
	for _, kv := range b.Headers {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}

// sentOrder returns b's header order restricted to the names in sent, then the others
// sorted: the order the transport sends headers in.
func sentOrder(b *impersonate.Browser, sent []string) []string {
	var out []string
	for _, n := range b.Order() {
		if slices.Contains(sent, n) {
			out = append(out, n)
		}
	}
	var rest []string
	for _, n := range sent {
		if !slices.Contains(out, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// TestImpersonateWire: with HTTP_IMPERSONATE the server reads the profile's HTTP/2
// SETTINGS in its order, its connection WINDOW_UPDATE, its pseudo-header order and its
// navigation headers in its order, with its User-Agent and Accept unless the request,
// USER_AGENT or DEFAULT_REQUEST_HEADERS set their own; a session presents its own
// profile; over HTTP/1.1 the header order holds too. Without the setting Go's client
// shows (its SETTINGS, jscrawl's User-Agent).
func TestImpersonateWire(t *testing.T) {
	t.Parallel()
	h2srv := newWireServer(t, "h2")
	h1srv := newWireServer(t, "http/1.1")
	chrome, firefox := browser(t, "chrome"), browser(t, "firefox")
	chromeSettings := [][2]uint32{{1, 65536}, {2, 0}, {4, 6291456}, {6, 262144}}
	for _, tc := range []struct {
		name     string
		srv      *wireServer
		kv       map[string]any
		headers  http.Header
		session  string
		want     *impersonate.Browser // nil: Go's client
		ua       string               // "": want's
		accept   string               // "": want's
		pseudo   []string
		settings [][2]uint32
		proto    string
	}{
		{name: "chrome", srv: h2srv, kv: map[string]any{"HTTP_IMPERSONATE": "chrome"}, want: chrome,
			pseudo: []string{":method", ":authority", ":scheme", ":path"}, settings: chromeSettings, proto: "HTTP/2.0"},
		{name: "firefox", srv: h2srv, kv: map[string]any{"HTTP_IMPERSONATE": "firefox"}, want: firefox,
			pseudo: []string{":method", ":path", ":authority", ":scheme"}, settings: [][2]uint32{{1, 65536}, {2, 0}, {4, 131072}, {5, 16384}}, proto: "HTTP/2.0"},
		{name: "USER_AGENT and Accept set", srv: h2srv, kv: map[string]any{"HTTP_IMPERSONATE": "chrome",
			"USER_AGENT": "mybot/1", "DEFAULT_REQUEST_HEADERS": map[string]any{"Accept": "application/json", "Accept-Language": "en"}},
			want: chrome, ua: "mybot/1", accept: "application/json", settings: chromeSettings, proto: "HTTP/2.0"},
		{name: "request headers", srv: h2srv, kv: map[string]any{"HTTP_IMPERSONATE": "chrome"},
			headers: http.Header{"User-Agent": {"req/1"}, "X-Custom": {"1"}, "Referer": {"https://example.com/"}},
			want:    chrome, ua: "req/1", settings: chromeSettings, proto: "HTTP/2.0"},
		{name: "session profile", srv: h2srv, kv: map[string]any{"HTTP_IMPERSONATE": "chrome,firefox"}, session: "firefox",
			want: firefox, pseudo: []string{":method", ":path", ":authority", ":scheme"}, proto: "HTTP/2.0"},
		{name: "chrome over HTTP/1.1", srv: h1srv, kv: map[string]any{"HTTP_IMPERSONATE": "chrome"}, want: chrome, proto: "HTTP/1.1"},
		{name: "off", srv: h2srv, ua: "jscrawl/" + types.Version + " (+https://github.com/jscrawl/jscrawl)",
			accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", proto: "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := map[string]any{types.DownloadVerifyTLS: false, types.RobotsTxtObey: false}
			for k, v := range tc.kv {
				kv[k] = v
			}
			e, _ := newEngine(t, &enginetest.Spider{}, kv)
			ctx := context.Background()
			if tc.session != "" {
				ctx = engine.WithSession(ctx, testSession{tc.session})
			}
			path := "/" + strings.ReplaceAll(tc.name, " ", "-")
			resp, err := e.Download(ctx, &types.Request{URL: "https://" + tc.srv.addr + path, Headers: tc.headers})
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != "ok" || resp.Protocol != tc.proto {
				t.Errorf("response %s %q, want %s", resp.Protocol, resp.Body, tc.proto)
			}
			r := tc.srv.next(t, path)
			ua, accept := tc.ua, tc.accept
			if tc.want != nil {
				if ua == "" {
					ua = tc.want.UserAgent
				}
				if accept == "" {
					accept = header(tc.want, "accept")
				}
				if want := sentOrder(tc.want, r.names); !slices.Equal(r.names, want) {
					t.Errorf("header order\n%v, want\n%v", r.names, want)
				}
				for _, n := range tc.want.Order() {
					if n != "cookie" && n != "referer" && !slices.Contains(r.names, n) {
						t.Errorf("%s not sent: %v", n, r.names)
					}
				}
			}
			if tc.want != nil && r.header["accept-language"] != header(tc.want, "accept-language") {
				t.Errorf("accept-language %q, want the profile's", r.header["accept-language"])
			}
			if r.header["user-agent"] != ua || r.header["accept"] != accept {
				t.Errorf("user-agent %q, accept %q; want %q, %q", r.header["user-agent"], r.header["accept"], ua, accept)
			}
			if tc.pseudo != nil && !slices.Equal(r.pseudo, tc.pseudo) {
				t.Errorf("pseudo-headers %v, want %v", r.pseudo, tc.pseudo)
			}
			if tc.settings != nil && !slices.Equal(r.settings, tc.settings) {
				t.Errorf("SETTINGS %v, want %v", r.settings, tc.settings)
			}
			if tc.want == nil && (slices.Equal(r.settings, chromeSettings) || r.windowUpdate == 15663105) {
				t.Errorf("Go's client sent Chrome's SETTINGS %v, WINDOW_UPDATE %d", r.settings, r.windowUpdate)
			}
			if tc.want == chrome && tc.proto == "HTTP/2.0" && r.windowUpdate != 15663105 {
				t.Errorf("WINDOW_UPDATE %d, want 15663105", r.windowUpdate)
			}
		})
	}
}

// echoTLS is an HTTP/2 TLS server answering "<proto> <host> <user-agent>"; /to?url=U
// redirects to U.
func echoTLS(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.URL.Query().Get("url"); r.URL.Path == "/to" && u != "" {
			http.Redirect(w, r, u, http.StatusFound)
			return
		}
		fmt.Fprintf(w, "%s %s %s", r.Proto, r.Host, r.Header.Get("User-Agent"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestImpersonateProxies: through a CONNECT proxy and a SOCKS5 server, both with
// credentials, an https download presents the profile (its User-Agent) over HTTP/2 to
// the site, which never sees the proxy's credentials; the proxies were asked for the
// site's host.
func TestImpersonateProxies(t *testing.T) {
	t.Parallel()
	srv := echoTLS(t)
	chrome := browser(t, "chrome")
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
	upstream := srv.Listener.Addr().String()
	connect := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{User: "u", Pass: "p",
		Upstream: func(string) string { return upstream }})
	connects := func() []string {
		var out []string
		for _, r := range connect.Seen() {
			if r.Method == http.MethodConnect && r.Auth == want && !r.Refused {
				out = append(out, r.Target)
			}
		}
		return out
	}
	socks := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{User: "bob", Pass: "pw", Upstream: toSite(srv.Listener)})
	socksAsked := func() []string {
		var out []string
		for _, r := range socks.Seen() {
			out = append(out, r.Target)
		}
		return out
	}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(r.Header)
	}))
	t.Cleanup(echo.Close)
	forward := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{User: "alice", Pass: "s3cret", Upstream: toSite(echo.Listener)})
	for _, tc := range []struct {
		name, proxy string
		asked       func() []string
		url, want   string // "": https://example.com/x answering over HTTP/2
	}{
		{"forward HTTP proxy", forward.URL(), func() []string {
			var out []string
			for _, r := range forward.Seen() {
				out = append(out, r.Target)
			}
			return out
		}, "http://example.com/echo", `"User-Agent":["` + chrome.UserAgent + `"]`},
		{"CONNECT", connect.URL(), connects, "", ""},
		{"SOCKS5", socks.URL("socks5"), socksAsked, "", ""},
		{"SOCKS5h", socks.URL("socks5h"), socksAsked, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{"HTTP_IMPERSONATE": "chrome", types.RobotsTxtObey: false,
				types.DownloadTimeout: 20, types.RetryEnabled: false}, engine.WithHTTPClient(srv.Client())) // its Transport trusts the test certificate
			u := cmp.Or(tc.url, "https://example.com/x")
			resp, err := e.Download(context.Background(), &types.Request{URL: u,
				Meta: types.Item{{Key: "proxy", Value: tc.proxy}}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" {
				if !strings.Contains(string(resp.Body), tc.want) || resp.Protocol != "HTTP/1.1" || strings.Contains(string(resp.Body), "s3cret") {
					t.Errorf("%s %s, want %s", resp.Protocol, resp.Body, tc.want)
				}
			} else if want := "HTTP/2.0 example.com " + chrome.UserAgent; string(resp.Body) != want || resp.Protocol != "HTTP/2.0" {
				t.Errorf("%s %q, want %q", resp.Protocol, resp.Body, want)
			}
			if got := tc.asked(); !slices.ContainsFunc(got, func(a string) bool {
				return a == "example.com:443" || strings.HasPrefix(a, "http://example.com/")
			}) {
				t.Errorf("the proxy was asked for %v", got)
			}
		})
	}
}

// TestImpersonateRedirectWARC: a redirect to another host is followed with the same
// profile (a new connection, HTTP/2, the profile's User-Agent), and the WARC file
// records the User-Agent and client hints that were sent; its replay gives the response
// back with its protocol.
func TestImpersonateRedirectWARC(t *testing.T) {
	t.Parallel()
	srv := echoTLS(t)
	chrome := browser(t, "chrome")
	path := filepath.Join(t.TempDir(), "crawl.warc.gz")
	w, err := warc.Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]any{"HTTP_IMPERSONATE": "chrome", types.RobotsTxtObey: false}
	client := dialTLSTo(srv)
	e, _ := newEngine(t, &enginetest.Spider{}, kv, engine.WithHTTPClient(client), engine.WithWARC(w))
	resp, err := e.Download(context.Background(), &types.Request{URL: "https://a.example.com/to?url=https://b.example.com/page"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "HTTP/2.0 b.example.com " + chrome.UserAgent; string(resp.Body) != want || resp.Protocol != "HTTP/2.0" || resp.URL != "https://b.example.com/page" {
		t.Errorf("%s %s %q, want %q", resp.URL, resp.Protocol, resp.Body, want)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"User-Agent: " + chrome.UserAgent, "Sec-Ch-Ua: " + header(chrome, "sec-ch-ua"), "Accept: " + header(chrome, "accept"), "HTTP/2.0 200 OK"} {
		if n := strings.Count(string(raw), line+"\r\n"); n < 1 {
			t.Errorf("the WARC file lacks %q", line)
		}
	}

	a := engine.OpenArchive(t, path)
	e2, _ := newEngine(t, &enginetest.Spider{}, kv, engine.WithReplay(a, false))
	rep, err := e2.Download(context.Background(), &types.Request{URL: "https://b.example.com/page"})
	if err != nil {
		t.Fatal(err)
	}
	if string(rep.Body) != string(resp.Body) || rep.Protocol != "HTTP/2.0" {
		t.Errorf("replayed %s %q", rep.Protocol, rep.Body)
	}
}

// dialTLSTo returns srv's client with every host dialled to srv.
func dialTLSTo(srv *httptest.Server) *http.Client {
	c := srv.Client()
	t := c.Transport.(*http.Transport).Clone()
	var d net.Dialer
	t.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}
	return &http.Client{Transport: t}
}

// TestImpersonateUnknown: an unknown profile fails the download, naming the known ones.
func TestImpersonateUnknown(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{"HTTP_IMPERSONATE": "netscape", types.RobotsTxtObey: false})
	_, err := e.Download(context.Background(), &types.Request{URL: "https://127.0.0.1:1/"})
	if err == nil || !strings.Contains(err.Error(), `unknown HTTP_IMPERSONATE profile "netscape" (known: chrome,`) {
		t.Errorf("error %v", err)
	}
	if err := engine.CheckImpersonate(settings(t, map[string]any{"HTTP_IMPERSONATE": "netscape"})); err == nil {
		t.Error("CheckImpersonate accepts netscape")
	}
}

// TestImpersonateRetry: a connection the server closes with the request unanswered fails
// the download (ResponseNeverReceived); RetryMiddleware sends it again, over a new
// connection presenting the same profile.
func TestImpersonateRetry(t *testing.T) {
	t.Parallel()
	srv := newWireServer(t, "h2")
	srv.drop.Store(1)
	chrome := browser(t, "chrome")
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{"HTTP_IMPERSONATE": "chrome", types.DownloadVerifyTLS: false})
	resp, err := e.Download(context.Background(), &types.Request{URL: "https://" + srv.addr + "/retry"})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.next(t, "/retry")
	if string(resp.Body) != "ok" || r.header["user-agent"] != chrome.UserAgent || r.windowUpdate != 15663105 {
		t.Errorf("%q, user-agent %q, WINDOW_UPDATE %d", resp.Body, r.header["user-agent"], r.windowUpdate)
	}
	if got := stat(e, "retry/count"); got != 1 {
		t.Errorf("retry/count %d, want 1", got)
	}
}

// TestImpersonateCache: with the HTTP cache, the second download of a page is the cached
// response of the first, its protocol kept.
func TestImpersonateCache(t *testing.T) {
	t.Parallel()
	srv := echoTLS(t)
	chrome := browser(t, "chrome")
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{"HTTP_IMPERSONATE": "chrome",
		types.HTTPCacheEnabled: true, types.HTTPCacheDir: t.TempDir()}, engine.WithHTTPClient(srv.Client()))
	var got []string
	for range 2 {
		resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/page"})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %v", resp.Protocol, resp.Body, resp.Flags))
	}
	page := "HTTP/2.0 HTTP/2.0 " + strings.TrimPrefix(srv.URL, "https://") + " " + chrome.UserAgent
	if want := []string{page + " []", page + " [cached]"}; !slices.Equal(got, want) {
		t.Errorf("got\n%q, want\n%q", got, want)
	}
}
