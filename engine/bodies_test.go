package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// endless writes 32 KiB blocks until the client goes away.
func endless(w http.ResponseWriter, r *http.Request) {
	block := bytes.Repeat([]byte("x"), 32<<10)
	for r.Context().Err() == nil {
		if _, err := w.Write(block); err != nil {
			return
		}
	}
}

// allocated returns the bytes the process allocated while f ran. Tests using it do not
// run in parallel, so the counter is theirs.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestEndlessBodyCut: an endless body is cut at DOWNLOAD_MAXSIZE with a MaxSizeError and
// download/maxsize, having allocated about the limit, not the doubling buffer's twice it.
func TestEndlessBodyCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(endless))
	defer srv.Close()
	const limit = 16 << 20
	stats := engine.NewStats()
	d := engine.NewHTTPDownloader(settings(t, map[string]any{types.DownloadMaxSize: limit}), nil, stats)
	fetch := func() {
		_, err := d.Fetch(context.Background(), &types.Request{URL: srv.URL})
		if engine.ErrorName(err) != engine.NameMaxSize {
			t.Fatalf("err = %v, want a MaxSizeError", err)
		}
	}
	fetch() // warm up: connections and pools
	got := allocated(fetch)
	t.Logf("allocated %.1f MiB for a %d MiB limit", float64(got)/(1<<20), limit>>20)
	if want := uint64(limit*3/2 + 1<<20); got > want {
		t.Errorf("allocated %d bytes for a %d-byte limit, want < %d", got, limit, want)
	}
	if v, _ := stats.Get("download/maxsize").(int64); v != 2 {
		t.Errorf("download/maxsize = %d, want 2", v)
	}
}

// TestBodyAllocation: a complete body costs its size plus a constant when its length is
// known, and its size twice (the chunks, then the joined body) when it is not.
func TestBodyAllocation(t *testing.T) {
	const size = 8 << 20
	page := bytes.Repeat([]byte("<p>hello</p>"), size/12)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(page)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			w.Write(page)
		case "/chunked":
			for b := page; len(b) > 0; b = b[min(len(b), 10000):] {
				w.Write(b[:min(len(b), 10000)])
				w.(http.Flusher).Flush()
			}
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
		}
	}))
	defer srv.Close()
	d := engine.NewHTTPDownloader(settings(t, nil), nil, nil)
	for _, tc := range []struct {
		path  string
		ratio float64 // allocated / size, at most
	}{
		{"/length", 1.1},
		{"/chunked", 2.2},
		{"/gzip", 2.2}, // plus the gzip reader's state, in the constant
	} {
		t.Run(tc.path, func(t *testing.T) {
			var body []byte
			fetch := func() {
				resp, err := d.Fetch(context.Background(), &types.Request{URL: srv.URL + tc.path})
				if err != nil {
					t.Fatal(err)
				}
				body = resp.Body
			}
			fetch()
			got := allocated(fetch)
			if !bytes.Equal(body, page) {
				t.Fatalf("body of %d bytes, want the %d-byte page", len(body), len(page))
			}
			if cap(body) != len(body) {
				t.Errorf("body cap %d for %d bytes, want exact", cap(body), len(body))
			}
			t.Logf("allocated %.2f× the body", float64(got)/float64(len(page)))
			if want := uint64(tc.ratio*float64(len(page))) + 1<<20; got > want {
				t.Errorf("allocated %d bytes for a %d-byte body, want < %d", got, len(page), want)
			}
		})
	}
}

