package engine

import (
	"context"
	"fmt"
)

// Signal names a point in the crawl where connected handlers run (Scrapy: scrapy.signals).
type Signal string

// The signals the engine sends, with the arguments handlers receive.
const (
	EngineStarted    Signal = "engine_started"    // no arguments
	SpiderOpened     Signal = "spider_opened"     // no arguments
	SpiderIdle       Signal = "spider_idle"       // no arguments; handlers may Crawl more
	SpiderClosed     Signal = "spider_closed"     // reason string
	ItemScraped      Signal = "item_scraped"      // types.Item, *types.Response (may be nil)
	ItemDropped      Signal = "item_dropped"      // types.Item, *types.Response, error
	ItemError        Signal = "item_error"        // types.Item, *types.Response, error
	RequestScheduled Signal = "request_scheduled" // *types.Request
	RequestDropped   Signal = "request_dropped"   // *types.Request
	ResponseReceived Signal = "response_received" // *types.Response, *types.Request
	SpiderError      Signal = "spider_error"      // error, *types.Response (nil for start)
)

// SignalHandler is a function connected to a Signal.
type SignalHandler func(ctx context.Context, args ...any) error

// Connect registers fn to run synchronously, on the sending goroutine, each time sig is
// sent (Scrapy: signals.connect). Handlers of one signal run in the order connected; an
// error is logged and does not stop the others. Safe from any goroutine; connect before Run
// to see every event. Signals sent on the engine goroutine (SpiderIdle, RequestScheduled,
// RequestDropped, ResponseReceived) must not block; ItemScraped, ItemDropped, ItemError
// and SpiderError run on worker goroutines and may overlap.
func (e *Engine) Connect(sig Signal, fn func(ctx context.Context, args ...any) error) {
	e.sigMu.Lock()
	defer e.sigMu.Unlock()
	if e.handlers == nil {
		e.handlers = map[Signal][]SignalHandler{}
	}
	e.handlers[sig] = append(e.handlers[sig], fn)
}

// send runs the handlers of sig.
func (e *Engine) send(ctx context.Context, sig Signal, args ...any) {
	e.sigMu.RLock()
	hs := e.handlers[sig]
	e.sigMu.RUnlock()
	for _, h := range hs {
		if err := safeCall(ctx, h, args); err != nil {
			e.logger.Error(fmt.Sprintf("Error caught on signal handler: %s\n%v", sig, err))
		}
	}
}

func safeCall(ctx context.Context, h SignalHandler, args []any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("signal handler panicked: %v", r)
		}
	}()
	return h(ctx, args...)
}
