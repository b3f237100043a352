package browser_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/browser"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestMain routes browser requests to the browser handler, as the jscrawl binary does.
func TestMain(m *testing.M) {
	browser.Register()
	os.Exit(m.Run())
}

// settings returns the settings of a test crawl: no stats log, no robots.txt, fast
// retries, then kv.
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

// newEngine returns an engine for spider with the settings kv, logging at DEBUG into the
// returned buffer.
func newEngine(t testing.TB, spider engine.Spider, kv map[string]any, opts ...engine.Option) (*engine.Engine, *enginetest.Buffer) {
	t.Helper()
	logs := &enginetest.Buffer{}
	stats := engine.NewStats()
	logger := slog.New(engine.NewLogHandler(logs, slog.LevelDebug, stats))
	opts = append([]engine.Option{engine.WithLogger(logger), engine.WithStats(stats)}, opts...)
	return engine.New(spider, settings(t, kv), opts...), logs
}

// stat returns e's integer stat key.
func stat(e *engine.Engine, key string) int64 {
	v, _ := e.Stats().Get(key).(int64)
	return v
}

// relay sends out through rt and copies the response to w (a test proxy).
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
