package redisfrontier

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jscrawl/jscrawl/engine"
)

// engine.SlotGate's calls: AcquireSlot (a hold in Redis, or a lease's or a spare), the wait
// for the reserved start, and PauseSlot.

// AcquireSlot implements engine.SlotGate: one slotScript call reserves the slot's next
// start and a hold, carrying the releases and pauses queued since the last call; then it
// sleeps until the start (awaitStart). A full slot is asked again when this worker releases one of
// its holds, or by polling. Redis errors are retried with backoff until the frontier fails
// for good (backOff).
//
// A download of a request this worker leased uses the hold the lease reserved (any of
// its slot's that Next handed out): in a slot without a delay, granted less than
// reuseFresh ago and not paused here since, as it is, without a script call (its release
// rides on the next round trip, syncScript's u); otherwise its script call turns it into
// the download's hold at the start the lease reserved.
func (f *Frontier) AcquireSlot(ctx context.Context, key string, conc int, delay time.Duration) (engine.SlotHold, error) {
	p := f.polite()
	poll := 5 * time.Millisecond
	backoff := 50 * time.Millisecond
	// leased: lh is a lease's hold in Redis that this acquisition may use; popped: lh was
	// taken from the handed-out leases' (the download counts as theirs: leaseEnded).
	lh, leased := p.takeLease(key)
	popped := leased
	if leased && delay <= 0 && time.Since(lh.granted) < reuseFresh && p.adoptable(key, conc, lh.granted) {
		f.stats.Inc("frontier/slot_holds_leased", 1)
		return engine.SlotHold{Release: func(throttle time.Duration) {
			f.releaseLeaseHold(key, lh.token, throttle)
			p.leaseEnded(key)
		}}, nil
	}
	// giveUp ends an acquisition that failed: a lease's hold it did not use goes back.
	giveUp := func(err error) (engine.SlotHold, error) {
		switch {
		case leased:
			p.untakeLease(key, lh)
		case popped:
			p.leaseEnded(key)
		}
		return engine.SlotHold{}, err
	}
	for {
		if delay <= 0 && !popped {
			if token := p.takeSpare(key); token != "" {
				f.stats.Inc("frontier/slot_holds_reused", 1)
				return engine.SlotHold{Release: func(throttle time.Duration) { f.releaseSlot(key, token, true, throttle) }}, nil
			}
		}
		p.mu.Lock()
		p.seq++
		token := f.worker + "#s" + strconv.FormatUint(p.seq, 10)
		ch := p.waiters[key]
		if ch == nil {
			ch = make(chan struct{})
			p.waiters[key] = ch
		}
		p.held[token] = key // renewed from now on, so a lost reply's hold is not left to expire
		p.mu.Unlock()
		// On failure, a release of the hold in case the script ran.
		acq := slotOp{key, []any{"a", token, max(conc, 1), delay.Microseconds()}}
		if leased {
			acq = slotOp{key, []any{"L", lh.token, token, max(conc, 1), delay.Microseconds()}}
		}
		res, err := f.call(ctx, acq, slotOp{key, []any{"r", token, 0}})
		if err != nil {
			p.mu.Lock()
			delete(p.held, token)
			p.mu.Unlock()
			if err := f.backOff(ctx, err, &backoff); err != nil {
				return giveUp(err)
			}
			continue
		}
		backoff = 50 * time.Millisecond
		wait, at, recovered, retry := toInt(res[0]), toInt(res[1]), toInt(res[2]), toInt(res[3])
		if wait >= 0 {
			p.learned(key, max(conc, 1))
		}
		// The lease's hold stays for the next try when the slot's downloads use its
		// concurrency (at -1); used, or gone, the next tries are plain acquisitions.
		leased = leased && wait < 0 && at == -1
		if recovered > 0 {
			f.stats.Inc("frontier/slot_holds_recovered", recovered)
			f.logger.Info(fmt.Sprintf("Slot %s: %d holds of stopped workers expired", key, recovered))
		}
		if wait >= 0 {
			reuse := wait == 0 && delay <= 0 && !popped // a hold that only counts: it may be reused
			hold := engine.SlotHold{
				Throttle: time.Duration(at) * time.Microsecond,
				Release: func(throttle time.Duration) {
					f.releaseSlot(key, token, reuse, throttle)
					if popped {
						p.leaseEnded(key)
					}
				},
			}
			if reuse {
				p.mu.Lock()
				p.fresh[key] = time.Now()
				p.mu.Unlock()
			}
			if err := f.awaitStart(ctx, key, token, delay, wait); err != nil {
				hold.Release(0)
				return engine.SlotHold{}, err
			}
			return hold, nil
		}
		p.mu.Lock()
		delete(p.held, token)
		p.mu.Unlock()
		if delay <= 0 && !popped && p.hasSpare(key) {
			continue // a download of this worker ended meanwhile
		}
		w := min(poll, max(time.Duration(retry)*time.Microsecond, time.Millisecond))
		poll = min(2*poll, 100*time.Millisecond)
		t := time.NewTimer(w)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return giveUp(ctx.Err())
		}
		t.Stop()
	}
}

// confirmAhead is how long before its reserved start a download confirms it.
const confirmAhead = 20 * time.Millisecond

// awaitStart sleeps until the reserved start of the hold token, wait µs from now. When
// that is further than confirmAhead, it confirms the start confirmAhead before it: a
// pause set meanwhile (another worker's Retry-After) moves it. When the confirmation
// cannot be made, the download keeps the start it has.
func (f *Frontier) awaitStart(ctx context.Context, key, token string, delay time.Duration, wait int64) error {
	start := time.Now().Add(time.Duration(wait) * time.Microsecond)
	for time.Until(start) > confirmAhead {
		if err := sleepCtx(ctx, time.Until(start)-confirmAhead); err != nil {
			return err
		}
		res, err := f.call(ctx, slotOp{key, []any{"c", token, 0, delay.Microseconds()}})
		if err != nil || toInt(res[0]) <= 0 {
			break
		}
		start = time.Now().Add(time.Duration(toInt(res[0])) * time.Microsecond)
	}
	return sleepCtx(ctx, time.Until(start))
}

// call runs op in one script call after the releases and pauses queued, and wakes this
// worker's acquisitions waiting for their slots. When the call fails, the queue is put
// back, followed by undo, for the next call.
func (f *Frontier) call(ctx context.Context, op slotOp, undo ...slotOp) ([]any, error) {
	p := &f.politeness
	p.mu.Lock()
	ops := append(p.queue, op)
	p.queue = nil
	p.mu.Unlock()
	n := len(ops) - 1
	res, err := f.runSlotOps(ctx, ops)
	if err != nil {
		p.mu.Lock()
		p.queue = append(append(ops[:n:n], undo...), p.queue...)
		p.mu.Unlock()
		p.kickLoop()
		return nil, err
	}
	p.wake(ops[:n])
	return res, nil
}

// PauseSlot implements engine.SlotGate: the pause is queued for the next call to Redis.
func (f *Frontier) PauseSlot(key string, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	p := f.polite()
	p.mu.Lock()
	delete(p.fresh, key) // spares wait for Redis's word on the pause
	p.paused[key] = time.Now()
	p.mu.Unlock()
	p.enqueue(slotOp{key, []any{"p", d.Microseconds()}})
}
