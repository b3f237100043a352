package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkCrawl crawls the /links graph of b.N pages (at least 100) with a Go spider that
// follows every link and emits one item per page; it reports pages/s.
func BenchmarkCrawl(b *testing.B) {
	srv := enginetest.Start(b)
	n := max(b.N, 100)
	sp := followSpider(fmt.Sprintf("%s/links/0?total=%d", srv.URL, n), nil)
	e := engine.New(sp, benchSettings(nil), engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	runPages(b, e, n)
}

// followSpider is the crawl benchmarks' spider: from start it follows every link and emits
// one item per page (its URL and body length); check, when set, may fail a page first.
func followSpider(start string, check func(*types.Response) error) *enginetest.Spider {
	return &enginetest.Spider{
		StartURLs: []string{start},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			if check != nil {
				if err := check(resp); err != nil {
					return err
				}
			}
			emit(types.Output{Item: types.Item{{Key: "url", Value: resp.URL}, {Key: "len", Value: len(resp.Body)}}})
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
}

// benchSettings are the crawl benchmarks' settings: no stats log, 16 requests per domain,
// then kv; all at cmdline priority.
func benchSettings(kv map[string]any) *types.Settings {
	s := types.NewSettings()
	s.Set(types.LogStatsInterval, 0, types.PriorityCmdline)
	s.Set(types.ConcurrentRequestsPerDomain, 16, types.PriorityCmdline)
	for k, v := range kv {
		s.Set(k, v, types.PriorityCmdline)
	}
	return s
}

// runPages runs e as the timed part of b, checks that it crawled pages pages and reports
// pages/s.
func runPages(b *testing.B, e *engine.Engine, pages int) {
	b.Helper()
	b.ResetTimer()
	b.StartTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := e.Stats().Get("response_received_count"); got != int64(pages) {
		b.Fatalf("crawled %v pages, want %d", got, pages)
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}

func BenchmarkSchedulerEnqueueNext(b *testing.B) {
	s := engine.NewMemoryScheduler(types.NewSettings(), nil, nil, nil)
	reqs := make([]*types.Request, 1024)
	for i := range reqs {
		reqs[i] = &types.Request{URL: fmt.Sprintf("http://example.com/p/%d", i), Priority: i % 3, DontFilter: true}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s.Enqueue(reqs[i%len(reqs)])
		if i%2 == 1 {
			s.Next()
			s.Next()
		}
	}
}

// BenchmarkSchedulerFollow enqueues and dequeues requests shaped like a followed link
// (a new URL through the duplicate filter, a Referer header; the queue keeps the request
// encoded while it waits and decodes it at Next), in batches of 1024; making the requests
// is not counted.
func BenchmarkSchedulerFollow(b *testing.B) {
	s := engine.NewMemoryScheduler(settings(b, map[string]any{types.SchedulerMemoryMax: 0}), nil, nil, nil)
	batch := make([]*types.Request, 1024)
	b.ReportAllocs()
	for done := 0; done < b.N; done += len(batch) {
		b.StopTimer()
		n := min(len(batch), b.N-done)
		for i := range n {
			batch[i] = &types.Request{
				URL:     "http://127.0.0.1:18081/page/" + strconv.Itoa(done+i),
				Headers: http.Header{"Referer": {"http://127.0.0.1:18081/page/0"}},
			}
		}
		b.StartTimer()
		for _, r := range batch[:n] {
			s.Enqueue(r)
		}
		for range n {
			if s.Next() == nil {
				b.Fatal("the queue ran dry")
			}
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	r := &types.Request{URL: "http://Example.com:80/a/b?z=1&a=2#frag"}
	for b.Loop() {
		_ = r.Fingerprint()
	}
}

// BenchmarkHTTPDownloader measures HTTPDownloader.Fetch against a local server: a 1 KiB
// page one request at a time, the same page from GOMAXPROCS goroutines, and a 100 KiB
// gzipped page (decoded while it streams) in parallel. It reports requests/s.
func BenchmarkHTTPDownloader(b *testing.B) {
	page := bytes.Repeat([]byte("<p>hello world</p>\n"), 1024/19)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("<p>hello world</p>\n"), 100*1024/19))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
			return
		}
		w.Write(page)
	}))
	defer srv.Close()
	s := types.NewSettings()
	s.Set(types.ConcurrentRequests, 64, types.PriorityCmdline)
	fetch := func(b *testing.B, d *engine.HTTPDownloader, url string) {
		resp, err := d.Fetch(context.Background(), &types.Request{URL: url})
		if err != nil || resp.Status != 200 {
			b.Fatal(err)
		}
	}
	b.Run("1KiB", func(b *testing.B) {
		d := engine.NewHTTPDownloader(s, nil, nil)
		b.ReportAllocs()
		for b.Loop() {
			fetch(b, d, srv.URL+"/")
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
	for _, path := range []string{"/", "/gzip"} {
		name := "1KiB-parallel"
		if path == "/gzip" {
			name = "100KiB-gzip-parallel"
		}
		b.Run(name, func(b *testing.B) {
			d := engine.NewHTTPDownloader(s, nil, nil)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					fetch(b, d, srv.URL+path)
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkPolitenessOverhead measures what the download slots, and the robots.txt check of
// an origin whose rules are cached, add to a download that costs nothing, from parallel
// goroutines over 4 hosts.
func BenchmarkPolitenessOverhead(b *testing.B) {
	ok := engine.DownloaderFunc(func(_ context.Context, req *types.Request) (*types.Response, error) {
		return &types.Response{URL: req.URL, Status: 200, Request: req, Body: []byte("User-agent: *\nDisallow: /private\n")}, nil
	})
	s := types.NewSettings()
	s.Set(types.ConcurrentRequests, 64, types.PriorityCmdline)
	slots := engine.NewSlotDownloader(s, ok)
	for _, bc := range []struct {
		name string
		d    engine.Downloader
	}{
		{"slots", slots},
		{"robots+slots", engine.Chain(slots, engine.NewRobotsTxtMiddleware(s, engine.NewStats(), nil, slots))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					i++
					req := &types.Request{URL: fmt.Sprintf("http://h%d.test/p/%d", i%4, i)}
					if _, err := bc.d.Fetch(context.Background(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkItems measures the item path (pipelines, reordering, feed) on its own: one
// response whose callback emits b.N items of three string fields, exported to a JSON
// Lines file. Allocations per op are per item.
func BenchmarkItems(b *testing.B) {
	srv := enginetest.Start(b)
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/"},
		ParseFunc: func(_ context.Context, _ *types.Response, emit engine.Emit) error {
			for i := range b.N {
				emit(types.Output{Item: types.Item{{Key: "name", Value: "Product " + strconv.Itoa(i)},
					{Key: "price", Value: "$12.50"}, {Key: "url", Value: srv.URL + "/page/1#p" + strconv.Itoa(i)}}})
			}
			return nil
		},
	}
	xp, err := feed.Open(filepath.Join(b.TempDir(), "items.jsonl"), feed.Config{}, feed.Env{})
	if err != nil {
		b.Fatal(err)
	}
	s := types.NewSettings()
	s.Set(types.LogStatsInterval, 0, types.PriorityCmdline)
	e := engine.New(sp, s, engine.WithExporters(xp), engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	b.ReportAllocs()
	b.ResetTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := e.Stats().Int("item_scraped_count"); got != int64(b.N) {
		b.Fatalf("scraped %d items, want %d", got, b.N)
	}
}
