// Package frontier is a crash-safe on-disk request queue and seen-set (a crawl frontier)
// on an embedded pebble store, with the ordering of engine.MemoryScheduler: requests are
// queued per download slot (Options.SlotKey; engine.SlotKey, the host or
// meta.downloadSlot), within a slot higher Priority first, LIFO or FIFO within one
// priority, and across slots the order of SlotIndex (the priority of each slot's best
// request, then the slot's readiness, then turns); duplicates are dropped by fingerprint
// unless DontFilter.
//
// Every request is PENDING (queued), LEASED (returned by Next, not yet Done) or gone.
// Commit makes all changes since the previous Commit durable in one atomic store batch,
// with caller metadata (feed offsets...). After a crash, Open finds the state of the last
// Commit, and returns its leases to pending.
//
// # Layout
//
// Keys are one-byte prefixed; a slot is named in the keys by its id, allocated from a
// counter in the state record (ids are not reused):
//
//	p <slot:4> <prio:8> <pos:8>  a pending request, its record (codec.go)
//	r <slot:4> <prio:8>          a slot's priority: its committed range lo, hi and count
//	k <slot:4>                   a slot with pending requests: its name (the SlotKey)
//	s <fp:16>                    a seen fingerprint; value: the generation (commit number) that added it
//	l <id:8>                     a request leased at a commit, not done then
//	m <key>                      caller metadata (Commit's meta)
//	g                            committed generation, lease counter, slot counter
//	f                            format version (2; a store of format 1, without slots, is
//	                             moved to this layout by Open: see migrate.go)
//
// A slot's priority's pending requests live at positions [lo, hi) (priority bytes order
// higher priorities first). Enqueues take fresh positions at the top: FIFO pops at the
// bottom, LIFO at the top. Between commits, nothing that a commit needs is overwritten or
// deleted: dequeued keys stay until the next Commit deletes them, and new keys go to
// positions above the committed range. A commit deletes a long range of dequeued
// positions with a range tombstone, which readers skip at once, unlike point tombstones;
// a short one (at most pointDeletes positions) key by key, as thousands of slots popped a
// few times each would leave thousands of range tombstones in the memtable, which pebble
// fragments for every new iterator (the point tombstones lie outside the pending ranges,
// where no read goes). A new slot's name record is written by the first commit that holds
// its requests, and deleted by the one that deletes its last range. Up to
// Options.BufferLimit new requests and fingerprints stay in memory; past that they are
// written to the store without sync, where Open ignores them if no Commit followed
// (positions outside the committed ranges, fingerprints of a newer generation) and
// deletes them.
//
// # Memory
//
// A slot costs its name, a small record per priority it holds and its entry in the
// SlotIndex (a few hundred bytes), whatever its queue's length: its requests are in the
// store. Requests read ahead from the store are kept as their records, decoded when
// popped, and capped for the whole frontier (readAheadBudget bytes): a slot reads ahead
// up to readChunk requests when few slots have work, its share of the budget when many
// do (one request at least), and the read-ahead of the slots read least recently is
// dropped past the cap.
package frontier

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"

	"github.com/jscrawl/jscrawl/types"
)

// Options configure a Frontier. The zero value is a LIFO frontier that does not fsync.
type Options struct {
	// FIFO orders requests of one priority first in, first out; false is LIFO (Scrapy's
	// default, SCHEDULER_MEMORY_QUEUE).
	FIFO bool
	// Sync makes Commit fsync (a jobdir). False is for a temporary spill store: the store
	// writes no log, and a crash takes it back to an older commit (consistent, not the
	// last); Close still keeps every commit.
	Sync bool
	// BufferLimit is how many new requests and fingerprints stay in memory between
	// commits before they are written (unsynced) to the store; 0 means 16384.
	BufferLimit int
	// CacheSize is the store's block cache in bytes; 0 means 32 MiB.
	CacheSize int64
	// MemTableSize is the store's memtable size in bytes; 0 means 32 MiB.
	MemTableSize uint64
	// SlotKey names the download slot a request is queued in (engine.SlotKey); nil queues
	// every request in one slot "", in the order of a frontier without slots, which no
	// Readiness holds back (UseSlots does nothing). A store must be opened with the same
	// function every time: requests stay in the slot they were queued in.
	SlotKey func(*types.Request) string

	migrateChunk int // bytes per batch of a migration (tests); 0 means migrateChunk
}

