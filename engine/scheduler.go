package engine

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine/frontier/codec"
	"github.com/jscrawl/jscrawl/engine/frontier/order"
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

// MemoryScheduler is the default Scheduler: in-memory priority queues (higher Priority
// first; within one priority LIFO, or FIFO with SCHEDULER_MEMORY_QUEUE=fifo) behind a
// DupeFilter (Scrapy: Scheduler with ScrapyPriorityQueue and LifoMemoryQueue), one per
// download slot (SlotKey): it is a SlotScheduler, which hands out the best request among
// the slots that can start a download now, order.SlotIndex deciding between slots. It
// counts scheduler/enqueued(/memory), scheduler/dequeued(/memory) and dupefilter/filtered.
// Only the engine goroutine calls it.
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

	slots map[string]*slotQueue // slots with queued requests
	index order.SlotIndex
	view  order.Readiness // UseSlots'; nil: every slot always ready
	n     int

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
		slots:  map[string]*slotQueue{},
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
	key := SlotKey(req)
	sq := s.slots[key]
	if sq == nil {
		key = strings.Clone(key) // SlotKey's answer may be part of the URL
		sq = &slotQueue{}
		s.slots[key] = sq
	}
	req.DropCaches() // a queued request waits long: its parsed URL is made again when needed
	if sq.push(req.Priority, pack(req, &s.buf)) {
		s.index.Update(key, sq.head(), true)
	}
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
	var now time.Time // without a Readiness no slot waits on a time
	if s.view != nil {
		now = time.Now()
	}
	key, ok := s.index.Next(now)
	if !ok {
		return nil
	}
	sq := s.slots[key]
	req := sq.pop(s.fifo).unpack()
	if sq.n == 0 {
		delete(s.slots, key)
		if len(s.slots) == 0 {
			s.slots = map[string]*slotQueue{} // an emptied map keeps its size
		}
		s.index.Took(key, 0, false)
	} else {
		s.index.Took(key, sq.head(), true)
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

// UseSlots implements SlotScheduler.
func (s *MemoryScheduler) UseSlots(r order.Readiness) {
	s.view = r
	s.index.Use(r)
	if f, ok := s.diskSlots(); ok {
		f.UseSlots(r)
	}
}

// slotFrontier is a frontier.Frontier that queues per slot.
type slotFrontier interface {
	UseSlots(order.Readiness)
	SlotChanged(key string)
	NextReady() (time.Time, bool)
	Recheck()
	SlotCounts() (slots, ready, waiting int)
}

// diskSlots returns the spill store as a slotFrontier, when the scheduler spilled.
func (s *MemoryScheduler) diskSlots() (slotFrontier, bool) {
	if s.disk == nil {
		return nil, false
	}
	f, ok := any(s.disk.f).(slotFrontier)
	return f, ok
}

// SlotChanged implements SlotScheduler.
func (s *MemoryScheduler) SlotChanged(key string) {
	if s.disk != nil {
		if f, ok := s.diskSlots(); ok {
			f.SlotChanged(key)
		}
		return
	}
	s.index.Changed(key)
}

// NextReady implements SlotScheduler.
func (s *MemoryScheduler) NextReady() (time.Time, bool) {
	if s.disk != nil {
		if f, ok := s.diskSlots(); ok {
			return f.NextReady()
		}
		return time.Time{}, false
	}
	return s.index.NextAt()
}

// Recheck implements SlotScheduler.
func (s *MemoryScheduler) Recheck() {
	if s.disk != nil {
		if f, ok := s.diskSlots(); ok {
			f.Recheck()
		}
		return
	}
	s.index.Recheck()
}

// SlotCounts implements SlotScheduler.
func (s *MemoryScheduler) SlotCounts() (slots, ready, waiting int) {
	if s.disk != nil {
		if f, ok := s.diskSlots(); ok {
			return f.SlotCounts()
		}
		return 0, 0, 0
	}
	return s.index.Counts(time.Now())
}

// SlotSizes returns the n biggest slots' queue sizes, biggest first (see SlotSizer).
func (s *MemoryScheduler) SlotSizes(n int) []order.SlotSize {
	if s.disk != nil {
		if f, ok := any(s.disk.f).(SlotSizer); ok {
			return f.SlotSizes(n)
		}
		return nil
	}
	sizes := make([]order.SlotSize, 0, len(s.slots))
	for k, sq := range s.slots {
		sizes = append(sizes, order.SlotSize{Slot: k, Queued: sq.n})
	}
	return order.BiggestSlots(sizes, n)
}

// slotQueue is one slot's queued requests: a deque per priority.
type slotQueue struct {
	queues map[int]*reqQueue
	prios  []int // priorities with a non-empty queue, highest first
	n      int
}

// push adds it at priority p and reports whether the slot's best priority changed.
func (sq *slotQueue) push(p int, it queued) bool {
	q := sq.queues[p]
	changed := false
	if q == nil {
		q = &reqQueue{}
		if sq.queues == nil {
			sq.queues = map[int]*reqQueue{}
		}
		sq.queues[p] = q
		i, _ := slices.BinarySearchFunc(sq.prios, p, func(a, b int) int { return b - a })
		sq.prios = slices.Insert(sq.prios, i, p)
		changed = i == 0
	}
	q.push(it)
	sq.n++
	return changed
}

// head returns the slot's best priority; the slot is not empty.
func (sq *slotQueue) head() int { return sq.prios[0] }

// pop removes the slot's next request: of its best priority, the newest (LIFO) or the
// oldest (fifo).
func (sq *slotQueue) pop(fifo bool) queued {
	p := sq.prios[0]
	q := sq.queues[p]
	var it queued
	if fifo {
		it = q.popFront()
	} else {
		it = q.popBack()
	}
	if q.len() == 0 {
		delete(sq.queues, p)
		sq.prios = sq.prios[1:]
	}
	sq.n--
	return it
}

// queued is a request as the queue holds it. A request waits long, and as a
// *types.Request it costs about 400 bytes (the 224-byte struct, its URL, the map of the
// Referer header RefererMiddleware sets). While queued it is kept as its record in the
// frontier's codec (about 100 bytes for a followed link) and decoded again at Next; a
// request the codec cannot give back exactly (codec.EncodesExactly) keeps its pointer.
type queued struct {
	req *types.Request // the request, when it is not encoded
	rec string         // codec.EncodeRequest's record of it, when req is nil
}

// pack returns req as the queue keeps it; buf is scratch space for the encoding.
func pack(req *types.Request, buf *[]byte) queued {
	if !codec.EncodesExactly(req) {
		return queued{req: req}
	}
	*buf = codec.EncodeRequest((*buf)[:0], req)
	return queued{rec: string(*buf)}
}

// unpack returns the request it holds: a new one, decoded, when it was encoded.
func (it queued) unpack() *types.Request {
	if it.req != nil {
		return it.req
	}
	req, err := codec.DecodeRequestString(it.rec)
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
	_ SlotScheduler = (*MemoryScheduler)(nil)
	_ DupeFilter    = (*MemoryDupeFilter)(nil)
)
