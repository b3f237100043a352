package redisfrontier_test

import (
	"context"
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

// linkSpider crawls the server's /links graph of total pages, one item per page, which it
// records in items (page path → how many times scraped).
func linkSpider(srv *enginetest.Server, total int, mu *sync.Mutex, items map[string]int) *enginetest.Spider {
	return &enginetest.Spider{
		StartURLs: []string{fmt.Sprintf("%s/links/0?total=%d", srv.URL, total)},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			mu.Lock()
			items[strings.SplitN(resp.URL, "?", 2)[0]]++
			mu.Unlock()
			emit(types.Output{Item: types.Item{{Key: "url", Value: resp.URL}}})
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
}

// checkOnce checks that every worker finished by itself and that each of the total pages
// of the /links graph was downloaded and parsed once.
func checkOnce(t *testing.T, srv *enginetest.Server, total int, items map[string]int, reasons []string) {
	t.Helper()
	for i, reason := range reasons {
		if reason != "finished" {
			t.Errorf("worker %d: finish_reason %q, want finished", i, reason)
		}
	}
	if len(items) != total {
		t.Errorf("%d pages parsed, want %d", len(items), total)
	}
	for p, n := range items {
		if n != 1 {
			t.Errorf("%s parsed %d times", p, n)
		}
	}
	for i := range total {
		if h := srv.Hits(fmt.Sprintf("/links/%d", i)); h != 1 {
			t.Errorf("/links/%d downloaded %d times", i, h)
		}
	}
}

// TestWorkersShareACrawl runs three engines on one crawl: every page is downloaded and
// parsed once in all, all three finish by themselves with finish_reason finished, the
// crawl-wide stats add up, and a worker that joins afterwards finds the crawl finished.
func TestWorkersShareACrawl(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	srv := enginetest.Start(t)
	const total = 300
	var mu sync.Mutex
	items := map[string]int{}
	var wg sync.WaitGroup
	reasons := make([]string, 3)
	stats := make([]*engine.Stats, 3)
	for i := range 3 {
		stats[i] = engine.NewStats()
		f := open(t, r, "shared", func(o *redisfrontier.Options) { o.Stats = stats[i]; o.Prefetch = i })
		wg.Go(func() {
			reasons[i] = crawl(t, f, linkSpider(srv, total, &mu, items), stats[i], nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := f.Close(ctx); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
	wg.Wait()
	checkOnce(t, srv, total, items, reasons)
	var sum int64
	busy := 0
	for _, s := range stats {
		n := s.Int("item_scraped_count")
		sum += n
		if n > 0 {
			busy++
		}
	}
	if sum != total {
		t.Errorf("item_scraped_count adds up to %d, want %d", sum, total)
	}
	if busy < 2 {
		t.Errorf("only %d of 3 workers scraped items: the work did not spread", busy)
	}
	late := open(t, r, "shared", nil)
	if !late.Finished() {
		t.Error("a worker opening the finished crawl does not see it finished")
	}
	waitFor(t, "the crawl-wide totals", func() bool { return late.Totals()["item_scraped_count"] == total })
	c := client(t, r)
	agg, err := c.HGetAll(context.Background(), "jscrawl:shared:stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if agg["item_scraped_count"] != fmt.Sprint(total) {
		t.Errorf("crawl-wide item_scraped_count %q, want %d", agg["item_scraped_count"], total)
	}
	if n, _ := c.HLen(context.Background(), "jscrawl:shared:workers").Result(); n != 0 {
		t.Errorf("%d workers still registered after all closed", n)
	}
}

// TestRedisRestartedMidCrawl stops Redis (with its append-only file) in the middle of a
// two-worker crawl and starts it again: the workers wait, go on, and every page is still
// downloaded and parsed once.
func TestRedisRestartedMidCrawl(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{AOF: true})
	srv := enginetest.Start(t)
	const total = 200
	var mu sync.Mutex
	items := map[string]int{}
	stop := make(chan struct{})
	stopped := make(chan struct{})
	var once sync.Once
	spider := linkSpider(srv, total, &mu, items)
	parse := spider.ParseFunc
	spider.ParseFunc = func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
		mu.Lock()
		n := len(items)
		mu.Unlock()
		if n == total/3 {
			once.Do(func() {
				close(stop)
				<-stopped // this callback ends, and its worker reports to Redis, while Redis is down
			})
		}
		return parse(ctx, resp, emit)
	}
	var wg sync.WaitGroup
	reasons := make([]string, 2)
	stats := make([]*engine.Stats, 2)
	for i := range 2 {
		stats[i] = engine.NewStats()
		f := open(t, r, "restart", func(o *redisfrontier.Options) { o.Stats = stats[i] })
		wg.Go(func() { reasons[i] = crawl(t, f, spider, stats[i], nil) })
	}
	<-stop
	r.Stop()
	close(stopped)
	waitFor(t, "a worker to meet the outage", func() bool {
		return stats[0].Int("frontier/redis_errors")+stats[1].Int("frontier/redis_errors") > 0
	})
	r.Restart()
	wg.Wait()
	checkOnce(t, srv, total, items, reasons)
}

// TestNoEndWhileAWorkerIsInACallback: a worker idle while another is in a callback does
// not finish (the callback may yield requests); both finish once it has returned.
func TestNoEndWhileAWorkerIsInACallback(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	srv := enginetest.Start(t)
	started := make(chan int, 1)
	release := make(chan struct{})
	var engines [2]*engine.Engine
	idle := [2]chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}
	done := [2]chan string{make(chan string, 1), make(chan string, 1)}
	for i := range 2 {
		spider := &enginetest.Spider{
			StartURLs: []string{srv.URL + "/item/1"},
			ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
				if strings.HasSuffix(resp.URL, "/item/1") {
					started <- i
					<-release
					emit(types.Output{Request: &types.Request{URL: srv.URL + "/item/2"}})
				}
				return nil
			},
		}
		f := open(t, r, "callback", func(o *redisfrontier.Options) { o.LeaseTimeout = 300 * time.Millisecond })
		engines[i] = engine.New(spider, crawlSettings(), engine.WithScheduler(f, f.Parts()), engine.WithLogger(quiet))
		engines[i].Connect(engine.SpiderIdle, func(context.Context, engine.SignalEvent) error {
			select {
			case idle[i] <- struct{}{}:
			default:
			}
			return nil
		})
		go func() {
			_ = engines[i].Run(context.Background())
			done[i] <- fmt.Sprint(engines[i].Stats().Get("finish_reason"))
		}()
	}
	busy := <-started
	other := 1 - busy
	<-idle[other]
	// The other worker would finish at once if it did not wait: give it the time of a
	// lease renewal, as Redis shows it.
	c := client(t, r)
	ctx := context.Background()
	first, err := c.ZRangeWithScores(ctx, "jscrawl:callback:leased", 0, 0).Result()
	if err != nil || len(first) != 1 {
		t.Fatalf("leased: %v %v", first, err)
	}
	waitFor(t, "the busy worker's lease to be renewed", func() bool {
		s, err := c.ZScore(ctx, "jscrawl:callback:leased", first[0].Member.(string)).Result()
		return err == nil && s > first[0].Score
	})
	select {
	case reason := <-done[other]:
		t.Fatalf("worker %d finished (%s) while worker %d was in a callback", other, reason, busy)
	default:
	}
	close(release)
	for i := range 2 {
		select {
		case reason := <-done[i]:
			if reason != "finished" {
				t.Errorf("worker %d: finish_reason %q", i, reason)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("worker %d did not finish", i)
		}
	}
	if h := srv.Hits("/item/2"); h != 1 {
		t.Errorf("/item/2 downloaded %d times, want 1", h)
	}
}

// TestInspectAndClear: Inspect shows a crawl's counts, stats and workers; Clear removes
// its keys and only its keys, even when its id holds glob characters.
func TestInspectAndClear(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	ctx := context.Background()
	stats := engine.NewStats()
	f := open(t, r, "a*", func(o *redisfrontier.Options) { o.Stats = stats; o.LeaseTimeout = 300 * time.Millisecond })
	other := open(t, r, "ab", nil)
	for i := range 3 {
		f.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
		other.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
	}
	flushed(t, f)
	flushed(t, other)
	stats.Inc("item_scraped_count", 7)
	var cr *redisfrontier.Status
	waitFor(t, "the heartbeat with the stats", func() bool {
		var err error
		if cr, err = redisfrontier.Inspect(ctx, r.URL(0), "a*"); err != nil {
			t.Fatal(err)
		}
		return cr.Stats["item_scraped_count"] == 7 && len(cr.Workers) == 1
	})
	if cr.Pending != 3 || cr.Seen != 3 || cr.Finished || cr.Workers[0].ID != f.WorkerID() {
		t.Errorf("inspect: %+v", cr)
	}
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := redisfrontier.Clear(ctx, r.URL(0), "a*")
	if err != nil || n == 0 {
		t.Fatalf("clear: %d keys, %v", n, err)
	}
	keys, _ := client(t, r).Keys(ctx, "*").Result()
	for _, k := range keys {
		if !strings.HasPrefix(k, "jscrawl:ab:") {
			t.Errorf("key %s left (or another crawl's removed)", k)
		}
	}
	if len(keys) == 0 {
		t.Error("the other crawl's keys were removed")
	}
}

// TestClearOneCrawl: crawl ids may contain ':', so the keys of A:nightly and A:slot start
// with A's prefix; clearing A removes A's keys (its slots' and robots.txt's included) and
// no key of the others.
func TestClearOneCrawl(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	ctx := context.Background()
	c := client(t, r)
	for _, id := range []string{"A", "A:nightly", "A:slot"} {
		f := open(t, r, id, nil)
		for i := range 3 {
			f.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
		}
		flushed(t, f)
		startNothing(t, f)
		if err := f.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A's shared slot and robots.txt, as politeness writes them.
	c.HSet(ctx, "jscrawl:A:slot:example.com", "last", 1)
	c.ZAdd(ctx, "jscrawl:A:holds:example.com", redis.Z{Score: 1, Member: "h"})
	c.Set(ctx, "jscrawl:A:robots:http://example.com", "x", 0)
	keys := func() (mine, others []string) {
		all, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range all {
			if strings.HasPrefix(k, "jscrawl:A:nightly:") || strings.HasPrefix(k, "jscrawl:A:slot:") && !strings.HasPrefix(k, "jscrawl:A:slot:example.com") {
				others = append(others, k)
			} else {
				mine = append(mine, k)
			}
		}
		slices.Sort(others)
		return mine, others
	}
	mine, others := keys()
	st, err := redisfrontier.Inspect(ctx, r.URL(0), "A")
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != len(mine) {
		t.Errorf("inspect A: %d keys, want %d: %v", st.Keys, len(mine), mine)
	}
	n, err := redisfrontier.Clear(ctx, r.URL(0), "A")
	if err != nil {
		t.Fatal(err)
	}
	if n != len(mine) {
		t.Errorf("clear A removed %d keys, want A's %d: %v", n, len(mine), mine)
	}
	left, after := keys()
	if len(left) != 0 {
		t.Errorf("keys of A left: %v", left)
	}
	if !slices.Equal(after, others) {
		t.Errorf("the other crawls' keys after clearing A: %v, want %v", after, others)
	}
	for _, id := range []string{"A:nightly", "A:slot"} {
		st, err := redisfrontier.Inspect(ctx, r.URL(0), id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending != 3 || st.Seen != 3 || !st.StartDone {
			t.Errorf("crawl %s after clearing A: %+v", id, st)
		}
	}
}