// CorruptError reports a damaged store: what is wrong (Err), and what can be recovered
// (Recovery; empty means nothing).
type CorruptError struct {
	Dir      string
	Err      error
	Recovery string
}

// Error implements error.
func (e *CorruptError) Error() string {
	rec := e.Recovery
	if rec == "" {
		rec = "its queue and seen-set cannot be recovered: move the folder away (or start the job afresh) to crawl again"
	}
	return fmt.Sprintf("frontier store in %s is damaged: %v; %s", e.Dir, e.Err, rec)
}

// Unwrap returns the underlying error.
func (e *CorruptError) Unwrap() error { return e.Err }

const (
	formatVersion = 2
	formatV1      = 1 // without slots: q <prio:8> <pos:8>, i <prio:8>, g of 16 bytes
	posStart      = 1 << 62
	// readChunk is the most requests a queue reads from the store at once, when its
	// share of readAheadBudget (the budget over the slots with pending requests) allows.
	readChunk = 128
	// readAheadBudget caps the bytes of the requests read ahead from the store (their
	// records, decoded when popped), for all queues.
	readAheadBudget = 16 << 20
	maxSlotID       = 1<<32 - 1
)

// markerFile, next to the store's files, holds the last generation committed with Sync,
// written after the commit is durable: a store that holds an older one lost commits (its
// log was damaged, which pebble reads as the end of the log).
const markerFile = "FRONTIER-COMMITTED"

var (
	keyFormat = []byte("f")
	keyState  = []byte("g")
)

type lease struct {
	id        uint64
	persisted bool // written as an l key by a commit
}

// Frontier is a crash-safe on-disk request frontier. Only one goroutine may call it.
type Frontier struct {
	db      *pebble.DB
	cache   *pebble.Cache
	log     *storeLogger
	dir     string
	fifo    bool
	wo      *pebble.WriteOptions
	limit   int
	slotKey func(*types.Request) string

	gen          uint64 // generation of the changes since the last commit (= committed + 1)
	slots        map[string]*slot
	slotSeq      uint64 // the last slot id allocated
	active       int    // slots with pending requests
	idx          SlotIndex
	n            int
	dirtyQ       []*pq   // queues changed since the last commit
	dirtyS       []*slot // their slots
	wq           []*pq   // queues with buffered requests (wbuf)
	raFirst      *pq     // the queues holding read-ahead, least recently read first
	raLast       *pq
	raHeld       int     // bytes read ahead (pq.raBytes)
	raFree       []raBuf // the memory of dropped read-aheads
	raBudget     int     // the most bytes read ahead (readAheadBudget)
	migrateChunk int
	leases       map[*types.Request]*lease
	leaseSeq     uint64
	doneIDs      []uint64 // persisted leases done since the last commit
	seenN        int64
	bloom        *bloomChain
	newSeen      map[[16]byte]struct{} // fingerprints not yet written
	// hot and warm hold fingerprints written or found in the store lately (at most 2 ×
	// hotSize): a site's links repeat the same pages, and a duplicate found here costs no
	// store lookup (the Bloom filter answers "maybe" for every duplicate).
	hot, warm  map[[16]byte]struct{}
	buffered   int // requests in the wbufs
	recovered  int
	migrated   int // requests moved from a format-1 store by Open
	err        error
	kbuf, vbuf []byte
}

