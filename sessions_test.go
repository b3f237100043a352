package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cookieSite gives each visitor without a cookie a sid cookie on its first visit and
// expects it after: it serves perCookie pages per cookie, then answers 403 and bans it.
// The index links pages pages. It records, per run (run is set by the test), the cookies
// requests came with.
type cookieSite struct {
	*httptest.Server
	mu       sync.Mutex
	run      int
	seq      int
	issued   map[string]int // cookie → the run that issued it
	served   map[string]int
	banned   map[string]bool
	banAt    map[string][2]int // cookie → the run and the request number of its ban
	afterBan []string
	sent     [][]string // per run: each request's cookie ("" for none)
	hits     chan struct{}
}

func newCookieSite(t *testing.T, pages, perCookie int) *cookieSite {
	s := &cookieSite{issued: map[string]int{}, served: map[string]int{}, banned: map[string]bool{}, banAt: map[string][2]int{}, sent: make([][]string, 2),
		hits: make(chan struct{}, 10*pages)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		sid := ""
		if c, err := r.Cookie("sid"); err == nil {
			sid = c.Value
		}
		s.sent[s.run] = append(s.sent[s.run], sid)
		s.hits <- struct{}{}
		switch {
		case sid == "":
			s.seq++
			sid = fmt.Sprintf("c%d", s.seq)
			s.issued[sid] = s.run
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/"})
		case s.banned[sid]:
			s.afterBan = append(s.afterBan, sid)
			w.WriteHeader(http.StatusForbidden)
			return
		case s.served[sid] >= perCookie:
			s.banned[sid] = true
			s.banAt[sid] = [2]int{s.run, len(s.sent[s.run]) - 1}
			w.WriteHeader(http.StatusForbidden)
			return
		}
		s.served[sid]++
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			for i := range pages {
				fmt.Fprintf(w, `<a href="/p/%d">%d</a>`, i, i)
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// sessionJobSpider crawls cookieSite's index and pages through the session pool.
const sessionJobSpider = `export default class {
  name = "sessjob";
  customSettings = { ROBOTSTXT_OBEY: false, LOGSTATS_INTERVAL: 0, SESSION_POOL_ENABLED: true, SESSION_POOL_SIZE: 2,
    SESSION_MAX_USAGE: 0, CONCURRENT_REQUESTS: 1, RETRY_ENABLED: false };
  *start() { yield new Request(this.site + "/"); }
  *parse(r) {
    yield { url: r.url.replace(this.site, ""), session: r.session.name };
    yield* r.followAll(r.css("a::attr(href)").getall());
  }
}
`

// TestSessionsSurviveKill: a job crawling with sessions is killed with SIGKILL mid-crawl
// and resumed: the resumed requests send the cookies their sessions got in the first run,
// no banned cookie is ever sent
// again (retired sessions stay retired, also those retired after the last commit), and the
// feed holds every page once.
func TestSessionsSurviveKill(t *testing.T) {
	t.Parallel()
	const pages, perCookie = 40, 6
	site := newCookieSite(t, pages, perCookie)
	dir := t.TempDir()
	writeFile(t, dir, "sess.js", sessionJobSpider)
	args := []string{"sess.js", "--jobdir", "job", "-o", "items.jsonl", "-a", "site=" + site.URL,
		"-s", "DOWNLOAD_DELAY=0.02", "-s", "JOBDIR_COMMIT_INTERVAL=0.01"}
	p := startIn(t, dir, args...)
	// Past the first bans (two sessions of 6 pages each), then kill.
	for range 2*perCookie + 5 {
		select {
		case <-site.hits:
		case <-time.After(30 * time.Second):
			t.Fatalf("the crawl stalled:\n%s", p.Log())
		}
	}
	p.signal(t, syscall.SIGKILL)
	p.waitEnd(t, time.Now())
	site.mu.Lock()
	site.run = 1
	site.mu.Unlock()
	code, log := runJobCrawl(t, dir, args...)
	if code != 0 || !strings.Contains(log, "Resuming the job") {
		t.Fatalf("resume: exit code %d\n%s", code, log)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	// A ban the kill cut off (its 403 sent, not yet received: the first run's last request)
	// is news to the resumed run, which sends that cookie once and then retires it.
	for i, c := range site.afterBan {
		if at := site.banAt[c]; i > 0 || at != [2]int{0, len(site.sent[0]) - 1} {
			t.Errorf("banned cookies were sent again after their ban: %v (bans at %v, %d requests in the first run)", site.afterBan, site.banAt, len(site.sent[0]))
			break
		}
	}
	run2 := site.sent[1]
	if len(run2) == 0 {
		t.Fatal("the resumed run made no request")
	}
	// The resumed run goes on with the restored sessions: its requests send the cookies the
	// first run's sessions got (a fresh pool would send none but the ones it gets anew).
	old := 0
	for _, c := range run2 {
		if _, ok := site.issued[c]; ok && site.issued[c] == 0 {
			old++
		}
	}
	if old == 0 {
		t.Errorf("no resumed request sent a cookie of the first run's sessions (cookies sent: %v)", run2)
	}
	seen := feedCounts(t, filepath.Join(dir, "items.jsonl"), "url")
	if len(seen) != pages+1 {
		t.Errorf("%d pages in the feed, want %d", len(seen), pages+1)
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s is in the feed %d times", u, n)
		}
	}
}
