package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// site is a test server whose handler the test gives; it records the arrivals per path.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	arrivals map[string][]time.Time
}

func newSite(t *testing.T, h http.HandlerFunc) *site {
	t.Helper()
	s := &site{arrivals: map[string][]time.Time{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.arrivals[r.URL.Path] = append(s.arrivals[r.URL.Path], time.Now())
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrivals[path])
}

func (s *site) at(path string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.arrivals[path]...)
}

// robotsSite serves robots (status 200 unless robotsStatus is set) and a 200 on any
// other path.
func robotsSite(t *testing.T, robotsStatus int, robots string) *site {
	return newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if robotsStatus != 0 {
				w.WriteHeader(robotsStatus)
			}
			fmt.Fprint(w, robots)
			return
		}
		fmt.Fprint(w, "<html>ok</html>")
	})
}

// TestDownloadSlotsGlob: a DOWNLOAD_SLOTS glob limits the matching slot to one download at
// a time while another slot keeps CONCURRENT_REQUESTS_PER_DOMAIN. The handler holds every
// request until the test releases them, so a slot's concurrency is the number of its
// requests the server has at once.
func TestDownloadSlotsGlob(t *testing.T) {
	t.Parallel()
	arrived := make(chan string, 16)
	release := make(chan struct{})
	var mu sync.Mutex
	inFlight, maxInFlight := map[string]int{}, map[string]int{}
	srv := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		g := r.URL.Query().Get("g")
		if g == "pass" {
			return
		}
		mu.Lock()
		inFlight[g]++
		maxInFlight[g] = max(maxInFlight[g], inFlight[g])
		mu.Unlock()
		arrived <- g
		<-release
		mu.Lock()
		inFlight[g]--
		mu.Unlock()
	})
	e, _ := newEngine(t, &enginetestSpider, map[string]any{
		types.ConcurrentRequestsPerDomain: 8,
		types.DownloadSlots: map[string]any{
			"*.example.com": map[string]any{"concurrency": 1.0},
			"*":             map[string]any{"concurrency": 3.0}, // less specific: not for example.com
		},
	})
	var wg sync.WaitGroup
	get := func(slot, g string, i int) {
		wg.Go(func() {
			r := &types.Request{URL: fmt.Sprintf("%s/?g=%s&i=%d", srv.URL, g, i), Meta: types.Item{{Key: "downloadSlot", Value: slot}}}
			if _, err := e.Download(context.Background(), r); err != nil {
				t.Error(err)
			}
		})
	}
	for i := range 3 {
		get("a.b.Example.com", "limited", i) // a deeper subdomain matches too, in any case
	}
	if g := <-arrived; g != "limited" {
		t.Fatalf("first arrival %q", g)
	}
	// While the first limited request is held, the other slot gets its 4 requests to the
	// server; limited ones arriving meanwhile break the limit.
	for i := range 4 {
		get("other.org", "free", i)
	}
	free := 0
	for free < 3 {
		if g := <-arrived; g == "free" {
			free++
		}
	}
	// A few full round trips through a third slot give stray limited requests more time
	// to reach the server.
	for i := range 5 {
		r := &types.Request{URL: fmt.Sprintf("%s/?g=pass&i=%d", srv.URL, i), Meta: types.Item{{Key: "downloadSlot", Value: "third.net"}}}
		if _, err := e.Download(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if maxInFlight["limited"] != 1 {
		t.Errorf("*.example.com slot had %d downloads at once, want 1", maxInFlight["limited"])
	}
	if maxInFlight["free"] != 3 {
		t.Errorf("other slot had %d downloads at once, want 3 (the \"*\" glob)", maxInFlight["free"])
	}
}

// enginetestSpider is a spider for engines used only for Download.
var enginetestSpider = noSpider{}

type noSpider struct{}

func (noSpider) Start(context.Context, engine.Emit) error                   { return nil }
func (noSpider) Parse(context.Context, *types.Response, engine.Emit) error  { return nil }
func (noSpider) Errback(context.Context, *types.Failure, engine.Emit) error { return nil }

// TestRandomizedDelay: with RANDOMIZE_DOWNLOAD_DELAY every gap between starts of one slot is
// at least half of DOWNLOAD_DELAY, and the gaps vary (the upper bound, 1.5×, is checked in
// the package's own tests, where no scheduling delay blurs it). The starts are recorded
// where the slot hands the download on.
func TestRandomizedDelay(t *testing.T) {
	t.Parallel()
	var started enginetest.Recorder[time.Time]
	next := engine.DownloaderFunc(func(_ context.Context, req *types.Request) (*types.Response, error) {
		started.Add(time.Now())
		return &types.Response{URL: req.URL, Status: 200, Request: req}, nil
	})
	kv := map[string]any{types.DownloadDelay: 0.1, types.RandomizeDownloadDelay: true}
	slots := engine.NewSlotDownloader(settings(t, kv), next)
	for i := range 7 {
		if _, err := slots.Fetch(context.Background(), &types.Request{URL: fmt.Sprintf("http://h.test/p%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	starts := started.All()
	lo, hi := time.Hour, time.Duration(0)
	for i := 1; i < len(starts); i++ {
		gap := starts[i].Sub(starts[i-1])
		if gap < 50*time.Millisecond {
			t.Errorf("gap %d = %v, want ≥ 50ms (0.5 × DOWNLOAD_DELAY)", i, gap)
		}
		lo, hi = min(lo, gap), max(hi, gap)
	}
	if hi-lo < 2*time.Millisecond {
		t.Errorf("gaps %v–%v are not randomized", lo, hi)
	}
}

// TestAutoThrottle: the delay moves toward the latency (down from the start delay, up from
// zero), never below DOWNLOAD_DELAY, never above AUTOTHROTTLE_MAX_DELAY; a 503 doubles it and
// a 500 does not lower it.
func TestAutoThrottle(t *testing.T) {
	t.Parallel()
	srv := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if ms := r.URL.Query().Get("ms"); ms != "" {
			var n int
			fmt.Sscan(ms, &n)
			<-time.After(time.Duration(n) * time.Millisecond) // the server's latency
		}
		if s := r.URL.Query().Get("status"); s != "" {
			var n int
			fmt.Sscan(s, &n)
			w.WriteHeader(n)
		}
	})
	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.IndexByte(host, ':')]
	for _, tc := range []struct {
		name     string
		kv       map[string]any
		queries  []string
		min, max time.Duration
	}{
		{"down toward latency", map[string]any{types.AutoThrottleStartDelay: 1.0},
			[]string{"ms=100"}, 500 * time.Millisecond, 650 * time.Millisecond}, // (1 + 0.1) / 2
		{"up toward latency", map[string]any{types.AutoThrottleStartDelay: 0.0},
			[]string{"ms=100"}, 100 * time.Millisecond, 300 * time.Millisecond}, // at least the target
		{"target concurrency", map[string]any{types.AutoThrottleStartDelay: 0.0, types.AutoThrottleTargetConcurrency: 4.0},
			[]string{"ms=200"}, 50 * time.Millisecond, 150 * time.Millisecond}, // 0.2 / 4
		{"not below DOWNLOAD_DELAY", map[string]any{types.AutoThrottleStartDelay: 0.0, types.DownloadDelay: 0.4},
			[]string{"ms=1"}, 400 * time.Millisecond, 400 * time.Millisecond},
		{"not above MAX_DELAY", map[string]any{types.AutoThrottleStartDelay: 0.0, types.AutoThrottleMaxDelay: 0.05},
			[]string{"ms=100"}, 50 * time.Millisecond, 50 * time.Millisecond},
		{"503 doubles", map[string]any{types.AutoThrottleStartDelay: 0.3},
			[]string{"status=503"}, 600 * time.Millisecond, 700 * time.Millisecond},
		{"429 doubles up to MAX", map[string]any{types.AutoThrottleStartDelay: 0.3, types.AutoThrottleMaxDelay: 0.5},
			[]string{"status=429"}, 500 * time.Millisecond, 500 * time.Millisecond},
		{"500 does not lower", map[string]any{types.AutoThrottleStartDelay: 0.3},
			[]string{"status=500"}, 300 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kv := map[string]any{types.AutoThrottleEnabled: true, types.AutoThrottleDebug: true,
				types.RandomizeDownloadDelay: false, types.RetryEnabled: false}
			for k, v := range tc.kv {
				kv[k] = v
			}
			logs := &enginetest.Buffer{}
			slots := engine.NewSlotDownloader(settings(t, kv), engine.NewHTTPDownloader(settings(t, kv), nil, engine.NewStats()),
				engine.SlotLogger(slog.New(slog.NewTextHandler(logs, nil))))
			for _, q := range tc.queries {
				if _, err := slots.Fetch(context.Background(), &types.Request{URL: srv.URL + "/?" + q}); err != nil {
					t.Fatal(err)
				}
			}
			d, ok := slots.Delay(host)
			if !ok || d < tc.min || d > tc.max {
				t.Errorf("delay = %v (%v), want %v–%v", d, ok, tc.min, tc.max)
			}
			if !strings.Contains(logs.String(), "slot: "+host+" | conc: 1 | delay:") {
				t.Errorf("no AUTOTHROTTLE_DEBUG line:\n%s", logs)
			}
		})
	}
}

// TestRobotsTxt: allowed paths are fetched, disallowed ones are not and fail with
// ErrIgnoreRequest; 4xx allows all, 5xx disallows all; the group is chosen by the user
// agent's product tokens or ROBOTSTXT_USER_AGENT; meta.dontObeyRobotstxt skips the check.
// The matcher's own cases are in engine/robotstxt.
func TestRobotsTxt(t *testing.T) {
	t.Parallel()
	const groups = "User-agent: otherbot\nDisallow: /\n\nUser-agent: jscrawl\nDisallow: /mine\n\nUser-agent: *\nDisallow: /private\n"
	const mybot = "User-agent: mybot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"
	for _, tc := range []struct {
		name   string
		status int
		robots string
		kv     map[string]any
		meta   types.Item
		path   string
		allow  bool
	}{
		{"allowed", 200, "User-agent: *\nDisallow: /private", nil, nil, "/public", true},
		{"disallowed", 200, "User-agent: *\nDisallow: /private", nil, nil, "/private/x?y=1", false},
		{"query in the rule", 200, "User-agent: *\nDisallow: /*?sort=", nil, nil, "/list?sort=asc", false},
		{"404 allows all", 404, "User-agent: *\nDisallow: /", nil, nil, "/private", true},
		{"403 allows all", 403, "", nil, nil, "/x", true},
		{"503 disallows all", 503, "", nil, nil, "/public", false},
		{"our token's group", 200, groups, nil, nil, "/mine", false},
		{"our token's group, not *", 200, groups, nil, nil, "/private", true},
		{"ROBOTSTXT_USER_AGENT group", 200, groups, map[string]any{types.RobotsTxtUserAgent: "OtherBot"}, nil, "/public", false},
		{"USER_AGENT's first token", 200, groups, map[string]any{types.UserAgent: "otherbot/2.0 (+https://x)"}, nil, "/public", false},
		{"dontObeyRobotstxt", 200, "User-agent: *\nDisallow: /", nil, types.Item{{Key: "dontObeyRobotstxt", Value: true}}, "/x", true},
		{"ROBOTSTXT_OBEY false", 200, "User-agent: *\nDisallow: /", map[string]any{types.RobotsTxtObey: false}, nil, "/x", true},
		// Issue 12: a stray line before the first User-agent made the old parser give up
		// and allow everything; the rest of the file applies.
		{"stray line before User-agent", 200, "<!DOCTYPE html>\nDisallow: /\nUser-agent: *\nDisallow: /private", nil, nil, "/private/x", false},
		{"stray line before User-agent, allowed", 200, "<!DOCTYPE html>\nDisallow: /\nUser-agent: *\nDisallow: /private", nil, nil, "/public", true},
		{"misspelled Disallow", 200, "User-agent: *\nDissallow: /private", nil, nil, "/private/x", false},
		{"raw UTF-8 rule", 200, "User-agent: *\nDisallow: /wiki/Käyttäjä:", nil, nil, "/wiki/Käyttäjä:Foo", false},
		{"percent-encoded rule", 200, "User-agent: *\nDisallow: /%7ejoe/", nil, nil, "/~joe/x", false},
		{"compatible USER_AGENT", 200, mybot, map[string]any{types.UserAgent: "Mozilla/5.0 (compatible; MyBot/1.0)"}, nil, "/public", false},
		{"compatible ROBOTSTXT_USER_AGENT", 200, mybot, map[string]any{types.RobotsTxtUserAgent: "Mozilla/5.0 (compatible; MyBot/1.0)"}, nil, "/public", false},
		{"case-insensitive group", 200, mybot, map[string]any{types.RobotsTxtUserAgent: "MYBOT"}, nil, "/public", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := robotsSite(t, tc.status, tc.robots)
			kv := map[string]any{types.RobotsTxtObey: true}
			for k, v := range tc.kv {
				kv[k] = v
			}
			e, logs := newEngine(t, &enginetestSpider, kv)
			u := srv.URL + tc.path
			_, err := e.Download(context.Background(), &types.Request{URL: u, Meta: tc.meta})
			path, _, _ := strings.Cut(tc.path, "?")
			if tc.allow {
				if err != nil || srv.hits(path) != 1 {
					t.Errorf("err = %v, hits = %d; want allowed", err, srv.hits(path))
				}
				return
			}
			if !errors.Is(err, engine.ErrIgnoreRequest) {
				t.Errorf("err = %v, want ErrIgnoreRequest", err)
			}
			if h := srv.hits(path); h != 0 {
				t.Errorf("forbidden path requested %d times", h)
			}
			if n := stat(e, "robotstxt/forbidden"); n != 1 {
				t.Errorf("robotstxt/forbidden = %d", n)
			}
			if !strings.Contains(logs.String(), "DEBUG: Forbidden by robots.txt: <GET "+u+">") {
				t.Errorf("no Forbidden line:\n%s", logs)
			}
		})
	}
}

