package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestHTTPCacheSecondRunMakesNoRequest crawls a link graph twice with HTTPCACHE_ENABLED:
// the second crawl is served from the cache without one request reaching the server (not
// even robots.txt-free slots are waited for), yields the same items and marks its
// responses "cached".
func TestHTTPCacheSecondRunMakesNoRequest(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	dir := t.TempDir()
	run := func() ([]string, *engine.Engine, bool) {
		var mu sync.Mutex
		var items []string
		allCached := true
		sp := &enginetest.Spider{
			StartURLs: []string{srv.URL + "/links/0?total=20"},
			ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
				mu.Lock()
				items = append(items, resp.URL+" "+string(resp.Body))
				allCached = allCached && slices.Contains(resp.Flags, "cached")
				mu.Unlock()
				return enginetest.FollowAll(ctx, resp, emit)
			},
		}
		e, _ := crawl(t, sp, map[string]any{types.HTTPCacheEnabled: true, types.HTTPCacheDir: dir})
		slices.Sort(items)
		return items, e, allCached
	}
	first, e1, cached1 := run()
	hits := srv.TotalHits()
	if len(first) != 20 || hits != 20 {
		t.Fatalf("first crawl: %d pages, %d server hits, want 20 and 20", len(first), hits)
	}
	if cached1 || stat(e1, "httpcache/store") != 20 || stat(e1, "httpcache/miss") != 20 || stat(e1, "httpcache/firsthand") != 20 {
		t.Errorf("first crawl stats: %v (responses cached: %v)", e1.Stats().Snapshot(), cached1)
	}
	second, e2, cached2 := run()
	if got := srv.TotalHits() - hits; got != 0 {
		t.Errorf("second crawl made %d requests at the server, want 0", got)
	}
	if !slices.Equal(first, second) {
		t.Errorf("second crawl saw\n%q\nwant\n%q", second, first)
	}
	// Cached responses count as downloads, as in Scrapy; the server counts what was sent.
	if !cached2 || stat(e2, "httpcache/hit") != 20 || stat(e2, "httpcache/miss") != 0 ||
		stat(e2, "downloader/request_count") != 20 || stat(e2, "downloader/response_count") != 20 ||
		stat(e2, "downloader/response_status_count/200") != 20 {
		t.Errorf("second crawl stats: %v (all cached: %v)", e2.Stats().Snapshot(), cached2)
	}
}

// TestHTTPCacheDisabled checks that nothing is stored without HTTPCACHE_ENABLED.
func TestHTTPCacheDisabled(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	dir := t.TempDir()
	for range 2 {
		e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.HTTPCacheDir: dir})
		if _, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/item/1"}); err != nil {
			t.Fatal(err)
		}
	}
	if srv.Hits("/item/1") != 2 {
		t.Errorf("server hits = %d, want 2", srv.Hits("/item/1"))
	}
}

// TestHTTPCacheCoversRobotsAndInline: the cache is a downloader middleware, so robots.txt
// and inline downloads (Engine.Download) are served from it too: a second engine with the
// same cache folder makes no request at all.
func TestHTTPCacheCoversRobotsAndInline(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	dir := t.TempDir()
	kv := map[string]any{types.HTTPCacheEnabled: true, types.HTTPCacheDir: dir, types.RobotsTxtObey: true}
	for round := range 2 {
		before := srv.TotalHits()
		e, _ := newEngine(t, &enginetest.Spider{}, kv)
		resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/item/1"})
		if err != nil {
			t.Fatal(err)
		}
		hits := srv.TotalHits() - before
		switch round {
		case 0:
			if hits != 2 || srv.Hits("/robots.txt") != 1 || stat(e, "robotstxt/request_count") != 1 {
				t.Errorf("first engine: %d server hits (robots.txt %d), want 2 and 1", hits, srv.Hits("/robots.txt"))
			}
		case 1:
			if hits != 0 || !slices.Contains(resp.Flags, "cached") || stat(e, "httpcache/hit") != 2 {
				t.Errorf("second engine: %d server hits, flags %v, httpcache/hit %d; want 0, cached, 2 (robots.txt and the page)",
					hits, resp.Flags, stat(e, "httpcache/hit"))
			}
		}
	}
}
