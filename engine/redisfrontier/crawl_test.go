package redisfrontier_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

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
		f := open(t, r, "shared", func(o *redisfrontier.Options) { o.Stats = stats[i] })
		wg.Go(func() {
			reasons[i] = crawl(t, f, linkSpider(srv, total, &mu, items), stats[i], nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*1e9)
			defer cancel()
			if err := f.Close(ctx); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
	wg.Wait()
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
	if got := late.Totals(); got["item_scraped_count"] != 0 {
		t.Errorf("totals before the first heartbeat: %v", got)
	}
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
	for i, reason := range reasons {
		if reason != "finished" {
			t.Errorf("worker %d: finish_reason %q", i, reason)
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
