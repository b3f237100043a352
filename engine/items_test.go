package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// TestItemOrder checks that items from one callback reach the feeds in the order they were
// yielded although the pipeline finishes them in the reverse order (CONCURRENT_ITEMS lets
// them all be in the pipeline at once), and that a CSV feed's header comes from the first
// yielded item.
func TestItemOrder(t *testing.T) {
	t.Parallel()
	const n = 20
	srv := enginetest.Start(t)
	started := make(chan int, n)
	var release, done [n]chan struct{}
	for i := range n {
		release[i], done[i] = make(chan struct{}), make(chan struct{})
	}
	// The pipeline holds every item until the test releases it: the last one first.
	hold := pipelineFunc(func(ctx context.Context, it types.Item) (types.Item, error) {
		v, _ := it.Get("n")
		i := v.(int)
		started <- i
		<-release[i]
		defer close(done[i])
		return it, nil
	})
	go func() {
		for range n {
			<-started
		}
		for i := n - 1; i >= 0; i-- {
			close(release[i])
			<-done[i]
		}
	}()
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/"},
		ParseFunc: func(_ context.Context, _ *types.Response, emit engine.Emit) error {
			for i := range n {
				it := types.Item{{Key: "n", Value: i}}
				if i == 0 {
					it = append(it, types.Field{Key: "first", Value: true})
				}
				emit(types.Output{Item: it})
			}
			return nil
		},
	}
	rec := &recorder{t: t}
	path := filepath.Join(t.TempDir(), "items.csv")
	csv, err := feed.Open(path, feed.Config{}, feed.Env{})
	if err != nil {
		t.Fatal(err)
	}
	e, logs := crawl(t, sp, map[string]any{types.ConcurrentItems: n}, engine.WithPipelines(hold), engine.WithExporters(rec, csv))
	var got []string
	for _, it := range rec.Items() {
		v, _ := it.Get("n")
		got = append(got, fmt.Sprint(v))
	}
	if want := strings.Fields("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("export order %v, want %v\n%s", got, want, logs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(string(b), "\n"); lines[0] != "n,first" || lines[1] != "0,true" || lines[2] != "1," {
		t.Errorf("csv starts %q, want the header of the first item, then it", lines[:3])
	}
	if s := stat(e, "item_scraped_count"); s != n {
		t.Errorf("item_scraped_count = %d", s)
	}
}

// failingFeed is a JSON Lines feed stand-in that stores ok items, then fails for good, as a
// full disk does.
type failingFeed struct {
	ok     int
	n      int
	closed bool
}

type diskFull struct{}

func (diskFull) Error() string { return "write feed /data/items.jsonl: no space left on device" }
func (diskFull) Fatal() bool   { return true }

func (f *failingFeed) Export(types.Item) error {
	if f.n >= f.ok {
		return diskFull{}
	}
	f.n++
	return nil
}

func (f *failingFeed) Close() error {
	f.closed = true
	if f.n >= f.ok {
		return diskFull{}
	}
	return nil
}

func (f *failingFeed) Format() string { return "jsonl" }