// TestRobotsTxtCrawl: in a crawl, a forbidden request reaches the errback as IgnoreRequest,
// and the robots.txt stats are counted.
func TestRobotsTxtCrawl(t *testing.T) {
	t.Parallel()
	srv := robotsSite(t, 0, "User-agent: *\nDisallow: /private\n")
	sp, failures := errbackSpider(srv.URL, "/a", "/private/1", "/b", "/private/2")
	e, _ := crawl(t, sp, map[string]any{types.RobotsTxtObey: true})
	for k, want := range map[string]int64{
		"robotstxt/request_count": 1, "robotstxt/response_count": 1,
		"robotstxt/response_status_count/200": 1, "robotstxt/forbidden": 2,
		"response_received_count": 2,
	} {
		if n := stat(e, k); n != want {
			t.Errorf("%s = %d, want %d", k, n, want)
		}
	}
	if srv.hits("/robots.txt") != 1 || srv.hits("/private/1")+srv.hits("/private/2") != 0 {
		t.Errorf("hits: robots %d, private %d", srv.hits("/robots.txt"), srv.hits("/private/1")+srv.hits("/private/2"))
	}
	if failed := failures.All(); len(failed) != 2 || !strings.HasPrefix(failed[0], "IgnoreRequest ") || !strings.Contains(failed[0], srv.URL+"/private/") {
		t.Errorf("errbacks: %v", failed)
	}
}

