package redisfrontier_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
)

var quiet = slog.New(slog.DiscardHandler)

// open opens a frontier of crawl on r, closed when the test ends.
func open(t *testing.T, r *enginetest.Redis, crawl string, mod func(*redisfrontier.Options)) *redisfrontier.Frontier {
	t.Helper()
	opts := redisfrontier.Options{URL: r.URL(0), CrawlID: crawl, Logger: quiet, Capacity: 4}
	if mod != nil {
		mod(&opts)
	}
	f, err := redisfrontier.Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = f.Close(ctx)
	})
	return f
}

// client returns a go-redis client of r for the test to look at the keys.
func client(t *testing.T, r *enginetest.Redis) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(r.URL(0))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitFor polls cond until it holds, failing the test after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling an observable condition
	}
}

// next waits for f.Next to return a request (as the engine does, on f.Wake), or returns
// nil when f settles or d passes.
func next(f *redisfrontier.Frontier, d time.Duration) *types.Request {
	timeout := time.After(d)
	for {
		if req := f.Next(); req != nil {
			return req
		}
		if f.Settled() {
			return nil
		}
		select {
		case <-f.Wake():
		case <-timeout:
			return nil
		}
	}
}

// flushed waits until f has sent every request it was given (and leased none: call it
// before the worker asks for requests).
func flushed(t *testing.T, f *redisfrontier.Frontier) {
	t.Helper()
	waitFor(t, "the outbox to be sent", func() bool { return f.Len() == 0 })
}

func req(u string) *types.Request { return &types.Request{URL: u} }

// startNothing marks the crawl's start() as done, as a worker whose start() yields nothing.
func startNothing(t *testing.T, f *redisfrontier.Frontier) {
	t.Helper()
	err := f.WrapStart(func(context.Context, engine.Emit) error { return nil })(context.Background(), func(types.Output) {})
	if err != nil {
		t.Fatal(err)
	}
	f.StartDone(nil)
}

// crawlSettings returns the defaults, without robots.txt and progress lines.
func crawlSettings() *types.Settings {
	s := types.NewSettings()
	_ = s.Set(types.RobotsTxtObey, false, types.PriorityCmdline)
	_ = s.Set(types.LogStatsInterval, 0, types.PriorityCmdline)
	return s
}

// crawl runs an engine on f with spider and returns its finish_reason.
func crawl(t *testing.T, f *redisfrontier.Frontier, spider *enginetest.Spider, stats *engine.Stats, settings *types.Settings) string {
	t.Helper()
	if settings == nil {
		settings = crawlSettings()
	}
	e := engine.New(spider, settings, engine.WithScheduler(f, f.Parts()), engine.WithStats(stats), engine.WithLogger(quiet))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := e.Run(ctx); err != nil {
		t.Fatalf("run: %v", err)
	}
	return fmt.Sprint(stats.Get("finish_reason"))
}
