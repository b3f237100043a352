package redisfrontier_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
)

// crawlWithGate runs three engines on one crawl of site's graph, each with the crawl's
// shared politeness Gate, with settings kv. start() yields every page, so that all three
// workers have work at once.
func crawlWithGate(t *testing.T, r *enginetest.Redis, crawlID string, site *pageSite, kv map[string]any) {
	t.Helper()
	var wg sync.WaitGroup
	for range 3 {
		settings := crawlSettings()
		for k, v := range kv {
			if err := settings.Set(k, v, types.PriorityCmdline); err != nil {
				t.Fatal(err)
			}
		}
		f := open(t, r, crawlID, nil)
		spider := &enginetest.Spider{ParseFunc: enginetest.FollowAll}
		for i := range site.total {
			spider.StartURLs = append(spider.StartURLs, fmt.Sprintf("%s/p/%d", site.URL, i))
		}
		e := engine.New(spider, settings, engine.WithScheduler(f), engine.WithLogger(quiet),
			engine.WithOrderedDownloaderMiddlewares(engine.OrderedMiddleware{Order: redisfrontier.GateOrder, M: f.Gate(settings)}))
		wg.Go(func() {
			if err := e.Run(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if pages, _ := site.served(); pages != site.total {
		t.Errorf("%d pages downloaded, want %d", pages, site.total)
	}
}

// TestSharedDownloadDelay: three workers together download from one host no more often
// than DOWNLOAD_DELAY allows, as the server measures it.
func TestSharedDownloadDelay(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	site := newPageSite(t, 12)
	crawlWithGate(t, r, "delay", site, map[string]any{types.DownloadDelay: 0.1, types.RandomizeDownloadDelay: false})
	site.mu.Lock()
	arrivals := slices.Clone(site.arrivals)
	site.mu.Unlock()
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(arrivals); i++ {
		// Redis dates the turns to the millisecond, and the way from a turn to the server
		// adds a loaded machine's jitter; without the gate the gaps are 0-35ms.
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < 70*time.Millisecond {
			t.Errorf("downloads %d and %d arrived %s apart, want about 100ms or more", i-1, i, gap)
		}
	}
}

// TestSharedSlotConcurrency: three workers together download from one host no more than
// CONCURRENT_REQUESTS_PER_DOMAIN at once.
func TestSharedSlotConcurrency(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	site := newPageSite(t, 60)
	crawlWithGate(t, r, "conc", site, map[string]any{types.ConcurrentRequestsPerDomain: 1})
	site.mu.Lock()
	defer site.mu.Unlock()
	if site.maxInFlight != 1 {
		t.Errorf("the host had %d downloads at once, want 1", site.maxInFlight)
	}
}