// TestRobotsTxtOncePerOrigin: many concurrent requests to two origins fetch each
// robots.txt once; the robots.txt answers only after all requests have started.
func TestRobotsTxtOncePerOrigin(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	handler := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			<-hold
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		}
	}
	a, b := newSite(t, handler), newSite(t, handler)
	e, _ := newEngine(t, &enginetestSpider, map[string]any{types.RobotsTxtObey: true, types.ConcurrentRequests: 64})
	var wg sync.WaitGroup
	for i := range 40 {
		for _, s := range []*site{a, b} {
			wg.Go(func() {
				_, err := e.Download(context.Background(), &types.Request{URL: fmt.Sprintf("%s/p/%d", s.URL, i)})
				if err != nil {
					t.Error(err)
				}
			})
		}
	}
	close(hold)
	wg.Wait()
	if a.hits("/robots.txt") != 1 || b.hits("/robots.txt") != 1 {
		t.Errorf("robots.txt fetched %d and %d times, want once per origin", a.hits("/robots.txt"), b.hits("/robots.txt"))
	}
	if n := stat(e, "robotstxt/request_count"); n != 2 {
		t.Errorf("robotstxt/request_count = %d, want 2", n)
	}
	if a.hits("/p/7") != 1 {
		t.Errorf("/p/7 hits = %d", a.hits("/p/7"))
	}
}

