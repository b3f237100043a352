package frontier

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cockroachdb/pebble"
)

// load: Open's reading of the committed state, the clean-up of uncommitted writes, and the
// return of the leases found to pending.

// load reads the committed state (moving a format-1 store to this layout first), removes
// what uncommitted writes left, and returns the leases to pending.
func (f *Frontier) load() error {
	format, err := f.get(keyFormat)
	if err != nil {
		return err
	}
	state, err := f.get(keyState)
	if err != nil {
		return err
	}
	if format == nil {
		empty, err := f.isEmpty()
		if err != nil {
			return err
		}
		if !empty {
			return errors.New("not a frontier store (no format record)")
		}
		// A new store: a marker left from a removed one does not apply.
		if err := os.Remove(filepath.Join(f.dir, markerFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		state = f.stateRecord(0)
		b := f.db.NewBatch()
		_ = b.Set(keyFormat, []byte{formatVersion}, nil)
		_ = b.Set(keyState, state, nil)
		if err := f.commitBatch(b, f.wo); err != nil {
			return err
		}
		format = []byte{formatVersion}
	}
	if len(format) == 1 && format[0] == formatV1 {
		if state, err = f.migrate(state); err != nil {
			return err
		}
		format = []byte{formatVersion}
	}
	if len(format) != 1 || format[0] != formatVersion {
		return fmt.Errorf("unknown format version %v", format)
	}
	if len(state) != 24 {
		return errors.New("bad state record")
	}
	committed := binary.BigEndian.Uint64(state)
	f.leaseSeq = binary.BigEndian.Uint64(state[8:])
	f.slotSeq = binary.BigEndian.Uint64(state[16:])
	if f.slotSeq > maxSlotID {
		return errors.New("bad state record: slot counter out of range")
	}
	if m, err := os.ReadFile(filepath.Join(f.dir, markerFile)); err == nil && len(m) == 8 {
		if g := binary.BigEndian.Uint64(m); g > committed {
			return &CorruptError{Dir: f.dir,
				Err: fmt.Errorf("the store's last commit is %d but commit %d was made: its log is damaged", committed, g),
				Recovery: fmt.Sprintf("the state of commit %d can be read by removing %s, "+
					"at the risk of repeating work done since", committed, filepath.Join(f.dir, markerFile))}
		}
	}
	f.gen = committed + 1

	clean := f.db.NewBatch()
	defer clean.Close()
	// The slots, by id.
	byID := map[uint32]*slot{}
	it, err := f.db.NewIter(&pebble.IterOptions{LowerBound: []byte("k"), UpperBound: []byte("l")})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if len(k) != 5 {
			_ = it.Close()
			return errors.New("bad slot record")
		}
		id := binary.BigEndian.Uint32(k[1:])
		name := string(it.Value())
		if uint64(id) > f.slotSeq || id == 0 || f.slots[name] != nil {
			_ = it.Close()
			return fmt.Errorf("bad slot record %d (%q)", id, name)
		}
		s := &slot{name: name, id: id, persisted: true}
		byID[id] = s
		f.slots[name] = s
	}
	if err := it.Close(); err != nil {
		return err
	}
	// The slots' priorities and their committed ranges; everything outside them in p is
	// garbage.
	it, err = f.db.NewIter(&pebble.IterOptions{LowerBound: []byte("r"), UpperBound: []byte("s")})
	if err != nil {
		return err
	}
	prev := []byte("p")
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) != 13 || len(v) != 24 {
			_ = it.Close()
			return errors.New("bad priority record")
		}
		id, p := binary.BigEndian.Uint32(k[1:]), decodePrio(k[5:])
		s := byID[id]
		lo, hi, cnt := binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), binary.BigEndian.Uint64(v[16:])
		switch {
		case s == nil:
			_ = it.Close()
			return fmt.Errorf("priority record of slot %d, which has no slot record", id)
		case lo > hi || cnt > hi-lo || cnt == 0:
			_ = it.Close()
			return fmt.Errorf("bad range for slot %q, priority %d", s.name, p)
		}
		q := &pq{slot: s, prio: p, segs: []seg{{lo, hi}}, cAlloc: hi, wlo: hi, clo: lo, top: hi, cnt: int(cnt)}
		s.qs = append(s.qs, q) // r keys sort highest priority first
		s.n += int(cnt)
		f.n += int(cnt)
		_ = clean.DeleteRange(prev, qkey(nil, id, p, lo), nil)
		prev = qkey(nil, id, p, hi)
	}
	if err := it.Close(); err != nil {
		return err
	}
	_ = clean.DeleteRange(prev, []byte("q"), nil)
	ids := make([]uint32, 0, len(byID))
	for id, s := range byID {
		if s.n == 0 {
			// Not written by a commit (an emptied slot's record goes with its last range).
			_ = clean.Delete(kkey(id), nil)
			delete(f.slots, s.name)
			continue
		}
		ids = append(ids, id)
	}
	// Slots are filed in the index in the order they were made.
	slices.Sort(ids)
	for _, id := range ids {
		s := byID[id]
		s.best = s.qs[0].prio
		f.active++
		if !f.plain() {
			f.idx.Update(s.name, s.best, true)
		}
	}

	// The seen-set: fingerprints of a generation after the committed one are garbage.
	f.bloom = newBloomChain(1 << 20)
	it, err = f.db.NewIter(&pebble.IterOptions{LowerBound: []byte("s"), UpperBound: []byte("t")})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		g, n := binary.Uvarint(it.Value())
		if len(k) != 17 || n <= 0 {
			_ = it.Close()
			return errors.New("bad seen record")
		}
		if g > committed {
			_ = clean.Delete(k, nil)
			continue
		}
		f.seenN++
		fp := [16]byte(k[1:])
		f.bloom.add(&fp)
	}
	if err := it.Close(); err != nil {
		return err
	}
	if err := f.commitBatch(clean, f.wo); err != nil {
		return err
	}

	// Leases at the last commit return to pending.
	it, err = f.db.NewIter(&pebble.IterOptions{LowerBound: []byte("l"), UpperBound: []byte("m")})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if len(k) != 9 {
			_ = it.Close()
			return errors.New("bad lease record")
		}
		req, err := DecodeRequest(it.Value())
		if err != nil {
			_ = it.Close()
			return fmt.Errorf("lease record: %w", err)
		}
		f.push(req)
		f.doneIDs = append(f.doneIDs, binary.BigEndian.Uint64(k[1:]))
		f.recovered++
	}
	if err := it.Close(); err != nil {
		return err
	}
	if f.err != nil {
		return f.err
	}
	if f.recovered > 0 {
		return f.Commit(nil)
	}
	return nil
}
