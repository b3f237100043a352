package enginetest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

// GuardedHost is the host name of a GuardedSite: its certificate's, the one its URL has
// and the one Chromium is pointed at (mapped to 127.0.0.1), so that clients send it as
// SNI as they do to real sites.
const GuardedHost = "guarded.test"

// GuardedCookie is the name of a GuardedSite's session cookie.
const GuardedCookie = "guarded_session"

// Reasons a GuardedSite refuses a request with 403 (GuardedRequest.Reason).
const (
	ReasonFingerprint = "fingerprint" // the client's JA4 and HTTP/2 fingerprint are not allowed
	ReasonSession     = "session"     // the session cookie has had its requests
)

// GuardedOptions configure a GuardedSite; zero values take the defaults.
type GuardedOptions struct {
	// SessionRequests is how many requests one session cookie is served, counting the one
	// that set it (default 5); the next requests with it get 403.
	SessionRequests int
	// Pages is the number of linked pages, /page/1 to /page/{Pages} (default 30).
	Pages int
}

// AllowedFingerprint is a client a GuardedSite serves: its JA4 and its HTTP/2 fingerprint
// in Akamai's format ("" for HTTP/1.1).
type AllowedFingerprint struct {
	JA4   string
	HTTP2 string
}

// GuardedRequest is one request a GuardedSite received.
type GuardedRequest struct {
	Time     time.Time
	RemoteIP string // the client's address, without the port
	Method   string
	Host     string // the Host header or :authority
	Path     string
	Proto    string // "HTTP/2.0", "HTTP/1.1"
	// Fingerprint is what the client presented on the request's connection.
	Fingerprint *fingerprint.Fingerprint
	// Session is the session cookie the request carried ("": none or an unknown one);
	// NewSession the one the response set.
	Session, NewSession string
	// Header holds all the request's headers as net/http parsed them, Proxy-Authorization
	// included should a client send it.
	Header http.Header
	Status int
	Reason string // why the request got 403 ("": it did not)
}

// GuardedSite is a loopback HTTPS site that refuses what is not a browser, as sites
// behind a bot manager do, for tests of sessions, proxies and HTTP_IMPERSONATE. Over TLS
// with a certificate of its own test CA (for GuardedHost, *.GuardedHost, localhost and
// 127.0.0.1) on a fingerprint.Server, it:
//
//   - answers 403 (ReasonFingerprint) to a client whose JA4 and HTTP/2 fingerprint are not
//     allowed: none are until Allow or LearnChromium adds one (Debian's chromium driven at
//     the site);
//   - sets a session cookie (GuardedCookie) on a first visit, and answers 403
//     (ReasonSession) to a cookie that has had GuardedOptions.SessionRequests requests;
//   - serves / linking to /page/1 … /page/{Pages}, each page linking to the next two, and
//     a /robots.txt that allows everything (unguarded);
//   - records every request (Requests).
type GuardedSite struct {
	// URL is "https://guarded.test:PORT" (no trailing slash). Clients connect to Addr for
	// it: Chromium with --host-resolver-rules, Go clients through DialRules or Client.
	URL string
	// Addr is the "127.0.0.1:PORT" the site listens on.
	Addr string
	// CA is the site's certificate authority.
	CA *fingerprint.CA

	srv      *fingerprint.Server
	limit    int
	pages    int
	mu       sync.Mutex
	allowed  map[AllowedFingerprint]bool
	sessions map[string]int
	requests []GuardedRequest
	learning bool
}

// NewGuardedSite starts a GuardedSite for the test, closed by t.Cleanup.
func NewGuardedSite(t testing.TB, opts GuardedOptions) *GuardedSite {
	t.Helper()
	ca, err := fingerprint.NewCA("jscrawl GuardedSite test CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue(GuardedHost, "*."+GuardedHost, "localhost", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &GuardedSite{CA: ca, Addr: ln.Addr().String(), limit: opts.SessionRequests, pages: opts.Pages,
		allowed: map[AllowedFingerprint]bool{}, sessions: map[string]int{}}
	if s.limit <= 0 {
		s.limit = 5
	}
	if s.pages <= 0 {
		s.pages = 30
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	s.URL = "https://" + GuardedHost + ":" + port
	s.srv = fingerprint.Serve(ln, &tls.Config{Certificates: []tls.Certificate{cert}}, http.HandlerFunc(s.serve))
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// CAPEM returns the site's CA certificate, PEM-encoded.
func (s *GuardedSite) CAPEM() []byte { return s.CA.PEM }

// CertPool returns a pool that trusts the site's certificate.
func (s *GuardedSite) CertPool() *x509.CertPool { return s.CA.Pool() }

// WriteCA writes the site's CA certificate to path as PEM (SSL_CERT_FILE for a child
// process).
func (s *GuardedSite) WriteCA(path string) error { return os.WriteFile(path, s.CA.PEM, 0o644) }

// DialRules maps the "host:port" of the site's URL (GuardedHost and www.GuardedHost with
// the site's port) to Addr: give them to a crawl with engine.WithDialRules to send its
// connections for the URL to the site while their SNI and Host stay GuardedHost.
func (s *GuardedSite) DialRules() engine.DialRules {
	_, port, _ := net.SplitHostPort(s.Addr)
	return engine.DialRules{GuardedHost + ":" + port: s.Addr, "www." + GuardedHost + ":" + port: s.Addr}
}

// Client returns an http.Client as Go's default one (HTTP/2 when the server offers it)
// that trusts the site's CA and dials Addr for the site's URL.
func (s *GuardedSite) Client() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: s.CertPool()}
	rules := s.DialRules()
	var d net.Dialer
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := rules[addr]; ok {
			addr = to
		}
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: t}
}

