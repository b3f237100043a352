package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/fingerprint"
	"github.com/jscrawl/jscrawl/engine/impersonate"
	"github.com/jscrawl/jscrawl/types"
)

// TestGuardedSiteEndToEnd is issue 27's whole picture on a site that turns plain clients
// away (enginetest.GuardedSite, which serves only the installed Chromium's JA4 and HTTP/2
// fingerprint and bans a session cookie after a few pages): a profile learned from Debian's
// chromium, presented through HTTP_IMPERSONATE, over a pool of three CONNECT proxies (each
// dialling out from its own 127.x address, one killed mid-crawl), with sessions that
// rotate when the site bans one. Every page is served, each request with Chromium's
// fingerprint, from the proxies' addresses only, never with the proxies' credentials, the
// site's DOWNLOAD_DELAY holding across proxies and sessions.
func TestGuardedSiteEndToEnd(t *testing.T) {
	t.Parallel()
	chromium := enginetest.RequireBrowser(t)
	const pages, perSession = 12, 3
	site := enginetest.NewGuardedSite(t, enginetest.GuardedOptions{SessionRequests: perSession, Pages: pages})
	learned := site.LearnChromium(t, chromium)
	learning := len(site.Requests()) // Chromium's own, while the site learned it
	profile := learned.Profile("chromium-test")
	profile.UserAgent = fingerprint.HeadedUserAgent(profile.UserAgent)
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := impersonate.WriteProfile(path, profile); err != nil {
		t.Fatal(err)
	}
	const pass = "sekrit-proxy-pw"
	var proxies []*enginetest.HTTPProxy
	var list []any
	for i := 2; i <= 4; i++ {
		p := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: fmt.Sprintf("127.0.0.%d:0", i),
			User: "crawler", Pass: pass, Upstream: func(string) string { return site.Addr }})
		proxies = append(proxies, p)
		list = append(list, p.URL())
	}
	href := regexp.MustCompile(`href="([^"]+)"`)
	var parsed atomic.Int32
	sp := &enginetest.Spider{
		StartURLs: []string{site.URL + "/"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			if parsed.Add(1) == 3 {
				proxies[0].Close() // the crawl goes on through the other two
			}
			for _, m := range href.FindAllSubmatch(resp.Body, -1) {
				emit(types.Output{Request: &types.Request{URL: site.URL + string(m[1])}})
			}
			return nil
		},
	}
	const delay = 150 * time.Millisecond
	e, _ := newEngine(t, sp, map[string]any{
		types.HTTPImpersonate: path, types.DownloadVerifyTLS: false, types.RobotsTxtObey: false,
		types.ProxyList: list, types.SessionPoolEnabled: true, types.SessionPoolSize: 2,
		types.DownloadDelay: delay.Seconds(), types.RandomizeDownloadDelay: false,
		types.ConcurrentRequests: 4,
	})
	if err := e.Run(engine.WithDialRules(context.Background(), site.DialRules())); err != nil {
		t.Fatal(err)
	}

	reqs := site.Requests()[learning:]
	served := map[string]bool{}
	clients := map[string]bool{}
	banned := 0
	var times []time.Time
	for _, r := range reqs {
		times = append(times, r.Time)
		clients[r.RemoteIP] = true
		switch {
		case r.Status == http.StatusOK:
			served[r.Path] = true
		case r.Reason == enginetest.ReasonSession:
			banned++
		default:
			t.Errorf("%s: %d %s (JA4 %s, HTTP/2 %s), want Chromium's fingerprint served",
				r.Path, r.Status, r.Reason, r.Fingerprint.JA4, r.Fingerprint.HTTP2Fingerprint)
		}
		if r.Fingerprint.JA4 != learned.JA4 || r.Fingerprint.HTTP2Fingerprint != learned.HTTP2Fingerprint {
			t.Errorf("%s: JA4 %s HTTP/2 %s, want Chromium's %s %s", r.Path, r.Fingerprint.JA4,
				r.Fingerprint.HTTP2Fingerprint, learned.JA4, learned.HTTP2Fingerprint)
		}
		for k, vs := range r.Header {
			if strings.EqualFold(k, "Proxy-Authorization") || strings.Contains(strings.Join(vs, " "), pass) {
				t.Errorf("%s: the site got the proxy's credentials in %s", r.Path, k)
			}
		}
		if r.Header.Get("User-Agent") != profile.UserAgent {
			t.Errorf("%s: User-Agent %q, want the profile's %q", r.Path, r.Header.Get("User-Agent"), profile.UserAgent)
		}
	}
	if len(served) != pages+1 {
		t.Errorf("%d pages served, want all %d: %v", len(served), pages+1, served)
	}
	for ip := range clients {
		if !slices.Contains([]string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}, ip) {
			t.Errorf("the site saw client %s: a download went around the proxies", ip)
		}
	}
	if len(clients) < 2 {
		t.Errorf("the site saw clients %v, want the proxies' addresses in rotation", clients)
	}
	st := e.Stats()
	if banned == 0 || st.Int("session/blocked_count") != int64(banned) {
		t.Errorf("session/blocked_count %d, the site banned %d session requests (want > 0 and equal)", st.Int("session/blocked_count"), banned)
	}
	if st.Int("session/retired_count") < int64(banned) {
		t.Errorf("session/retired_count %d < %d bans", st.Int("session/retired_count"), banned)
	}
	if st.Int("proxy/benched_count") < 1 {
		t.Errorf("proxy/benched_count %d after a proxy was killed mid-crawl (stats %v)", st.Int("proxy/benched_count"), st.Snapshot())
	}
	// The site's slot spaces the requests' starts by the delay, whatever proxy and session
	// carries them.
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	enginetest.CheckSpacing(t, times, delay, enginetest.ArrivalSlack)
}

// TestSessionsTakeProfilesInTurn: with HTTP_IMPERSONATE naming two profiles, new sessions
// take them in turn, so the site sees the browsers alternate from one session to the next.
func TestSessionsTakeProfilesInTurn(t *testing.T) {
	t.Parallel()
	site := enginetest.NewGuardedSite(t, enginetest.GuardedOptions{})
	sp := &enginetest.Spider{StartURLs: []string{site.URL + "/"}}
	e, _ := newEngine(t, sp, map[string]any{
		types.HTTPImpersonate: "chrome,firefox", types.DownloadVerifyTLS: false, types.RobotsTxtObey: false,
		types.SessionPoolEnabled: true, types.SessionMaxRotations: 3, types.ConcurrentRequests: 1,
	})
	if err := e.Run(engine.WithDialRules(context.Background(), site.DialRules())); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range site.Requests() {
		ua := r.Header.Get("User-Agent")
		switch {
		case strings.Contains(ua, "Firefox/"):
			got = append(got, "firefox")
		case strings.Contains(ua, "Chrome/"):
			got = append(got, "chrome")
		default:
			got = append(got, ua)
		}
	}
	// Refused for its fingerprint each time: the first try and three rotations.
	if want := []string{"chrome", "firefox", "chrome", "firefox"}; !slices.Equal(got, want) {
		t.Errorf("browsers %v, want %v", got, want)
	}
	if n := e.Stats().Int("session/blocked_count"); n != 4 {
		t.Errorf("session/blocked_count %d, want 4", n)
	}
}
