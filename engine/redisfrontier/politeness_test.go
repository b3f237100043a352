package redisfrontier_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
)

// politeSite is an enginetest server with pages /p/0 ... /p/<total-1>, each linking to
// the next three and taking hold to answer; robots.txt answers robotsStatus (200 when 0,
// the connection closed without an answer when negative) with robots; /busy answers 503 with a Retry-After of one second. The server records
// when requests arrived, with its own clock, and how many it handled at once.
type politeSite struct {
	*enginetest.Server
	total int
}

func newPoliteSite(t *testing.T, total int, hold time.Duration, robotsStatus int, robots string) *politeSite {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		if robotsStatus < 0 {
			panic(http.ErrAbortHandler) // the client sees the connection close
		}
		w.WriteHeader(cmp.Or(robotsStatus, http.StatusOK))
		fmt.Fprint(w, robots)
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		if hold > 0 {
			t := time.NewTimer(hold) // a slow page, not a synchronisation
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
			}
		}
		n, _ := strconv.Atoi(r.PathValue("n"))
		var b strings.Builder
		for m := n + 1; m <= n+3 && m < total; m++ {
			fmt.Fprintf(&b, `<a href="/p/%d">%d</a> `, m, m)
		}
		fmt.Fprintf(w, "<html><body>%s</body></html>", b.String())
	})
	return &politeSite{Server: enginetest.StartWith(t, mux), total: total}
}

// pageArrivals returns when the requests for pages and /busy arrived, in order.
func (s *politeSite) pageArrivals() []time.Time {
	at := s.Arrivals("/busy")
	for i := range s.total {
		at = append(at, s.Arrivals(fmt.Sprintf("/p/%d", i))...)
	}
	slices.SortFunc(at, time.Time.Compare)
	return at
}

// gaps returns the intervals between the arrivals of page requests, in order.
func (s *politeSite) gaps() []time.Duration {
	at := s.pageArrivals()
	var out []time.Duration
	for i := 1; i < len(at); i++ {
		out = append(out, at[i].Sub(at[i-1]))
	}
	return out
}

// worker is one engine of a shared crawl with its frontier, stats and log.
type worker struct {
	e     *engine.Engine
	f     *redisfrontier.Frontier
	stats *engine.Stats
	log   *enginetest.Buffer // the engine's log, INFO and above
}

// newWorkers opens n workers of crawl on r whose engines crawl the site from /p/0 with the
// settings kv (ROBOTSTXT_OBEY off and CONCURRENT_REQUESTS 2 unless kv sets them).
func newWorkers(t *testing.T, r *enginetest.Redis, crawl string, n int, site *politeSite, kv map[string]any, mod func(*redisfrontier.Options)) []*worker {
	t.Helper()
	spider := &enginetest.Spider{
		StartURLs: []string{site.URL + "/p/0"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
	var ws []*worker
	for range n {
		s := types.NewSettings()
		_ = s.Set(types.RobotsTxtObey, false, types.PriorityCmdline)
		_ = s.Set(types.LogStatsInterval, 0, types.PriorityCmdline)
		// Two at a time, so that one worker does not lease the whole crawl while its
		// downloads wait for the slot.
		_ = s.Set(types.ConcurrentRequests, 2, types.PriorityCmdline)
		for k, v := range kv {
			if err := s.Set(k, v, types.PriorityCmdline); err != nil {
				t.Fatal(err)
			}
		}
		w := &worker{stats: engine.NewStats(), log: &enginetest.Buffer{}}
		w.f = open(t, r, crawl, func(o *redisfrontier.Options) {
			o.Stats = w.stats
			o.Capacity = s.Int(types.ConcurrentRequests)
			if mod != nil {
				mod(o)
			}
		})
		logger := slog.New(engine.NewLogHandler(w.log, slog.LevelInfo, w.stats))
		w.e = engine.New(spider, s, engine.WithScheduler(w.f, w.f.Parts()), engine.WithStats(w.stats), engine.WithLogger(logger))
		ws = append(ws, w)
	}
	return ws
}

// runAll runs the workers' engines to their end and returns their finish reasons.
func runAll(t *testing.T, ws []*worker) []string {
	t.Helper()
	reasons := make([]string, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := w.e.Run(ctx); err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
			reasons[i] = fmt.Sprint(w.stats.Get("finish_reason"))
		})
	}
	wg.Wait()
	return reasons
}

