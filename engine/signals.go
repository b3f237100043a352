package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

// Signal names a point in the crawl where connected handlers run (Scrapy: scrapy.signals).
type Signal string

// The signals the engine sends, with the SignalEvent fields their handlers get.
const (
	EngineStarted    Signal = "engine_started"    // no fields
	SpiderOpened     Signal = "spider_opened"     // no fields
	SpiderIdle       Signal = "spider_idle"       // no fields; handlers may Crawl more, HoldIdle, return ErrDontCloseSpider
	SpiderClosed     Signal = "spider_closed"     // Reason
	ItemScraped      Signal = "item_scraped"      // Item, Response (may be nil)
	ItemDropped      Signal = "item_dropped"      // Item, Response, Err
	ItemError        Signal = "item_error"        // Item, Response, Err
	RequestScheduled Signal = "request_scheduled" // Request
	RequestDropped   Signal = "request_dropped"   // Request
	ResponseReceived Signal = "response_received" // Response, Request
	SpiderError      Signal = "spider_error"      // Err, Response (nil for start)
)

// Deferrable reports whether the sender of s waits for work its handlers start (Scrapy:
// "This signal supports returning deferreds from its handlers"): engine_started,
// spider_opened, spider_closed, item_scraped, item_dropped and item_error. The others are
// sent where waiting would stall the crawl (the engine goroutine, or a failing callback for
// spider_error): their handlers must return at once and leave any asynchronous work
// running on its own, as a JS handler's promise is then left to settle (jsapi); a
// spider_idle handler keeps the spider open for such work with Engine.HoldIdle.
func (s Signal) Deferrable() bool {
	switch s {
	case EngineStarted, SpiderOpened, SpiderClosed, ItemScraped, ItemDropped, ItemError:
		return true
	}
	return false
}

// SignalEvent is what a signal's handlers get: the signal and the fields it has (listed
// with the Signal constants); the others are zero.
type SignalEvent struct {
	Signal   Signal
	Request  *types.Request
	Response *types.Response
	Item     types.Item
	Err      error
	Reason   string
}

// SignalHandler is a function connected to a Signal.
type SignalHandler func(ctx context.Context, ev SignalEvent) error

// signalBus holds the handlers connected to each signal and runs them.
type signalBus struct {
	mu       sync.RWMutex
	handlers map[Signal][]SignalHandler
	logger   *slog.Logger
}

// Connect registers fn to run synchronously, on the sending goroutine, each time sig is
// sent (Scrapy: signals.connect). Handlers of one signal run in the order connected; an
// error is logged and does not stop the others. Safe from any goroutine; connect before Run
// to see every event. Signals sent on the engine goroutine (SpiderIdle, RequestScheduled,
// RequestDropped, ResponseReceived) must not block, nor SpiderError (see
// Signal.Deferrable); ItemScraped, ItemDropped, ItemError and SpiderError run on worker
// goroutines and may overlap.
func (e *Engine) Connect(sig Signal, fn SignalHandler) { e.sig.connect(sig, fn) }

func (b *signalBus) connect(sig Signal, fn SignalHandler) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.handlers == nil {
		b.handlers = map[Signal][]SignalHandler{}
	}
	b.handlers[sig] = append(b.handlers[sig], fn)
}

// connected reports whether a handler is connected to sig.
func (b *signalBus) connected(sig Signal) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.handlers[sig]) > 0
}

// send runs the handlers of ev.Signal. dontClose reports whether a spider_idle handler
// returned ErrDontCloseSpider, which is not logged.
func (b *signalBus) send(ctx context.Context, ev SignalEvent) (dontClose bool) {
	b.mu.RLock()
	hs := b.handlers[ev.Signal]
	b.mu.RUnlock()
	for _, h := range hs {
		err := safeCall(ctx, h, ev)
		switch {
		case err == nil:
		case ev.Signal == SpiderIdle && errors.Is(err, ErrDontCloseSpider):
			dontClose = true
		default:
			b.logger.Error(fmt.Sprintf("Error caught on signal handler: %s\n%v", ev.Signal, err))
		}
	}
	return dontClose
}

func safeCall(ctx context.Context, h SignalHandler, ev SignalEvent) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("signal handler panicked: %v", r)
		}
	}()
	return h(ctx, ev)
}
