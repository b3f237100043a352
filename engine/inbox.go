package engine

// This file is the engine goroutine's inbox: what workers, signals and callers from other
// goroutines tell the engine loop, without ever blocking.

import (
	"sync"
	"sync/atomic"

	"github.com/jscrawl/jscrawl/types"
)

type evKind uint8

const (
	evOutput evKind = iota
	evDownloaded
	evParsed
	evItemDone
	evStartDone
	evClose
	evIdleDone // a HoldIdle's done; err is ErrDontCloseSpider for a retry
	evSlots    // download slots changed (slotWatch.changed)
)

// event is one message to the engine goroutine.
type event struct {
	kind   evKind
	parent *types.Response // evOutput: the response whose callback emitted out
	out    types.Output
	req    *types.Request
	resp   *types.Response
	err    error
	errs   int64 // evParsed: spider errors in the call
	life   *requestLife
	reason string

	// chained (evOutput): out comes from a callback or errback, so it passed the spider's
	// part of the output chain (OutputPlan).
	chained bool
}

// inbox holds the events posted to the engine goroutine and the crawl's backlog count.
type inbox struct {
	mu      sync.Mutex
	events  []event
	spare   []event
	wake    chan struct{}
	running bool // Run is running: events are taken
	ran     bool // Run was called

	// Backlog: requests posted but not yet routed, and the scheduler's length as of the
	// engine goroutine's last pass (read by Backlog from any goroutine).
	reqs     atomic.Int64
	schedLen atomic.Int64
	drop     backlogDrop // wakes WaitBacklog after each pass
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

// post appends ev to the inbox and wakes the engine goroutine. It never blocks. Only the
// event that finds the inbox empty wakes it: the engine empties the inbox after every
// wake before it waits again, so a wake is pending or a drain to come for any event
// behind that one.
func (in *inbox) post(ev event) {
	in.mu.Lock()
	if in.ran && !in.running {
		in.mu.Unlock()
		return // the crawl is over
	}
	first := len(in.events) == 0
	in.events = append(in.events, ev)
	if ev.kind == evOutput && ev.out.Request != nil {
		in.reqs.Add(1)
	}
	in.mu.Unlock()
	if !first {
		return
	}
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// begin marks the inbox taken by Run; false if Run ran already.
func (in *inbox) begin() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ran {
		return false
	}
	in.ran, in.running = true, true
	return true
}

// end drops what is left: later posts are ignored.
func (in *inbox) end() {
	in.mu.Lock()
	in.running = false
	in.events = nil
	in.mu.Unlock()
}

// take returns the events posted so far, emptying the inbox; give hands the slice back
// once handled.
func (in *inbox) take() []event {
	in.mu.Lock()
	evs := in.events
	if len(evs) > 0 {
		in.events = in.spare[:0]
	}
	in.mu.Unlock()
	return evs
}

// give returns a handled slice of take for reuse.
func (in *inbox) give(evs []event) { in.spare = evs[:0] }
