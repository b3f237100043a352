package frontier

import (
	"cmp"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"

	"github.com/cockroachdb/pebble"
)

// Commit: the changes since the last commit written in one atomic batch, and the caller's
// metadata it carries (Meta).

// Commit makes every Enqueue, Next and Done since the last Commit durable (fsynced with
// Options.Sync), together with meta (each key's value replaced; a nil value deletes the
// key), in one atomic transaction: a crash leaves the state of the previous commit or of
// this one, never a mix. Requests leased at the commit return to pending at the next Open.
func (f *Frontier) Commit(meta map[string][]byte) error {
	if f.err != nil {
		return f.err
	}
	b := f.db.NewBatch()
	defer b.Close()
	f.writeBuffered(b)
	slices.SortFunc(f.dirtyQ, func(a, b *pq) int { // in key order
		if c := cmp.Compare(a.slot.id, b.slot.id); c != 0 {
			return c
		}
		return cmp.Compare(b.prio, a.prio)
	})
	for _, q := range f.dirtyQ {
		q.dirty = false
		s := q.slot
		if !s.dirty {
			s.dirty = true
			f.dirtyS = append(f.dirtyS, s)
		}
		// Delete everything outside the pending ranges: dequeued and garbage keys.
		from := q.clo
		for _, sg := range q.segs {
			f.deletePositions(b, q, from, sg.lo)
			from = sg.hi
		}
		f.deletePositions(b, q, from, q.top)
		if q.cnt == 0 {
			_ = b.Delete(ikey(s.id, q.prio), nil)
			f.dropReadAhead(q)
			s.removeQueue(q)
			continue
		}
		lo, hi := q.segs[0].lo, q.segs[len(q.segs)-1].hi
		q.segs = append(q.segs[:0], seg{lo, hi})
		q.cAlloc, q.wlo, q.clo, q.top = hi, hi, lo, hi
		v := binary.BigEndian.AppendUint64(nil, lo)
		v = binary.BigEndian.AppendUint64(v, hi)
		v = binary.BigEndian.AppendUint64(v, uint64(q.cnt))
		_ = b.Set(ikey(s.id, q.prio), v, nil)
	}
	clear(f.dirtyQ)
	f.dirtyQ = f.dirtyQ[:0]
	for _, s := range f.dirtyS {
		s.dirty = false
		switch {
		case len(s.qs) == 0: // emptied: forgotten, its id not reused
			if s.persisted {
				_ = b.Delete(kkey(s.id), nil)
			}
			delete(f.slots, s.name)
		case !s.persisted:
			_ = b.Set(kkey(s.id), []byte(s.name), nil)
			s.persisted = true
		}
	}
	clear(f.dirtyS)
	f.dirtyS = f.dirtyS[:0]
	for req, l := range f.leases {
		if !l.persisted {
			_ = b.Set(lkey(l.id), EncodeRequest(nil, req), nil)
			l.persisted = true
		}
	}
	for _, id := range f.doneIDs {
		_ = b.Delete(lkey(id), nil)
	}
	for k, v := range meta {
		if v == nil {
			_ = b.Delete(append([]byte("m"), k...), nil)
		} else {
			_ = b.Set(append([]byte("m"), k...), v, nil)
		}
	}
	state := f.stateRecord(f.gen)
	_ = b.Set(keyState, state, nil)
	if err := f.commitBatch(b, f.wo); err != nil {
		// What this batch held is lost from memory now: the frontier cannot go on.
		f.setErr(err)
		return f.err
	}
	f.doneIDs = f.doneIDs[:0]
	if f.wo == pebble.Sync {
		// Not synced itself: after a power loss it may be behind, never ahead.
		if err := os.WriteFile(filepath.Join(f.dir, markerFile), state[:8], 0o644); err != nil {
			f.setErr(err)
			return f.err
		}
	}
	f.gen++
	return nil
}

// pointDeletes is the longest range of positions Commit deletes key by key: a range
// tombstone costs every reader of the memtable that holds it (pebble fragments them all
// for each new iterator), so thousands of slots each popped a few times between commits
// leave point tombstones, which only a read of their own positions would meet (none: they
// are outside the pending ranges).
const pointDeletes = 16

// deletePositions adds to b the deletion of q's keys at positions [lo, hi).
func (f *Frontier) deletePositions(b *pebble.Batch, q *pq, lo, hi uint64) {
	switch {
	case lo >= hi:
	case hi-lo <= pointDeletes:
		for p := lo; p < hi; p++ {
			f.kbuf = qkey(f.kbuf[:0], q.slot.id, q.prio, p)
			_ = b.Delete(f.kbuf, nil)
		}
	default:
		_ = b.DeleteRange(qkey(nil, q.slot.id, q.prio, lo), qkey(nil, q.slot.id, q.prio, hi), nil)
	}
}

// Meta returns the value of key as of the last commit, or nil.
func (f *Frontier) Meta(key string) []byte {
	v, err := f.get(append([]byte("m"), key...))
	if err != nil {
		f.setErr(err)
		return nil
	}
	return v
}