// Open opens (creating if missing) the frontier stored in folder dir. Leases found at open
// (requests handed out and not Done at the last commit) return to pending (Recovered),
// enqueued again in the order they were leased. A damaged store returns a *CorruptError.
// Locking the folder against a second process is the caller's job.
func Open(dir string, opts Options) (_ *Frontier, err error) {
	if opts.BufferLimit <= 0 {
		opts.BufferLimit = 1 << 14
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 32 << 20
	}
	if opts.MemTableSize == 0 {
		opts.MemTableSize = 32 << 20
	}
	fresh := !hasStoreFiles(dir)
	if !fresh && unfinished(dir) {
		// The store was never created whole (a full disk at the first open) and holds no
		// commit: start it again rather than report it damaged.
		if err := removeStoreFiles(dir); err != nil {
			return nil, fmt.Errorf("frontier: %w", err)
		}
		fresh = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("frontier: %w", err)
	}
	logger := &storeLogger{}
	cache := pebble.NewCache(opts.CacheSize)
	f := &Frontier{
		cache:        cache,
		log:          logger,
		dir:          dir,
		fifo:         opts.FIFO,
		wo:           pebble.NoSync,
		limit:        opts.BufferLimit,
		slotKey:      opts.SlotKey,
		raBudget:     readAheadBudget,
		migrateChunk: cmp.Or(opts.migrateChunk, migrateChunk),
		slots:        map[string]*slot{},
		leases:       map[*types.Request]*lease{},
		newSeen:      map[[16]byte]struct{}{},
	}
	if opts.Sync {
		f.wo = pebble.Sync
	}
	defer func() {
		if p := recover(); p != nil {
			if ferr := logger.err(); ferr != nil && types.IsStorageError(ferr) {
				err = fmt.Errorf("frontier: open %s: %w", dir, ferr)
			} else {
				err = &CorruptError{Dir: dir, Err: fmt.Errorf("%v", p)}
			}
		}
		if err != nil {
			if f.db != nil && logger.err() == nil {
				func() {
					defer func() { _ = recover() }()
					_ = f.db.Close()
				}()
			}
			cache.Unref()
			if f.bloom != nil {
				f.bloom.free()
			}
		}
	}()
	po := &pebble.Options{
		Cache:        cache,
		MemTableSize: opts.MemTableSize,
		Logger:       logger,
		MaxOpenFiles: 256,
		// Fewer, bigger compactions: measured 128k → 178k enqueues/s at 3M requests.
		L0CompactionThreshold: 8,
		L0StopWritesThreshold: 256,
		LBaseMaxBytes:         512 << 20,
	}
	po.Levels = make([]pebble.LevelOptions, 7)
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		po.Levels[i].FilterType = pebble.TableFilter
		// Uncompressed tables: compactions take most of the CPU, and snappy a good part of
		// theirs (measured 149k → 175k enqueues/s at 3M requests); the store is about 1.5×
		// bigger on disk.
		po.Levels[i].Compression = pebble.NoCompression
	}
	if !fresh {
		po.ErrorIfNotExists = true
	}
	if !opts.Sync {
		// A spill store is thrown away after a crash: no log to write.
		po.DisableWAL = true
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		if fresh || types.IsStorageError(err) {
			return nil, fmt.Errorf("frontier: open %s: %w", dir, err)
		}
		return nil, &CorruptError{Dir: dir, Err: err}
	}
	f.db = db
	if err := f.load(); err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			return nil, err
		}
		if types.IsStorageError(err) {
			return nil, fmt.Errorf("frontier: open %s: %w", dir, err)
		}
		return nil, &CorruptError{Dir: dir, Err: err}
	}
	return f, nil
}

// hasStoreFiles reports whether dir holds files of a pebble store.
func hasStoreFiles(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if n == "CURRENT" || strings.HasPrefix(n, "MANIFEST-") || strings.HasPrefix(n, "OPTIONS-") ||
			strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".sst") {
			return true
		}
	}
	return false
}

// unfinished reports whether dir holds the files of a store pebble never finished
// creating: pebble writes CURRENT (by a rename) once the first MANIFEST is whole, and the
// OPTIONS file after it, so a store without either, with no table and no commit marker,
// never held a commit. A store that lost its CURRENT file later still has its OPTIONS file:
// that one is damaged.
func unfinished(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if n == "CURRENT" || n == markerFile || strings.HasPrefix(n, "OPTIONS-") || strings.HasSuffix(n, ".sst") {
			return false
		}
	}
	return true
}

