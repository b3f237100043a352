package engine_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkCrawl crawls the /links graph of b.N pages (at least 100) with a Go spider that
// follows every link and emits one item per page; it reports pages/s.
func BenchmarkCrawl(b *testing.B) {
	srv := enginetest.Start(b)
	n := max(b.N, 100)
	sp := &enginetest.Spider{
		StartURLs: []string{fmt.Sprintf("%s/links/0?total=%d", srv.URL, n)},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			emit(types.Output{Item: types.Item{{Key: "url", Value: resp.URL}, {Key: "len", Value: len(resp.Body)}}})
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
	s := types.NewSettings()
	s.Set(types.LogStatsInterval, 0, types.PriorityCmdline)
	s.Set(types.ConcurrentRequestsPerDomain, 16, types.PriorityCmdline)
	e := engine.New(sp, s, engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	b.ResetTimer()
	if err := e.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := e.Stats().Get("response_received_count"); got != int64(n) {
		b.Fatalf("crawled %v pages, want %d", got, n)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
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

func BenchmarkFingerprint(b *testing.B) {
	r := &types.Request{URL: "http://Example.com:80/a/b?z=1&a=2#frag"}
	for b.Loop() {
		_ = r.Fingerprint()
	}
}
