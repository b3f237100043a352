package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestRetryBackoff: retry n waits RETRY_BACKOFF_BASE·2^(n-1) ±50%, at most RETRY_BACKOFF_MAX.
func TestRetryBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		kv   map[string]any
		min  []time.Duration // lower bounds of the gaps between tries
		max  time.Duration   // loose upper bound of the whole download
	}{
		{"doubling", map[string]any{types.RetryBackoffBase: 0.04, types.RetryTimes: 3},
			[]time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}, 10 * time.Second},
		{"capped", map[string]any{types.RetryBackoffBase: 10.0, types.RetryBackoffMax: 0.05, types.RetryTimes: 2},
			[]time.Duration{50 * time.Millisecond, 50 * time.Millisecond}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newSite(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
			e, _ := newEngine(t, &enginetestSpider, tc.kv)
			start := time.Now()
			resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/x"})
			if err != nil || resp.Status != 502 {
				t.Fatalf("status %v, err %v", resp, err)
			}
			if took := time.Since(start); took > tc.max {
				t.Errorf("took %v, want < %v", took, tc.max)
			}
			at := srv.at("/x")
			if len(at) != len(tc.min)+1 {
				t.Fatalf("%d tries, want %d", len(at), len(tc.min)+1)
			}
			for i, m := range tc.min {
				// The server sees the tries with some scheduling jitter: allow 20%.
				if gap := at[i+1].Sub(at[i]); gap < m*4/5 {
					t.Errorf("gap before retry %d = %v, want ≥ %v", i+1, gap, m)
				}
			}
			if n := stat(e, "retry/reason_count/502"); n != int64(len(tc.min)) {
				t.Errorf("retry/reason_count/502 = %d", n)
			}
		})
	}
}

// TestRetryReasons: the reason of an error is its name.
func TestRetryReasons(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	e, _ := newEngine(t, &enginetestSpider, map[string]any{types.DownloadTimeout: 0.05, types.RetryTimes: 1})
	_, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/slow"})
	if engine.ErrorName(err) != engine.NameTimeout {
		t.Fatalf("err = %v", err)
	}
	for k, want := range map[string]int64{"retry/reason_count/TimeoutError": 1, "retry/count": 1, "retry/max_reached": 1} {
		if n := stat(e, k); n != want {
			t.Errorf("%s = %d, want %d", k, n, want)
		}
	}
}

// TestRetryAfter: a Retry-After (seconds or HTTP date) delays the retry at least that long
// from the response, and pauses the slot: a request queued behind DOWNLOAD_DELAY waits too.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		value func() string
		min   time.Duration
	}{
		{"seconds", func() string { return "3" }, 2500 * time.Millisecond},
		// An HTTP date has whole seconds: now+4s written down is 3–4 s away.
		{"HTTP date", func() string { return time.Now().Add(4 * time.Second).UTC().Format(http.TimeFormat) }, 2500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			first := true
			arrived := make(chan struct{}, 1)
			srv := newSite(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/ra" {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if first {
					first = false
					w.Header().Set("Retry-After", tc.value())
					w.WriteHeader(http.StatusServiceUnavailable)
					arrived <- struct{}{}
				}
			})
			e, _ := newEngine(t, &enginetestSpider, map[string]any{
				types.DownloadDelay: 1.0, types.RandomizeDownloadDelay: false,
			})
			var wg sync.WaitGroup
			wg.Go(func() {
				resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/ra"})
				if err != nil || resp.Status != 200 {
					t.Errorf("resp %v, err %v", resp, err)
				}
			})
			<-arrived
			// Queued: it waits for DOWNLOAD_DELAY (1 s), during which the pause arrives (a
			// loaded machine took over 0.3 s to bring the 503 back); without the pause it
			// would start 1 s after the 503, not 3.
			if _, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/other"}); err != nil {
				t.Error(err)
			}
			wg.Wait()
			ra, other := srv.at("/ra"), srv.at("/other")
			if len(ra) != 2 || len(other) != 1 {
				t.Fatalf("tries: /ra %d, /other %d", len(ra), len(other))
			}
			if gap := ra[1].Sub(ra[0]); gap < tc.min {
				t.Errorf("retry %v after the 503, want ≥ %v", gap, tc.min)
			}
			if gap := other[0].Sub(ra[0]); gap < tc.min {
				t.Errorf("queued request to the slot started %v after the 503, want ≥ %v", gap, tc.min)
			}
		})
	}
}

