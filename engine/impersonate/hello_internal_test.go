package impersonate

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	utls "github.com/bogdanfinn/utls"

	"github.com/jscrawl/jscrawl/engine"
)

// hello is what a test reads of a ClientHello.
type hello struct {
	msg        []byte   // the handshake message, from its type byte on
	ciphers    []uint16 // GREASE values as 0x0a0a
	extensions []uint16 // in the order sent, GREASE values as 0x0a0a
	groups     []uint16 // of the key_share extension, GREASE as 0x0a0a
	alpn       []string
}

func grease(v uint16) uint16 {
	if v&0x0f0f == 0x0a0a && v>>8 == v&0xff {
		return 0x0a0a
	}
	return v
}

// parseHello parses a ClientHello handshake message.
func parseHello(t *testing.T, msg []byte) hello {
	t.Helper()
	h := hello{msg: msg}
	b := msg[4:]        // type, length
	b = b[2+32:]        // version, random
	b = b[1+int(b[0]):] // session id
	n := int(binary.BigEndian.Uint16(b))
	for i := 2; i < 2+n; i += 2 {
		h.ciphers = append(h.ciphers, grease(binary.BigEndian.Uint16(b[i:])))
	}
	b = b[2+n:]
	b = b[1+int(b[0]):] // compression methods
	b = b[2:]           // extensions length
	for len(b) >= 4 {
		id, l := binary.BigEndian.Uint16(b), int(binary.BigEndian.Uint16(b[2:]))
		data := b[4 : 4+l]
		h.extensions = append(h.extensions, grease(id))
		switch id {
		case 51: // key_share
			d := data[2:]
			for len(d) >= 4 {
				h.groups = append(h.groups, grease(binary.BigEndian.Uint16(d)))
				d = d[4+int(binary.BigEndian.Uint16(d[2:])):]
			}
		case 16: // ALPN
			d := data[2:]
			for len(d) > 0 {
				h.alpn = append(h.alpn, string(d[1:1+int(d[0])]))
				d = d[1+int(d[0]):]
			}
		}
		b = b[4+l:]
	}
	return h
}

// captureHello listens on 127.0.0.1, sends the first TLS record of each connection to
// the returned channel (its handshake message) and closes the connection.
func captureHello(t *testing.T) (addr string, hellos <-chan []byte) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ch := make(chan []byte, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hdr := make([]byte, 5)
			if _, err := io.ReadFull(c, hdr); err == nil && hdr[0] == 0x16 {
				body := make([]byte, binary.BigEndian.Uint16(hdr[3:]))
				if _, err := io.ReadFull(c, body); err == nil {
					ch <- body
				}
			}
			c.Close()
		}
	}()
	return l.Addr().String(), ch
}

// helloOf returns the ClientHello rt sends to example.com (dialled on a capturing
// listener).
func helloOf(t *testing.T, rt func(dial func(ctx context.Context, network, addr string) (net.Conn, error)) http.RoundTripper) hello {
	t.Helper()
	addr, hellos := captureHello(t)
	var d net.Dialer
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	req, _ := http.NewRequest("GET", "https://example.com/", nil)
	if resp, err := rt(dial).RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatal("the capturing listener answered")
	}
	return parseHello(t, <-hellos)
}

func impersonating(b *Browser) func(dial func(ctx context.Context, network, addr string) (net.Conn, error)) http.RoundTripper {
	return func(dial func(ctx context.Context, network, addr string) (net.Conn, error)) http.RoundTripper {
		return NewTransport(Options{Browser: b, ConnOptions: engine.ConnOptions{DialContext: dial}})
	}
}

func goClient(dial func(ctx context.Context, network, addr string) (net.Conn, error)) http.RoundTripper {
	return &http.Transport{DialContext: dial, ForceAttemptHTTP2: true}
}

// specOf returns the cipher suites and extension IDs (sorted: Chrome permutes them) of
// the ClientHello uTLS builds from b's spec for example.com.
func specOf(t *testing.T, b *Browser) (ciphers, exts []uint16) {
	t.Helper()
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	uc := utls.UClient(c1, &utls.Config{ServerName: "example.com"}, b.client.GetClientHelloId(), false, false, true)
	if err := uc.BuildHandshakeState(); err != nil {
		t.Fatal(err)
	}
	h := parseHello(t, uc.HandshakeState.Hello.Raw)
	return h.ciphers, sorted(h.extensions)
}

