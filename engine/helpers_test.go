package engine_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// settings returns defaults overridden by kv. Tests do not obey robots.txt (a /robots.txt
// request per origin would skew request counts) and retry after 1–3 ms unless kv says
// otherwise.
func settings(t testing.TB, kv map[string]any) *types.Settings {
	t.Helper()
	s := types.NewSettings()
	s.Set(types.LogStatsInterval, 0, types.PriorityCmdline)
	s.Set(types.RobotsTxtObey, false, types.PriorityCmdline)
	s.Set(types.RetryBackoffBase, 0.002, types.PriorityCmdline)
	for k, v := range kv {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// crawl runs spider to the end and returns the engine and its DEBUG log.
func crawl(t testing.TB, spider engine.Spider, kv map[string]any, opts ...engine.Option) (*engine.Engine, string) {
	t.Helper()
	e, logs := newEngine(t, spider, kv, opts...)
	if err := e.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return e, logs.String()
}

func newEngine(t testing.TB, spider engine.Spider, kv map[string]any, opts ...engine.Option) (*engine.Engine, *enginetest.Buffer) {
	t.Helper()
	logs := &enginetest.Buffer{}
	stats := engine.NewStats()
	logger := slog.New(engine.NewLogHandler(logs, slog.LevelDebug, stats))
	opts = append([]engine.Option{engine.WithLogger(logger), engine.WithStats(stats)}, opts...)
	return engine.New(spider, settings(t, kv), opts...), logs
}

func stat(e *engine.Engine, key string) int64 {
	v, _ := e.Stats().Get(key).(int64)
	return v
}

// recorder collects exported items; it fails the test on concurrent Export calls.
type recorder struct {
	t      testing.TB
	mu     sync.Mutex
	busy   bool
	items  []types.Item
	closed int
}

func (r *recorder) Export(it types.Item) error {
	r.mu.Lock()
	if r.busy {
		r.t.Error("Export called concurrently")
	}
	r.busy = true
	r.mu.Unlock()
	goruntime.Gosched()
	r.mu.Lock()
	r.items = append(r.items, it)
	r.busy = false
	r.mu.Unlock()
	return nil
}

func (r *recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed++
	return nil
}

func (r *recorder) Items() []types.Item {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]types.Item(nil), r.items...)
}

// pipelineFunc adapts a function to engine.Pipeline.
type pipelineFunc func(ctx context.Context, it types.Item) (types.Item, error)

func (f pipelineFunc) ProcessItem(ctx context.Context, it types.Item) (types.Item, error) {
	return f(ctx, it)
}

func req(u string) types.Output { return types.Output{Request: &types.Request{URL: u}} }

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// relay sends out with rt and copies the answer to w (a 502 when it fails): the end of a
// test proxy.
func relay(w http.ResponseWriter, rt http.RoundTripper, out *http.Request) {
	resp, err := rt.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
