package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// A graceful close (the first Ctrl-C or SIGTERM, a CLOSESPIDER_* limit, CloseSpider) stops
// scheduling and retrying at once and lets callbacks, items and downloads in flight finish.
// Downloads still running SHUTDOWN_TIMEOUT after it began are aborted; callbacks still
// running abortGrace after that are stopped as in a hard stop. So a graceful close always
// ends, whatever the servers and the spider do, and the feeds are closed either way.

//
// Downloads are what SHUTDOWN_TIMEOUT waits for: once none is in flight (none was when the
// close began, or the last one ended), callbacks get abortGrace, not the rest of
// SHUTDOWN_TIMEOUT, so a callback stuck on a promise that never settles does not hold a
// stop for SHUTDOWN_TIMEOUT.

// abortGrace is how long callbacks may still run after the downloads were aborted or ended.
const abortGrace = 5 * time.Second

// downloadPoll is how often stage 0 of a close looks whether downloads are still in flight
// (inline downloads end without an engine event).
const downloadPoll = 250 * time.Millisecond

// stoppingKey carries the engine's stopping channel in a download's context.
type stoppingKey struct{}

// withStopping returns ctx carrying stop, closed when the crawl starts closing.
func withStopping(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, stoppingKey{}, stop)
}

// stoppingCh returns the channel closed when the crawl that runs ctx's download starts
// closing; nil (never ready) outside a crawl.
func stoppingCh(ctx context.Context) <-chan struct{} {
	c, _ := ctx.Value(stoppingKey{}).(<-chan struct{})
	return c
}

// isStopping reports whether the crawl running ctx's download is closing: middlewares stop
// retrying then.
func isStopping(ctx context.Context) bool {
	select {
	case <-stoppingCh(ctx):
		return true
	default:
		return false
	}
}

// stopState is how the crawl stops: stopping is closed when it starts closing (middlewares
// stop retrying); abortCtx is cancelled SHUTDOWN_TIMEOUT later, aborting the downloads still
// running; hardStop cancels Run's context; stopped is closed once it is cancelled (Stopped);
// drained once Run closed the spider (Drained). clock is the graceful close's, owned by the
// engine goroutine; memExceeded is set by the memory watcher: finish_reason is then
// memusage_exceeded, whatever close or hard stop came before or after.
type stopState struct {
	stopping       chan struct{}
	abortCtx       context.Context
	abortDownloads context.CancelFunc
	hardStop       context.CancelFunc
	stopped        chan struct{}
	drained        chan struct{}
	clock          shutdown
	memExceeded    atomic.Bool
}

func newStopState() *stopState {
	s := &stopState{stopping: make(chan struct{}), stopped: make(chan struct{}), drained: make(chan struct{}), hardStop: func() {}}
	s.abortCtx, s.abortDownloads = context.WithCancel(context.Background())
	return s
}

// shutdown is the engine goroutine's clock of a graceful close.
type shutdown struct {
	timer    *time.Timer
	stage    int       // 0: waiting for SHUTDOWN_TIMEOUT, 1: downloads aborted or ended, waiting abortGrace
	deadline time.Time // stage 0: when SHUTDOWN_TIMEOUT ends
	aborted  bool      // downloads were aborted at SHUTDOWN_TIMEOUT
}

// c returns the channel of the running stage's timer (nil before a close).
func (s *shutdown) c() <-chan time.Time {
	if s.timer == nil {
		return nil
	}
	return s.timer.C
}

func (s *shutdown) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}

// startShutdown starts the close's clock (called once, by closeWith).
func (e *Engine) startShutdown() {
	close(e.stop.stopping)
	if d := e.cfg.shutdownTimeout; d > 0 {
		e.stop.clock.deadline = time.Now().Add(d)
		e.stop.clock.timer = time.NewTimer(0) // the first tick looks at the downloads at once
	}
}

// shutdownTick handles the close's clock: first abort the downloads still running at
// SHUTDOWN_TIMEOUT (or go on at once when none is left), then, after abortGrace, stop
// whatever still runs.
func (e *Engine) shutdownTick() {
	sh := &e.stop.clock
	switch sh.stage {
	case 0:
		n := len(e.Downloads())
		if n == 0 {
			// Nothing left for SHUTDOWN_TIMEOUT to wait for: the callbacks get abortGrace.
			sh.stage = 1
			sh.timer = time.NewTimer(abortGrace)
			return
		}
		if left := time.Until(sh.deadline); left > 0 {
			sh.timer = time.NewTimer(min(left, downloadPoll))
			return
		}
		e.logger.Warn(fmt.Sprintf("Aborting %d downloads still running %s after the spider began closing (SHUTDOWN_TIMEOUT)",
			n, e.cfg.shutdownTimeout))
		e.stats.Inc("shutdown/aborted_downloads", int64(n))
		e.stop.abortDownloads()
		sh.aborted = true
		sh.stage = 1
		sh.timer = time.NewTimer(abortGrace)
	case 1:
		after := "no download was left"
		if sh.aborted {
			after = "the downloads were aborted"
		}
		e.logger.Warn(fmt.Sprintf("Stopping %d callbacks and %d items still running %s after %s",
			e.scraper.parsing+btoi(e.starting), e.scraper.itemsInFlight(), abortGrace, after))
		sh.stage = 2
		sh.timer = nil
		e.stop.hardStop()
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Stopped returns a channel closed once the crawl was told to stop at once: a hard stop
// (Run's context ended: the second Ctrl-C or SIGTERM), the end of a graceful close's
// deadline (SHUTDOWN_TIMEOUT, then abortGrace), or Run returning. Run may still wait after
// it for a callback stuck in native code, which nothing can interrupt; the command line
// then gives up on it (see Drained and CloseFeeds). Safe from any goroutine.
func (e *Engine) Stopped() <-chan struct{} { return e.stop.stopped }

// Drained returns a channel closed once Run has closed the pipelines and the spider, which
// wait for the callbacks still running: what Run does after it (closing the feeds, the
// stats) runs no spider code and always ends. Safe from any goroutine.
func (e *Engine) Drained() <-chan struct{} { return e.stop.drained }

// CloseFeeds closes the feeds now, as Run does when the crawl ends, for a process that
// exits without waiting for Run (a callback stuck in native code after a hard stop): the
// items exported so far are flushed and the files whole. It reports whether every feed
// closed without error. Later exports fail and Run's own close does nothing. Safe from any
// goroutine.
func (e *Engine) CloseFeeds() bool { return e.scraper.feeds.close() }