func sorted(s []uint16) []uint16 {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.DeleteFunc(s, func(v uint16) bool { return v == 21 }) // padding: length-dependent
}

// TestClientHello: the ClientHello of each built-in profile has its cipher suites in its
// order and its extensions (Chrome's with GREASE, ALPS and GREASE ECH, and the
// X25519MLKEM768 key share), unlike Go's own, and offers h2 then http/1.1.
func TestClientHello(t *testing.T) {
	t.Parallel()
	gohello := helloOf(t, goClient)
	for _, tc := range []struct {
		name      string
		grease    bool
		groups    []uint16 // the key shares sent, GREASE as 0x0a0a
		extension []uint16 // some extensions to see
	}{
		{"chrome", true, []uint16{0x0a0a, 4588, 29}, []uint16{17613, 0xfe0d, 27}},
		{"chrome_120", true, []uint16{0x0a0a, 29}, []uint16{17513}},
		{"firefox", false, []uint16{4588, 29, 23}, []uint16{28, 34}},
		{"safari", true, nil, nil},
		{"safari_ios", true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			h := helloOf(t, impersonating(b))
			ciphers, exts := specOf(t, b)
			if !slices.Equal(h.ciphers, ciphers) {
				t.Errorf("cipher suites %x, want %x", h.ciphers, ciphers)
			}
			if got := sorted(h.extensions); !slices.Equal(got, sorted(exts)) {
				t.Errorf("extensions %v, want %v", got, sorted(exts))
			}
			if slices.Equal(h.ciphers, gohello.ciphers) || slices.Equal(sorted(h.extensions), sorted(gohello.extensions)) {
				t.Errorf("the same as Go's: %x %v", h.ciphers, h.extensions)
			}
			if got := h.ciphers[0] == 0x0a0a && h.extensions[0] == 0x0a0a; got != tc.grease {
				t.Errorf("GREASE first: %v, want %v (%x, %v)", got, tc.grease, h.ciphers, h.extensions)
			}
			if tc.groups != nil && !slices.Equal(h.groups, tc.groups) {
				t.Errorf("key shares %v, want %v", h.groups, tc.groups)
			}
			for _, e := range tc.extension {
				if !slices.Contains(h.extensions, e) {
					t.Errorf("no extension %d in %v", e, h.extensions)
				}
			}
			if !slices.Equal(h.alpn, []string{"h2", "http/1.1"}) {
				t.Errorf("ALPN %q", h.alpn)
			}
		})
	}
	if slices.Contains(gohello.extensions, 0x0a0a) {
		t.Errorf("Go's ClientHello has GREASE: %v", gohello.extensions)
	}
}