// TestRobotsTxtCrawlDelay: the Crawl-delay, or the interval of the Request-rate when it is
// longer, spaces the slot's downloads, without randomization, and ROBOTSTXT_CRAWL_DELAY_MAX
// caps it.
func TestRobotsTxtCrawlDelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		robots  string
		kv      map[string]any
		min     time.Duration
		maxSpan time.Duration // loose: proves the cap
	}{
		{"crawl-delay", "User-agent: *\nCrawl-delay: 0.3\n", nil, 250 * time.Millisecond, 20 * time.Second},
		{"capped", "User-agent: *\nCrawl-delay: 30\n", map[string]any{types.RobotsTxtCrawlDelayMax: 0.2}, 160 * time.Millisecond, 10 * time.Second},
		{"other group's delay", "User-agent: otherbot\nCrawl-delay: 30\n", nil, 0, 10 * time.Second},
		{"request-rate", "User-agent: *\nRequest-rate: 10/3s\n", nil, 250 * time.Millisecond, 20 * time.Second},
		{"request-rate longer than crawl-delay", "User-agent: *\nCrawl-delay: 0.01\nRequest-rate: 10/3\n", nil, 250 * time.Millisecond, 20 * time.Second},
		{"crawl-delay longer than request-rate", "User-agent: *\nCrawl-delay: 0.3\nRequest-rate: 100/1s\n", nil, 250 * time.Millisecond, 20 * time.Second},
		{"request-rate capped", "User-agent: *\nRequest-rate: 1/1m\n", map[string]any{types.RobotsTxtCrawlDelayMax: 0.2}, 160 * time.Millisecond, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := robotsSite(t, 0, tc.robots)
			kv := map[string]any{types.RobotsTxtObey: true, types.RandomizeDownloadDelay: true}
			for k, v := range tc.kv {
				kv[k] = v
			}
			e, _ := newEngine(t, &enginetestSpider, kv)
			for _, p := range []string{"/1", "/2", "/3"} {
				if _, err := e.Download(context.Background(), &types.Request{URL: srv.URL + p}); err != nil {
					t.Fatal(err)
				}
			}
			at := append(srv.at("/1"), append(srv.at("/2"), srv.at("/3")...)...)
			for i := 1; i < len(at); i++ {
				if gap := at[i].Sub(at[i-1]); gap < tc.min {
					t.Errorf("gap %d = %v, want ≥ %v", i, gap, tc.min)
				}
			}
			if span := at[2].Sub(at[0]); span > tc.maxSpan {
				t.Errorf("span %v: Crawl-delay not capped", span)
			}
		})
	}
}