// removeStoreFiles removes the files of a store that was never created whole.
func removeStoreFiles(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// closeWait is how long Close waits for a store that failed to close.
const closeWait = 5 * time.Second

// storeLogger is the store's pebble Logger: quiet, and the end of pebble's failures.
// pebble calls Fatalf where it cannot go on (its own logger exits the process), above all
// "fatal commit error": a write to the store's log failed, a full disk for one. That one is
// kept and Fatalf returns (pebble's commit then returns nil, and the Frontier's caller
// reads the kept error); any other Fatalf is kept too and panics, which Open recovers.
// After a kept error, nothing calls the store again: its commit pipeline is stuck.
type storeLogger struct {
	fatal atomic.Pointer[fatalError]
}

// fatalError is an error pebble reported through Fatalf, wrapping the first error among
// its arguments (the file system's, for errors.Is).
type fatalError struct {
	msg string
	err error
}

func (e *fatalError) Error() string { return e.msg }
func (e *fatalError) Unwrap() error { return e.err }

func (*storeLogger) Infof(string, ...any) {}

func (l *storeLogger) Fatalf(format string, args ...any) {
	fe := &fatalError{msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			fe.err = err
			break
		}
	}
	l.fatal.CompareAndSwap(nil, fe)
	if strings.HasPrefix(format, "pebble: fatal commit error") {
		return
	}
	panic(fe.msg)
}

// err returns the error kept by Fatalf, or nil.
func (l *storeLogger) err() error {
	if fe := l.fatal.Load(); fe != nil {
		return fe
	}
	return nil
}

// commitBatch commits b, returning the store's failure whether pebble returned it or
// reported it through Fatalf.
func (f *Frontier) commitBatch(b *pebble.Batch, wo *pebble.WriteOptions) error {
	if err := f.log.err(); err != nil {
		return err
	}
	if err := b.Commit(wo); err != nil {
		return err
	}
	return f.log.err()
}

func (f *Frontier) get(key []byte) ([]byte, error) {
	v, c, err := f.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v = bytes.Clone(v)
	return v, c.Close()
}

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

func (f *Frontier) isEmpty() (bool, error) {
	it, err := f.db.NewIter(nil)
	if err != nil {
		return false, err
	}
	empty := !it.First()
	return empty, it.Close()
}

// encodePrio maps a priority to 8 bytes that sort higher priorities first.
func encodePrio(b []byte, p int) []byte {
	return binary.BigEndian.AppendUint64(b, ^(uint64(int64(p)) ^ 1<<63))
}

func decodePrio(b []byte) int {
	return int(int64(^binary.BigEndian.Uint64(b) ^ 1<<63))
}

// qkey is the key of a pending request (p), ikey of a range record (r), kkey of a slot's
// name record (k).
func qkey(b []byte, slot uint32, p int, pos uint64) []byte {
	b = append(b, 'p')
	b = binary.BigEndian.AppendUint32(b, slot)
	b = encodePrio(b, p)
	return binary.BigEndian.AppendUint64(b, pos)
}

func ikey(slot uint32, p int) []byte {
	return encodePrio(binary.BigEndian.AppendUint32([]byte("r"), slot), p)
}

func kkey(slot uint32) []byte { return binary.BigEndian.AppendUint32([]byte("k"), slot) }

func skey(b []byte, fp *[16]byte) []byte { return append(append(b, 's'), fp[:]...) }

func lkey(id uint64) []byte { return binary.BigEndian.AppendUint64([]byte("l"), id) }

// stateRecord is the g record: committed generation, lease counter, slot counter.
func (f *Frontier) stateRecord(gen uint64) []byte {
	state := binary.BigEndian.AppendUint64(nil, gen)
	state = binary.BigEndian.AppendUint64(state, f.leaseSeq)
	return binary.BigEndian.AppendUint64(state, f.slotSeq)
}

func (f *Frontier) setErr(err error) {
	if f.err == nil && err != nil {
		f.err = fmt.Errorf("frontier %s: %w", f.dir, err)
	}
}

// Err returns the first store error met by Enqueue or Next (Commit returns it too).
func (f *Frontier) Err() error { return f.err }

// Enqueue adds req as pending. It returns false, and adds nothing, when req's fingerprint
// was seen before, unless req.DontFilter; otherwise it records the fingerprint (not for a
// DontFilter request, as engine.MemoryScheduler).
func (f *Frontier) Enqueue(req *types.Request) bool {
	if !req.DontFilter {
		fp := Fingerprint(req)
		if f.seen(&fp) {
			return false
		}
		f.newSeen[fp] = struct{}{}
		f.bloom.add(&fp)
		f.seenN++
	}
	f.push(req)
	if f.buffered+len(f.newSeen) > f.limit {
		f.spill()
	}
	return true
}

