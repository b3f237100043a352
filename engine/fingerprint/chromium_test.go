package fingerprint_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// chromium returns Debian's chromium, skipping the test without one unless CI=true (the
// rule of enginetest.RequireBrowser, which this package cannot import: enginetest
// imports it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on PATH (CI=true)")
	}
	t.Skip("no Chromium on PATH, skipping (install Debian's chromium package to run this test)")
	return ""
}

// TestCaptureChromium drives the installed Chromium at a recording server: its
// ClientHello has GREASE and an SNI, JA4 over TLS 1.3 with h2, and its HTTP/2 connection
// starts with Chromium's SETTINGS (header table 65536, no push, a 6 MiB stream window,
// 256 KiB header list) and pseudo-headers m,a,s,p.
func TestCaptureChromium(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	f, err := fingerprint.Capture(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("JA4 %s HTTP/2 %s", f.JA4, f.HTTP2Fingerprint)
	if f.Hello.ServerName != fingerprint.CaptureHost || !strings.HasPrefix(f.JA4, "t13d") || !strings.Contains(f.JA4, "h2_") {
		t.Errorf("ClientHello: SNI %q JA4 %s", f.Hello.ServerName, f.JA4)
	}
	if !fingerprint.IsGREASE(f.Hello.CipherSuites[0]) {
		t.Errorf("no GREASE first among Chromium's ciphers: %x", f.Hello.CipherSuites)
	}
	if !strings.HasPrefix(f.HTTP2Fingerprint, "1:65536;2:0;4:6291456;6:262144|") || !strings.HasSuffix(f.HTTP2Fingerprint, "|m,a,s,p") {
		t.Errorf("HTTP/2 fingerprint %s", f.HTTP2Fingerprint)
	}
	if !strings.Contains(f.Header("user-agent"), "Chrome/") || f.Header("sec-ch-ua") == "" {
		t.Errorf("headers %v", f.Headers)
	}
	v, err := fingerprint.ChromiumVersion(ctx, path)
	if err != nil || !strings.Contains(f.Header("user-agent"), "Chrome/"+strings.Split(v, ".")[0]) {
		t.Errorf("version %q (%v) vs User-Agent %q", v, err, f.Header("user-agent"))
	}
}

func TestHeadedUserAgent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
			"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
			"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"},
		{"", ""},
	} {
		if got := fingerprint.HeadedUserAgent(tc.in); got != tc.want {
			t.Errorf("HeadedUserAgent(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
