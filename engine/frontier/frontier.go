// Package frontier is a crash-safe on-disk request queue and seen-set (a crawl frontier)
// on an embedded pebble store, with the ordering of engine.MemoryScheduler: higher
// Priority first, LIFO or FIFO within one priority, duplicates dropped by fingerprint
// unless DontFilter.
//
// Every request is PENDING (queued), LEASED (returned by Next, not yet Done) or gone.
// Commit makes all changes since the previous Commit durable in one atomic store batch,
// with caller metadata (feed offsets...). After a crash, Open finds the state of the last
// Commit, and returns its leases to pending.
//
// # Layout
//
// Keys are one-byte prefixed:
//
//	q <prio:8> <pos:8>  a pending request, its record (codec.go)
//	i <prio:8>          a priority's committed range lo, hi and count
//	s <fp:16>           a seen fingerprint; value: the generation (commit number) that added it
//	l <id:8>            a request leased at a commit, not done then
//	m <key>             caller metadata (Commit's meta)
//	g                   committed generation, lease counter
//	f                   format version
//
// A priority's pending requests live at positions [lo, hi) (priority bytes order higher
// priorities first). Enqueues take fresh positions at the top: FIFO pops at the bottom,
// LIFO at the top. Between commits, nothing that a commit needs is overwritten or deleted:
// dequeued keys stay until the next Commit deletes their ranges (range tombstones, which
// readers skip at once, unlike point tombstones), and new keys go to positions above the
// committed range. Up to Options.BufferLimit new requests and fingerprints stay in memory;
// past that they are written to the store without sync, where Open ignores them if no
// Commit followed (positions outside the committed ranges, fingerprints of a newer
// generation) and deletes them.
package frontier

import (
	"bytes"
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
	formatVersion = 1
	readChunk     = 128 // requests read from the store at once
	posStart      = 1 << 62
)

// markerFile, next to the store's files, holds the last generation committed with Sync,
// written after the commit is durable: a store that holds an older one lost commits (its
// log was damaged, which pebble reads as the end of the log).
const markerFile = "FRONTIER-COMMITTED"

var (
	keyFormat = []byte("f")
	keyState  = []byte("g")
)

// seg is a range of positions [lo, hi) of one priority whose stored (or buffered) keys
// are all pending.
type seg struct{ lo, hi uint64 }

type entry struct {
	pos uint64
	req *types.Request
}

// pq is one priority's queue.
type pq struct {
	prio   int
	segs   []seg  // ascending; the top one takes pushes
	cAlloc uint64 // hi at the last commit: positions below may hold committed keys
	wlo    uint64 // wbuf holds positions [wlo, top.hi)
	wbuf   []*types.Request
	rbuf   []entry // requests read ahead from the store, in pop order
	ri     int
	cnt    int
	dirty  bool // changed since the last commit
}

type lease struct {
	id        uint64
	persisted bool // written as an l key by a commit
}

