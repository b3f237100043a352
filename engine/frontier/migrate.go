package frontier

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"
)

// Format 1, a frontier without slots:
//
//	q <prio:8> <pos:8>  a pending request
//	i <prio:8>          a priority's committed range lo, hi and count
//	g                   committed generation, lease counter (16 bytes)
//
// and s, l, m, f as in format 2, whose p, r and k keys it does not have.

func qkeyV1(p int, pos uint64) []byte {
	return binary.BigEndian.AppendUint64(encodePrio([]byte("q"), p), pos)
}

// migrateChunk is how many bytes of requests migrate writes per batch (by default).
const migrateChunk = 4 << 20

// migrate moves a format-1 store to format 2, and returns the new state record. Every
// committed pending request goes to its slot (Options.SlotKey), keeping its order within
// its priority; garbage of uncommitted writes is dropped. The requests are copied to their
// p keys in batches of migrateChunk bytes, without sync, and one last batch makes the
// switch atomically: it writes the r and k records, the state and the format, and deletes
// the q and i keys. Until it is durable the store is of format 1 (p, r and k keys are
// garbage there, deleted first by the next migrate): a crash leaves the old store or the
// new one. Its memory is a batch, the slots and their priorities.
func (f *Frontier) migrate(state []byte) ([]byte, error) {
	if len(state) != 16 {
		return nil, errors.New("bad state record (format 1)")
	}
	f.leaseSeq = binary.BigEndian.Uint64(state[8:])
	type prange struct {
		prio        int
		lo, hi, cnt uint64
	}
	var ranges []prange
	it, err := f.db.NewIter(&pebble.IterOptions{LowerBound: []byte("i"), UpperBound: []byte("j")})
	if err != nil {
		return nil, err
	}
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) != 9 || len(v) != 24 {
			_ = it.Close()
			return nil, errors.New("bad priority record (format 1)")
		}
		r := prange{decodePrio(k[1:]), binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), binary.BigEndian.Uint64(v[16:])}
		if r.lo > r.hi || r.cnt > r.hi-r.lo {
			_ = it.Close()
			return nil, fmt.Errorf("bad range for priority %d (format 1)", r.prio)
		}
		ranges = append(ranges, r)
	}
	if err := it.Close(); err != nil {
		return nil, err
	}

	// What an interrupted migration wrote goes first.
	b := f.db.NewBatch()
	_ = b.DeleteRange([]byte("k"), []byte("l"), nil)
	_ = b.DeleteRange([]byte("p"), []byte("q"), nil)
	_ = b.DeleteRange([]byte("r"), []byte("s"), nil)
	flush := func() error {
		err := f.commitBatch(b, pebble.NoSync)
		_ = b.Close()
		b = f.db.NewBatch()
		return err
	}
	defer func() { _ = b.Close() }()
	type newQ struct {
		slot *slot
		prio int
		next uint64
	}
	queues := map[[2]int]*newQ{} // slot id, priority
	var order []*newQ
	for _, r := range ranges {
		it, err := f.db.NewIter(&pebble.IterOptions{LowerBound: qkeyV1(r.prio, r.lo), UpperBound: qkeyV1(r.prio, r.hi)})
		if err != nil {
			return nil, err
		}
		var n uint64
		for it.First(); it.Valid(); it.Next() {
			if len(it.Key()) != 17 {
				_ = it.Close()
				return nil, errors.New("bad request key (format 1)")
			}
			req, err := DecodeRequest(it.Value())
			if err != nil {
				_ = it.Close()
				return nil, fmt.Errorf("request at priority %d (format 1): %w", r.prio, err)
			}
			s := f.slotFor(f.keyOf(req))
			qk := [2]int{int(s.id), r.prio}
			q := queues[qk]
			if q == nil {
				q = &newQ{slot: s, prio: r.prio, next: posStart}
				queues[qk] = q
				order = append(order, q)
			}
			_ = b.Set(qkey(nil, s.id, r.prio, q.next), it.Value(), nil)
			q.next++
			n++
			if b.Len() >= f.migrateChunk {
				if err := flush(); err != nil {
					_ = it.Close()
					return nil, err
				}
			}
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
		if n != r.cnt {
			return nil, fmt.Errorf("priority %d holds %d requests, its record says %d (format 1)", r.prio, n, r.cnt)
		}
		f.migrated += int(n)
	}
	if f.err != nil {
		return nil, f.err
	}
	if err := flush(); err != nil {
		return nil, err
	}

	// The switch.
	_ = b.DeleteRange([]byte("i"), []byte("j"), nil)
	_ = b.DeleteRange([]byte("q"), []byte("r"), nil)
	for _, q := range order {
		v := binary.BigEndian.AppendUint64(nil, posStart)
		v = binary.BigEndian.AppendUint64(v, q.next)
		v = binary.BigEndian.AppendUint64(v, q.next-posStart)
		_ = b.Set(ikey(q.slot.id, q.prio), v, nil)
	}
	for _, s := range f.slots {
		_ = b.Set(kkey(s.id), []byte(s.name), nil)
	}
	clear(f.slots) // load reads them back
	newState := f.stateRecord(binary.BigEndian.Uint64(state))
	_ = b.Set(keyState, newState, nil)
	_ = b.Set(keyFormat, []byte{formatVersion}, nil)
	if err := f.commitBatch(b, f.wo); err != nil {
		return nil, err
	}
	return newState, nil
}

// Migrated returns how many pending requests Open moved from a store of the format
// without slots into their slots.
func (f *Frontier) Migrated() int { return f.migrated }
