package engine_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

func spillDirs(t *testing.T, tmp string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, "jscrawl-spill-"+strconv.Itoa(os.Getpid())+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSchedulerSpill feeds 20,000 requests (priorities, duplicates, dontFilter, dequeues
// in between) to a scheduler that spills past 1000 and to one that never spills: both
// answer and order alike, and the spill folder is gone after Close.
func TestSchedulerSpill(t *testing.T) {
	for _, queue := range []string{"lifo", "fifo"} {
		t.Run(queue, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			stats := engine.NewStats()
			spilling := engine.NewMemoryScheduler(settings(t, map[string]any{
				types.SchedulerMemoryQueue: queue, types.SchedulerMemoryMax: 1000}), nil, stats, nil)
			memory := engine.NewMemoryScheduler(settings(t, map[string]any{
				types.SchedulerMemoryQueue: queue, types.SchedulerMemoryMax: 0}), nil, nil, nil)
			rng := rand.New(rand.NewPCG(5, 6))
			next := func(i int) {
				got, want := spilling.Next(), memory.Next()
				if (got == nil) != (want == nil) || got != nil && (got.URL != want.URL || got.Priority != want.Priority) {
					t.Fatalf("dequeue after %d enqueues: %v, without spilling %v", i, got, want)
				}
			}
			for i := range 20000 {
				r := &types.Request{
					URL:        fmt.Sprintf("http://h/%d", rng.IntN(15000)),
					Priority:   rng.IntN(4) - 1,
					DontFilter: rng.IntN(20) == 0,
				}
				if got, want := spilling.Enqueue(r), memory.Enqueue(r); got != want {
					t.Fatalf("Enqueue %d (%s) = %v, without spilling %v", i, r.URL, got, want)
				}
				if rng.IntN(3) == 0 {
					next(i)
				}
				if spilling.Len() != memory.Len() {
					t.Fatalf("after %d: Len %d, without spilling %d", i, spilling.Len(), memory.Len())
				}
			}
			if stats.Int("scheduler/enqueued/disk") == 0 || len(spillDirs(t, tmp)) != 1 {
				t.Fatalf("did not spill: %v, folders %v", stats.Snapshot(), spillDirs(t, tmp))
			}
			for memory.Len() > 0 {
				next(-1)
			}
			if spilling.Next() != nil {
				t.Fatal("the spilled scheduler holds more")
			}
			if stats.Int("scheduler/dequeued/disk") == 0 {
				t.Fatalf("no disk dequeue counted: %v", stats.Snapshot())
			}
			if err := spilling.Close(); err != nil {
				t.Fatal(err)
			}
			if d := spillDirs(t, tmp); len(d) != 0 {
				t.Fatalf("spill folder left after Close: %v", d)
			}
		})
	}
}

// TestSchedulerSpillStale: a spill folder of a process that no longer runs is removed by
// the next spill; one of a running process is left alone.
func TestSchedulerSpillStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(tmp, fmt.Sprintf("jscrawl-spill-%d-123", dead.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("jscrawl-spill-%d-456", os.Getppid()))
	for _, d := range []string{stale, live} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := engine.NewMemoryScheduler(settings(t, map[string]any{types.SchedulerMemoryMax: 10}), nil, nil, nil)
	defer s.Close()
	for i := range 11 {
		s.Enqueue(&types.Request{URL: fmt.Sprintf("http://h/%d", i)})
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale spill folder of dead pid %d not removed: %v", dead.Process.Pid, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("spill folder of a running process removed: %v", err)
	}
	if len(spillDirs(t, tmp)) != 1 {
		t.Fatal("no spill")
	}
}

var spillBig = flag.Bool("spill.big", false, "run TestSchedulerSpillBig: 10 million requests through a spilling MemoryScheduler")

// TestSchedulerSpillBig enqueues 10 million distinct requests into a MemoryScheduler with the
// default SCHEDULER_MEMORY_MAX, then drains it, and reports rates, peak Go heap and peak RSS
// (VmHWM). Run it alone: go test ./engine/ -run TestSchedulerSpillBig -v -spill.big
// (SPILL_BIG_MAX=N sets SCHEDULER_MEMORY_MAX).
func TestSchedulerSpillBig(t *testing.T) {
	if !*spillBig {
		t.Skip("needs -spill.big")
	}
	t.Setenv("TMPDIR", t.TempDir())
	n := 10_000_000
	goruntime.GC()
	var peakHeap atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			if ms.HeapAlloc > peakHeap.Load() {
				peakHeap.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	kv := map[string]any{}
	if v := os.Getenv("SPILL_BIG_MAX"); v != "" { // another SCHEDULER_MEMORY_MAX than the default
		kv[types.SchedulerMemoryMax] = v
	}
	s := engine.NewMemoryScheduler(settings(t, kv), nil, nil, nil)
	defer s.Close()
	start := time.Now()
	for i := range n {
		if !s.Enqueue(&types.Request{URL: "http://example.com/section/" + strconv.Itoa(i%997) + "/page?id=" + strconv.Itoa(i),
			Callback: "parseItem", Depth: 3, Priority: -(i % 4)}) {
			t.Fatal("dropped")
		}
	}
	enq := time.Since(start)
	start = time.Now()
	for i := range n {
		if s.Next() == nil {
			t.Fatalf("empty after %d", i)
		}
	}
	deq := time.Since(start)
	close(stop)
	<-stopped
	status, _ := os.ReadFile("/proc/self/status")
	hwm := ""
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			hwm = strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	t.Logf("%d requests: %.0f enqueues/s, %.0f dequeues/s, peak Go heap %d MiB, peak RSS %s",
		n, float64(n)/enq.Seconds(), float64(n)/deq.Seconds(), peakHeap.Load()>>20, hwm)
}

// TestCrawlSpill crawls 300 pages with SCHEDULER_MEMORY_MAX=50: the scheduler spills, every
// page is fetched once, and the spill folder is gone when Run returns.
func TestCrawlSpill(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	srv := enginetest.Start(t)
	const pages = 300
	spider := &enginetest.Spider{StartFunc: func(ctx context.Context, emit engine.Emit) error {
		for i := range pages {
			emit(types.Output{Request: &types.Request{URL: fmt.Sprintf("%s/links/%d?total=%d", srv.URL, i, pages)}})
		}
		return nil
	}}
	e, _ := crawl(t, spider, map[string]any{types.SchedulerMemoryMax: 50, types.ConcurrentRequests: 4})
	if got := stat(e, "scheduler/enqueued/disk"); got == 0 {
		t.Fatalf("scheduler/enqueued/disk = 0: no spill (enqueued/memory %d)", stat(e, "scheduler/enqueued/memory"))
	}
	if got := stat(e, "response_received_count"); got != pages {
		t.Fatalf("response_received_count = %d, want %d", got, pages)
	}
	for i := range pages {
		if h := srv.Hits(fmt.Sprintf("/links/%d", i)); h != 1 {
			t.Fatalf("/links/%d fetched %d times", i, h)
		}
	}
	if d := spillDirs(t, tmp); len(d) != 0 {
		t.Fatalf("spill folder left after Run: %v", d)
	}
}
