package frontier

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/pebble"

	"github.com/jscrawl/jscrawl/types"
)

// slot is one download slot's queue: a queue per priority it holds.
type slot struct {
	name      string
	id        uint32
	qs        []*pq // its priorities' queues, highest first (emptied ones until the next commit)
	n         int   // pending requests
	best      int   // the highest priority with pending requests, when n > 0
	persisted bool  // its k record is committed
	dirty     bool  // in Frontier.dirtyS
}

// queue returns s's queue of priority prio, or nil.
func (s *slot) queue(prio int) *pq {
	if i, ok := slices.BinarySearchFunc(s.qs, prio, func(q *pq, p int) int { return cmp.Compare(p, q.prio) }); ok {
		return s.qs[i]
	}
	return nil
}

// addQueue adds q to s.qs, which has no queue of q's priority.
func (s *slot) addQueue(q *pq) {
	i, _ := slices.BinarySearchFunc(s.qs, q.prio, func(q *pq, p int) int { return cmp.Compare(p, q.prio) })
	s.qs = slices.Insert(s.qs, i, q)
}

// removeQueue removes q from s.qs.
func (s *slot) removeQueue(q *pq) {
	if i := slices.Index(s.qs, q); i >= 0 {
		s.qs = slices.Delete(s.qs, i, i+1)
	}
}

// head returns the highest priority of s with pending requests.
func (s *slot) head() (int, bool) {
	for _, q := range s.qs {
		if q.cnt > 0 {
			return q.prio, true
		}
	}
	return 0, false
}

// seg is a range of positions [lo, hi) of one queue whose stored (or buffered) keys are
// all pending.
type seg struct{ lo, hi uint64 }

// entry is a request read ahead: its position, and the end of its record in the queue's
// rdata (it starts where the previous one ends).
type entry struct {
	pos uint64
	end uint32
}

// entrySize is what an entry costs, counted in the read-ahead budget with the records.
const entrySize = 16

// pq is one slot's queue of one priority.
type pq struct {
	slot   *slot
	prio   int
	segs   []seg  // ascending; the top one takes pushes
	cAlloc uint64 // hi at the last commit: positions below may hold committed keys
	// Every key of the queue in the store is at a position in [clo, top): clo is lo at the
	// last commit, top past the highest position taken since.
	clo, top uint64
	wlo      uint64 // wbuf holds positions [wlo, top.hi)
	wbuf     []*types.Request
	rbuf     []entry // requests read ahead from the store, in pop order
	rdata    []byte  // their records, decoded when popped
	raBytes  int     // rbuf's and rdata's bytes, counted in Frontier.raHeld
	ri       int
	cnt      int
	dirty    bool // changed since the last commit (in Frontier.dirtyQ)
	inWQ     bool // in Frontier.wq
	// raPrev and raNext link the queues holding read-ahead (Frontier.raFirst).
	raPrev, raNext *pq
	inRA           bool
}

func (f *Frontier) markDirty(q *pq) {
	if !q.dirty {
		q.dirty = true
		f.dirtyQ = append(f.dirtyQ, q)
	}
}

// slotFor returns the slot named key, made (with a new id) when missing.
func (f *Frontier) slotFor(key string) *slot {
	s := f.slots[key]
	if s == nil {
		if f.slotSeq >= maxSlotID {
			f.setErr(fmt.Errorf("more than %d slots made", uint64(maxSlotID)))
		} else {
			f.slotSeq++
		}
		key = strings.Clone(key) // SlotKey's answer may be part of the URL: not to keep it
		s = &slot{name: key, id: uint32(f.slotSeq)}
		f.slots[key] = s
	}
	return s
}

func (f *Frontier) keyOf(req *types.Request) string {
	if f.slotKey == nil {
		return ""
	}
	return f.slotKey(req)
}

// push adds req on top of its slot's queue of its priority.
func (f *Frontier) push(req *types.Request) {
	s := f.slotFor(f.keyOf(req))
	q := s.queue(req.Priority)
	if q == nil {
		q = &pq{slot: s, prio: req.Priority, cAlloc: posStart, wlo: posStart, clo: posStart, top: posStart}
		s.addQueue(q)
	}
	if len(q.segs) > 0 && q.segs[len(q.segs)-1].hi >= q.cAlloc {
		q.segs[len(q.segs)-1].hi++
	} else {
		// The top is below the committed allocation (a LIFO queue dipped since the last
		// commit, or it is empty): a new range above it, not to overwrite committed keys.
		q.segs = append(q.segs, seg{q.cAlloc, q.cAlloc + 1})
		q.wlo = q.cAlloc
		f.dropReadAhead(q)
	}
	q.top = max(q.top, q.segs[len(q.segs)-1].hi)
	q.wbuf = append(q.wbuf, req)
	if !q.inWQ {
		q.inWQ = true
		f.wq = append(f.wq, q)
	}
	q.cnt++
	f.markDirty(q)
	f.n++
	f.buffered++
	s.n++
	switch {
	case s.n == 1:
		f.active++
		s.best = req.Priority
	case req.Priority > s.best:
		s.best = req.Priority
	default:
		return
	}
	if !f.plain() {
		f.idx.Update(s.name, s.best, true)
	}
}