// TestMemoryBudget: with DOWNLOAD_MEMORY_BUDGET under two bodies, three big downloads at
// once wait for room instead of holding three bodies: the room held never exceeds the
// budget and all three complete, whether their length is known or not.
func TestMemoryBudget(t *testing.T) {
	t.Parallel()
	const size, budget = 4 << 20, 6 << 20
	page := bytes.Repeat([]byte("y"), size)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			t.Parallel()
			// The server answers once all three requests are in, so they overlap.
			var arrived sync.WaitGroup
			arrived.Add(3)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived.Done()
				arrived.Wait()
				if !chunked {
					w.Header().Set("Content-Length", strconv.Itoa(size))
				}
				for b := page; len(b) > 0; b = b[min(len(b), 64<<10):] {
					if _, err := w.Write(b[:min(len(b), 64<<10)]); err != nil {
						return
					}
					if chunked {
						w.(http.Flusher).Flush()
					}
				}
			}))
			defer srv.Close()
			stats := engine.NewStats()
			d := engine.NewHTTPDownloader(settings(t, map[string]any{types.DownloadMemoryBudget: budget}), nil, stats)
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Go(func() {
					resp, err := d.Fetch(context.Background(), &types.Request{URL: fmt.Sprintf("%s/%d", srv.URL, i)})
					if err != nil {
						t.Error(err)
						return
					}
					if len(resp.Body) != size {
						t.Errorf("body of %d bytes, want %d", len(resp.Body), size)
					}
				})
			}
			wg.Wait()
			if peak := engine.BudgetPeak(d); peak > budget || peak < size {
				t.Errorf("peak room held %d, want %d–%d", peak, size, budget)
			}
			if v, _ := stats.Get("downloader/memory_budget_wait_count").(int64); v < 1 {
				t.Errorf("downloader/memory_budget_wait_count = %d, want ≥ 1", v)
			}
			if v, _ := stats.Get("downloader/memory_budget_overdraft_count").(int64); v != 0 {
				t.Errorf("downloader/memory_budget_overdraft_count = %d, want 0", v)
			}
		})
	}
}

// TestMemoryBudgetBodiesOverBudget: bodies larger than the whole budget still complete,
// one at a time past the budget, instead of waiting for each other forever.
func TestMemoryBudgetBodiesOverBudget(t *testing.T) {
	t.Parallel()
	const size, budget = 3 << 20, 1 << 20
	page := bytes.Repeat([]byte("z"), size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(size))
		}
		w.Write(page)
	}))
	defer srv.Close()
	d := engine.NewHTTPDownloader(settings(t, map[string]any{types.DownloadMemoryBudget: budget}), nil, nil)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			u := fmt.Sprintf("%s/%d", srv.URL, i)
			if i%2 == 0 {
				u += "?length=1"
			}
			resp, err := d.Fetch(context.Background(), &types.Request{URL: u})
			if err != nil {
				t.Error(err)
			} else if len(resp.Body) != size {
				t.Errorf("body of %d bytes, want %d", len(resp.Body), size)
			}
		})
	}
	wg.Wait()
}

// TestMemoryBudgetWaitCancelled: a download waiting for room ends when its context does.
func TestMemoryBudgetWaitCancelled(t *testing.T) {
	t.Parallel()
	const budget = 1 << 20
	release := make(chan struct{})
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(budget))
		if r.URL.Path == "/hold" {
			// Half the body, then wait: the download holds the whole budget meanwhile.
			w.Write(make([]byte, budget/2))
			w.(http.Flusher).Flush()
			close(started)
			<-release
		}
		w.Write(make([]byte, budget-budget/2))
	}))
	defer srv.Close()
	stats := engine.NewStats()
	d := engine.NewHTTPDownloader(settings(t, map[string]any{types.DownloadMemoryBudget: budget}), nil, stats)
	held := make(chan error, 1)
	go func() {
		_, err := d.Fetch(context.Background(), &types.Request{URL: srv.URL + "/hold"})
		held <- err
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan error, 1)
	go func() {
		_, err := d.Fetch(ctx, &types.Request{URL: srv.URL + "/wait"})
		waiting <- err
	}()
	// Cancel once the second download waits for room.
	for {
		if v, _ := stats.Get("downloader/memory_budget_wait_count").(int64); v >= 1 {
			break
		}
		goruntime.Gosched()
	}
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) || engine.ErrorName(err) != engine.NameCancelled {
		t.Errorf("waiting download: err = %v (%s), want CancelledError", err, engine.ErrorName(err))
	}
	close(release)
	if err := <-held; err != nil {
		t.Errorf("holding download: %v", err)
	}
}
