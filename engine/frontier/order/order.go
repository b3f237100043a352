// Package order is the order of the download slots of a host-aware frontier: the
// SlotIndex that picks whose request goes next, and the Readiness the engine's download
// slots give it. It holds no storage (engine/frontier keeps the queues), so the engine's
// memory scheduler uses it without the frontier's store.
package order

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
	"time"
)

// Readiness tells a host-aware frontier when each download slot can start its next
// download (engine.SlotDownloader implements it; the slot's rules live there). A slot is
// named by engine.SlotKey: meta.downloadSlot or the request's host.
type Readiness interface {
	// ReadyAt returns when slot key can start a download: at, not after now, when it can
	// start one now (the zero Time when nothing holds it back); ok false when it cannot
	// until its state changes (all its concurrency in use, or its previous start not yet
	// sent), which the frontier learns from SlotIndex.Changed.
	ReadyAt(key string) (at time.Time, ok bool)
	// Reserve records that a request of slot key was handed out to be downloaded: the slot
	// counts it as one of its downloads from now on.
	Reserve(key string)
}

// SlotIndex orders the download slots of a host-aware frontier: which slot's best request
// goes next. A slot with queued requests is ready (it can start a download now), waiting
// (until a time: its delay, Crawl-delay, Retry-After pause or AutoThrottle delay) or
// blocked (until Changed: its concurrency is in use). Among ready slots the one whose best
// request has the highest priority goes first, then the one ready longest, then the one
// filed first (so slots of equal priority take turns). Waiting slots sit in a heap keyed
// by their ready time, ready ones in a heap by that order, blocked ones in neither: a
// slot costs nothing until its time comes or its state changes. A slot whose state
// changed in a way the index was not told of (a pause set after it was filed) is asked
// again when it comes to the top. The frontier owns the queues; it tells the index each
// slot's best priority (Update) and what it took (Took). Only one goroutine may call it.
// The zero value is ready to use, with every slot always ready (no Readiness).
type SlotIndex struct {
	view    Readiness
	slots   map[string]*slotEntry
	ready   slotHeap
	waiting slotHeap // due: set by file and Next before they push
	seq     uint64
}

// Where a slot is filed.
const (
	filedNone uint8 = iota // blocked, or just taken: in no heap
	filedReady
	filedWaiting
)

type slotEntry struct {
	key   string
	head  int       // priority of its best queued request
	where uint8     // filed*
	at    time.Time // ready: since when (zero: always); waiting: when
	seq   uint64    // when it was filed ready, for ties
	hi    int       // index in its heap
}

// Use sets the Readiness the index asks (nil: every slot always ready) and asks it again
// about every slot.
func (x *SlotIndex) Use(r Readiness) {
	x.view = r
	x.Recheck()
}

// HasReadiness reports whether Use gave the index a Readiness: without one every slot is
// always ready, and Next needs no clock.
func (x *SlotIndex) HasReadiness() bool { return x.view != nil }

func (x *SlotIndex) readyAt(key string) (time.Time, bool) {
	if x.view == nil {
		return time.Time{}, true
	}
	return x.view.ReadyAt(key)
}

// Update records that slot key's best queued request has priority head (has false: the
// slot has no queued request any more, and the index forgets it).
func (x *SlotIndex) Update(key string, head int, has bool) {
	e := x.slots[key]
	if !has {
		if e != nil {
			x.unfile(e)
			x.forget(key)
		}
		return
	}
	if e == nil {
		if x.slots == nil {
			x.slots = map[string]*slotEntry{}
		}
		e = &slotEntry{key: key, head: head}
		x.slots[key] = e
		x.file(e)
		return
	}
	if e.head == head {
		return
	}
	e.head = head
	if e.where == filedReady {
		heap.Fix(&x.ready, e.hi)
	}
}

// forget drops slot key, and the index's tables once no slot is left (a map keeps its
// size when emptied: a broad crawl's tables would stay at their largest).
func (x *SlotIndex) forget(key string) {
	delete(x.slots, key)
	if len(x.slots) == 0 {
		x.slots, x.ready.es, x.waiting.es = nil, nil, nil
	}
}

// Changed asks the Readiness about slot key again (its state changed: a download of it
// ended or was sent). A slot without queued requests is ignored.
func (x *SlotIndex) Changed(key string) {
	if e := x.slots[key]; e != nil {
		x.unfile(e)
		x.file(e)
	}
}

// Recheck asks the Readiness about every slot again, in the order the slots were last
// filed, so that slots still tied keep their turns (a map's order would shuffle them).
func (x *SlotIndex) Recheck() {
	es := make([]*slotEntry, 0, len(x.slots))
	for _, e := range x.slots {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *slotEntry) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.key, b.key))
	})
	for _, e := range es {
		x.unfile(e)
		x.file(e)
	}
}