// plain reports whether the frontier has one slot ("", no Options.SlotKey): that slot is
// always the one, and the index is left out.
func (f *Frontier) plain() bool { return f.slotKey == nil }

// Next returns the next pending request, now leased: the best request of the best slot
// that can start a download now (SlotIndex, asking the Readiness given to UseSlots). It
// returns nil when none is pending, when no slot with pending requests is ready, or when
// a store error happened (see Err).
func (f *Frontier) Next() *types.Request {
	if f.n == 0 || f.err != nil {
		return nil
	}
	plain := f.plain()
	key := ""
	if !plain {
		var now time.Time // without a Readiness every slot is always ready: no clock read
		if f.idx.HasReadiness() {
			now = time.Now()
		}
		var ok bool
		if key, ok = f.idx.Next(now); !ok {
			return nil
		}
	}
	s := f.slots[key]
	var q *pq
	if s != nil && s.n > 0 {
		q = s.queue(s.best)
	}
	if q == nil || q.cnt == 0 {
		f.setErr(fmt.Errorf("slot %q: indexed with nothing pending", key))
		return nil
	}
	var req *types.Request
	if f.fifo {
		req = f.popBottom(q)
	} else {
		req = f.popTop(q)
	}
	if req == nil {
		if f.err == nil {
			f.setErr(fmt.Errorf("slot %q, priority %d: %d requests counted, none stored", key, q.prio, q.cnt))
		}
		return nil
	}
	q.cnt--
	f.markDirty(q)
	f.n--
	s.n--
	if q.cnt == 0 {
		q.segs, q.wbuf = q.segs[:0], nil
		f.dropReadAhead(q)
		if s.n > 0 {
			s.best, _ = s.head()
		}
	}
	if s.n == 0 {
		f.active--
	}
	if !plain {
		f.idx.Took(key, s.best, s.n > 0)
	}
	f.leaseSeq++
	f.leases[req] = &lease{id: f.leaseSeq}
	return req
}

// popTop pops the top request of q (LIFO).
func (f *Frontier) popTop(q *pq) *types.Request {
	for len(q.segs) > 0 {
		top := &q.segs[len(q.segs)-1]
		if n := len(q.wbuf); n > 0 {
			req := q.wbuf[n-1]
			q.wbuf[n-1] = nil
			q.wbuf = q.wbuf[:n-1]
			f.buffered--
			top.hi--
			if top.lo >= top.hi {
				q.segs = q.segs[:len(q.segs)-1]
				f.dropReadAhead(q)
			}
			return req
		}
		if q.ri == len(q.rbuf) && !f.read(q, *top, true) {
			if f.err != nil {
				return nil
			}
			q.segs = q.segs[:len(q.segs)-1] // no key left in it
			f.dropReadAhead(q)
			continue
		}
		pos, req := f.popReadAhead(q)
		if req == nil {
			return nil
		}
		top.hi = pos
		q.wlo = pos
		if top.lo >= top.hi {
			q.segs = q.segs[:len(q.segs)-1]
			f.dropReadAhead(q)
		}
		return req
	}
	return nil
}

// popBottom pops the bottom request of q (FIFO).
func (f *Frontier) popBottom(q *pq) *types.Request {
	for len(q.segs) > 0 {
		bot := &q.segs[0]
		isTop := len(q.segs) == 1
		diskHi := bot.hi
		if isTop {
			diskHi = q.wlo
		}
		if q.ri < len(q.rbuf) || bot.lo < diskHi && f.read(q, seg{bot.lo, diskHi}, false) {
			pos, req := f.popReadAhead(q)
			if req == nil {
				return nil
			}
			bot.lo = pos + 1
			f.dropEmptyBottom(q)
			return req
		}
		if f.err != nil {
			return nil
		}
		if isTop && len(q.wbuf) > 0 {
			req := q.wbuf[0]
			q.wbuf[0] = nil
			q.wbuf = q.wbuf[1:]
			f.buffered--
			q.wlo++
			bot.lo = q.wlo
			f.dropEmptyBottom(q)
			return req
		}
		bot.lo = diskHi // no key left below diskHi: the range is empty
		f.dropEmptyBottom(q)
	}
	return nil
}