func sum(ws []*worker, key string) int64 {
	var n int64
	for _, w := range ws {
		n += w.stats.Int(key)
	}
	return n
}

// TestSharedDelay: three workers crawl one host; the server sees its requests at least
// the slot's delay apart (DOWNLOAD_DELAY, a DOWNLOAD_SLOTS delay, a robots.txt Crawl-delay
// that one worker fetched for all three), as one worker would space them. The gaps are
// measured with the server's clock: the crawl's span holds every delay (less 40 ms), and
// no gap is under half of one.
func TestSharedDelay(t *testing.T) {
	t.Parallel()
	const margin = 40 * time.Millisecond
	for _, tc := range []struct {
		name   string
		kv     map[string]any
		robots string
		min    time.Duration
	}{
		{"DOWNLOAD_DELAY", map[string]any{types.DownloadDelay: 0.25, types.RandomizeDownloadDelay: false}, "", 250 * time.Millisecond},
		{"randomized", map[string]any{types.DownloadDelay: 0.4, types.RandomizeDownloadDelay: true}, "", 200 * time.Millisecond},
		{"DOWNLOAD_SLOTS", map[string]any{types.DownloadSlots: map[string]any{"127.0.0.1": map[string]any{"delay": 0.25, "randomizeDelay": false}}}, "", 250 * time.Millisecond},
		{"Crawl-delay", map[string]any{types.RobotsTxtObey: true}, "User-agent: *\nCrawl-delay: 0.25\n", 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := enginetest.StartRedis(t, enginetest.RedisOptions{})
			site := newPoliteSite(t, 10, 0, 0, tc.robots)
			ws := newWorkers(t, r, "delay", 3, site, tc.kv, nil)
			for i, reason := range runAll(t, ws) {
				if reason != "finished" {
					t.Errorf("worker %d: finish_reason %q", i, reason)
				}
			}
			gaps := site.gaps()
			if len(gaps) != site.total-1 {
				t.Fatalf("%d pages downloaded, want %d", len(gaps)+1, site.total)
			}
			// The site stamps a request when its handler runs, which on a loaded machine can
			// lag the moment the worker sent it: one late stamp shortens one gap and
			// lengthens the one before. So the whole crawl's span must hold every delay, and
			// each gap at least half of one (three workers with delays of their own would
			// often come closer, and take a third of the span).
			var span time.Duration
			for i, g := range gaps {
				span += g
				if g < tc.min/2 {
					t.Errorf("gap %d between requests to the host: %v, want about %v or more", i, g, tc.min)
				}
			}
			if want := time.Duration(len(gaps))*tc.min - margin; span < want {
				t.Errorf("%d pages took %v from first to last, want at least %v (%v between each)", site.total, span, want, tc.min)
			}
			if busy := countBusy(ws); busy < 2 {
				t.Errorf("only %d workers downloaded: the test does not show sharing", busy)
			}
			if tc.robots != "" {
				if n := site.Hits("/robots.txt"); n != 1 {
					t.Errorf("robots.txt downloaded %d times by three workers, want 1", n)
				}
				if n := sum(ws, "robotstxt/request_count"); n != 1 {
					t.Errorf("robotstxt/request_count adds up to %d, want 1", n)
				}
			}
		})
	}
}

func countBusy(ws []*worker) int {
	n := 0
	for _, w := range ws {
		if w.stats.Int("response_received_count") > 0 {
			n++
		}
	}
	return n
}

