package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/browser"
	"github.com/jscrawl/jscrawl/engine/fingerprint"
	"github.com/jscrawl/jscrawl/engine/impersonate"
	"github.com/jscrawl/jscrawl/types"
	"github.com/urfave/cli/v2"
)

func fingerprintCommand() *cli.Command {
	return &cli.Command{
		Name:  "fingerprint",
		Usage: "learn a browser's TLS and HTTP/2 fingerprint, or show the one jscrawl presents",
		Description: `A site can tell clients apart by what they send before any page: the TLS ClientHello (JA3 and
JA4 hashes), the start of the HTTP/2 connection (Akamai's fingerprint) and the order of the
headers. capture learns them from the installed Chromium into a profile.json for
HTTP_IMPERSONATE; show prints what a server sees of jscrawl's own requests.`,
		Subcommands: []*cli.Command{fingerprintCaptureCommand(), fingerprintShowCommand()},
	}
}

func fingerprintCaptureCommand() *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "record the installed Chromium's fingerprint into a profile.json for HTTP_IMPERSONATE",
		Description: `Starts Chromium headless (the one browser requests use: chromium, chromium-browser or
google-chrome on PATH, or --browser) at a loopback TLS server of its own with a throwaway
certificate, under a host name so that its ClientHello carries an SNI. It records the
navigation's ClientHello, HTTP/2 SETTINGS, WINDOW_UPDATE, priorities, pseudo-header order and
headers in order, writes them as a profile, and prints its JA4 and HTTP/2 fingerprint. The
User-Agent is the windowed Chromium's (Chrome/..., not HeadlessChrome/...). Capture again
when Chromium updates.

Examples:
   jscrawl fingerprint capture -o chromium.json
   jscrawl run spider.ts -s HTTP_IMPERSONATE=chromium.json
   jscrawl fingerprint capture --browser /opt/chrome/chrome -o chrome.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "browser", Usage: "the Chromium `PATH` to start (default: chromium, chromium-browser or google-chrome on PATH)"},
			&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Required: true, Usage: "write the profile to `FILE` (- for stdout)"},
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "give up after `DURATION`"},
		},
		Action: fingerprintCaptureAction,
	}
}

func fingerprintCaptureAction(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError("fingerprint capture takes no arguments (got %q): jscrawl fingerprint capture -o profile.json", c.Args().First())
	}
	stdout, stderr := stdio(c)
	path, err := browser.Find(c.String("browser"))
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	ctx, stop := stopOnSignal(c)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, c.Duration("timeout"))
	defer cancel()
	version, err := fingerprint.ChromiumVersion(ctx, path)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	f, err := fingerprint.Capture(ctx, path)
	if err != nil {
		return cli.Exit(fmt.Sprintf("fingerprint capture: %v", err), 1)
	}
	p := f.Profile("chromium-" + version)
	// Headless Chromium says so in its User-Agent; the profile presents the windowed one.
	p.UserAgent = fingerprint.HeadedUserAgent(p.UserAgent)
	for i, h := range p.Headers {
		if h[0] == "user-agent" {
			p.Headers[i][1] = fingerprint.HeadedUserAgent(h[1])
		}
	}
	out := c.String("o")
	if out == "-" {
		if err := writeProfileTo(stdout, p); err != nil {
			return cli.Exit(err.Error(), 1)
		}
		stdout = stderr // the summary goes to stderr
	} else if err := impersonate.WriteProfile(out, p); err != nil {
		return cli.Exit(fmt.Sprintf("fingerprint capture: %v", err), 1)
	}
	dest := out
	if out == "-" {
		dest = "stdout"
	}
	fmt.Fprintf(stdout, "%s: JA4 %s, HTTP/2 %s -> %s\n", p.Name, f.JA4, f.HTTP2Fingerprint, dest)
	return nil
}

// writeProfileTo writes p to w as impersonate.WriteProfile writes a file.
func writeProfileTo(w io.Writer, p *impersonate.Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func fingerprintShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print what a server sees of jscrawl's requests: JA3, JA4, HTTP/2 fingerprint, headers",
		ArgsUsage: "URL",
		Description: `Sends one GET of URL through jscrawl's http(s) download handler with the current settings
(HTTP_IMPERSONATE, USER_AGENT, DEFAULT_REQUEST_HEADERS, ...) to a loopback recording server
that stands in for URL's host: the TLS server name and the Host header are URL's, the
connection goes to the recorder and nothing reaches the network. It prints the ClientHello's
JA3 and JA4, the ALPN protocol, the HTTP/2 fingerprint and the headers in the order sent.
Robots.txt, retries, redirects, the HTTP cache and the environment's proxy are off for it.

