package redisfrontier

import (
	"time"
)

// Spare holds: in a slot without a delay, the hold of a download that ended is kept a
// moment for the next download of the slot (no script call).

// Spare holds (slots without a delay).
const (
	// spareLinger is how long a worker keeps the hold of a download that ended for
	// another download of the slot before releasing it.
	spareLinger = 20 * time.Millisecond
	// reuseFresh is how long after an acquisition of the slot granted without a wait the
	// worker reuses its spares without asking Redis (a pause set meanwhile by another
	// worker is seen that much later at most).
	reuseFresh = 100 * time.Millisecond
)

// spare is a hold kept for reuse.
type spare struct {
	token string
	since time.Time
}

// takeSpare returns a spare hold of slot key, or "" when there is none or the slot's
// last word from Redis is older than reuseFresh (then its spares are released, and the
// caller acquires a hold in Redis).
func (p *politeness) takeSpare(key string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	sp := p.spares[key]
	if len(sp) == 0 {
		return ""
	}
	if time.Since(p.fresh[key]) > reuseFresh || p.closed {
		for _, s := range sp {
			delete(p.held, s.token)
			p.queue = append(p.queue, slotOp{key, []any{"r", s.token, 0}})
		}
		delete(p.spares, key)
		return ""
	}
	token := sp[len(sp)-1].token
	if len(sp) == 1 {
		delete(p.spares, key)
	} else {
		p.spares[key] = sp[:len(sp)-1]
	}
	return token
}

// hasSpare reports whether slot key has a spare hold.
func (p *politeness) hasSpare(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.spares[key]) > 0
}

// releaseSlot ends a download's hold: a hold that may be reused (granted without a wait
// in a slot without a delay), without AutoThrottle's delay to share, becomes a spare
// (kept, renewed, for reuse); otherwise its release is queued. It wakes this worker's
// waiters for the slot.
func (f *Frontier) releaseSlot(key, token string, reuse bool, throttle time.Duration) {
	p := f.polite()
	p.mu.Lock()
	if reuse && throttle <= 0 && !p.closed {
		p.spares[key] = append(p.spares[key], spare{token, time.Now()})
		kick := !p.sweeping
		p.sweeping = true
		p.mu.Unlock()
		if kick {
			p.kickLoop()
		}
	} else {
		delete(p.held, token)
		p.mu.Unlock()
		p.enqueue(slotOp{key, []any{"r", token, max(throttle.Microseconds(), 0)}})
	}
	p.wake([]slotOp{{key: key}})
}

// sweepSpares queues the release of the spares older than spareLinger and reports whether
// some remain. Called with p.mu held.
func (p *politeness) sweepSpares() bool {
	now := time.Now()
	for key, sp := range p.spares {
		keep := sp[:0]
		for _, s := range sp {
			if now.Sub(s.since) >= spareLinger {
				delete(p.held, s.token)
				p.queue = append(p.queue, slotOp{key, []any{"r", s.token, 0}})
			} else {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			delete(p.spares, key)
		} else {
			p.spares[key] = keep
		}
	}
	return len(p.spares) > 0
}