// TestProfileRoundTrip: a profile.json holding the ClientHello of the chrome profile
// reads back into a Browser that sends a ClientHello with the same cipher suites,
// extensions and key shares (X25519MLKEM768 included), and that downloads from an HTTP/2
// server over TLS.
func TestProfileRoundTrip(t *testing.T) {
	t.Parallel()
	chrome, err := Lookup("chrome")
	if err != nil {
		t.Fatal(err)
	}
	first := helloOf(t, impersonating(chrome))
	settings := [][2]uint32{}
	for _, id := range chrome.client.GetSettingsOrder() {
		settings = append(settings, [2]uint32{uint32(id), chrome.client.GetSettings()[id]})
	}
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := WriteProfile(path, &Profile{
		Name:        "chromium-test",
		UserAgent:   chrome.UserAgent,
		ClientHello: hex.EncodeToString(first.msg),
		HTTP2:       HTTP2{Settings: settings, WindowUpdate: chrome.client.GetConnectionFlow(), PseudoHeaderOrder: chrome.client.GetPseudoHeaderOrder()},
		Headers:     chrome.Headers,
	}); err != nil {
		t.Fatal(err)
	}
	bs, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bs[0]
	if b.Name != path || b.UserAgent != chrome.UserAgent || !slices.Equal(b.Order(), chrome.Order()) {
		t.Errorf("read back %s, %q, %v", b.Name, b.UserAgent, b.Order())
	}
	again := helloOf(t, impersonating(b))
	if !slices.Equal(again.ciphers, first.ciphers) {
		t.Errorf("cipher suites %x, captured %x", again.ciphers, first.ciphers)
	}
	if !slices.Equal(sorted(again.extensions), sorted(first.extensions)) {
		t.Errorf("extensions %v, captured %v", sorted(again.extensions), sorted(first.extensions))
	}
	if !slices.Equal(again.groups, first.groups) || !slices.Contains(again.groups, 4588) {
		t.Errorf("key shares %v, captured %v", again.groups, first.groups)
	}

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Proto, r.Header.Get("User-Agent"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	rt := NewTransport(Options{Browser: b, ConnOptions: engine.ConnOptions{RootCAs: pool}})
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("User-Agent", b.UserAgent)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := "HTTP/2.0 " + chrome.UserAgent; string(body) != want || resp.Proto != "HTTP/2.0" {
		t.Errorf("got %s %q, want %q", resp.Proto, body, want)
	}
}

// TestParse: names, aliases and lists resolve; an unknown name lists the known ones; a
// profile.json that is not one is refused.
func TestParse(t *testing.T) {
	t.Parallel()
	bs, err := Parse(" chrome , Firefox_133,safari_ios")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, " "); got != "chrome_133 firefox_133 safari_ios_18_5" {
		t.Errorf("names %s", got)
	}
	_, err = Parse("chrome,netscape")
	if err == nil || !strings.Contains(err.Error(), `unknown HTTP_IMPERSONATE profile "netscape" (known: chrome, chrome_120,`) {
		t.Errorf("error %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := WriteProfile(bad, &Profile{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "no clientHello") {
		t.Errorf("error %v", err)
	}
}

// TestTrace: the net/http/httptrace hooks of a request's context are called over HTTP/2
// and HTTP/1.1 (the download slots stamp their times with them), GotConn with the TLS
// connection, reused on the second request.
func TestTrace(t *testing.T) {
	t.Parallel()
	b, err := Lookup("chrome")
	if err != nil {
		t.Fatal(err)
	}
	for _, h2 := range []bool{true, false} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.Proto) }))
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		t.Cleanup(srv.Close)
		rt := NewTransport(Options{Browser: b, ConnOptions: engine.ConnOptions{InsecureSkipVerify: true}})
		for i := range 2 {
			var got []string
			var mu sync.Mutex
			note := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(info httptrace.GotConnInfo) {
					_, isTLS := info.Conn.(interface{ HandshakeContext(context.Context) error })
					note(fmt.Sprintf("conn tls=%v reused=%v", isTLS, info.Reused))
				},
				WroteHeaders:         func() { note("headers") },
				GotFirstResponseByte: func() { note("first byte") },
			})
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			mu.Lock()
			want := fmt.Sprintf("[conn tls=true reused=%v headers first byte]", i == 1)
			if fmt.Sprint(got) != want || string(body) != resp.Proto {
				t.Errorf("h2 %v, request %d: hooks %v, want %s; %s %q", h2, i, got, want, resp.Proto, body)
			}
			mu.Unlock()
		}
	}
}

// TestConcurrent: concurrent requests to a new HTTP/2 host share the one connection its
// first request made (as a browser does); to an HTTP/1.1 host they get keep-alive
// connections of their own, reused. Run with -race.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	b, err := Lookup("firefox")
	if err != nil {
		t.Fatal(err)
	}
	for _, h2 := range []bool{true, false} {
		var conns atomic.Int32
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.Proto) }))
		srv.EnableHTTP2 = h2
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		rt := NewTransport(Options{Browser: b, ConnOptions: engine.ConnOptions{InsecureSkipVerify: true, MaxIdleConnsPerHost: 32}})
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range 32 {
			wg.Go(func() {
				for range 4 {
					req, _ := http.NewRequest("GET", srv.URL, nil)
					resp, err := rt.RoundTrip(req)
					if err != nil {
						failed.Add(1)
						continue
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if string(body) != resp.Proto || (h2 && resp.Proto != "HTTP/2.0") {
						failed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if failed.Load() != 0 || (h2 && conns.Load() != 1) || conns.Load() >= 32*4 { // HTTP/1.1: some kept alive
			t.Errorf("h2 %v: %d failed, %d connections", h2, failed.Load(), conns.Load())
		}
	}
}