Examples:
   jscrawl fingerprint show https://example.com/
   jscrawl fingerprint show -s HTTP_IMPERSONATE=chromium.json https://example.com/
   jscrawl fingerprint show -s USER_AGENT='Mozilla/5.0 ...' https://shop.example/`,
		Flags:  setLogFlags("WARNING"),
		Action: fingerprintShowAction,
	}
}

func fingerprintShowAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("fingerprint show needs exactly one URL (got %d): jscrawl fingerprint show https://example.com/", c.NArg())
	}
	rawURL := c.Args().First()
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return usageError("fingerprint show %q: not an absolute URL", rawURL)
	}
	if u.Scheme != "https" {
		return usageError("fingerprint show %s: an https:// URL is needed (over http there is no TLS to fingerprint)", rawURL)
	}
	ls, err := readFlags(c, loadOptions{logLevel: "WARNING", set: map[string]any{
		types.DownloadVerifyTLS: false, // the recorder's certificate is a throwaway one
		types.RobotsTxtObey:     false,
		types.RetryEnabled:      false,
		types.RedirectEnabled:   false,
		types.HTTPCacheEnabled:  false,
		types.HTTPProxyEnabled:  false, // the environment's proxy would get the connection
	}})
	if err != nil {
		return err
	}
	defer ls.Close()
	if err := ls.load(""); err != nil {
		return err
	}
	eng, err := ls.newEngine()
	if err != nil {
		return err
	}
	ca, err := fingerprint.NewCA("jscrawl fingerprint show")
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	cert, err := ca.Issue(u.Hostname())
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	seen := make(chan *fingerprint.Fingerprint, 1)
	srv := fingerprint.Serve(ln, &tls.Config{Certificates: []tls.Certificate{cert}}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- fingerprint.FromRequest(r):
		default:
		}
		_, _ = io.WriteString(w, "recorded\n")
	}))
	defer srv.Close()

	ctx, stop := stopOnSignal(c)
	defer stop()
	ctx = engine.WithDialRules(ctx, engine.DialRules{"*": ln.Addr().String()})
	if _, err := eng.Download(ctx, &types.Request{URL: rawURL}); err != nil {
		return cli.Exit(fmt.Sprintf("fingerprint show: %v", err), 1)
	}
	var f *fingerprint.Fingerprint
	select {
	case f = <-seen:
	default:
		return cli.Exit("fingerprint show: the request did not reach the recorder", 1)
	}
	stdout, _ := stdio(c)
	_, err = io.WriteString(stdout, formatFingerprint(rawURL, f))
	return err
}

// formatFingerprint renders what the server saw of f's connection.
func formatFingerprint(rawURL string, f *fingerprint.Fingerprint) string {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "%-14s %s\n", k, v) }
	row("URL", rawURL)
	h := f.Hello
	alpn := f.ALPN
	if alpn == "" {
		alpn = "none (HTTP/1.1)"
	}
	row("TLS", fmt.Sprintf("%s, SNI %q, ALPN offered %s, chosen %s", tlsVersionName(h.TLSVersion()), h.ServerName, strings.Join(h.ALPN, ","), alpn))
	row("JA3", f.JA3)
	row("JA3 hash", f.JA3Hash)
	row("JA4", f.JA4)
	row("JA4_r", f.JA4R)
	if f.HTTP2 != nil {
		row("HTTP/2", f.HTTP2Fingerprint)
	} else {
		row("HTTP/2", "none (HTTP/1.1)")
	}
	b.WriteString("headers, in the order sent:\n")
	if f.HTTP2 != nil {
		for _, p := range f.HTTP2.PseudoHeaders {
			fmt.Fprintf(&b, "  %s: %s\n", p[0], p[1])
		}
	}
	for _, p := range f.Headers {
		fmt.Fprintf(&b, "  %s: %s\n", p[0], p[1])
	}
	return b.String()
}

func tlsVersionName(v uint16) string {
	switch v {
	case 0x0304:
		return "TLS 1.3"
	case 0x0303:
		return "TLS 1.2"
	case 0x0302:
		return "TLS 1.1"
	case 0x0301:
		return "TLS 1.0"
	}
	return fmt.Sprintf("version %#04x", v)
}
