package redisfrontier

import (
	"slices"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/engine/frontier"
)

// buffer holds the leases of a worker that Next has not handed out, queued per download
// slot and ordered by a frontier.SlotIndex: Next hands out the best lease of a slot that
// the engine's Readiness says can start a download, and reserves the slot. The background
// goroutine adds leases to incoming; the engine goroutine files them (file) before it
// asks the index anything, so that only it calls the Readiness. Guarded by Frontier.mu.
type buffer struct {
	incoming []*lease
	queues   map[string][]*lease // slot key → its leases, by member (priority, then sequence)
	index    frontier.SlotIndex
	n        int // leases in queues
}

// len returns how many leases the buffer holds.
func (b *buffer) len() int { return b.n + len(b.incoming) }

// add adds leases the background goroutine got; the engine goroutine files them.
func (b *buffer) add(ls []*lease) { b.incoming = append(b.incoming, ls...) }

// file queues the incoming leases in their slots.
func (b *buffer) file() {
	if len(b.incoming) == 0 {
		return
	}
	if b.queues == nil {
		b.queues = map[string][]*lease{}
	}
	for _, l := range b.incoming {
		q := b.queues[l.slot]
		i, _ := slices.BinarySearchFunc(q, l, func(a, b *lease) int { return strings.Compare(a.member, b.member) })
		q = slices.Insert(q, i, l)
		b.queues[l.slot] = q
		b.index.Update(l.slot, q[0].req.Priority, true)
		b.n++
	}
	clear(b.incoming)
	b.incoming = b.incoming[:0]
}

// take returns the best lease of a slot that can start a download at now and reserves
// the slot (nil: none can). Leases that lapsed (drop reports true) are dropped without
// reserving anything.
func (b *buffer) take(now time.Time, drop func(*lease) bool) *lease {
	b.file()
	for {
		key, ok := b.index.Next(now)
		if !ok {
			return nil
		}
		q := b.queues[key]
		l := q[0]
		q[0] = nil
		q = q[1:]
		b.n--
		if len(q) == 0 {
			delete(b.queues, key)
		} else {
			b.queues[key] = q
		}
		if drop(l) {
			if len(q) == 0 {
				b.index.Update(key, 0, false)
			} else {
				b.index.Update(key, q[0].req.Priority, true)
				b.index.Changed(key) // filed again, not reserved
			}
			continue
		}
		if len(q) == 0 {
			b.index.Took(key, 0, false)
		} else {
			b.index.Took(key, q[0].req.Priority, true)
		}
		return l
	}
}

// remove drops the leases for which gone reports true (another worker has them now).
func (b *buffer) remove(gone func(*lease) bool) {
	b.incoming = slices.DeleteFunc(b.incoming, gone)
	for key, q := range b.queues {
		kept := slices.DeleteFunc(q, gone)
		b.n -= len(q) - len(kept)
		if len(kept) == 0 {
			delete(b.queues, key)
			b.index.Update(key, 0, false)
		} else {
			b.queues[key] = kept
			b.index.Update(key, kept[0].req.Priority, true)
		}
	}
}

// all returns every lease the buffer holds.
func (b *buffer) all() []*lease {
	out := slices.Clone(b.incoming)
	for _, q := range b.queues {
		out = append(out, q...)
	}
	return out
}

// reset empties the buffer.
func (b *buffer) reset() {
	for key := range b.queues {
		b.index.Update(key, 0, false)
	}
	b.queues, b.incoming, b.n = nil, nil, 0
}
