package enginetest_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/fingerprint"
)

func get(t *testing.T, c *http.Client, url string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestGuardedSiteRefusesGo: Go's own client is refused for its fingerprint whatever its
// headers say, and the request is recorded with its address, fingerprint and headers.
func TestGuardedSiteRefusesGo(t *testing.T) {
	t.Parallel()
	s := enginetest.NewGuardedSite(t, enginetest.GuardedOptions{})
	status, _ := get(t, s.Client(), s.URL+"/", "User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0", "Proxy-Authorization", "Basic dTpw")
	if status != http.StatusForbidden {
		t.Fatalf("status %d, want 403", status)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	if r.Reason != enginetest.ReasonFingerprint || r.RemoteIP != "127.0.0.1" || r.Proto != "HTTP/2.0" || r.NewSession != "" ||
		r.Header.Get("Proxy-Authorization") != "Basic dTpw" || r.Time.IsZero() || r.Host != strings.TrimPrefix(s.URL, "https://") {
		t.Errorf("recorded %+v", r)
	}
	if f := r.Fingerprint; f == nil || f.Hello.ServerName != enginetest.GuardedHost || !strings.HasSuffix(f.HTTP2Fingerprint, "|a,m,p,s") {
		t.Errorf("fingerprint %+v", f)
	}
	if status, _ := get(t, s.Client(), s.URL+"/robots.txt"); status != http.StatusOK {
		t.Errorf("robots.txt: %d", status)
	}
	// The CA written to a file verifies the site's certificate for its host names.
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := s.WriteCA(path); err != nil {
		t.Fatal(err)
	}
	pemBytes, _ := os.ReadFile(path)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatal("WriteCA: no certificate in the file")
	}
	for _, name := range []string{enginetest.GuardedHost, "www." + enginetest.GuardedHost, "localhost"} {
		c, err := tls.Dial("tcp", s.Addr, &tls.Config{RootCAs: pool, ServerName: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		_ = c.Close()
	}
}

// TestGuardedSiteSessions: once a fingerprint is allowed, a session cookie is served
// SessionRequests requests and refused after; a client without it gets a new one.
func TestGuardedSiteSessions(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("limit %d", n), func(t *testing.T) {
			t.Parallel()
			s := enginetest.NewGuardedSite(t, enginetest.GuardedOptions{SessionRequests: n, Pages: 4})
			c := s.Client()
			get(t, c, s.URL+"/")
			f := s.Requests()[0].Fingerprint
			s.Allow(f.JA4, f.HTTP2Fingerprint) // Go's own, from the refused request
			jar, _ := cookiejar.New(nil)
			c.Jar = jar
			for i := range n {
				status, body := get(t, c, s.URL+"/page/1")
				if status != http.StatusOK || !strings.Contains(body, `href="/page/2"`) {
					t.Fatalf("request %d: %d %s", i+1, status, body)
				}
			}
			if status, _ := get(t, c, s.URL+"/page/2"); status != http.StatusForbidden {
				t.Fatalf("request %d with the cookie: %d, want 403", n+1, status)
			}
			reqs := s.Requests()
			last := reqs[len(reqs)-1]
			if last.Reason != enginetest.ReasonSession || last.Session == "" || s.SessionRequests(last.Session) != n+1 {
				t.Errorf("last request %+v (%d requests of the session)", last, s.SessionRequests(last.Session))
			}
			if reqs[1].NewSession != last.Session {
				t.Errorf("the cookie set (%q) is not the one refused (%q)", reqs[1].NewSession, last.Session)
			}
			if status, _ := get(t, s.Client(), s.URL+"/page/2"); status != http.StatusOK {
				t.Errorf("a new session: %d", status)
			}
			if status, _ := get(t, s.Client(), s.URL+"/page/5"); status != http.StatusNotFound {
				t.Errorf("past the last page: %d", status)
			}
		})
	}
}

// TestGuardedSiteChromium drives Debian's chromium at the site twice: the first run
// learns its fingerprint, the second is served 200 with the same JA4 and HTTP/2
// fingerprint (Chromium permutes its extensions, which JA4 sorts), and Go's client is
// still refused.
func TestGuardedSiteChromium(t *testing.T) {
	t.Parallel()
	path := enginetest.RequireBrowser(t)
	s := enginetest.NewGuardedSite(t, enginetest.GuardedOptions{})
	learned := s.LearnChromium(t, path)
	if !strings.HasPrefix(learned.HTTP2Fingerprint, "1:65536;2:0;4:6291456;6:262144|") || !strings.HasPrefix(learned.JA4, "t13d") {
		t.Errorf("learned JA4 %s HTTP/2 %s", learned.JA4, learned.HTTP2Fingerprint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	from := len(s.Requests())
	dom, err := fingerprint.RunChromium(ctx, path, s.URL+"/", enginetest.GuardedHost)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dom), "Guarded site") {
		t.Errorf("DOM %s", dom)
	}
	var home *enginetest.GuardedRequest
	for _, r := range s.Requests()[from:] {
		if r.Path == "/" {
			home = &r
			break
		}
	}
	if home == nil || home.Status != http.StatusOK || home.NewSession == "" {
		t.Fatalf("second run: %+v", home)
	}
	if home.Fingerprint.JA4 != learned.JA4 || home.Fingerprint.HTTP2Fingerprint != learned.HTTP2Fingerprint {
		t.Errorf("second run JA4 %s HTTP/2 %s, first %s %s", home.Fingerprint.JA4, home.Fingerprint.HTTP2Fingerprint, learned.JA4, learned.HTTP2Fingerprint)
	}
	if status, _ := get(t, s.Client(), s.URL+"/"); status != http.StatusForbidden {
		t.Errorf("Go's client after learning: %d, want 403", status)
	}
}
