package broadsite

import (
	"container/heap"
	"time"
)

// LimitResult is what the ideal crawler of Limit achieves on a graph.
type LimitResult struct {
	// Pages is the number of pages it fetches: every page reachable from the starts.
	Pages int
	// Span is the time from its first fetch (at 0) to its last.
	Span time.Duration
}

// Limit simulates the ideal polite crawler of issue 26 ("one page per host per second,
// every known page of a host queued at its host") on the graph of links, from starts:
//
//   - at 0 the start pages are known;
//   - each host fetches one known, unfetched page at a time, at most one per delay: a host
//     that fetched at t fetches its next known page at t+delay, or as soon as one becomes
//     known after that;
//   - a fetch takes no time, and the pages it links to become known at once;
//   - a host fetches its known pages in the order they became known (first known, first
//     fetched; the starts in their order, a page's links in theirs), and hosts that can
//     fetch at the same time go in host order.
//
// Span is the time of the last fetch. Pages of hosts outside 0..hosts-1 are ignored.
func Limit(hosts int, starts []Page, links func(Page) []Page, delay time.Duration) LimitResult {
	s := &sim{
		queue:  make([][]Page, hosts),
		free:   make([]time.Duration, hosts),
		queued: make([]bool, hosts),
		known:  map[Page]bool{},
	}
	for _, p := range starts {
		s.discover(p, 0)
	}
	var res LimitResult
	for s.ready.Len() > 0 {
		r := heap.Pop(&s.ready).(slotAt)
		h := r.host
		s.queued[h] = false
		p := s.queue[h][0]
		s.queue[h] = s.queue[h][1:]
		res.Pages++
		res.Span = r.at
		s.free[h] = r.at + delay
		for _, q := range links(p) {
			s.discover(q, r.at)
		}
		s.schedule(h, r.at)
	}
	return res
}

// sim is the state of Limit's simulation.
type sim struct {
	queue  [][]Page        // per host: its known, unfetched pages in the order they became known
	free   []time.Duration // per host: when it may fetch next
	queued []bool          // per host: it is in ready
	known  map[Page]bool
	ready  readyHeap
}

// discover makes p known at time t.
func (s *sim) discover(p Page, t time.Duration) {
	if p.Host < 0 || p.Host >= len(s.queue) || s.known[p] {
		return
	}
	s.known[p] = true
	s.queue[p.Host] = append(s.queue[p.Host], p)
	s.schedule(p.Host, t)
}

// schedule puts host h in ready, at the time it can fetch its next known page, if it has
// one and is not there yet (t is now: a fetch is never before it).
func (s *sim) schedule(h int, t time.Duration) {
	if s.queued[h] || len(s.queue[h]) == 0 {
		return
	}
	s.queued[h] = true
	heap.Push(&s.ready, slotAt{at: max(t, s.free[h]), host: h})
}

// slotAt is a host able to fetch at a time.
type slotAt struct {
	at   time.Duration
	host int
}

// readyHeap orders hosts by when they can fetch, then by host.
type readyHeap []slotAt

func (r readyHeap) Len() int { return len(r) }
func (r readyHeap) Less(i, j int) bool {
	if r[i].at != r[j].at {
		return r[i].at < r[j].at
	}
	return r[i].host < r[j].host
}
func (r readyHeap) Swap(i, j int) { r[i], r[j] = r[j], r[i] }
func (r *readyHeap) Push(x any)   { *r = append(*r, x.(slotAt)) }
func (r *readyHeap) Pop() any {
	old := *r
	x := old[len(old)-1]
	*r = old[:len(old)-1]
	return x
}

// Limit is the package Limit on g from g.Starts.
func (g Graph) Limit(delay time.Duration) LimitResult {
	return Limit(g.Hosts, g.Starts(), g.Links, delay)
}

// Interface guards
var _ heap.Interface = (*readyHeap)(nil)