// TestSharedConcurrency: with CONCURRENT_REQUESTS_PER_DOMAIN 2 (or a DOWNLOAD_SLOTS
// concurrency of 1), three workers together never have more requests at the server at
// once; the handler counts them.
func TestSharedConcurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		kv   map[string]any
		want int
	}{
		{"CONCURRENT_REQUESTS_PER_DOMAIN", map[string]any{types.ConcurrentRequestsPerDomain: 2}, 2},
		{"DOWNLOAD_SLOTS", map[string]any{types.DownloadSlots: map[string]any{"127.0.0.*": map[string]any{"concurrency": 1.0}}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := enginetest.StartRedis(t, enginetest.RedisOptions{})
			site := newPoliteSite(t, 40, 20*time.Millisecond, 0, "")
			ws := newWorkers(t, r, "conc", 3, site, tc.kv, nil)
			runAll(t, ws)
			if n := len(site.gaps()) + 1; n != site.total {
				t.Fatalf("%d pages downloaded, want %d", n, site.total)
			}
			if got := site.MaxInFlight(); got > tc.want {
				t.Errorf("%d requests at the server at once, want ≤ %d", got, tc.want)
			}
			if busy := countBusy(ws); busy < 2 {
				t.Errorf("only %d workers downloaded: the test does not show sharing", busy)
			}
		})
	}
}