// Frontier is a crash-safe on-disk request frontier. Only one goroutine may call it.
type Frontier struct {
	db    *pebble.DB
	cache *pebble.Cache
	log   *storeLogger
	dir   string
	fifo  bool
	wo    *pebble.WriteOptions
	limit int

	gen      uint64 // generation of the changes since the last commit (= committed + 1)
	queues   map[int]*pq
	order    []int // priorities with pending requests, highest first
	n        int
	leases   map[*types.Request]*lease
	leaseSeq uint64
	doneIDs  []uint64 // persisted leases done since the last commit
	seenN    int64
	bloom    *bloomChain
	newSeen  map[[16]byte]struct{} // fingerprints not yet written
	// hot and warm hold fingerprints written or found in the store lately (at most 2 ×
	// hotSize): a site's links repeat the same pages, and a duplicate found here costs no
	// store lookup (the Bloom filter answers "maybe" for every duplicate).
	hot, warm  map[[16]byte]struct{}
	buffered   int // requests in the wbufs
	recovered  int
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
		cache:   cache,
		log:     logger,
		dir:     dir,
		fifo:    opts.FIFO,
		wo:      pebble.NoSync,
		limit:   opts.BufferLimit,
		queues:  map[int]*pq{},
		leases:  map[*types.Request]*lease{},
		newSeen: map[[16]byte]struct{}{},
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

// load reads the committed state, removes what uncommitted writes left, and returns the
// leases to pending.
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
		b := f.db.NewBatch()
		_ = b.Set(keyFormat, []byte{formatVersion}, nil)
		_ = b.Set(keyState, make([]byte, 16), nil)
		if err := f.commitBatch(b, f.wo); err != nil {
			return err
		}
		state = make([]byte, 16)
		format = []byte{formatVersion}
	}
	if len(format) != 1 || format[0] != formatVersion {
		return fmt.Errorf("unknown format version %v", format)
	}
	if len(state) != 16 {
		return errors.New("bad state record")
	}
	committed := binary.BigEndian.Uint64(state)
	f.leaseSeq = binary.BigEndian.Uint64(state[8:])
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
	// Priorities and their committed ranges; everything outside them in q is garbage.
	it, err := f.db.NewIter(&pebble.IterOptions{LowerBound: []byte("i"), UpperBound: []byte("j")})
	if err != nil {
		return err
	}
	prev := []byte("q")
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) != 9 || len(v) != 24 {
			_ = it.Close()
			return errors.New("bad priority record")
		}
		p := decodePrio(k[1:])
		lo, hi, cnt := binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]), binary.BigEndian.Uint64(v[16:])
		if lo > hi || cnt > hi-lo {
			_ = it.Close()
			return fmt.Errorf("bad range for priority %d", p)
		}
		q := &pq{prio: p, segs: []seg{{lo, hi}}, cAlloc: hi, wlo: hi, cnt: int(cnt)}
		f.queues[p] = q
		if cnt > 0 {
			f.order = append(f.order, p) // i keys sort highest priority first
			f.n += int(cnt)
		}
		_ = clean.DeleteRange(prev, qkey(nil, p, lo), nil)
		prev = qkey(nil, p, hi)
	}
	if err := it.Close(); err != nil {
		return err
	}
	_ = clean.DeleteRange(prev, []byte("r"), nil)

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

func qkey(b []byte, p int, pos uint64) []byte {
	b = append(b, 'q')
	b = encodePrio(b, p)
	return binary.BigEndian.AppendUint64(b, pos)
}

func ikey(p int) []byte { return encodePrio([]byte("i"), p) }

func skey(b []byte, fp *[16]byte) []byte { return append(append(b, 's'), fp[:]...) }

func lkey(id uint64) []byte { return binary.BigEndian.AppendUint64([]byte("l"), id) }

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

// push adds req on top of its priority's queue.
func (f *Frontier) push(req *types.Request) {
	q := f.queues[req.Priority]
	if q == nil {
		q = &pq{prio: req.Priority, cAlloc: posStart, wlo: posStart}
		f.queues[req.Priority] = q
	}
	if q.cnt == 0 {
		i, _ := slices.BinarySearchFunc(f.order, req.Priority, func(a, b int) int { return b - a })
		f.order = slices.Insert(f.order, i, req.Priority)
	}
	if len(q.segs) > 0 && q.segs[len(q.segs)-1].hi >= q.cAlloc {
		q.segs[len(q.segs)-1].hi++
	} else {
		// The top is below the committed allocation (a LIFO queue dipped since the last
		// commit, or it is empty): a new range above it, not to overwrite committed keys.
		q.segs = append(q.segs, seg{q.cAlloc, q.cAlloc + 1})
		q.wlo = q.cAlloc
		q.rbuf, q.ri = nil, 0
	}
	q.wbuf = append(q.wbuf, req)
	q.cnt++
	q.dirty = true
	f.n++
	f.buffered++
}