func (f *Frontier) dropEmptyBottom(q *pq) {
	if q.segs[0].lo >= q.segs[0].hi {
		q.segs = q.segs[1:]
		f.dropReadAhead(q)
	}
}

// popReadAhead pops q's next request read ahead, and returns its position; the request
// is nil when its record is damaged (see Err).
func (f *Frontier) popReadAhead(q *pq) (uint64, *types.Request) {
	e := q.rbuf[q.ri]
	start := uint32(0)
	if q.ri > 0 {
		start = q.rbuf[q.ri-1].end
	}
	q.ri++
	req, err := DecodeRequest(q.rdata[start:e.end])
	if err != nil {
		f.setErr(&CorruptError{Dir: f.dir, Err: fmt.Errorf("request of slot %q at priority %d: %w", q.slot.name, q.prio, err)})
		return e.pos, nil
	}
	return e.pos, req
}

// dropReadAhead forgets the requests q read ahead (they stay in the store).
func (f *Frontier) dropReadAhead(q *pq) {
	f.raHeld -= q.raBytes
	if cap(q.rdata) > 0 && len(f.raFree) < raFreeMax {
		// Its memory too (it may not be read again for long), for the next queue to read.
		f.raFree = append(f.raFree, raBuf{q.rdata[:0], q.rbuf[:0]})
	}
	q.rbuf, q.rdata, q.ri, q.raBytes = nil, nil, 0, 0
	if q.inRA {
		f.raUnlink(q)
	}
}

// raBuf is the memory of a dropped read-ahead, kept for another (Frontier.raFree): with
// thousands of slots taking turns, reads would otherwise allocate it anew each time.
type raBuf struct {
	data []byte
	ents []entry
}

// raFreeMax is how many dropped read-aheads' memory Frontier.raFree keeps.
const raFreeMax = 64

func (f *Frontier) raUnlink(q *pq) {
	if q.raPrev != nil {
		q.raPrev.raNext = q.raNext
	} else {
		f.raFirst = q.raNext
	}
	if q.raNext != nil {
		q.raNext.raPrev = q.raPrev
	} else {
		f.raLast = q.raPrev
	}
	q.raPrev, q.raNext, q.inRA = nil, nil, false
}

func (f *Frontier) raAppend(q *pq) {
	q.raPrev, q.raNext, q.inRA = f.raLast, nil, true
	if f.raLast != nil {
		f.raLast.raNext = q
	} else {
		f.raFirst = q
	}
	f.raLast = q
}

// read fills q.rbuf, which holds nothing unpopped, with stored requests of range s, from
// its top down (desc) or bottom up, and drops the read-ahead of the queues read least
// recently past the read-ahead budget. It reports whether it found any.
func (f *Frontier) read(q *pq, s seg, desc bool) bool {
	f.raHeld -= q.raBytes
	q.rbuf, q.rdata, q.ri, q.raBytes = q.rbuf[:0], q.rdata[:0], 0, 0 // its memory is kept: the queue is being popped
	if s.lo >= s.hi {
		return false
	}
	id := q.slot.id
	it, err := f.db.NewIter(&pebble.IterOptions{
		LowerBound: qkey(nil, id, q.prio, s.lo),
		UpperBound: qkey(nil, id, q.prio, s.hi),
	})
	if err != nil {
		f.setErr(err)
		return false
	}
	valid := it.First
	step := it.Next
	if desc {
		valid, step = it.Last, it.Prev
	}
	// The slot's share of the budget, in bytes of records; at least one request.
	share := f.raBudget / max(1, f.active)
	if q.rdata == nil {
		if n := len(f.raFree); n > 0 {
			q.rdata, q.rbuf = f.raFree[n-1].data, f.raFree[n-1].ents
			f.raFree[n-1] = raBuf{}
			f.raFree = f.raFree[:n-1]
		} else {
			q.rdata = make([]byte, 0, min(share+512, readChunk*256))
		}
	}
	for ok := valid(); ok && len(q.rbuf) < readChunk && (len(q.rbuf) == 0 || len(q.rdata) < share); ok = step() {
		q.rdata = append(q.rdata, it.Value()...)
		q.rbuf = append(q.rbuf, entry{binary.BigEndian.Uint64(it.Key()[13:]), uint32(len(q.rdata))})
	}
	if err := it.Close(); err != nil {
		f.setErr(err)
	}
	if f.err != nil {
		q.rbuf, q.rdata = q.rbuf[:0], q.rdata[:0]
	}
	if len(q.rbuf) == 0 {
		return false
	}
	q.raBytes = cap(q.rdata) + entrySize*cap(q.rbuf)
	f.raHeld += q.raBytes
	if q.inRA {
		f.raUnlink(q)
	}
	f.raAppend(q)
	for f.raHeld > f.raBudget && f.raFirst != q {
		f.dropReadAhead(f.raFirst)
	}
	return true
}