// spiderFuncs is a spider from two functions.
type spiderFuncs struct {
	start   func(engine.Emit)
	errback func(*types.Failure)
}

func (s *spiderFuncs) Start(_ context.Context, emit engine.Emit) error { s.start(emit); return nil }
func (s *spiderFuncs) Parse(context.Context, *types.Response, engine.Emit) error {
	return nil
}
func (s *spiderFuncs) Errback(_ context.Context, f *types.Failure, _ engine.Emit) error {
	s.errback(f)
	return nil
}

// errbackSpider is a spider that requests each of paths on base with an errback, and
// records each failure as "Name Message".
func errbackSpider(base string, paths ...string) (*spiderFuncs, *enginetest.Recorder[string]) {
	failures := &enginetest.Recorder[string]{}
	return &spiderFuncs{
		start: func(emit engine.Emit) {
			for _, p := range paths {
				emit(types.Output{Request: &types.Request{URL: base + p, Errback: "eb"}})
			}
		},
		errback: func(f *types.Failure) { failures.Add(f.Name + " " + f.Message) },
	}, failures
}

// TestRedirectPassesRobotsAgain: a redirect to a path robots.txt disallows is refused by
// the real RobotsTxtMiddleware, for a scheduled request (the redirect goes back through the
// scheduler and the whole chain) and for an inline download alike; the disallowed path is
// never requested.
func TestRedirectPassesRobotsAgain(t *testing.T) {
	t.Parallel()
	srv := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case "/go":
			http.Redirect(w, r, "/private/x", http.StatusFound)
		case "/ok":
			http.Redirect(w, r, "/public", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "<html>ok</html>")
		}
	})
	sp, failures := errbackSpider(srv.URL, "/go", "/ok")
	e, _ := crawl(t, sp, map[string]any{types.RobotsTxtObey: true})
	if n := stat(e, "robotstxt/forbidden"); n != 1 {
		t.Errorf("robotstxt/forbidden = %d, want 1", n)
	}
	if srv.hits("/private/x") != 0 || srv.hits("/public") != 1 {
		t.Errorf("hits: /private/x %d (want 0), /public %d (want 1)", srv.hits("/private/x"), srv.hits("/public"))
	}
	if failed := failures.All(); len(failed) != 1 || !strings.HasPrefix(failed[0], "IgnoreRequest ") || !strings.Contains(failed[0], "/private/x") {
		t.Errorf("errbacks: %v", failed)
	}

	e2, _ := newEngine(t, &enginetestSpider, map[string]any{types.RobotsTxtObey: true})
	if _, err := e2.Download(context.Background(), &types.Request{URL: srv.URL + "/go"}); !errors.Is(err, engine.ErrIgnoreRequest) {
		t.Errorf("inline redirect into /private: err = %v, want ErrIgnoreRequest", err)
	}
	if srv.hits("/private/x") != 0 {
		t.Errorf("the inline redirect fetched /private/x")
	}
}
