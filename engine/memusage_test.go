package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// interruptible is a fake spider whose Interrupt records its reason.
type interruptible struct {
	enginetest.Spider
	once        sync.Once
	interrupted chan struct{}
	reason      string
}

func (s *interruptible) Interrupt(reason string) {
	s.once.Do(func() { s.reason = reason; close(s.interrupted) })
}

var _ engine.Interrupter = (*interruptible)(nil)

// TestMemUsageLimit: past MEMUSAGE_LIMIT_MB (1 MiB: any process is above it) the engine
// interrupts the spider and closes with memusage_exceeded, which the hard stop that follows
// (a callback that never ends, then ctx cancelled) does not overwrite. With
// MEMUSAGE_ENABLED false nothing is watched.
func TestMemUsageLimit(t *testing.T) {
	t.Parallel()
	srv := enginetest.NewServer(t)
	for _, tc := range []struct {
		name    string
		enabled bool
	}{{"limit", true}, {"disabled", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp := &interruptible{interrupted: make(chan struct{})}
			sp.StartURLs = []string{srv.URL + "/"}
			parsing := make(chan struct{})
			sp.ParseFunc = func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
				close(parsing)
				if tc.enabled {
					<-ctx.Done() // a callback that ignores the interrupt: only the hard stop ends it
				}
				return nil
			}
			e, logs := newEngine(t, sp, map[string]any{types.MemUsageEnabled: tc.enabled,
				types.MemUsageLimitMB: 1, types.MemUsageCheckInterval: 0.01})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-parsing
				if tc.enabled {
					<-sp.interrupted
					cancel()
				}
			}()
			if err := e.Run(ctx); err != nil {
				t.Fatal(err)
			}
			reason := e.Stats().Get("finish_reason")
			if !tc.enabled {
				if reason != "finished" || e.Stats().Get("memusage/startup") != nil {
					t.Errorf("finish_reason %v, memusage/startup %v: want finished and nothing watched", reason, e.Stats().Get("memusage/startup"))
				}
				return
			}
			if reason != engine.ReasonMemUsageExceeded {
				t.Errorf("finish_reason = %v, want memusage_exceeded\n%s", reason, logs)
			}
			if stat(e, "memusage/limit_reached") != 1 || stat(e, "memusage/max") <= 1<<20 || stat(e, "memusage/startup") <= 0 {
				t.Errorf("memusage stats: limit_reached %d, max %d, startup %d", stat(e, "memusage/limit_reached"), stat(e, "memusage/max"), stat(e, "memusage/startup"))
			}
			if !strings.Contains(sp.reason, "MEMUSAGE_LIMIT_MB (1 MiB)") || !strings.Contains(logs.String(), "ERROR: Memory usage exceeded 1 MiB") {
				t.Errorf("interrupt reason %q\n%s", sp.reason, logs)
			}
		})
	}
}
