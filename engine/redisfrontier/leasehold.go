package redisfrontier

import (
	"slices"
	"time"
)

// The holds that leasing a request reserved in its slot (syncScript): which download
// takes which, and which one a Done drops.

// leaseHold is the hold in a slot's holds:<key> that leasing a request reserved
// (syncScript), named by the lease's token.
type leaseHold struct {
	token   string
	granted time.Time // when the round trip that leased it was sent
}

// addLease records the hold of a leased request that Next handed out, for a download of
// slot key.
func (p *politeness) addLease(key string, lh leaseHold) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.leases[key] = append(p.leases[key], lh)
}

// takeLease returns the oldest hold of slot key that addLease recorded, and forgets it.
func (p *politeness) takeLease(key string) (leaseHold, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.leases[key]
	if len(l) == 0 {
		return leaseHold{}, false
	}
	lh := l[0]
	if len(l) == 1 {
		delete(p.leases, key)
	} else {
		p.leases[key] = l[1:]
	}
	return lh, true
}

// untakeLease puts back a hold takeLease returned that the download did not use.
func (p *politeness) untakeLease(key string, lh leaseHold) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.leases[key] = append([]leaseHold{lh}, p.leases[key]...)
}

// leaseEnded records that a download of slot key that took a lease's hold ended.
func (p *politeness) leaseEnded(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended[key]++
}

// doneLease records that the lease token of a request of slot key ended (Done), and
// returns the lease hold that goes with it in Redis ("": none). Downloads take any
// handed-out lease's hold of their slot (the gate does not know their requests), so the
// lease of a request that was downloaded leaves the holds as they are, and one that was
// not (a middleware dropped it) drops one not taken, its own if it is there. Which it was
// is told by counting: a request is done after its download has ended, so while
// downloads that took a lease's hold have ended that no Done has matched, the request
// done is taken to be one of them. A wrong guess swaps the roles of two requests of the
// slot, never the count of their holds.
func (p *politeness) doneLease(key, token string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.ended[key]; n > 0 {
		if n == 1 {
			delete(p.ended, key)
		} else {
			p.ended[key] = n - 1
		}
		return ""
	}
	l := p.leases[key]
	if len(l) == 0 {
		return ""
	}
	i := slices.IndexFunc(l, func(lh leaseHold) bool { return lh.token == token })
	i = max(i, 0)
	tok := l[i].token
	l = slices.Delete(l, i, i+1)
	if len(l) == 0 {
		delete(p.leases, key)
	} else {
		p.leases[key] = l
	}
	return tok
}

// adoptable reports whether a download of slot key with concurrency conc may take as it
// is the hold of a lease granted at t: Redis knew the slot's concurrency as conc from
// this worker before t (the lease counted it), and this worker has not paused the slot
// since.
func (p *politeness) adoptable(key string, conc int, t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.known[key]
	if !ok || k.conc != conc || !k.at.Before(t) {
		return false
	}
	at, ok := p.paused[key]
	return !ok || at.Before(t)
}

// learned records that Redis knows slot key's concurrency as conc (an acquisition
// recorded it).
func (p *politeness) learned(key string, conc int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.known[key]; !ok || k.conc != conc {
		p.known[key] = slotConf{conc: conc, at: time.Now()}
	}
}

// slotConf is a slot's concurrency as this worker's acquisitions recorded it in Redis,
// since at.
type slotConf struct {
	conc int
	at   time.Time
}

// releaseLeaseHold ends a download's hold that a lease reserved: its release rides on the
// next round trip of the frontier (syncScript's u), which looks at the slot again at once.
func (f *Frontier) releaseLeaseHold(key, token string, throttle time.Duration) {
	f.mu.Lock()
	f.ops = append(f.ops, op{args: []any{"u", key, token, max(throttle.Microseconds(), 0)}})
	f.mu.Unlock()
	f.poke()
	f.politeness.wake([]slotOp{{key: key}})
}
