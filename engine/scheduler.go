package engine

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// DupeFilter remembers request fingerprints (Scrapy: RFPDupeFilter). Seen records req and
// reports whether an equal request was seen before. Implementations must be safe for
// concurrent use; an on-disk or Redis filter implements the same interface.
type DupeFilter interface {
	Seen(req *types.Request) bool
}

// MemoryDupeFilter is an in-memory DupeFilter keyed by the first 16 bytes of
// req.FingerprintSum() (the fingerprint, kept compact: 16 bytes instead of 40 hex digits,
// in a table that costs at most 30 bytes per fingerprint).
type MemoryDupeFilter struct {
	mu   sync.Mutex
	seen *fpSet
}

// NewMemoryDupeFilter returns an empty MemoryDupeFilter.
func NewMemoryDupeFilter() *MemoryDupeFilter {
	return &MemoryDupeFilter{seen: &fpSet{}}
}

// Len returns the number of fingerprints recorded.
func (f *MemoryDupeFilter) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen.len()
}

// Seen implements DupeFilter.
func (f *MemoryDupeFilter) Seen(req *types.Request) bool {
	sum := req.FingerprintSum()
	fp := [16]byte(sum[:16])
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.seen.add(fp)
}

// MemoryScheduler is the default Scheduler: an in-memory priority queue (higher Priority
// first; within one priority LIFO, or FIFO with SCHEDULER_MEMORY_QUEUE=fifo) behind a
// DupeFilter (Scrapy: Scheduler with ScrapyPriorityQueue and LifoMemoryQueue). It counts
// scheduler/enqueued(/memory), scheduler/dequeued(/memory) and dupefilter/filtered. Only
// the engine goroutine calls it.
//
// Once it holds more than SCHEDULER_MEMORY_MAX requests (or its own MemoryDupeFilter ten
// times as many fingerprints), it spills: its queue and seen-set move to a temporary
// frontier.Frontier under os.TempDir(), with the same order, and it counts
// scheduler/enqueued/disk and scheduler/dequeued/disk from then on. Close removes the
// folder; one left by a killed process is removed by the next spill.
type MemoryScheduler struct {
	df     DupeFilter
	ownDF  *MemoryDupeFilter // df, when the scheduler made it: its fingerprints may move to disk
	stats  *Stats
	logger *slog.Logger
	fifo   bool
	debug  bool // DUPEFILTER_DEBUG: log every duplicate
	logged bool // the first duplicate was logged
	max    int  // SCHEDULER_MEMORY_MAX (0: never spill)

	queues map[int]*reqQueue
	prios  []int // priorities with a non-empty queue, highest first
	n      int

	disk     *spill // nil until the scheduler spills
	buf      []byte // scratch for pack
	spillErr bool   // spilling failed: stay in memory
}

