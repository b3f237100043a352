package redisfrontier

import (
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// The leases this worker holds, as the engine sees them: Next hands them out, Done
// acknowledges them, Holds and lapsed tell which ones are still this worker's.

// lease is a request this worker leased. Its fields but member, token and req are
// guarded by Frontier.mu.
type lease struct {
	member, token string
	slot          string    // its download slot (engine.SlotKey, as enqueued)
	granted       time.Time // when the round trip that leased it was sent
	req           *types.Request
	// valid is when the lease may have expired in Redis, at the earliest: the send time of
	// the round trip that leased or last renewed it, plus LeaseTimeout.
	valid time.Time
	// lost: Redis said another worker may hold it (a renewal refused), or Holds found
	// it past valid. Its work is no longer written, and Done releases it (token checked).
	lost bool
}

// Next implements engine.Scheduler: a request this worker leased whose download slot can
// start a download (UseSlots' Readiness; without one, any), or nil when none is buffered
// (the background goroutine then leases more). It reserves the slot in the Readiness.
func (f *Frontier) Next() *types.Request {
	f.mu.Lock()
	released := false
	l := f.buf.take(time.Now(), func(l *lease) bool {
		if l.lost {
			return true // another worker's now
		}
		if f.lapsed(l) {
			// Not renewed for LeaseTimeout (paused, or cut off): maybe another worker's by
			// now. Back to pending if it is still this worker's (Redis checks the token).
			f.ops = append(f.ops, op{args: []any{"r", l.member, l.token, l.token}})
			released = true
			return true
		}
		return false
	})
	if l == nil {
		wasHungry := f.hungry
		f.hungry = true
		f.mu.Unlock()
		if !wasHungry || released {
			f.poke()
		}
		return nil
	}
	f.held[l.req] = l
	low := !f.hungry && f.opts.Prefetch > 0 && f.buf.len() <= f.opts.Prefetch/2
	if low {
		f.hungry = true
	}
	f.mu.Unlock()
	f.polite().addLease(l.slot, leaseHold{token: l.token, granted: l.granted})
	if low || released {
		f.poke()
	}
	f.stats.Inc("scheduler/dequeued/redis", 1)
	f.stats.Inc("scheduler/dequeued", 1)
	return l.req
}

// Done implements engine.Scheduler: the lease of req is acknowledged, after everything
// Enqueue received before.
func (f *Frontier) Done(req *types.Request) {
	f.mu.Lock()
	l := f.held[req]
	now := false
	if l != nil {
		hold := f.polite().doneLease(l.slot, l.token) // Redis drops it with the lease
		delete(f.held, req)
		ack := op{args: []any{"k", l.member, l.token, hold}}
		switch {
		case l.lost:
			// Its work was not written: the request goes back to pending if the lease
			// is still this worker's after all (Redis checks the token).
			f.ops = append(f.ops, op{args: []any{"r", l.member, l.token, hold}})
			now = true
		case f.opts.HoldAcks:
			f.acks = append(f.acks, ack)
		default:
			f.ops = append(f.ops, ack)
			now = true
		}
	}
	f.mu.Unlock()
	if now {
		f.poke()
	}
}

// Holds implements engine.LeaseScheduler: whether this worker still holds the lease of
// req as far as it knows, from Redis (a renewal refused) or from its own clock (not renewed
// for LeaseTimeout: paused, or cut off from Redis). False is final: the engine writes
// nothing more of req's work, and Done releases the lease instead of acknowledging it.
// Safe from any goroutine.
func (f *Frontier) Holds(req *types.Request) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.held[req]
	return l == nil || !f.lapsed(l)
}

// lapsed reports whether l is lost, marking it so when its validity has passed. With f.mu
// held.
func (f *Frontier) lapsed(l *lease) bool {
	if !l.lost && time.Now().After(l.valid) {
		l.lost = true
		f.stats.Inc("frontier/leases_lapsed", 1)
	}
	return l.lost
}

// ReleaseAcks sends the acknowledgements held back since the last call (HoldAcks): call
// it once what the requests produced is safe (the feeds flushed). Safe from any goroutine.
func (f *Frontier) ReleaseAcks() {
	f.mu.Lock()
	n := len(f.acks)
	f.ops = append(f.ops, f.acks...)
	f.acks = nil
	f.mu.Unlock()
	if n > 0 {
		f.poke()
	}
}

// Len implements engine.Scheduler: requests this worker holds that the engine has not
// taken, leased ones in the buffer and new ones not yet in Redis.
func (f *Frontier) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.len() + f.adds
}

// Settled implements engine.SharedScheduler: the crawl is over everywhere (nothing pending
// or leased, start() done) and this worker has nothing left to send.
func (f *Frontier) Settled() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finished && len(f.ops) == 0 && f.sending == 0 && len(f.held) == 0 && f.buf.len() == 0 && len(f.acks) == 0
}

// Wake implements engine.SharedScheduler: it receives when Next may return a request or
// Settled may have changed.
func (f *Frontier) Wake() <-chan struct{} { return f.wake }
