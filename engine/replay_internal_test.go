package engine

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// TestReplayMemoryBudget: a replayed body is held under DOWNLOAD_MEMORY_BUDGET as a
// downloaded one: it takes room while it is read (the budget's peak is its size), and
// while the budget is full its download waits (counted), until its context ends.
func TestReplayMemoryBudget(t *testing.T) {
	t.Parallel()
	const size = 300 << 10
	path := filepath.Join(t.TempDir(), "budget.warc.gz")
	req := &types.Request{URL: "http://archive.example/big"}
	resp := &types.Response{Status: 200, Protocol: "HTTP/1.1", Headers: http.Header{}, Body: []byte(strings.Repeat("x", size))}
	a := WriteArchive(t, path, req, resp)
	stats := NewStats()
	env := &HandlerEnv{stats: stats, logger: slog.New(slog.DiscardHandler), budget: newMemBudget(1<<20, 1, stats)}
	h := &replayHandler{archive: a, env: env}
	got, err := h.Download(context.Background(), req, DownloadLimits{MaxSize: 10 << 20})
	if err != nil || len(got.Body) != size {
		t.Fatalf("replay: %v, %d bytes", err, len(got.Body))
	}
	if peak := env.budget.peakUsed(); peak < size {
		t.Errorf("budget peak %d bytes for a %d-byte replayed body", peak, size)
	}

	// The budget held by another body: the replay waits for room.
	other := env.budget.reserve()
	other.exact = true
	if err := other.cover(context.Background(), 1<<20); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = h.Download(ctx, req, DownloadLimits{MaxSize: 10 << 20})
	other.release()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("replay with the budget full: %v, want it to wait until its deadline", err)
	}
	if n := stats.Get("downloader/memory_budget_wait_count"); n != int64(1) {
		t.Errorf("downloader/memory_budget_wait_count = %v, want 1", n)
	}
}