// file puts e where the Readiness says it belongs.
func (x *SlotIndex) file(e *slotEntry) {
	at, ok := x.readyAt(e.key)
	switch {
	case !ok:
		e.where = filedNone
	case !at.IsZero() && at.After(time.Now()):
		e.where, e.at = filedWaiting, at
		x.waiting.due = true
		heap.Push(&x.waiting, e)
	default:
		x.seq++
		e.where, e.at, e.seq = filedReady, at, x.seq
		heap.Push(&x.ready, e)
	}
}

func (x *SlotIndex) unfile(e *slotEntry) {
	switch e.where {
	case filedReady:
		heap.Remove(&x.ready, e.hi)
	case filedWaiting:
		heap.Remove(&x.waiting, e.hi)
	}
	e.where = filedNone
}

// Next returns the best slot that can start a download at now, or false when none can.
// The caller takes that slot's best request and then calls Took, before anything else.
func (x *SlotIndex) Next(now time.Time) (string, bool) {
	for len(x.waiting.es) > 0 && !x.waiting.es[0].at.After(now) {
		e := heap.Pop(&x.waiting).(*slotEntry)
		x.seq++
		e.where, e.seq = filedReady, x.seq
		heap.Push(&x.ready, e)
	}
	for len(x.ready.es) > 0 {
		e := heap.Pop(&x.ready).(*slotEntry)
		e.where = filedNone
		at, ok := x.readyAt(e.key)
		switch {
		case !ok:
			continue // blocked: filed again when Changed
		case at.After(now):
			e.where, e.at = filedWaiting, at
			x.waiting.due = true
			heap.Push(&x.waiting, e)
			continue
		}
		return e.key, true
	}
	return "", false
}

// Took records that the caller took a request of slot key, Next's answer: it reserves the
// slot in the Readiness and files the slot again, by head, its best request left (has
// false: none is left).
func (x *SlotIndex) Took(key string, head int, has bool) {
	if x.view != nil {
		x.view.Reserve(key)
	}
	e := x.slots[key]
	if e == nil {
		return
	}
	if !has {
		x.unfile(e)
		x.forget(key)
		return
	}
	e.head = head
	x.unfile(e)
	x.file(e)
}

// NextAt returns when the first waiting slot becomes ready; false when no slot waits on a
// time.
func (x *SlotIndex) NextAt() (time.Time, bool) {
	if len(x.waiting.es) == 0 {
		return time.Time{}, false
	}
	return x.waiting.es[0].at, true
}

// Counts returns how many slots have queued requests, how many of them are ready (filed
// ready, or waiting on a time that has come) and how many wait on a time.
func (x *SlotIndex) Counts(now time.Time) (slots, ready, waiting int) {
	ready = len(x.ready.es)
	for _, e := range x.waiting.es {
		if !e.at.After(now) {
			ready++
		} else {
			waiting++
		}
	}
	return len(x.slots), ready, waiting
}

// slotHeap is a heap of slots, readyFirst or (due) dueFirst; each entry knows its index
// (hi).
type slotHeap struct {
	es  []*slotEntry
	due bool
}

func (h *slotHeap) Len() int { return len(h.es) }
func (h *slotHeap) Less(i, j int) bool {
	if h.due {
		return dueFirst(h.es[i], h.es[j])
	}
	return readyFirst(h.es[i], h.es[j])
}
func (h *slotHeap) Swap(i, j int) {
	h.es[i], h.es[j] = h.es[j], h.es[i]
	h.es[i].hi, h.es[j].hi = i, j
}
func (h *slotHeap) Push(v any) {
	e := v.(*slotEntry)
	e.hi = len(h.es)
	h.es = append(h.es, e)
}
func (h *slotHeap) Pop() any {
	e := h.es[len(h.es)-1]
	h.es[len(h.es)-1] = nil
	h.es = h.es[:len(h.es)-1]
	return e
}

// readyFirst orders ready slots: highest head priority, then ready longest, then filed
// first.
func readyFirst(a, b *slotEntry) bool {
	if a.head != b.head {
		return a.head > b.head
	}
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

// dueFirst orders waiting slots by ready time, then filed first.
func dueFirst(a, b *slotEntry) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

// SlotSize is how many requests one download slot has queued in a frontier.
type SlotSize struct {
	Slot   string `json:"slot"`
	Queued int    `json:"queued"`
}

// BiggestSlots returns the n biggest of sizes (all of them, sorted, when n ≤ 0), biggest
// first, then by name.
func BiggestSlots(sizes []SlotSize, n int) []SlotSize {
	slices.SortFunc(sizes, func(a, b SlotSize) int {
		if a.Queued != b.Queued {
			return b.Queued - a.Queued
		}
		return strings.Compare(a.Slot, b.Slot)
	})
	if n > 0 && len(sizes) > n {
		sizes = sizes[:n]
	}
	return sizes
}
