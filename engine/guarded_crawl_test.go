package engine_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestGuardedSiteCrawl crawls an enginetest.GuardedSite with Go's own client, its
// connections sent to the site by the DialRules given to Run: refused for its fingerprint
// until the site allows Go's, then served SessionRequests pages on the session cookie
// that CookiesMiddleware keeps, and refused after.
func TestGuardedSiteCrawl(t *testing.T) {
	t.Parallel()
	href := regexp.MustCompile(`href="([^"]+)"`)
	for _, tc := range []struct {
		name    string
		allowGo bool
	}{
		{"go refused", false},
		{"go allowed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := enginetest.NewGuardedSite(t, enginetest.GuardedOptions{SessionRequests: 3, Pages: 6})
			if tc.allowGo {
				resp, err := site.Client().Get(site.URL + "/robots.txt") // unguarded: learns Go's fingerprint
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				f := site.Requests()[0].Fingerprint
				site.Allow(f.JA4, f.HTTP2Fingerprint)
			}
			sp := &enginetest.Spider{
				StartURLs: []string{site.URL + "/"},
				ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
					for _, m := range href.FindAllSubmatch(resp.Body, -1) {
						emit(types.Output{Request: &types.Request{URL: site.URL + string(m[1])}})
					}
					return nil
				},
			}
			e, _ := newEngine(t, sp, map[string]any{types.ConcurrentRequests: 1, types.DownloadVerifyTLS: false, types.RobotsTxtObey: false})
			if err := e.Run(engine.WithDialRules(context.Background(), site.DialRules())); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range site.Requests() {
				if r.Path == "/robots.txt" {
					continue
				}
				if r.Fingerprint.Hello.ServerName != enginetest.GuardedHost {
					t.Errorf("SNI %q", r.Fingerprint.Hello.ServerName)
				}
				got = append(got, http.StatusText(r.Status)+" "+r.Reason)
			}
			want := []string{"Forbidden fingerprint"}
			if tc.allowGo {
				want = []string{"OK ", "OK ", "OK ", "Forbidden session", "Forbidden session", "Forbidden session", "Forbidden session"}
			}
			if len(got) != len(want) {
				t.Fatalf("requests %q, want %q", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("request %d: %q, want %q (all: %q)", i, got[i], want[i], got)
				}
			}
		})
	}
}