// TestRetryAfterPausesAllWorkers: a 503 with Retry-After: 1 that one worker gets pauses
// the slot for the others: once the pause is in Redis, their downloads reach the server
// no sooner than a second after the 503.
func TestRetryAfterPausesAllWorkers(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	site := newPoliteSite(t, 3, 0, 0, "")
	ws := newWorkers(t, r, "pause", 3, site, map[string]any{types.RetryTimes: 0}, nil)
	ctx := context.Background()
	resp, err := ws[0].e.Download(ctx, &types.Request{URL: site.URL + "/busy"})
	if err != nil || resp.Status != 503 {
		t.Fatalf("/busy: %v %v", resp, err)
	}
	busyAt := site.Arrivals("/busy")[0]
	waitFor(t, "the pause to reach Redis", func() bool {
		n, _ := c.HExists(ctx, "jscrawl:pause:slot:127.0.0.1", "pause").Result()
		return n
	})
	var wg sync.WaitGroup
	for i, w := range ws[1:] {
		wg.Go(func() {
			if _, err := w.e.Download(ctx, &types.Request{URL: fmt.Sprintf("%s/p/%d", site.URL, i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	later := site.pageArrivals()[1:]
	if len(later) != 2 {
		t.Fatalf("%d downloads after /busy, want 2", len(later))
	}
	for _, at := range later {
		if d := at.Sub(busyAt); d < time.Second-20*time.Millisecond {
			t.Errorf("a download reached the server %v after the 503, want ≥ 1s (Retry-After)", d)
		}
	}
}

// TestRobotsTxtShared: three workers obeying robots.txt download it once, whatever it
// answers, and all apply what the one download gave: the rules of a 200, everything
// disallowed after a 503 (no retry here), everything allowed after a 404 and after a
// network error.
func TestRobotsTxtShared(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		status    int
		robots    string
		forbidden []string // of /p/0, /p/1, /p/2
	}{
		{"rules", 0, "User-agent: *\nDisallow: /p/1\n", []string{"/p/1"}},
		{"server error", 503, "", []string{"/p/0", "/p/1", "/p/2"}},
		{"missing", 404, "", nil},
		{"network error", -1, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := enginetest.StartRedis(t, enginetest.RedisOptions{})
			site := newPoliteSite(t, 3, 0, tc.status, tc.robots)
			ws := newWorkers(t, r, "robots", 3, site, map[string]any{types.RobotsTxtObey: true, types.RetryTimes: 0}, nil)
			var wg sync.WaitGroup
			for _, w := range ws {
				for i := range 3 {
					wg.Go(func() {
						p := fmt.Sprintf("/p/%d", i)
						_, err := w.e.Download(context.Background(), &types.Request{URL: site.URL + p, DontFilter: true})
						if forbidden := slices.Contains(tc.forbidden, p); forbidden != errors.Is(err, engine.ErrIgnoreRequest) {
							t.Errorf("%s: err %v, forbidden %v", p, err, forbidden)
						}
					})
				}
			}
			wg.Wait()
			if n := site.Hits("/robots.txt"); n != 1 {
				t.Errorf("robots.txt downloaded %d times by three workers, want 1", n)
			}
			for i := range 3 {
				p := fmt.Sprintf("/p/%d", i)
				want := 3
				if slices.Contains(tc.forbidden, p) {
					want = 0
				}
				if n := site.Hits(p); n != want {
					t.Errorf("%s downloaded %d times, want %d", p, n, want)
				}
			}
		})
	}
}

// shortLeases starts a Redis and opens a worker of crawl on it for each of stats (nil: its
// own), with a lease timeout of 600 ms; it returns them and a client to look at the keys.
func shortLeases(t *testing.T, crawl string, stats ...*engine.Stats) ([]*redisfrontier.Frontier, *redis.Client) {
	t.Helper()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	var fs []*redisfrontier.Frontier
	for _, s := range stats {
		fs = append(fs, open(t, r, crawl, func(o *redisfrontier.Options) {
			o.LeaseTimeout = 600 * time.Millisecond
			o.Stats = s
		}))
	}
	return fs, client(t, r)
}

// TestSlotHoldOfKilledWorker: a worker's hold on a slot of concurrency 1 keeps another
// worker out while it is renewed past its lease timeout; once the worker is killed, the
// hold expires and the other worker gets the slot (frontier/slot_holds_recovered).
func TestSlotHoldOfKilledWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bStats := engine.NewStats()
	fs, c := shortLeases(t, "kill", nil, bStats)
	a, b := fs[0], fs[1]
	if _, err := a.AcquireSlot(ctx, "host", 1, 0); err != nil {
		t.Fatal(err)
	}
	holds, err := c.ZRangeWithScores(ctx, "jscrawl:kill:holds:host", 0, -1).Result()
	if err != nil || len(holds) != 1 {
		t.Fatalf("holds: %v %v", holds, err)
	}
	waitFor(t, "a's hold to be renewed past its first deadline plus the lease timeout", func() bool {
		s, err := c.ZScore(ctx, "jscrawl:kill:holds:host", holds[0].Member.(string)).Result()
		return err == nil && s > holds[0].Score+600_000
	})
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = b.AcquireSlot(tctx, "host", 1, 0)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b acquired the slot a holds and renews: %v", err)
	}
	a.Kill()
	tctx, cancel = context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	hold, err := b.AcquireSlot(tctx, "host", 1, 0)
	if err != nil {
		t.Fatalf("b never got the slot of the killed worker: %v", err)
	}
	hold.Release(0)
	if n := bStats.Int("frontier/slot_holds_recovered"); n != 1 {
		t.Errorf("frontier/slot_holds_recovered = %d, want 1", n)
	}
}

// TestThrottleShared: the AutoThrottle delay a worker shares when it releases a slot is
// the one another worker's next hold of the slot reports.
func TestThrottleShared(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	ctx := context.Background()
	a := open(t, r, "throttle", nil)
	b := open(t, r, "throttle", nil)
	h, err := a.AcquireSlot(ctx, "host", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h.Throttle != 0 {
		t.Errorf("a fresh slot's throttle: %v", h.Throttle)
	}
	h.Release(1500 * time.Millisecond)
	waitFor(t, "b to see a's throttle", func() bool {
		h, err := b.AcquireSlot(ctx, "host", 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		h.Release(0)
		return h.Throttle == 1500*time.Millisecond
	})
}

// TestSlotsThroughRedisOutage: an acquisition while Redis is down waits, and gets the slot
// once Redis is back; one still failing when the frontier gives up (FRONTIER_RETRY_TIMEOUT)
// fails with the frontier's error.
func TestSlotsThroughRedisOutage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		back    bool
		timeout time.Duration
	}{
		{"redis comes back", true, time.Minute},
		{"redis stays away", false, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := enginetest.StartRedis(t, enginetest.RedisOptions{})
			stats := engine.NewStats()
			f := open(t, r, "outage", func(o *redisfrontier.Options) { o.RetryTimeout = tc.timeout; o.Stats = stats })
			r.Stop()
			got := make(chan error, 1)
			go func() {
				h, err := f.AcquireSlot(context.Background(), "host", 1, 0)
				if err == nil {
					h.Release(0)
				}
				got <- err
			}()
			if tc.back {
				waitFor(t, "the frontier to see the outage", func() bool { return stats.Int("frontier/redis_errors") > 0 })
				r.Restart()
			}
			select {
			case err := <-got:
				switch {
				case tc.back && err != nil:
					t.Errorf("acquisition after Redis came back: %v", err)
				case !tc.back && (err == nil || !strings.Contains(err.Error(), "FRONTIER_RETRY_TIMEOUT")):
					t.Errorf("acquisition with Redis gone: %v, want the frontier's unreachable error", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the acquisition neither got the slot nor failed")
			}
		})
	}
}

// TestAutoThrottleShared: with AutoThrottle a slot has one delay for the crawl. A 503 that
// worker A gets doubles the slot's delay from AUTOTHROTTLE_START_DELAY (0.5 s) to 1 s, and
// worker B, which has downloaded nothing, starts from that delay: after its first response
// its delay is the mean of 1 s and the tiny latency, about 500 ms (AUTOTHROTTLE_DEBUG),
// where its own start delay would give about 250 ms.
func TestAutoThrottleShared(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	site := newPoliteSite(t, 1, 0, 0, "")
	ws := newWorkers(t, r, "autothrottle", 2, site, map[string]any{
		types.AutoThrottleEnabled: true, types.AutoThrottleStartDelay: 0.5, types.AutoThrottleDebug: true,
		types.RetryTimes: 0,
	}, nil)
	ctx := context.Background()
	if resp, err := ws[0].e.Download(ctx, &types.Request{URL: site.URL + "/busy"}); err != nil || resp.Status != 503 {
		t.Fatalf("/busy: %v %v", resp, err)
	}
	waitFor(t, "A's delay to reach Redis", func() bool {
		at, _ := c.HGet(ctx, "jscrawl:autothrottle:slot:127.0.0.1", "at").Int64()
		return at == time.Second.Microseconds()
	})
	if _, err := ws[1].e.Download(ctx, &types.Request{URL: site.URL + "/p/0"}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`delay:\s*(\d+) ms`).FindStringSubmatch(ws[1].log.String())
	if m == nil {
		t.Fatalf("no AutoThrottle line in B's log:\n%s", ws[1].log.String())
	}
	if ms, _ := strconv.Atoi(m[1]); ms < 450 || ms > 550 {
		t.Errorf("B's delay after its first response: %d ms, want about 500 (from A's 1 s)", ms)
	}
}

// TestRobotsLockOfKilledWorker: a worker killed while it downloads robots.txt leaves the
// lock to expire; then another worker downloads it, and the others get its outcome.
func TestRobotsLockOfKilledWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fs, c := shortLeases(t, "robotskill", nil, nil, nil)
	a, b, d := fs[0], fs[1], fs[2]
	const origin = "http://example.com"
	fetching, unblock := make(chan struct{}), make(chan struct{})
	aDone := make(chan struct{})
	go func() {
		defer close(aDone)
		_, _ = a.RobotsTxt(ctx, origin, func(context.Context) (engine.RobotsOutcome, bool) {
			close(fetching)
			<-unblock
			return engine.RobotsOutcome{Verdict: engine.RobotsAllowAll}, true
		})
	}()
	<-fetching
	a.Kill()
	rules := engine.RobotsOutcome{Verdict: engine.RobotsRules, Body: []byte("User-agent: *\nDisallow: /b\n")}
	fetched := 0
	got, err := b.RobotsTxt(ctx, origin, func(context.Context) (engine.RobotsOutcome, bool) {
		fetched++
		return rules, true
	})
	if err != nil || fetched != 1 || got.Verdict != engine.RobotsRules || string(got.Body) != string(rules.Body) {
		t.Fatalf("b: %+v %v, fetched %d times; want b to fetch once after a's lock expired", got, err, fetched)
	}
	got, err = d.RobotsTxt(ctx, origin, func(context.Context) (engine.RobotsOutcome, bool) {
		t.Error("d fetched robots.txt that b shared")
		return engine.RobotsOutcome{}, false
	})
	if err != nil || string(got.Body) != string(rules.Body) {
		t.Errorf("d: %+v %v, want b's rules", got, err)
	}
	close(unblock)
	<-aDone
	if v, _ := c.Get(ctx, "jscrawl:robotskill:robots:"+origin).Result(); v[1:] != string(rules.Body) {
		t.Errorf("shared outcome %q: the killed worker's late fetch replaced b's", v)
	}
}

// TestPauseMovesReservedStart: worker B has reserved a start 300 ms ahead (the slot's
// delay after its first download) when worker A pauses the slot for a second; B's
// download then starts no sooner than the pause's end.
func TestPauseMovesReservedStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fs, c := shortLeases(t, "reserved", nil, nil)
	a, b := fs[0], fs[1]
	const delay = 300 * time.Millisecond
	first, err := b.AcquireSlot(ctx, "host", 3, delay)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release(0)
	started := make(chan time.Time, 1)
	go func() {
		h, err := b.AcquireSlot(ctx, "host", 3, delay)
		started <- time.Now()
		if err != nil {
			t.Error(err)
			return
		}
		h.Release(0)
	}()
	waitFor(t, "b's second start to be reserved", func() bool {
		n, _ := c.ZCard(ctx, "jscrawl:reserved:holds:host").Result()
		return n == 2
	})
	paused := time.Now()
	a.PauseSlot("host", paused.Add(time.Second))
	if d := (<-started).Sub(paused); d < time.Second-20*time.Millisecond {
		t.Errorf("b's reserved download started %v after the pause began, want ≥ 1s", d)
	}
}

// TestSlotHoldReused: in a slot without a delay, a worker's next download takes the hold
// its previous one left (no new hold in Redis), another worker still cannot exceed the
// slot's concurrency meanwhile, and a hold left unused is released, so the other worker
// gets the slot.
func TestSlotHoldReused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	aStats := engine.NewStats()
	a := open(t, r, "reuse", func(o *redisfrontier.Options) { o.Stats = aStats })
	b := open(t, r, "reuse", nil)
	holds := func() []string {
		m, err := c.ZRange(ctx, "jscrawl:reuse:holds:host", 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	hold, err := a.AcquireSlot(ctx, "host", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	first := holds()
	hold.Release(0)
	hold, err = a.AcquireSlot(ctx, "host", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := aStats.Int("frontier/slot_holds_reused"); n != 1 {
		t.Errorf("frontier/slot_holds_reused = %d, want 1", n)
	}
	if got := holds(); len(first) != 1 || !slices.Equal(got, first) {
		t.Errorf("holds %v after the second acquisition, want the first one's %v", got, first)
	}
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = b.AcquireSlot(tctx, "host", 1, 0)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b acquired the slot a holds: %v", err)
	}
	hold.Release(0)
	tctx, cancel = context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	hold, err = b.AcquireSlot(tctx, "host", 1, 0)
	if err != nil {
		t.Fatalf("b never got the slot a no longer uses: %v", err)
	}
	hold.Release(0)
}