// TestRetryAfterCapped: a Retry-After longer than RETRY_BACKOFF_MAX waits RETRY_BACKOFF_MAX.
func TestRetryAfterCapped(t *testing.T) {
	t.Parallel()
	srv := newSite(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	e, _ := newEngine(t, &enginetestSpider, map[string]any{types.RetryBackoffMax: 0.1, types.RetryTimes: 1})
	resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/x"})
	if err != nil || resp.Status != 429 {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	at := srv.at("/x")
	if gap := at[1].Sub(at[0]); gap < 90*time.Millisecond || gap > 30*time.Second {
		t.Errorf("retry after %v, want ~100ms", gap)
	}
	if n := stat(e, "retry/reason_count/429"); n != 1 {
		t.Errorf("retry/reason_count/429 = %d", n)
	}
}

// TestRetryWaitCancelled: cancelling the context ends a backoff wait at once.
func TestRetryWaitCancelled(t *testing.T) {
	t.Parallel()
	srv := newSite(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	retrying := make(chan struct{}, 1)
	logger := slog.New(handlerFunc(func(r slog.Record) {
		if strings.HasPrefix(r.Message, "Retrying") {
			select {
			case retrying <- struct{}{}:
			default:
			}
		}
	}))
	e := engine.New(&enginetestSpider, settings(t, map[string]any{types.RetryBackoffBase: 60.0}), engine.WithLogger(logger))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := e.Download(ctx, &types.Request{URL: srv.URL + "/x"})
		done <- err
	}()
	<-retrying
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("cancelled wait took %v", took)
	}
	if h := srv.hits("/x"); h != 1 {
		t.Errorf("%d tries, want 1", h)
	}
}

// handlerFunc is a slog.Handler calling f for every record.
type handlerFunc func(slog.Record)

func (f handlerFunc) Enabled(context.Context, slog.Level) bool { return true }
func (f handlerFunc) Handle(_ context.Context, r slog.Record) error {
	f(r)
	return nil
}
func (f handlerFunc) WithAttrs([]slog.Attr) slog.Handler { return f }
func (f handlerFunc) WithGroup(string) slog.Handler      { return f }

// TestRetryAfterNoRetriesLeft: a Retry-After pauses the slot even when the request that got
// it gives up.
func TestRetryAfterNoRetriesLeft(t *testing.T) {
	t.Parallel()
	srv := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	e, _ := newEngine(t, &enginetestSpider, map[string]any{types.RetryTimes: 0})
	resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/busy"})
	if err != nil || resp.Status != 429 {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	if _, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/next"}); err != nil {
		t.Fatal(err)
	}
	if gap := srv.at("/next")[0].Sub(srv.at("/busy")[0]); gap < 900*time.Millisecond {
		t.Errorf("next request %v after the 429 with Retry-After: 1, want ≥ 900ms", gap)
	}
	if n := stat(e, "retry/max_reached"); n != 1 {
		t.Errorf("retry/max_reached = %d", n)
	}
}

// TestRetryLog: each retry is logged at INFO with the failed tries so far, the wait and the
// reason (Scrapy's wording, which Scrapy logs at DEBUG); giving up is logged at ERROR.
func TestRetryLog(t *testing.T) {
	t.Parallel()
	srv := newSite(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	var logged enginetest.Recorder[slog.Record]
	logger := slog.New(handlerFunc(logged.Add))
	e := engine.New(&enginetestSpider, settings(t, map[string]any{types.RetryTimes: 2}), engine.WithLogger(logger))
	if _, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/x"}); err != nil {
		t.Fatal(err)
	}
	recs := logged.All()
	u := srv.URL + "/x"
	want := []struct {
		level  slog.Level
		prefix string
	}{
		{slog.LevelInfo, "Retrying <GET " + u + "> (failed 1 times, retry in "},
		{slog.LevelInfo, "Retrying <GET " + u + "> (failed 2 times, retry in "},
		{slog.LevelError, "Gave up retrying <GET " + u + "> (failed 3 times): 503 Service Unavailable"},
	}
	var got []slog.Record
	for _, r := range recs {
		if strings.Contains(r.Message, "etrying") {
			got = append(got, r)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("retry log lines: %d, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Level != w.level || !strings.HasPrefix(got[i].Message, w.prefix) {
			t.Errorf("line %d = %s %q, want %s %q…", i, got[i].Level, got[i].Message, w.level, w.prefix)
		}
		if w.level == slog.LevelInfo && !strings.HasSuffix(got[i].Message, "s): 503 Service Unavailable") {
			t.Errorf("line %d = %q, want the wait in seconds and the reason", i, got[i].Message)
		}
	}
}
