package redisfrontier

import (
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// Enqueue: new requests into the outbox, with the local filter of fingerprints sent lately
// (the crawl's seen-set in Redis drops the other duplicates).

// op is one entry of the outbox: ARGV words of syncScript.
type op struct {
	args []any
	add  bool // an 'a' op: Len counts it
}

// Enqueue implements engine.Scheduler: it queues req for the crawl. It returns false only
// for a request whose fingerprint this worker sent lately; the crawl's seen-set drops
// other duplicates later (counted in dupefilter/filtered).
func (f *Frontier) Enqueue(req *types.Request) bool {
	return f.enqueue(nil, req)
}

// EnqueueFrom implements engine.LeaseScheduler: Enqueue for a request yielded by parent's
// callback or errback, or made from parent by a middleware. It is fenced by parent's
// lease: dropped here (false) once this worker knows it lost the lease, refused by Redis
// (frontier/requests_fenced) when another worker holds it by the time it arrives.
func (f *Frontier) EnqueueFrom(parent, req *types.Request) bool {
	f.mu.Lock()
	l := f.held[parent]
	lost := l != nil && f.lapsed(l)
	f.mu.Unlock()
	if lost {
		f.stats.Inc("frontier/requests_fenced", 1)
		return false
	}
	return f.enqueue(l, req)
}

// enqueue queues req, fenced by the lease parent (nil: by the start lease for a start
// request, else none).
func (f *Frontier) enqueue(parent *lease, req *types.Request) bool {
	var fp []byte
	if !req.DontFilter {
		sum := frontier.Fingerprint(req)
		if f.sentLately(sum) {
			f.stats.Inc("dupefilter/filtered", 1)
			return false
		}
		fp = sum[:]
	}
	prio := max(min(req.Priority, maxPriority), -maxPriority)
	rec := frontier.EncodeRequest(nil, req)
	f.mu.Lock()
	pos := f.startPos[req]
	delete(f.startPos, req)
	fm, ft := "", ""
	switch {
	case pos > 0:
		ft = f.startToken
	case parent != nil:
		fm, ft = parent.member, parent.token
	}
	f.ops = append(f.ops, op{args: []any{"a", fp, prio, pos, rec, fm, ft, engine.SlotKey(req)}, add: true})
	f.adds++
	f.mu.Unlock()
	f.stats.Inc("scheduler/enqueued/redis", 1)
	f.stats.Inc("scheduler/enqueued", 1)
	f.poke()
	return true
}

// sentLately reports whether fp was sent lately, and remembers it.
func (f *Frontier) sentLately(fp [16]byte) bool {
	if _, ok := f.hot[fp]; ok {
		return true
	}
	if _, ok := f.warm[fp]; ok {
		return true
	}
	if f.hot == nil || len(f.hot) >= hotSize {
		f.warm, f.hot = f.hot, make(map[[16]byte]struct{}, hotSize/4)
	}
	f.hot[fp] = struct{}{}
	return false
}
