package redisfrontier_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// slotReq returns a request of download slot slot (meta.downloadSlot) for
// http://example.com/<path>.
func slotReq(slot, path string, prio int) *types.Request {
	r := &types.Request{URL: "http://example.com/" + path, Priority: prio}
	r.Meta.Set(types.MetaDownloadSlot, slot)
	return r
}

// TestLeasesPerSlot: a worker that has room for ten requests of one slot leases no more
// of them than the slot's free concurrency, its lease holds counted in the slot's holds
// (as the shared slot gate counts them); with a delay, one per delay. Not a host's whole
// queue, as a worker leasing whatever its host did.
func TestLeasesPerSlot(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		conc  int
		delay time.Duration
		want  int
	}{
		{"concurrency", 2, 0, 2},
		{"delay", 4, time.Second, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crawl := "perslot-" + tc.name
			f := open(t, r, crawl, func(o *redisfrontier.Options) {
				o.Capacity, o.Prefetch, o.SlotConcurrency, o.SlotDelay = 10, 5, tc.conc, tc.delay
			})
			for i := range 10 {
				f.Enqueue(slotReq("s", fmt.Sprint(i), 0))
			}
			flushed(t, f)
			startNothing(t, f)
			var got []*types.Request
			for {
				rq := next(f, 300*time.Millisecond)
				if rq == nil {
					break
				}
				got = append(got, rq)
			}
			if len(got) != tc.want {
				t.Fatalf("leased %d requests of the slot, want %d", len(got), tc.want)
			}
			if n, _ := c.ZCard(ctx, "jscrawl:"+crawl+":holds:s").Result(); n != int64(tc.want) {
				t.Errorf("holds:s has %d holds, want the %d leases'", n, tc.want)
			}
			st, err := redisfrontier.Inspect(ctx, r.URL(0), crawl)
			if err != nil {
				t.Fatal(err)
			}
			if st.Pending != int64(10-tc.want) || st.Slots != 1 || st.Leased != int64(tc.want) {
				t.Errorf("inspect: %d pending in %d slots, %d leased; want %d in 1, %d", st.Pending, st.Slots, st.Leased, 10-tc.want, tc.want)
			}
			if tc.delay == 0 {
				f.Done(got[0]) // its hold goes with its lease: room for one more
				if rq := next(f, 10*time.Second); rq == nil {
					t.Error("no request leased once a lease of the slot was done")
				}
			}
		})
	}
}

