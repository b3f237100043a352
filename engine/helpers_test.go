package engine_test

import (
	"context"
	"log/slog"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// The crawl helpers, shared with the browser tests: settings of a test crawl, an engine
// logging into a buffer, a crawl run to the end and a stat read (see enginetest).
var (
	settings  = enginetest.Settings
	newEngine = enginetest.NewEngine
	crawl     = enginetest.Crawl
	stat      = enginetest.Stat
	relay     = enginetest.Relay
)

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