// TestFeedError checks that a feed that fails for good is logged once, counted per item it
// did not store, keeps those items out of item_scraped_count, and closes the spider with
// finish_reason feed_error, unless FEED_ERRORS is ignore.
func TestFeedError(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	for _, mode := range []string{"stop", "ignore"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var emitted atomic.Int64
			sp := &enginetest.Spider{
				StartURLs: []string{srv.URL + "/links/0?total=30"},
				ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
					for range 3 {
						emitted.Add(1)
						emit(types.Output{Item: types.Item{{Key: "url", Value: resp.URL}}})
					}
					return enginetest.FollowAll(ctx, resp, emit)
				},
			}
			bad := &failingFeed{ok: 4}
			rec := &recorder{t: t}
			e, logs := crawl(t, sp, map[string]any{types.FeedErrors: mode, types.ConcurrentRequests: 1},
				engine.WithExporters(bad, rec))
			if got := strings.Count(logs, "no space left on device"); got != 1 {
				t.Errorf("the feed error is logged %d times, want once:\n%s", got, logs)
			}
			if got := strings.Count(logs, "ERROR:"); got != 1 {
				t.Errorf("%d ERROR lines, want one:\n%s", got, logs)
			}
			if got := stat(e, "item_scraped_count"); got != 4 {
				t.Errorf("item_scraped_count = %d, want the 4 items every feed stored", got)
			}
			failed := stat(e, "feedexport/failed_count/jsonl")
			if failed != emitted.Load()-4 || failed == 0 {
				t.Errorf("feedexport/failed_count/jsonl = %d, want %d (every item the feed did not store)", failed, emitted.Load()-4)
			}
			reason := e.Stats().Get("finish_reason")
			switch mode {
			case "stop":
				if reason != "feed_error" {
					t.Errorf("finish_reason = %v, want feed_error", reason)
				}
				if n := stat(e, "response_received_count"); n >= 30 {
					t.Errorf("the crawl went on: %d responses", n)
				}
			case "ignore":
				if reason != "finished" || stat(e, "response_received_count") != 30 {
					t.Errorf("finish_reason = %v after %d responses, want finished after 30", reason, stat(e, "response_received_count"))
				}
				if len(rec.Items()) != int(emitted.Load()) {
					t.Errorf("the other feed got %d items, want all %d", len(rec.Items()), emitted.Load())
				}
			}
			if !bad.closed {
				t.Error("the failed feed was not closed")
			}
		})
	}
}

// TestFeedCloseError checks that a feed whose end cannot be written (the JSON "]") makes a
// finished crawl a feed_error one.
func TestFeedCloseError(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	sp := &enginetest.Spider{StartURLs: []string{srv.URL + "/"}}
	e, logs := crawl(t, sp, nil, engine.WithExporters(closeFails{}))
	if r := e.Stats().Get("finish_reason"); r != "feed_error" || !strings.Contains(logs, "ERROR: Error closing feed: trailer: disk full") {
		t.Errorf("finish_reason = %v, log:\n%s", r, logs)
	}
}

type closeFails struct{}

func (closeFails) Export(types.Item) error { return nil }
func (closeFails) Close() error            { return errors.New("trailer: disk full") }

// TestItemWorkersReused checks that the item workers, once started, take new items at
// full CONCURRENT_ITEMS concurrency: two waves of n items, from two responses, each wave
// held in the pipeline until all n of it are in. Too few workers would leave the wave
// waiting for good (the test then times out).
func TestItemWorkersReused(t *testing.T) {
	t.Parallel()
	const n = 8
	srv := enginetest.Start(t)
	var mu sync.Mutex
	in := map[string]int{}
	full := map[string]chan struct{}{"/item/1": make(chan struct{}), "/item/2": make(chan struct{})}
	hold := pipelineFunc(func(ctx context.Context, it types.Item) (types.Item, error) {
		v, _ := it.Get("wave")
		wave := v.(string)
		mu.Lock()
		in[wave]++
		if in[wave] == n {
			close(full[wave])
		}
		mu.Unlock()
		select {
		case <-full[wave]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return it, nil
	})
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/item/1"},
		ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
			u, err := resp.Request.ParsedURL()
			if err != nil {
				return err
			}
			wave := u.Path
			for i := range n {
				emit(types.Output{Item: types.Item{{Key: "wave", Value: wave}, {Key: "n", Value: i}}})
			}
			if wave == "/item/1" {
				emit(types.Output{Request: &types.Request{URL: srv.URL + "/item/2"}})
			}
			return nil
		},
	}
	rec := &recorder{t: t}
	e, logs := crawl(t, sp, map[string]any{types.ConcurrentItems: n}, engine.WithPipelines(hold), engine.WithExporters(rec))
	if s := stat(e, "item_scraped_count"); s != 2*n {
		t.Errorf("item_scraped_count = %d, want %d\n%s", s, 2*n, logs)
	}
}