// TestPrioritiesAcrossSlots: requests of several slots, all ready, are leased by
// priority whatever their slot, FIFO within a priority.
func TestPrioritiesAcrossSlots(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	mod := func(o *redisfrontier.Options) { o.FIFO = true; o.Capacity = 1 }
	p := open(t, r, "prioslots", mod)
	for _, e := range []struct {
		slot, path string
		prio       int
	}{{"x", "x1", 0}, {"y", "y1", 5}, {"z", "z1", 3}, {"x", "x2", 0}, {"y", "y2", -1}, {"z", "z2", 3}, {"x", "x3", 7}} {
		p.Enqueue(slotReq(e.slot, e.path, e.prio))
	}
	flushed(t, p)
	startNothing(t, p)
	want := []string{"x3", "y1", "z1", "z2", "x1", "x2", "y2"}
	if got := order(t, open(t, r, "prioslots", mod)); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestPausedSlotLeasesOthers: a slot paused by a Retry-After (PauseSlot) holds back its
// requests, the best ones included, and only them: the other slot's are leased.
func TestPausedSlotLeasesOthers(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	f := open(t, r, "paused", func(o *redisfrontier.Options) { o.Capacity = 2; o.FIFO = true })
	f.PauseSlot("a", time.Now().Add(time.Minute))
	waitFor(t, "the pause in Redis", func() bool {
		return c.HExists(ctx, "jscrawl:paused:slot:a", "pause").Val()
	})
	for i := range 3 {
		f.Enqueue(slotReq("a", fmt.Sprintf("a%d", i), 10))
		f.Enqueue(slotReq("b", fmt.Sprintf("b%d", i), 0))
	}
	flushed(t, f)
	startNothing(t, f)
	var got []string
	for range 3 {
		rq := next(f, 10*time.Second)
		if rq == nil {
			t.Fatalf("leased %v, then nothing", got)
		}
		got = append(got, strings.TrimPrefix(rq.URL, "http://example.com/"))
		f.Done(rq)
	}
	if want := []string{"b0", "b1", "b2"}; !slices.Equal(got, want) {
		t.Errorf("leased %v while slot a is paused, want %v", got, want)
	}
	if rq := next(f, 300*time.Millisecond); rq != nil {
		t.Errorf("leased %s of the paused slot", rq.URL)
	}
}

// readiness is a frontier.Readiness whose slots are ready unless set busy.
type readiness struct {
	mu       sync.Mutex
	busy     map[string]bool
	reserved []string
}

func (r *readiness) ReadyAt(key string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Time{}, !r.busy[key]
}

func (r *readiness) Reserve(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved = append(r.reserved, key)
}

func (r *readiness) set(key string, busy bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy[key] = busy
}

// TestNextAsksReadiness: Next hands out leased requests only of the slots the engine's
// Readiness says can start a download, reserving them; a slot that becomes ready
// (SlotChanged) gets its requests handed out; SlotCounts counts the slots of the leases
// held.
func TestNextAsksReadiness(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	f := open(t, r, "ready", func(o *redisfrontier.Options) { o.Capacity = 4; o.FIFO = true })
	ready := &readiness{busy: map[string]bool{"a": true}}
	f.UseSlots(ready)
	f.Enqueue(slotReq("a", "a1", 5))
	f.Enqueue(slotReq("b", "b1", 0))
	f.Enqueue(slotReq("b", "b2", 0))
	flushed(t, f)
	startNothing(t, f)
	var got []string
	for len(got) < 2 {
		rq := next(f, 10*time.Second)
		if rq == nil {
			t.Fatalf("got %v, then nothing", got)
		}
		got = append(got, strings.TrimPrefix(rq.URL, "http://example.com/"))
	}
	if want := []string{"b1", "b2"}; !slices.Equal(got, want) {
		t.Errorf("handed out %v while slot a is busy, want %v", got, want)
	}
	if slots, ready, _ := f.LocalSlotCounts(); slots != 1 || ready != 0 {
		t.Errorf("LocalSlotCounts: %d slots, %d ready; want a's 1, 0", slots, ready)
	}
	if f.Next() != nil {
		t.Fatal("Next handed out a request of the busy slot")
	}
	ready.set("a", false)
	f.SlotChanged("a")
	if rq := f.Next(); rq == nil || !strings.HasSuffix(rq.URL, "/a1") {
		t.Errorf("Next after slot a became ready: %v, want a1", rq)
	}
	ready.mu.Lock()
	defer ready.mu.Unlock()
	if want := []string{"b", "b", "a"}; !slices.Equal(ready.reserved, want) {
		t.Errorf("reserved %v, want %v", ready.reserved, want)
	}
}

// TestOldLayoutRefused: a crawl with requests in the single pending queue of an older
// jscrawl is refused with ErrOldLayout (it says to clear the crawl), not half-read.
func TestOldLayoutRefused(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	c.ZAdd(ctx, "jscrawl:old:pending", redis.Z{Member: "0007ffffffffffff0000000000001"})
	c.HSet(ctx, "jscrawl:old:req", "0007ffffffffffff0000000000001", "x")
	_, err := redisfrontier.Open(ctx, redisfrontier.Options{URL: r.URL(0), CrawlID: "old", Logger: quiet})
	if !errors.Is(err, redisfrontier.ErrOldLayout) || !strings.Contains(err.Error(), "jscrawl frontier clear") {
		t.Fatalf("open: %v, want ErrOldLayout", err)
	}
	if _, err := redisfrontier.Clear(ctx, r.URL(0), "old"); err != nil {
		t.Fatal(err)
	}
	open(t, r, "old", nil) // cleared: a new crawl
}

// runShares runs the workers ws on site to their ends, each finishing, checks that the
// site served each page once, and returns how many pages each worker downloaded (logged).
func runShares(t *testing.T, ws []*worker, site *politeSite) []int64 {
	t.Helper()
	for i, reason := range runAll(t, ws) {
		if reason != "finished" {
			t.Errorf("worker %d: finish_reason %q", i, reason)
		}
	}
	got := shares(ws)
	t.Logf("pages per worker: %v", got)
	if n := len(site.gaps()) + 1; n != site.total {
		t.Fatalf("%d pages downloaded, want %d", n, site.total)
	}
	return got
}

// shares returns how many pages each worker downloaded.
func shares(ws []*worker) []int64 {
	var out []int64
	for _, w := range ws {
		out = append(out, w.stats.Int("response_received_count"))
	}
	return out
}

// TestFairShareDelay: three workers crawl 24 pages of one host with a 0.5 s delay. The
// slot starts one request per delay, and each goes to the worker that has waited longest
// for one, so the pages are shared out in turn, not all fetched by the worker that
// happens to ask first (which was the case when a worker leased whatever its host).
func TestFairShareDelay(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	site := newPoliteSite(t, 24, 0, 0, "")
	kv := map[string]any{types.DownloadDelay: 0.5, types.RandomizeDownloadDelay: false}
	ws := newWorkers(t, r, "fairdelay", 3, site, kv, func(o *redisfrontier.Options) { o.SlotDelay = 500 * time.Millisecond })
	got := runShares(t, ws, site)
	for i, n := range got {
		// In turn: 8 each; a worker late for its turn (a loaded machine) loses it.
		if n > 12 || n < 4 {
			t.Errorf("worker %d downloaded %d of the 24 pages, want 4 to 12 (pages per worker %v)", i, n, got)
		}
	}
	for i, g := range site.gaps() {
		if g < 250*time.Millisecond {
			t.Errorf("gap %d between requests to the host: %v, want about 0.5 s", i, g)
		}
	}
}

// TestFairShareSaturated: three workers of equal capacity crawl 600 pages of one host
// without a delay whose concurrency (CONCURRENT_REQUESTS_PER_DOMAIN 4, shared) is less
// than their capacity together: the slot's room goes round the waiting workers in turn,
// so none gets much more than a third of the pages (it was nearly all of them when the
// first worker to lease kept its holds).
func TestFairShareSaturated(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	site := newPoliteSite(t, 600, 10*time.Millisecond, 0, "")
	kv := map[string]any{types.ConcurrentRequests: 4, types.ConcurrentRequestsPerDomain: 4}
	ws := newWorkers(t, r, "fairsat", 3, site, kv, func(o *redisfrontier.Options) { o.SlotConcurrency = 4 })
	got := runShares(t, ws, site)
	if m := site.MaxInFlight(); m > 4 {
		t.Errorf("%d requests at the server at once, want ≤ 4", m)
	}
	for i, n := range got {
		// In turn: 200 each; the margin is for turns lost by a worker late on a loaded
		// machine.
		if limit := int64(site.total/3 + site.total/10); n > limit {
			t.Errorf("worker %d downloaded %d of the %d pages, want a third and a margin (≤ %d; pages per worker %v)", i, n, site.total, limit, got)
		}
	}
}

// TestDownloadsTakeLeasesOutOfOrder: one worker crawls 2000 pages of one host, its
// downloads reaching the shared slot gate in another order than Next handed them out, and
// some of its requests done without a download of their own taking their lease's hold: it
// finishes (a download that found its lease's hold taken by another once waited for ever
// behind the holds of requests queued after it).
func TestDownloadsTakeLeasesOutOfOrder(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	srv := enginetest.Start(t)
	const total = 2000
	settings := crawlSettings()
	spider := &enginetest.Spider{StartURLs: []string{fmt.Sprintf("%s/links/0?total=%d", srv.URL, total)}, ParseFunc: enginetest.FollowAll}
	stats := engine.NewStats()
	f := open(t, r, "order", func(o *redisfrontier.Options) {
		*o = redisfrontier.OptionsFromSettings(settings, "order")
		o.URL, o.Stats, o.Logger = r.URL(0), stats, quiet
	})
	if reason := crawl(t, f, spider, stats, settings); reason != "finished" {
		t.Errorf("finish_reason %q after %d pages", reason, stats.Int("response_received_count"))
	}
	if n := stats.Int("response_received_count"); n != total {
		t.Errorf("%d pages downloaded, want %d", n, total)
	}
}
