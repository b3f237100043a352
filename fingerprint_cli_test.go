package main

import (
	"crypto/tls"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/fingerprint"
	"github.com/jscrawl/jscrawl/engine/impersonate"
)

// goJA4 returns the JA4 of Go's own HTTP client (net/http's DefaultTransport), measured
// with a recording server.
func goJA4(t *testing.T) string {
	t.Helper()
	ca, err := fingerprint.NewCA("test")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue("example.com")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := fingerprint.Serve(ln, &tls.Config{Certificates: []tls.Certificate{cert}}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: ca.Pool(), ServerName: "example.com"}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return srv.Connections()[0].JA4
}

// TestFingerprintShow: show prints what a server sees of jscrawl's http(s) handler:
// without HTTP_IMPERSONATE, Go's ClientHello (the JA4 of net/http's own client) and
// HTTP/2 (pseudo-headers a,m,p,s), with the URL's host as SNI and :authority, and the
// headers the settings make, in order.
func TestFingerprintShow(t *testing.T) {
	t.Parallel()
	ja4 := goJA4(t)
	for _, tc := range []struct {
		name    string
		args    []string
		headers []string // among the printed headers, after the pseudo-headers in Go's order
	}{
		{"defaults", []string{"fingerprint", "show", "https://example.com/a?b=1"},
			[]string{"accept-encoding: gzip, deflate, br, zstd", "user-agent: jscrawl/", "accept-language: en"}},
		{"settings after the URL", []string{"fingerprint", "show", "https://example.com/a?b=1", "-s", "USER_AGENT=probe/1", "-s", `DEFAULT_REQUEST_HEADERS={"X-Probe": "yes"}`},
			[]string{"x-probe: yes", "user-agent: probe/1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, stderr, code := jscrawl(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			if !strings.Contains(out, "JA4            "+ja4+"\n") {
				t.Errorf("JA4 is not Go's %s:\n%s", ja4, out)
			}
			if !regexp.MustCompile(`(?m)^HTTP/2 +[0-9:;]+\|\d+\|0\|a,m,p,s$`).MatchString(out) ||
				!strings.Contains(out, `SNI "example.com"`) || !regexp.MustCompile(`(?m)^JA3 hash +[0-9a-f]{32}$`).MatchString(out) {
				t.Errorf("output:\n%s", out)
			}
			_, list, _ := strings.Cut(out, "headers, in the order sent:\n")
			// Go's HTTP/2 client sends the pseudo-headers in this order, then the others
			// in the order of a map's iteration.
			const pseudo = "  :authority: example.com\n  :method: GET\n  :path: /a?b=1\n  :scheme: https\n"
			if !strings.HasPrefix(list, pseudo) {
				t.Errorf("pseudo-headers:\n%s", list)
			}
			for _, h := range tc.headers {
				if !strings.Contains(list, "\n  "+h) {
					t.Errorf("%q missing in:\n%s", h, list)
				}
			}
		})
	}
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := jscrawl(t, "fingerprint", "show", "http://example.com/")
		if code != 2 || !strings.Contains(stderr, "https://") {
			t.Errorf("exit code %d: %s", code, stderr)
		}
	})
}

// TestFingerprintCapture runs capture with Debian's chromium: the profile written holds a
// ClientHello that parses to the JA4 printed, Chromium's HTTP/2 SETTINGS and its
// navigation headers with the windowed User-Agent.
func TestFingerprintCapture(t *testing.T) {
	t.Parallel()
	enginetest.RequireBrowser(t)
	out := filepath.Join(t.TempDir(), "profile.json")
	stdout, stderr, code := jscrawl(t, "fingerprint", "capture", "-o", out)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`^chromium-\d+\.\d+\.\d+\.\d+: JA4 (t13d\w+), HTTP/2 (\S+) -> `).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("summary %q", stdout)
	}
	p, err := impersonate.ReadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := hex.DecodeString(p.ClientHello)
	if err != nil {
		t.Fatal(err)
	}
	h, err := fingerprint.ParseClientHello(raw)
	if err != nil {
		t.Fatal(err)
	}
	if h.JA4() != m[1] || h.ServerName != fingerprint.CaptureHost {
		t.Errorf("profile's ClientHello: JA4 %s SNI %q, printed %s", h.JA4(), h.ServerName, m[1])
	}
	if !strings.HasPrefix(p.Name, "chromium-") || len(p.HTTP2.Settings) == 0 || p.HTTP2.Settings[0] != [2]uint32{1, 65536} ||
		p.HTTP2.WindowUpdate == 0 || !slices.Equal(p.HTTP2.PseudoHeaderOrder, []string{":method", ":authority", ":scheme", ":path"}) {
		t.Errorf("profile %s: HTTP2 %+v", p.Name, p.HTTP2)
	}
	names := make([]string, len(p.Headers))
	for i, hd := range p.Headers {
		names[i] = hd[0]
	}
	if !slices.Contains(names, "user-agent") || !slices.Contains(names, "sec-ch-ua") || slices.Contains(names, "host") ||
		!strings.Contains(p.UserAgent, " Chrome/") || strings.Contains(p.UserAgent, "Headless") {
		t.Errorf("headers %v, User-Agent %q", names, p.UserAgent)
	}
}

func TestFingerprintCaptureNoBrowser(t *testing.T) {
	t.Parallel()
	_, stderr, code := jscrawl(t, "fingerprint", "capture", "--browser", "/nonexistent/chromium", "-o", filepath.Join(t.TempDir(), "p.json"))
	if code != 1 || !strings.Contains(stderr, "/nonexistent/chromium") {
		t.Errorf("exit code %d: %s", code, stderr)
	}
}
