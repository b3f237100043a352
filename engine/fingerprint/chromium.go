package fingerprint

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// chromiumFlags are the flags RunChromium starts Chromium with, besides the user data
// folder, the host mapping and the URL: headless, quiet (no first-run, background or
// component traffic), TCP only (no QUIC) and trusting any certificate, for loopback
// servers with throwaway ones. None of them changes the ClientHello or the HTTP/2
// frames Chromium sends.
func chromiumFlags() []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--no-proxy-server", "--ignore-certificate-errors",
	}
}

// RunChromium runs the Chromium at path headless on rawURL until the page has loaded and
// returns the DOM it printed (--dump-dom). Its flags (--headless, --no-sandbox,
// --disable-gpu, --disable-quic, --no-first-run, --disable-background-networking,
// --disable-component-update, --disable-sync, --disable-dev-shm-usage, --no-proxy-server,
// --ignore-certificate-errors) keep it quiet and on TCP, and change neither its
// ClientHello nor its HTTP/2 frames. Each of loopback is a host name resolved to
// 127.0.0.1 (--host-resolver-rules), so that Chromium connects to a loopback server
// with the name in its SNI and :authority, as to a real site. It runs in a new user data
// folder, removed afterwards.
func RunChromium(ctx context.Context, path, rawURL string, loopback ...string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "jscrawl-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := chromiumFlags()
	args = append(args, "--user-data-dir="+dir)
	if len(loopback) > 0 {
		rules := make([]string, len(loopback))
		for i, h := range loopback {
			rules[i] = "MAP " + h + " 127.0.0.1"
		}
		args = append(args, "--host-resolver-rules="+strings.Join(rules, ", "))
	}
	args = append(args, "--dump-dom", rawURL)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir) // keeps Chromium off the user's folders
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", path, err, lastLines(stderr.String(), 5))
	}
	return stdout.Bytes(), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var versionRE = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+`)

// ChromiumVersion returns the version of the Chromium at path ("156.0.8078.73"), from
// its --version.
func ChromiumVersion(ctx context.Context, path string) (string, error) {
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	v := versionRE.FindString(string(out))
	if v == "" {
		return "", fmt.Errorf("%s --version: no version in %q", path, strings.TrimSpace(string(out)))
	}
	return v, nil
}

// CaptureHost is the host name Capture shows Chromium: a name, so that its ClientHello
// carries an SNI as on any real site.
const CaptureHost = "fingerprint.jscrawl.test"

// Capture learns what the Chromium at path presents to a site: it starts a recording
// Server on 127.0.0.1 with a throwaway certificate for CaptureHost, runs Chromium at
// https://CaptureHost:port/ (RunChromium) and returns the Fingerprint of the connection
// its navigation came on.
func Capture(ctx context.Context, path string) (*Fingerprint, error) {
	ca, err := NewCA("jscrawl fingerprint capture")
	if err != nil {
		return nil, err
	}
	cert, err := ca.Issue(CaptureHost, "127.0.0.1")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	nav := make(chan *Fingerprint, 1)
	srv := Serve(ln, tlsConfig(cert), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			select {
			case nav <- FromRequest(r):
			default:
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprint(w, "<!doctype html><title>jscrawl fingerprint</title><p>captured</p>")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if _, err := RunChromium(ctx, path, "https://"+CaptureHost+":"+port+"/", CaptureHost); err != nil {
		return nil, err
	}
	select {
	case f := <-nav:
		if f.HTTP2 == nil && f.ALPN == "h2" {
			return nil, fmt.Errorf("capture: the HTTP/2 frames of Chromium's request could not be read")
		}
		return f, nil
	default:
		return nil, fmt.Errorf("capture: Chromium made no request to https://%s:%s/", CaptureHost, port)
	}
}

// HeadedUserAgent returns ua as Chromium's windowed build sends it: headless Chromium
// names itself "HeadlessChrome/…" in its User-Agent (its only header that differs), which
// sites refuse on sight.
func HeadedUserAgent(ua string) string { return strings.Replace(ua, "HeadlessChrome/", "Chrome/", 1) }
