package redisfrontier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
)

// Politeness across workers
//
// A Frontier is the engine's SlotGate (and RobotsCache, robots.go): the download slots'
// limits hold crawl-wide. Each slot has two keys:
//
//	slot:<key>   HASH  last (µs, Redis's clock): the latest start reserved in the slot;
//	                   pause (µs): no start before it (Retry-After); at (µs): the slot's
//	                   AutoThrottle delay as a worker last shared it
//	holds:<key>  ZSET  hold token <worker>#s<n> → deadline (µs): the downloads holding the
//	                   slot, reserved or running; and lease token <worker>#<n> → its
//	                   reserved start plus the lease timeout: a leased request of the
//	                   slot whose download has not taken the hold yet (syncScript)
//
// slot:<key> also records conc and delay, the concurrency and delay (µs) of the slot's
// latest acquisition, which the leases use.
//
// Both expire ten minutes after the slot's last use. An acquisition is one script call
// (slotScript): it drops the slot's expired holds (a dead worker's), and when fewer than
// the slot's concurrency remain it reserves the next start, the later of now, last plus
// the acquiring worker's delay, and the pause, records it in last, and adds a hold whose
// deadline is the start plus FRONTIER_LEASE_TIMEOUT. The worker sleeps until the start
// and downloads; when it has to sleep longer than 20 ms, one more call confirms the start
// 20 ms before it, and a pause set meanwhile (another worker's Retry-After) moves it. When
// the slot is full the worker waits for one of its own holds of the slot to be released,
// or polls (5 ms doubling to 100 ms, no later than the earliest deadline).
// Releases and pauses are queued: the next acquisition of the worker carries them in its
// script call, or a background goroutine sends them at once; that goroutine also renews the
// worker's holds every third of the lease timeout, so a killed worker's holds free their
// slots a lease timeout after its last renewal.
//
// In a slot without a delay (the acquisition's delay is 0) a hold only counts a download
// against the slot's concurrency, so a worker keeps the hold of a download that ended as
// a spare for up to spareLinger instead of releasing it at once: a download of the same
// slot in the same worker takes the spare without a script call (the hold moves from one
// download to the next; the slot's count in Redis never changes, so the crawl-wide
// concurrency holds exactly). A spare is taken only within reuseFresh of this worker's
// last acquisition of the slot that Redis granted without a wait, so a pause another
// worker set (Retry-After) holds here too, at most reuseFresh late. Spares not taken are
// released by the background goroutine.
//
// This file holds a worker's state for the shared slots and its background goroutine;
// the gate's calls are in acquire.go, the spares in spares.go, the holds of leases in
// leasehold.go and the script in slotscript.go.

// Keys of the shared slots and robots.txt, after the crawl's prefix.
const (
	keySlot       = "slot:"       // + slot key: HASH last, pause, at
	keyHolds      = "holds:"      // + slot key: ZSET hold token → deadline
	keyRobots     = "robots:"     // + origin: STRING verdict byte + body
	keyRobotsLock = "robotslock:" // + origin: STRING the token of the worker fetching it
)

// slotOp is one op of slotScript on slot key.
type slotOp struct {
	key  string
	args []any
}

// politeness is a Frontier's state for the shared slots.
type politeness struct {
	start    sync.Once
	mu       sync.Mutex
	seq      uint64
	held     map[string]string // hold token → slot key: the holds to renew
	queue    []slotOp          // releases and pauses not sent yet
	waiters  map[string]chan struct{}
	spares   map[string][]spare     // slot key → holds kept for reuse (no delay)
	fresh    map[string]time.Time   // slot key → its last acquisition granted without a wait
	leases   map[string][]leaseHold // slot key → holds of leased requests Next handed out
	paused   map[string]time.Time   // slot key → when this worker last paused it
	known    map[string]slotConf    // slot key → its concurrency and delay as Redis knows them
	ended    map[string]int         // slot key → downloads that took a lease's hold, ended, not matched by a Done
	sweeping bool                   // the background goroutine is to release old spares
	closed   bool
	kick     chan struct{}
	stop     chan struct{}
	loopDone chan struct{}
}

// polite returns f's shared-slot state, starting its background goroutine the first time.
func (f *Frontier) polite() *politeness {
	p := &f.politeness
	p.start.Do(func() {
		p.held = map[string]string{}
		p.waiters = map[string]chan struct{}{}
		p.spares = map[string][]spare{}
		p.fresh = map[string]time.Time{}
		p.leases = map[string][]leaseHold{}
		p.paused = map[string]time.Time{}
		p.known = map[string]slotConf{}
		p.ended = map[string]int{}
		p.kick = make(chan struct{}, 1)
		p.stop = make(chan struct{})
		p.loopDone = make(chan struct{})
		go f.politeLoop()
	})
	return p
}

