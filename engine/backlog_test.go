package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// heldDownloads answers every download with a 200 once release is closed.
type heldDownloads struct{ release chan struct{} }

func (h heldDownloads) Fetch(ctx context.Context, req *types.Request, _ engine.Downloader) (*types.Response, error) {
	select {
	case <-h.release:
		return &types.Response{URL: req.URL, Status: 200, Request: req}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestWaitBacklogIsWokenByTheEngine: start() emits 20 requests while downloads are held;
// WaitBacklog(5) returns at once for a bound above the backlog, fails with a cancelled
// context, waits while the backlog is high, and returns once the engine has downloaded
// enough of it, without polling.
func TestWaitBacklogIsWokenByTheEngine(t *testing.T) {
	t.Parallel()
	held := heldDownloads{release: make(chan struct{})}
	var e *engine.Engine
	result := make(chan error, 1)
	spider := &enginetest.Spider{StartFunc: func(ctx context.Context, emit engine.Emit) error {
		for i := range 20 {
			emit(types.Output{Request: &types.Request{URL: fmt.Sprintf("http://example.invalid/%d", i)}})
		}
		if err := e.WaitBacklog(ctx, 100); err != nil {
			t.Errorf("WaitBacklog above the backlog: %v", err)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := e.WaitBacklog(cancelled, 5); err != context.Canceled {
			t.Errorf("WaitBacklog with a cancelled context = %v, want context.Canceled", err)
		}
		go func() { result <- e.WaitBacklog(ctx, 5) }()
		select {
		case err := <-result:
			t.Errorf("WaitBacklog(5) returned %v with every download held (backlog %d)", err, e.Backlog())
		default:
		}
		close(held.release)
		select {
		case err := <-result:
			if err != nil {
				t.Errorf("WaitBacklog(5) after the release: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("WaitBacklog(5) was not woken; backlog %d", e.Backlog())
		}
		return nil
	}}
	e, _ = newEngine(t, spider, map[string]any{types.ConcurrentRequests: 1}, engine.WithDownloaderMiddlewares(held))
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := stat(e, "response_received_count"); n != 20 {
		t.Errorf("response_received_count = %d, want 20", n)
	}
}
