package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jscrawl/jscrawl/engine/frontier/order"
	"github.com/jscrawl/jscrawl/types"
)

// spillPrefix starts the name of a spilled scheduler's folder: jscrawl-spill-<pid>-<random>.
const spillPrefix = "jscrawl-spill-"

// SpillStore is the on-disk queue and seen-set a MemoryScheduler moves to when it holds
// more than SCHEDULER_MEMORY_MAX requests (engine/frontier's Frontier is one; see
// RegisterSpillStore). Only the scheduler calls it, on the engine goroutine.
type SpillStore interface {
	// Add queues req without looking at the seen-set.
	Add(req *types.Request)
	// AddSum adds a fingerprint (codec.Fingerprint) to the seen-set; false: it was there.
	AddSum(fp [16]byte) bool
	// Enqueue queues req unless the seen-set has it (or it is DontFilter); false: a duplicate.
	Enqueue(req *types.Request) bool
	// Next returns the next request, nil when none is ready (or the store failed: Err).
	Next() *types.Request
	// Done records that req, returned by Next, left the queue for good.
	Done(req *types.Request)
	// Len returns how many requests are queued.
	Len() int
	// Commit writes what changed since the last commit, with meta (nil: none).
	Commit(meta map[string][]byte) error
	// Err returns the error that stopped the store, if any.
	Err() error
	// Close closes the store; the caller removes its folder.
	Close() error
}

// SpillOpener opens a new SpillStore in the empty folder dir, FIFO or LIFO within a
// priority as fifo says, queueing per download slot (SlotKey).
type SpillOpener func(dir string, fifo bool) (SpillStore, error)

var spillOpener plugin[SpillOpener]

// RegisterSpillStore sets the store a MemoryScheduler spills to (the jscrawl binary gives
// engine/frontier's); it replaces an earlier one. Without one, a scheduler past
// SCHEDULER_MEMORY_MAX logs that it cannot spill and keeps its queue in memory. Safe for
// concurrent use.
func RegisterSpillStore(open SpillOpener) {
	spillOpener.set(open)
}

// errNoSpillStore is the error of a spill without RegisterSpillStore.
var errNoSpillStore = errors.New("no spill store registered (engine.RegisterSpillStore)")

// openSpill opens a spill store in dir with the registered SpillOpener.
func openSpill(dir string, fifo bool) (SpillStore, error) {
	open := spillOpener.get()
	if open == nil {
		return nil, errNoSpillStore
	}
	return open(dir, fifo)
}

// spill is the temporary disk frontier a MemoryScheduler moved to.
type spill struct {
	f    SpillStore
	dir  string
	deq  int // dequeues since the last commit
	done bool
}

// spill moves the queue, and the seen-set when the scheduler owns it, to a temporary
// frontier. On failure it logs and stays in memory.
func (s *MemoryScheduler) spill() {
	removeStaleSpills(os.TempDir(), s.logger)
	dir, err := os.MkdirTemp("", spillPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err == nil {
		var f SpillStore
		if f, err = openSpill(dir, s.fifo); err == nil {
			s.disk = &spill{f: f, dir: dir}
		} else {
			_ = os.RemoveAll(dir)
		}
	}
	if err != nil {
		s.spillErr = true
		s.logger.Warn("Scheduler could not spill to disk; its queue stays in memory", "error", err)
		return
	}
	s.logger.Info(fmt.Sprintf("Scheduler holds more than %d requests: spilling its queue to %s", s.max, dir))
	// Each slot's and priority's requests keep their order: pushed bottom first, so a LIFO
	// top and a FIFO head stay where they were.
	for _, sq := range s.slots {
		for _, p := range sq.prios {
			q := sq.queues[p]
			for _, it := range q.items[q.head:] {
				s.disk.f.Add(it.unpack())
			}
		}
	}
	s.slots, s.index, s.n = map[string]*slotQueue{}, order.SlotIndex{}, 0
	if f, ok := s.diskSlots(); ok {
		f.UseSlots(s.view)
	}
	if s.ownDF != nil {
		s.ownDF.mu.Lock()
		for fp := range s.ownDF.seen.all() {
			s.disk.f.AddSum(fp)
		}
		s.ownDF.seen = &fpSet{} // unused from now on
		s.ownDF.mu.Unlock()
	}
}

func (s *MemoryScheduler) enqueueDisk(req *types.Request) bool {
	if s.ownDF != nil {
		if !s.disk.f.Enqueue(req) {
			s.filtered(req)
			return false
		}
	} else {
		if !req.DontFilter && s.df.Seen(req) {
			s.filtered(req)
			return false
		}
		s.disk.f.Add(req)
	}
	s.stats.Inc("scheduler/enqueued/disk", 1)
	s.stats.Inc("scheduler/enqueued", 1)
	return true
}

func (s *MemoryScheduler) nextDisk() *types.Request {
	req := s.disk.f.Next()
	if req == nil {
		if err := s.disk.f.Err(); err != nil && !s.disk.done {
			s.disk.done = true
			s.logger.Error("Scheduler's spill store failed: its requests are lost", "error", err)
		}
		return nil
	}
	s.disk.f.Done(req)
	// A commit (not synced) deletes the dequeued requests from the store.
	if s.disk.deq++; s.disk.deq >= 1<<16 {
		s.disk.deq = 0
		if err := s.disk.f.Commit(nil); err != nil && !s.disk.done {
			s.disk.done = true
			s.logger.Error("Scheduler's spill store failed: its requests are lost", "error", err)
		}
	}
	s.stats.Inc("scheduler/dequeued/disk", 1)
	s.stats.Inc("scheduler/dequeued", 1)
	return req
}

// Close removes the scheduler's spill folder, if it spilled. The engine calls it at the end
// of Run; the scheduler is empty afterwards.
func (s *MemoryScheduler) Close() error {
	if s.disk == nil {
		return nil
	}
	d := s.disk
	s.disk = nil
	err := d.f.Close()
	if rerr := os.RemoveAll(d.dir); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("scheduler spill %s: %w", d.dir, err)
	}
	return nil
}

// removeStaleSpills removes the spill folders in tmp of processes that no longer run.
func removeStaleSpills(tmp string, logger interface{ Info(string, ...any) }) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		name, ok := strings.CutPrefix(e.Name(), spillPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, ok := strings.Cut(name, "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			continue
		}
		logger.Info("Removed the spill folder of a process no longer running: " + dir)
	}
}