func (p *politeness) enqueue(op slotOp) {
	p.mu.Lock()
	p.queue = append(p.queue, op)
	p.mu.Unlock()
	p.kickLoop()
}

// kickLoop makes the background goroutine send the queue.
func (p *politeness) kickLoop() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// wake wakes the acquisitions of this worker waiting for the slots of ops.
func (p *politeness) wake(ops []slotOp) {
	if len(ops) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, op := range ops {
		if ch := p.waiters[op.key]; ch != nil {
			close(ch)
			delete(p.waiters, op.key)
		}
	}
}

// runSlotOps runs slotScript on ops.
func (f *Frontier) runSlotOps(ctx context.Context, ops []slotOp) ([]any, error) {
	keys := make([]string, 0, 2*len(ops))
	args := make([]any, 2, 2+4*len(ops))
	args[0], args[1] = f.opts.LeaseTimeout.Microseconds(), f.prefix
	for _, op := range ops {
		keys = append(keys, f.prefix+keySlot+op.key, f.prefix+keyHolds+op.key)
		args = append(args, op.args...)
	}
	res, err := slotScript.Run(ctx, f.rdb, keys, args...).Slice()
	if err == nil && len(res) != 4 {
		err = fmt.Errorf("slot script returned %d values", len(res))
	}
	return res, err
}

// backOff handles a failed call for the shared slots or robots.txt: it waits *backoff
// (doubling it for the next time, up to 5 s) and returns nil when the call should be made
// again, or the error to give up with: ctx's, an error that will not go away (an error
// reply), or the frontier's once Redis has failed for longer than RetryTimeout. The
// frontier's round trips time the outage and log it: backOff pokes the background
// goroutine so that it notices.
func (f *Frontier) backOff(ctx context.Context, err error, backoff *time.Duration) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !retryable(err) {
		return fmt.Errorf("redis frontier: shared politeness: %w", err)
	}
	if ferr := f.Err(); ferr != nil {
		return ferr
	}
	f.poke()
	wait := *backoff
	*backoff = min(2*wait, 5*time.Second)
	return sleepCtx(ctx, wait)
}

// politeLoop sends the queued releases and pauses that no acquisition carried, and renews
// the worker's holds every third of the lease timeout, until closePolite or a closed
// connection (a killed worker).
func (f *Frontier) politeLoop() {
	p := &f.politeness
	defer close(p.loopDone)
	renew := time.NewTicker(f.opts.LeaseTimeout / 3)
	defer renew.Stop()
	backoff := 50 * time.Millisecond
	var retry, sweep <-chan time.Time
	for {
		renewing, stopping := false, false
		select {
		case <-p.kick:
		case <-renew.C:
			renewing = true
		case <-retry:
			retry = nil
		case <-sweep:
			sweep = nil
			p.mu.Lock()
			p.sweeping = p.sweepSpares()
			p.mu.Unlock()
		case <-p.stop:
			stopping = true
		}
		p.mu.Lock()
		if p.sweeping && sweep == nil {
			sweep = time.After(spareLinger)
		}
		ops := p.queue
		p.queue = nil
		if renewing {
			for tok, key := range p.held {
				ops = append(ops, slotOp{key, []any{"h", tok}})
			}
		}
		p.mu.Unlock()
		if len(ops) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := f.runSlotOps(ctx, ops)
			cancel()
			switch {
			case errors.Is(err, redis.ErrClosed):
				return
			case err != nil:
				if stopping || !retryable(err) || f.Err() != nil {
					f.logger.Warn(fmt.Sprintf("Dropping %d releases, pauses and renewals of shared download slots, their holds expire by themselves: %v", len(ops), err))
				} else {
					f.poke()
					again := slices.DeleteFunc(ops, func(op slotOp) bool { return op.args[0] == "h" })
					p.mu.Lock()
					p.queue = append(again, p.queue...)
					p.mu.Unlock()
					retry = time.After(backoff)
					backoff = min(2*backoff, 5*time.Second)
				}
			default:
				backoff = 50 * time.Millisecond
				p.wake(ops)
			}
		}
		if stopping {
			return
		}
	}
}

// closePolite releases the holds this worker still has, sends what is queued and stops
// the background goroutine. Close calls it before closing the connection.
func (f *Frontier) closePolite() {
	p := f.polite()
	p.mu.Lock()
	closed := p.closed
	p.closed = true
	clear(p.spares)
	for tok, key := range p.held {
		p.queue = append(p.queue, slotOp{key, []any{"r", tok, 0}})
	}
	clear(p.held)
	p.mu.Unlock()
	if !closed {
		close(p.stop)
	}
	<-p.loopDone
}

// sleepCtx waits for d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	return ctx.Err()
}

// Interface guards
var _ engine.SlotGate = (*Frontier)(nil)