// spill writes the buffered requests and fingerprints to the store without sync: Open
// ignores them unless a Commit follows.
func (f *Frontier) spill() {
	if f.err != nil {
		return
	}
	b := f.db.NewBatch()
	defer b.Close()
	f.writeBuffered(b)
	if err := f.commitBatch(b, pebble.NoSync); err != nil {
		f.setErr(err)
	}
}

// writeBuffered adds the buffered requests and fingerprints to b in key order, which
// makes the store's memtable inserts sequential (about 3× cheaper than random ones).
func (f *Frontier) writeBuffered(b *pebble.Batch) {
	slices.SortFunc(f.wq, func(a, b *pq) int {
		if c := cmp.Compare(a.slot.id, b.slot.id); c != 0 {
			return c
		}
		return cmp.Compare(b.prio, a.prio) // higher priorities have lower keys
	})
	for _, q := range f.wq {
		q.inWQ = false
		if len(q.wbuf) == 0 {
			continue
		}
		f.dropReadAhead(q) // a LIFO read-ahead is no longer the top
		for i, req := range q.wbuf {
			f.kbuf = qkey(f.kbuf[:0], q.slot.id, q.prio, q.wlo+uint64(i))
			f.vbuf = EncodeRequest(f.vbuf[:0], req)
			_ = b.Set(f.kbuf, f.vbuf, nil)
		}
		q.wlo = q.segs[len(q.segs)-1].hi
		q.wbuf = nil
	}
	clear(f.wq)
	f.wq = f.wq[:0]
	fps := make([][16]byte, 0, len(f.newSeen))
	for fp := range f.newSeen {
		fps = append(fps, fp)
	}
	slices.SortFunc(fps, func(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) })
	f.vbuf = binary.AppendUvarint(f.vbuf[:0], f.gen)
	for i := range fps {
		f.kbuf = skey(f.kbuf[:0], &fps[i])
		_ = b.Set(f.kbuf, f.vbuf, nil)
		f.remember(&fps[i])
	}
	f.buffered = 0
	f.newSeen = make(map[[16]byte]struct{}, len(fps))
}

// UseSlots sets the Readiness that Next asks which slots can start a download now (nil:
// every slot always can), and asks it about every slot (engine.SlotScheduler). A frontier
// without Options.SlotKey ignores it: its one slot "" is no download slot, and its order
// stays that of a frontier without slots.
func (f *Frontier) UseSlots(r Readiness) {
	if !f.plain() {
		f.idx.Use(r)
	}
}

// SlotChanged tells the frontier that slot key may be ready sooner than it knew: a
// download of it ended or was sent (engine.SlotScheduler).
func (f *Frontier) SlotChanged(key string) { f.idx.Changed(key) }

// NextReady returns when a slot waiting on a time becomes ready; false when none waits on
// a time (engine.SlotScheduler).
func (f *Frontier) NextReady() (time.Time, bool) { return f.idx.NextAt() }

// Recheck asks the Readiness about every slot with pending requests again
// (engine.SlotScheduler).
func (f *Frontier) Recheck() { f.idx.Recheck() }

// SlotCounts returns how many slots have pending requests, how many of them are ready and
// how many wait on a time (engine.SlotScheduler).
func (f *Frontier) SlotCounts() (slots, ready, waiting int) {
	if f.plain() {
		return f.active, f.active, 0
	}
	return f.idx.Counts(time.Now())
}

// SlotSizes returns the n slots with the most pending requests, the biggest first (equal
// ones by name; all of them when n ≤ 0), for `jscrawl stats` and `ps`
// (engine.SlotSizer). It looks at each slot once and keeps n.
func (f *Frontier) SlotSizes(n int) []SlotSize {
	if n <= 0 {
		all := make([]SlotSize, 0, f.active)
		for _, s := range f.slots {
			if s.n > 0 {
				all = append(all, SlotSize{Slot: s.name, Queued: s.n})
			}
		}
		return BiggestSlots(all, 0)
	}
	less := func(a, b SlotSize) int { // the bigger first
		if c := cmp.Compare(b.Queued, a.Queued); c != 0 {
			return c
		}
		return cmp.Compare(a.Slot, b.Slot)
	}
	top := make([]SlotSize, 0, min(n, f.active))
	for _, s := range f.slots {
		if s.n == 0 {
			continue
		}
		e := SlotSize{Slot: s.name, Queued: s.n}
		if len(top) == n && less(e, top[n-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, e, less)
		if len(top) == n {
			top = top[:n-1]
		}
		top = slices.Insert(top, i, e)
	}
	return top
}