// Next returns the next pending request, now leased, or nil when none is pending (or a
// store error happened: see Err).
func (f *Frontier) Next() *types.Request {
	if f.n == 0 || f.err != nil {
		return nil
	}
	q := f.queues[f.order[0]]
	var req *types.Request
	if f.fifo {
		req = f.popBottom(q)
	} else {
		req = f.popTop(q)
	}
	if req == nil {
		if f.err == nil {
			f.setErr(fmt.Errorf("priority %d: %d requests counted, none stored", q.prio, q.cnt))
		}
		return nil
	}
	q.cnt--
	q.dirty = true
	f.n--
	if q.cnt == 0 {
		f.order = f.order[1:]
		q.segs, q.rbuf, q.ri, q.wbuf = q.segs[:0], nil, 0, nil
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
				q.rbuf, q.ri = nil, 0
			}
			return req
		}
		if q.ri == len(q.rbuf) && !f.read(q, *top, true) {
			if f.err != nil {
				return nil
			}
			q.segs = q.segs[:len(q.segs)-1] // no key left in it
			q.rbuf, q.ri = nil, 0
			continue
		}
		e := q.rbuf[q.ri]
		q.rbuf[q.ri] = entry{}
		q.ri++
		top.hi = e.pos
		q.wlo = e.pos
		if top.lo >= top.hi {
			q.segs = q.segs[:len(q.segs)-1]
			q.rbuf, q.ri = nil, 0
		}
		return e.req
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
			e := q.rbuf[q.ri]
			q.rbuf[q.ri] = entry{}
			q.ri++
			bot.lo = e.pos + 1
			f.dropEmptyBottom(q)
			return e.req
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
		q.rbuf, q.ri = nil, 0
	}
}

// read fills q.rbuf with up to readChunk stored requests of range s, from its top down
// (desc) or bottom up. It reports whether it found any.
func (f *Frontier) read(q *pq, s seg, desc bool) bool {
	q.rbuf, q.ri = q.rbuf[:0], 0
	if s.lo >= s.hi {
		return false
	}
	it, err := f.db.NewIter(&pebble.IterOptions{
		LowerBound: qkey(nil, q.prio, s.lo),
		UpperBound: qkey(nil, q.prio, s.hi),
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
	for ok := valid(); ok && len(q.rbuf) < readChunk; ok = step() {
		req, err := DecodeRequest(it.Value())
		if err != nil {
			f.setErr(&CorruptError{Dir: f.dir, Err: fmt.Errorf("request at priority %d: %w", q.prio, err)})
			break
		}
		q.rbuf = append(q.rbuf, entry{binary.BigEndian.Uint64(it.Key()[9:]), req})
	}
	if err := it.Close(); err != nil {
		f.setErr(err)
	}
	if f.err != nil {
		q.rbuf = q.rbuf[:0]
	}
	return len(q.rbuf) > 0
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
	prios := make([]int, 0, len(f.queues))
	for p, q := range f.queues {
		if len(q.wbuf) > 0 {
			prios = append(prios, p)
		}
		q.rbuf, q.ri = nil, 0 // a LIFO read-ahead is no longer the top
	}
	slices.Sort(prios)
	slices.Reverse(prios) // higher priorities have lower keys
	for _, p := range prios {
		q := f.queues[p]
		for i, req := range q.wbuf {
			f.kbuf = qkey(f.kbuf[:0], q.prio, q.wlo+uint64(i))
			f.vbuf = EncodeRequest(f.vbuf[:0], req)
			_ = b.Set(f.kbuf, f.vbuf, nil)
		}
		q.wlo = q.segs[len(q.segs)-1].hi
		q.wbuf = nil
	}
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
	for _, q := range f.queues {
		if !q.dirty {
			continue
		}
		// Delete everything outside the pending ranges: dequeued and garbage keys.
		from := qkey(nil, q.prio, 0)
		for _, s := range q.segs {
			_ = b.DeleteRange(from, qkey(nil, q.prio, s.lo), nil)
			from = qkey(nil, q.prio, s.hi)
		}
		_ = b.DeleteRange(from, qkey(nil, q.prio, ^uint64(0)), nil)
		if q.cnt == 0 {
			_ = b.Delete(ikey(q.prio), nil)
			delete(f.queues, q.prio)
			continue
		}
		lo, hi := q.segs[0].lo, q.segs[len(q.segs)-1].hi
		q.segs = append(q.segs[:0], seg{lo, hi})
		q.cAlloc, q.wlo = hi, hi
		v := binary.BigEndian.AppendUint64(nil, lo)
		v = binary.BigEndian.AppendUint64(v, hi)
		v = binary.BigEndian.AppendUint64(v, uint64(q.cnt))
		_ = b.Set(ikey(q.prio), v, nil)
		q.dirty = false
	}
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
	state := binary.BigEndian.AppendUint64(nil, f.gen)
	state = binary.BigEndian.AppendUint64(state, f.leaseSeq)
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