// Allow adds a client fingerprint the site serves.
func (s *GuardedSite) Allow(ja4, http2 string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowed[AllowedFingerprint{JA4: ja4, HTTP2: http2}] = true
}

// Allowed returns the fingerprints the site serves.
func (s *GuardedSite) Allowed() []AllowedFingerprint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]AllowedFingerprint, 0, len(s.allowed))
	for a := range s.allowed {
		out = append(out, a)
	}
	return out
}

// LearnChromium drives the Chromium at path (RequireBrowser's) at the site's home page,
// headless in a new profile, allows the fingerprint its navigation presented and returns
// it. The requests it makes meanwhile are served whatever their fingerprint, and
// recorded.
func (s *GuardedSite) LearnChromium(t testing.TB, path string) *fingerprint.Fingerprint {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s.mu.Lock()
	s.learning = true
	from := len(s.requests)
	s.mu.Unlock()
	_, err := fingerprint.RunChromium(ctx, path, s.URL+"/", GuardedHost)
	s.mu.Lock()
	s.learning = false
	var f *fingerprint.Fingerprint
	for _, r := range s.requests[from:] {
		if r.Path == "/" && f == nil {
			f = r.Fingerprint
		}
	}
	s.mu.Unlock()
	if err != nil {
		t.Fatalf("learn Chromium's fingerprint: %v", err)
	}
	if f == nil {
		t.Fatalf("learn Chromium's fingerprint: %s made no request to %s/", path, s.URL)
	}
	s.Allow(f.JA4, f.HTTP2Fingerprint)
	return f
}

// Requests returns the requests received so far, in order.
func (s *GuardedSite) Requests() []GuardedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]GuardedRequest{}, s.requests...)
}

// Connections returns the fingerprints of the connections accepted so far.
func (s *GuardedSite) Connections() []*fingerprint.Fingerprint { return s.srv.Connections() }

// SessionRequests returns how many requests the session cookie value has been served
// (counting the one that set it and refused ones).
func (s *GuardedSite) SessionRequests(cookie string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[cookie]
}

func (s *GuardedSite) serve(w http.ResponseWriter, r *http.Request) {
	f := fingerprint.FromRequest(r)
	rec := GuardedRequest{Time: time.Now(), Method: r.Method, Host: r.Host, Path: r.URL.Path, Proto: r.Proto,
		Fingerprint: f, Header: r.Header.Clone()}
	rec.RemoteIP, _, _ = net.SplitHostPort(r.RemoteAddr)
	if c, err := r.Cookie(GuardedCookie); err == nil {
		rec.Session = c.Value
	}
	status, body := s.decide(&rec)
	if rec.NewSession != "" {
		http.SetCookie(w, &http.Cookie{Name: GuardedCookie, Value: rec.NewSession, Path: "/", HttpOnly: true, Secure: true})
	}
	rec.Status = status
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
	}
	w.WriteHeader(status)
	_, _ = fmt.Fprint(w, body)
}

// decide applies the site's rules to rec, filling its Reason and NewSession, and returns
// the status and body of the answer.
func (s *GuardedSite) decide(rec *GuardedRequest) (int, string) {
	if rec.Path == "/robots.txt" {
		return http.StatusOK, "User-agent: *\nAllow: /\n"
	}
	page := 0
	if rec.Path != "/" {
		n, ok := strings.CutPrefix(rec.Path, "/page/")
		var err error
		if page, err = strconv.Atoi(n); !ok || err != nil || page < 1 || page > s.pages {
			return http.StatusNotFound, "<!doctype html><title>Not found</title><h1>Not found</h1>"
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fp := AllowedFingerprint{}
	if rec.Fingerprint != nil {
		fp = AllowedFingerprint{JA4: rec.Fingerprint.JA4, HTTP2: rec.Fingerprint.HTTP2Fingerprint}
	}
	if !s.learning && !s.allowed[fp] {
		rec.Reason, rec.Session = ReasonFingerprint, ""
		return http.StatusForbidden, "<!doctype html><title>Forbidden</title><h1>Forbidden</h1><p>Your browser is not supported.</p>"
	}
	if _, known := s.sessions[rec.Session]; !known || rec.Session == "" {
		rec.Session = ""
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		rec.NewSession = hex.EncodeToString(b)
		s.sessions[rec.NewSession] = 1
	} else {
		s.sessions[rec.Session]++
		if s.sessions[rec.Session] > s.limit {
			rec.Reason = ReasonSession
			return http.StatusForbidden, "<!doctype html><title>Forbidden</title><h1>Forbidden</h1><p>Too many requests.</p>"
		}
	}
	var b strings.Builder
	title := "Guarded site"
	if page > 0 {
		title = "Page " + strconv.Itoa(page)
	}
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1><ul>", title, title)
	links := []int{page + 1, page + 2}
	if page == 0 {
		links = make([]int, s.pages)
		for i := range links {
			links[i] = i + 1
		}
	}
	for _, l := range links {
		if l <= s.pages {
			fmt.Fprintf(&b, `<li><a href="/page/%d">Page %d</a></li>`, l, l)
		}
	}
	b.WriteString("</ul></body></html>")
	return http.StatusOK, b.String()
}