// NewMemoryScheduler returns an empty MemoryScheduler configured from settings. df may be
// nil for a new MemoryDupeFilter, stats and logger nil for none.
func NewMemoryScheduler(settings *types.Settings, df DupeFilter, stats *Stats, logger *slog.Logger) *MemoryScheduler {
	var own *MemoryDupeFilter
	if df == nil {
		own = NewMemoryDupeFilter()
		df = own
	}
	if stats == nil {
		stats = NewStats()
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &MemoryScheduler{
		df:     df,
		ownDF:  own,
		max:    settings.Int(types.SchedulerMemoryMax),
		stats:  stats,
		logger: logger,
		fifo:   strings.EqualFold(settings.String(types.SchedulerMemoryQueue), "fifo"),
		debug:  settings.Bool(types.DupeFilterDebug),
		queues: map[int]*reqQueue{},
	}
}

// Enqueue implements Scheduler: false means req is a duplicate and was dropped.
func (s *MemoryScheduler) Enqueue(req *types.Request) bool { return s.enqueueThen(req, nil) }

// headerBlind reports whether the scheduler's decision on a request does not depend on its
// headers: the duplicate filter is a MemoryDupeFilter (the fingerprint leaves headers out).
func (s *MemoryScheduler) headerBlind() bool {
	_, ok := s.df.(*MemoryDupeFilter)
	return ok
}

// enqueueThen is Enqueue calling prepare (when not nil) on req before it is stored: once
// the duplicate filter let it pass, or before a spilled scheduler's store, which checks
// and stores in one step.
func (s *MemoryScheduler) enqueueThen(req *types.Request, prepare func(*types.Request)) bool {
	if s.disk != nil {
		if prepare != nil {
			prepare(req)
		}
		return s.enqueueDisk(req)
	}
	if !req.DontFilter && s.df.Seen(req) {
		s.filtered(req)
		return false
	}
	if prepare != nil {
		prepare(req)
	}
	q := s.queues[req.Priority]
	if q == nil {
		q = &reqQueue{}
		s.queues[req.Priority] = q
		i, _ := slices.BinarySearchFunc(s.prios, req.Priority, func(a, b int) int { return b - a })
		s.prios = slices.Insert(s.prios, i, req.Priority)
	}
	req.DropCaches() // a queued request waits long: its parsed URL is made again when needed
	q.push(pack(req, &s.buf))
	s.n++
	s.stats.Inc("scheduler/enqueued/memory", 1)
	s.stats.Inc("scheduler/enqueued", 1)
	if s.max > 0 && !s.spillErr && (s.n > s.max || s.ownDF != nil && s.ownDF.Len() > 10*s.max) {
		s.spill()
	}
	return true
}

// filtered counts and logs a duplicate.
func (s *MemoryScheduler) filtered(req *types.Request) {
	s.stats.Inc("dupefilter/filtered", 1)
	if s.debug {
		s.logger.Debug("Filtered duplicate request: " + reqString(req))
	} else if !s.logged {
		s.logged = true
		s.logger.Debug("Filtered duplicate request: " + reqString(req) +
			" - no more duplicates will be shown (see DUPEFILTER_DEBUG to show all duplicates)")
	}
}

// Next implements Scheduler.
func (s *MemoryScheduler) Next() *types.Request {
	if s.disk != nil {
		return s.nextDisk()
	}
	if s.n == 0 {
		return nil
	}
	p := s.prios[0]
	q := s.queues[p]
	var it queued
	if s.fifo {
		it = q.popFront()
	} else {
		it = q.popBack()
	}
	req := it.unpack()
	if q.len() == 0 {
		delete(s.queues, p)
		s.prios = s.prios[1:]
	}
	s.n--
	s.stats.Inc("scheduler/dequeued/memory", 1)
	s.stats.Inc("scheduler/dequeued", 1)
	return req
}

// Len implements Scheduler.
func (s *MemoryScheduler) Len() int {
	if s.disk != nil {
		if s.disk.done {
			return 0 // the store failed: what it holds is lost, and the crawl must end
		}
		return s.disk.f.Len()
	}
	return s.n
}

// Done implements Scheduler: a memory queue keeps no leases.
func (s *MemoryScheduler) Done(*types.Request) {}

// queued is a request as the queue holds it. A request waits long, and as a
// *types.Request it costs about 400 bytes (the 224-byte struct, its URL, the map of the
// Referer header RefererMiddleware sets). While queued it is kept as its record in the
// frontier's codec (about 100 bytes for a followed link) and decoded again at Next; a
// request the codec cannot give back exactly (frontier.EncodesExactly) keeps its pointer.
type queued struct {
	req *types.Request // the request, when it is not encoded
	rec string         // frontier.EncodeRequest's record of it, when req is nil
}

// pack returns req as the queue keeps it; buf is scratch space for the encoding.
func pack(req *types.Request, buf *[]byte) queued {
	if !frontier.EncodesExactly(req) {
		return queued{req: req}
	}
	*buf = frontier.EncodeRequest((*buf)[:0], req)
	return queued{rec: string(*buf)}
}

// unpack returns the request it holds: a new one, decoded, when it was encoded.
func (it queued) unpack() *types.Request {
	if it.req != nil {
		return it.req
	}
	req, err := frontier.DecodeRequestString(it.rec)
	if err != nil {
		panic(fmt.Sprintf("engine: a queued request's record does not decode: %v", err)) // a bug: pack wrote it
	}
	return req
}

// reqQueue is a deque of requests: a slice with a moving head.
type reqQueue struct {
	items []queued
	head  int
}

func (q *reqQueue) len() int { return len(q.items) - q.head }

func (q *reqQueue) push(it queued) {
	if q.head > 0 && q.head >= len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	q.items = append(q.items, it)
}

func (q *reqQueue) popFront() queued {
	it := q.items[q.head]
	q.items[q.head] = queued{}
	q.head++
	return it
}

func (q *reqQueue) popBack() queued {
	i := len(q.items) - 1
	it := q.items[i]
	q.items[i] = queued{}
	q.items = q.items[:i]
	return it
}

// reqString formats req as Scrapy does: <GET http://...>.
func reqString(req *types.Request) string {
	return "<" + req.HTTPMethod() + " " + req.URL + ">"
}

// respString formats resp as Scrapy does: <200 http://...>.
func respString(resp *types.Response) string {
	return "<" + itoa(resp.Status) + " " + resp.URL + ">"
}

// Interface guards
var (
	_ Scheduler  = (*MemoryScheduler)(nil)
	_ DupeFilter = (*MemoryDupeFilter)(nil)
)
