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
	"cmp"
	"errors"
	"fmt"
	"os"
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