// Add adds req as pending without looking at or recording its fingerprint (for a caller
// that filters duplicates itself).
func (f *Frontier) Add(req *types.Request) {
	f.push(req)
	if f.buffered+len(f.newSeen) > f.limit {
		f.spill()
	}
}

// AddFingerprint records a fingerprint as returned by types.Request.Fingerprint (a hex
// SHA-1), as Enqueue does, and reports whether it was new.
func (f *Frontier) AddFingerprint(fingerprint string) bool {
	var fp [16]byte
	if len(fingerprint) < 32 {
		copy(fp[:], fingerprint)
	} else if _, err := hex.Decode(fp[:], []byte(fingerprint[:32])); err != nil {
		copy(fp[:], fingerprint)
	}
	return f.AddSum(fp)
}

// AddSum records a fingerprint given as the first 16 bytes of
// types.Request.FingerprintSum, as Enqueue does, and reports whether it was new.
func (f *Frontier) AddSum(fp [16]byte) bool {
	if f.seen(&fp) {
		return false
	}
	f.newSeen[fp] = struct{}{}
	f.bloom.add(&fp)
	f.seenN++
	if f.buffered+len(f.newSeen) > f.limit {
		f.spill()
	}
	return true
}

func (f *Frontier) seen(fp *[16]byte) bool {
	if !f.bloom.test(fp) {
		return false
	}
	if _, ok := f.newSeen[*fp]; ok {
		return true
	}
	if _, ok := f.hot[*fp]; ok {
		return true
	}
	if _, ok := f.warm[*fp]; ok {
		return true
	}
	f.kbuf = skey(f.kbuf[:0], fp)
	_, c, err := f.db.Get(f.kbuf)
	if err == nil {
		_ = c.Close()
		f.remember(fp)
		return true
	}
	if !errors.Is(err, pebble.ErrNotFound) {
		f.setErr(err)
	}
	return false
}

// hotSize is how many fingerprints hot holds before it becomes warm and a new hot starts.
const hotSize = 1 << 17

// remember keeps fp in the hot set of recent fingerprints.
func (f *Frontier) remember(fp *[16]byte) {
	if len(f.hot) >= hotSize || f.hot == nil {
		f.warm, f.hot = f.hot, make(map[[16]byte]struct{}, hotSize/4)
	}
	f.hot[*fp] = struct{}{}
}

// Done ends the lease of req, a request returned by Next (identified by pointer): it was
// processed, or failed for good. Done of anything else does nothing.
func (f *Frontier) Done(req *types.Request) {
	l := f.leases[req]
	if l == nil {
		return
	}
	delete(f.leases, req)
	if l.persisted {
		f.doneIDs = append(f.doneIDs, l.id)
	}
}

// Len returns the number of pending (not leased) requests.
func (f *Frontier) Len() int { return f.n }

// Leased returns the number of requests returned by Next and not Done.
func (f *Frontier) Leased() int { return len(f.leases) }

// SeenCount returns the number of fingerprints recorded.
func (f *Frontier) SeenCount() int64 { return f.seenN }

// Recovered returns how many leases Open returned to pending.
func (f *Frontier) Recovered() int { return f.recovered }

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

// Close closes the store. It does not commit.
func (f *Frontier) Close() error {
	if f.db == nil {
		return nil
	}
	if ferr := f.log.err(); ferr != nil {
		// The store's commit pipeline is stuck: closing it releases its lock and files,
		// but is given closeWait at most (and its panic is recovered), then left behind.
		// Its files are as the failed write left them, which Open reads as the last commit.
		db := f.db
		f.db = nil
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() { _ = recover() }()
			_ = db.Close()
		}()
		select {
		case <-done:
			f.cache.Unref()
		case <-time.After(closeWait):
		}
		f.bloom.free()
		return fmt.Errorf("frontier %s: %w", f.dir, ferr)
	}
	var err error
	if f.wo != pebble.Sync {
		// No log (DisableWAL): what the commits wrote is in the memtable only.
		err = f.db.Flush()
	}
	if cerr := f.db.Close(); err == nil {
		err = cerr
	}
	f.db = nil
	f.cache.Unref()
	f.bloom.free()
	if err != nil {
		return fmt.Errorf("frontier %s: close: %w", f.dir, err)
	}
	return nil
}
