package main

import (
	"fmt"
	"log/slog"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jscrawl/jscrawl/types"
)

// softMemoryLimit is the Go soft memory limit a crawl runs with: twice
// DOWNLOAD_MEMORY_BUDGET (the bodies being received, and their copies while each is
// joined) plus 512 MiB for everything else (VMs, queues, parsed pages), 1.5 GiB by
// default; 0 (none) when the budget is off.
//
// main sets GOGC=400, so the heap may grow to five times what is live before a collection:
// bodies cut at DOWNLOAD_MAXSIZE are garbage at once, and without a limit they pile up to
// gigabytes. Under the limit GOGC keeps its savings; near it the collector runs sooner. It
// is soft: nothing fails past it, and Go caps the collector's CPU should the live heap
// itself outgrow it.
func softMemoryLimit(settings *types.Settings) int64 {
	budget := int64(settings.Int(types.DownloadMemoryBudget))
	if budget <= 0 {
		return 0
	}
	return 2*budget + 512<<20
}

// setMemoryLimit applies softMemoryLimit, and starts a gcTuner when GC_HEADROOM_MB is
// above 0, unless GOMEMLIMIT is set. The returned function stops the tuner and puts the
// limit back as it was.
func setMemoryLimit(settings *types.Settings, logger *slog.Logger) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := softMemoryLimit(settings)
	prev := debug.SetMemoryLimit(-1)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
		logger.Debug(fmt.Sprintf("Go soft memory limit: %d MiB (GOMEMLIMIT overrides it)", limit>>20))
	}
	var tuner *gcTuner
	if floor := int64(settings.Int(types.GCHeadroomMB)) << 20; floor > 0 {
		tuner = startGCTuner(limit, floor, int64(settings.Int(types.GCHeadroomPercent)))
		logger.Debug(fmt.Sprintf("Go soft memory limit follows the live heap: live + max(%d MiB, %d%% of live)",
			floor>>20, settings.Int(types.GCHeadroomPercent)))
	}
	return func() {
		if tuner != nil {
			tuner.stop()
		}
		debug.SetMemoryLimit(prev)
	}
}

// gcTuner sets the Go soft memory limit after each collection to what the collection left
// in use plus a headroom: the heap may grow by the larger of floor and pct % of the live
// heap before the next collection (GOGC=400 gives 400 % instead, which on a crawl's
// frontier of tens of MB piles up hundreds of MB of garbage), and the runtime returns what
// lies above the limit to the OS. What the collection left in use is the live heap plus the
// runtime's memory outside the heap (goroutine stacks, its metadata). GOGC still applies
// when it asks for a collection sooner (a small heap), and the limit never goes above
// ceiling (softMemoryLimit; 0: none).
//
// The live heap it starts from is the median of what the last liveWindow collections left
// (see liveEstimate): a collection counts everything allocated while it marked as live, so
// one whose mark phase ran long reports a live heap inflated by that cycle's garbage, and a
// limit set from it alone lets the heap, and the process's peak RSS, jump by as much.
//
// It runs from a finalizer that re-arms itself: the runtime calls it once per collection,
// on its finalizer goroutine, after the collection.
type gcTuner struct {
	ceiling, floor, pct int64
	samples             []metrics.Sample
	lives               liveEstimate // only the finalizer goroutine touches it
	mu                  sync.Mutex   // held while setting the limit, so none is set after stop returns
	stopped             atomic.Bool
}

// liveWindow is how many collections' live heaps the tuner takes the median of.
const liveWindow = 5

// liveEstimate is the median of the live heaps the last liveWindow collections reported
// (Go's /gc/heap/live, which includes the bytes allocated during the mark phase: a mark
// phase that runs long, say its worker thread descheduled, reports that cycle's garbage as
// live). The median ignores such a cycle, as long as fewer than half of the window are,
// and follows a live heap that really grows within three collections. Its mean over a
// crawl is that of the raw figures, so the collector runs as often as before.
type liveEstimate struct {
	recent [liveWindow]int64
	n      int // collections seen
}

// add records the live heap a collection reported and returns the estimate.
func (e *liveEstimate) add(live int64) int64 {
	e.recent[e.n%liveWindow] = live
	e.n++
	k := min(e.n, liveWindow)
	sorted := e.recent // a copy
	slices.Sort(sorted[:k])
	return sorted[k/2]
}

// The runtime/metrics the tuner reads.
const (
	metricLive     = "/gc/heap/live:bytes"
	metricTotal    = "/memory/classes/total:bytes"
	metricReleased = "/memory/classes/heap/released:bytes"
	metricObjects  = "/memory/classes/heap/objects:bytes"
	metricUnused   = "/memory/classes/heap/unused:bytes"
	metricFree     = "/memory/classes/heap/free:bytes"
)

// gcSentinel is the object whose finalizer runs the tuner after each collection.
type gcSentinel struct{ t *gcTuner }

func startGCTuner(ceiling, floor, pct int64) *gcTuner {
	t := &gcTuner{ceiling: ceiling, floor: floor, pct: pct}
	for _, name := range []string{metricLive, metricTotal, metricReleased, metricObjects, metricUnused, metricFree} {
		t.samples = append(t.samples, metrics.Sample{Name: name})
	}
	goruntime.SetFinalizer(&gcSentinel{t: t}, afterGC)
	return t
}

// afterGC runs once per collection: it tunes the limit and re-arms itself.
func afterGC(s *gcSentinel) {
	if s.t.stopped.Load() {
		return
	}
	s.t.tune()
	goruntime.SetFinalizer(s, afterGC)
}

// stop ends the tuning: the limit stays where it is until the caller sets it.
func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped.Store(true)
}

// tune sets the limit from the live heap of the last collection.
func (t *gcTuner) tune() {
	metrics.Read(t.samples)
	v := func(i int) int64 {
		if t.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(t.samples[i].Value.Uint64())
	}
	live := t.lives.add(v(0))
	// Outside the heap: everything mapped and not released, minus the heap's spans.
	other := v(1) - v(2) - v(3) - v(4) - v(5)
	limit := nextLimit(live, other, t.floor, t.pct, t.ceiling)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped.Load() {
		debug.SetMemoryLimit(limit)
	}
}

// nextLimit is the soft memory limit after a collection that left live bytes of heap and
// other bytes of runtime memory outside the heap: live + other + max(floor, live × pct/100),
// at most ceiling (0: no ceiling).
func nextLimit(live, other, floor, pct, ceiling int64) int64 {
	limit := live + max(0, other) + max(floor, live/100*pct)
	if ceiling > 0 && limit > ceiling {
		limit = ceiling
	}
	return limit
}
