package enginetest

// This file holds the helpers that run a test crawl: its settings, an engine that logs
// into a buffer, a stat read and the end of a test proxy.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// Settings returns the settings of a test crawl: the defaults, then no stats log, no
// robots.txt (a /robots.txt request per origin would skew request counts) and retries
// after 1–3 ms, then kv at the command line's priority (the test fails on a bad value).
func Settings(t testing.TB, kv map[string]any) *types.Settings {
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

// NewEngine returns an engine for spider with Settings(t, kv) and opts, logging at DEBUG
// into the returned buffer.
func NewEngine(t testing.TB, spider engine.Spider, kv map[string]any, opts ...engine.Option) (*engine.Engine, *Buffer) {
	t.Helper()
	logs := &Buffer{}
	stats := engine.NewStats()
	logger := slog.New(engine.NewLogHandler(logs, slog.LevelDebug, stats))
	opts = append([]engine.Option{engine.WithLogger(logger), engine.WithStats(stats)}, opts...)
	return engine.New(spider, Settings(t, kv), opts...), logs
}

// Crawl runs spider to the end with NewEngine and returns the engine and its DEBUG log;
// the test fails when Run returns an error.
func Crawl(t testing.TB, spider engine.Spider, kv map[string]any, opts ...engine.Option) (*engine.Engine, string) {
	t.Helper()
	e, logs := NewEngine(t, spider, kv, opts...)
	if err := e.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return e, logs.String()
}

// Stat returns e's integer stat key (0 when it is unset).
func Stat(e *engine.Engine, key string) int64 {
	v, _ := e.Stats().Get(key).(int64)
	return v
}

// Relay sends out with rt and copies the answer to w (a 502 when it fails): the end of a
// test proxy.
func Relay(w http.ResponseWriter, rt http.RoundTripper, out *http.Request) {
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
