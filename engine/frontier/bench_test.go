package frontier_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// cpuTime returns the CPU time the process used so far (user and system): a benchmark's
// cpu-ns/op, steadier than ns/op on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64(cpuTime()-since)/float64(b.N), "cpu-ns/op")
}

var big = flag.Bool("frontier.big", false, "run TestBig: 10 million requests enqueued then drained")

// bigSize skips a big test unless -frontier.big is set, and returns its size: the
// environment variable env when set, else def.
func bigSize(t *testing.T, env string, def int) int {
	t.Helper()
	if !*big {
		t.Skip("needs -frontier.big")
	}
	if s := os.Getenv(env); s != "" {
		def, _ = strconv.Atoi(s)
	}
	return def
}

func benchReq(i int) *types.Request {
	return &types.Request{
		URL:      "http://example.com/section/" + strconv.Itoa(i%997) + "/page?id=" + strconv.Itoa(i),
		Callback: "parseItem",
		Depth:    3,
		Priority: -(i % 4),
	}
}

// BenchmarkEnqueue measures enqueues of new requests (fingerprint, seen-set, store),
// with a commit every 10,000.
func BenchmarkEnqueue(b *testing.B) {
	benchEnqueue(b, frontier.Options{}, benchReq)
}

// benchEnqueue measures enqueues of the requests req makes into a frontier opened with
// opts, with a commit every 10,000.
func benchEnqueue(b *testing.B, opts frontier.Options, req func(int) *types.Request) {
	f := open(b, b.TempDir(), opts)
	defer f.Close()
	reqs := make([]*types.Request, 10000)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		if i%len(reqs) == 0 {
			b.StopTimer()
			for j := range reqs {
				reqs[j] = req(i + j)
			}
			b.StartTimer()
			if err := f.Commit(nil); err != nil {
				b.Fatal(err)
			}
		}
		if !f.Enqueue(reqs[i%len(reqs)]) {
			b.Fatal("dropped")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "enqueues/s")
	reportCPU(b, cpu0)
}

// BenchmarkDequeue measures Next+Done from a store of b.N requests written to disk, with a
// commit every 10,000.
func BenchmarkDequeue(b *testing.B) {
	benchDequeue(b, frontier.Options{}, benchReq)
}

// benchDequeue measures Next+Done, LIFO and FIFO, from a store opened with opts that holds
// b.N requests req made, written to disk, with a commit every 10,000.
func benchDequeue(b *testing.B, opts frontier.Options, req func(int) *types.Request) {
	for _, fifo := range []bool{false, true} {
		b.Run(fmt.Sprintf("fifo=%v", fifo), func(b *testing.B) {
			opts.FIFO = fifo
			f := open(b, b.TempDir(), opts)
			defer f.Close()
			for i := range b.N {
				f.Enqueue(req(i))
			}
			if err := f.Commit(nil); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := range b.N {
				r := f.Next()
				if r == nil {
					b.Fatal("empty")
				}
				f.Done(r)
				if i%10000 == 9999 {
					if err := f.Commit(nil); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "dequeues/s")
			reportCPU(b, cpu0)
		})
	}
}

// memPeak samples the Go heap while a test runs, and reads the peak RSS at the end.
type memPeak struct {
	heap atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func startMemPeak() *memPeak {
	m := &memPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			if ms.HeapAlloc > m.heap.Load() {
				m.heap.Store(ms.HeapAlloc)
			}
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *memPeak) end() (heap, hwm uint64) {
	close(m.stop)
	<-m.done
	return m.heap.Load(), vmHWM()
}

// vmHWM returns the process's peak resident set in bytes (Linux).
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == "VmHWM:" {
			kb, _ := strconv.ParseUint(string(f[1]), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// enqueueAll enqueues the n requests req makes into f, committing every 100,000 and at
// the end, and returns how long it took.
func enqueueAll(t *testing.T, f *frontier.Frontier, n int, req func(int) *types.Request) time.Duration {
	start := time.Now()
	for i := range n {
		if !f.Enqueue(req(i)) {
			t.Fatal("dropped")
		}
		if i%100000 == 99999 {
			if err := f.Commit(nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Commit(nil); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// drainAll takes n requests from f with Next and Done, committing every 100,000, calling
// each (if not nil) after the i-th, and returns how long it took.
func drainAll(t *testing.T, f *frontier.Frontier, n int, each func(i int)) time.Duration {
	start := time.Now()
	for i := range n {
		r := f.Next()
		if r == nil {
			t.Fatalf("empty after %d: %v", i, f.Err())
		}
		f.Done(r)
		if i%100000 == 99999 {
			if err := f.Commit(nil); err != nil {
				t.Fatal(err)
			}
		}
		if each != nil {
			each(i)
		}
	}
	return time.Since(start)
}

// TestBig enqueues 10 million distinct requests, then drains them, committing every
// 100,000 operations, and reports rates, peak Go heap and peak RSS (VmHWM). Run it alone:
//
//	go test -run TestBig -frontier.big -v ./engine/frontier/
func TestBig(t *testing.T) {
	n := bigSize(t, "FRONTIER_BIG_N", 10_000_000)
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo=%v", fifo), func(t *testing.T) {
			goruntime.GC()
			mp := startMemPeak()
			f := open(t, t.TempDir(), frontier.Options{FIFO: fifo, Sync: true})
			defer f.Close()
			enq := enqueueAll(t, f, n, benchReq)
			deq := drainAll(t, f, n, nil)
			heap, hwm := mp.end()
			t.Logf("%d requests: %.0f enqueues/s, %.0f dequeues/s, peak Go heap %d MiB, peak RSS %d MiB",
				n, float64(n)/enq.Seconds(), float64(n)/deq.Seconds(), heap>>20, hwm>>20)
			if f.Len() != 0 || f.SeenCount() != int64(n) {
				t.Fatalf("len %d, seen %d", f.Len(), f.SeenCount())
			}
		})
	}
}

// slotReq is benchReq in one of slots hosts.
func slotReq(i, slots int) *types.Request {
	return &types.Request{
		URL:      "http://h" + strconv.Itoa(i%slots) + ".example.com/section/" + strconv.Itoa(i%997) + "/page?id=" + strconv.Itoa(i),
		Callback: "parseItem",
		Depth:    3,
		Priority: -(i % 4),
	}
}

// BenchmarkDequeueSlots is BenchmarkDequeue with the requests in 10,000 slots
// (engine.SlotKey), all ready: the slots take turns, so each Next pops another slot.
func BenchmarkDequeueSlots(b *testing.B) {
	benchDequeue(b, frontier.Options{SlotKey: engine.SlotKey}, func(i int) *types.Request { return slotReq(i, 10000) })
}

// BenchmarkEnqueueSlots is BenchmarkEnqueue with the requests in 10,000 slots.
func BenchmarkEnqueueSlots(b *testing.B) {
	benchEnqueue(b, frontier.Options{SlotKey: engine.SlotKey}, func(i int) *types.Request { return slotReq(i, 10000) })
}

// TestBigSlots is TestBig with the requests in 10,000 slots (FRONTIER_BIG_SLOTS): it
// also reports the Go heap once every slot holds requests (after a GC) and half-way
// through the drain, while the slots take turns; the same run with
// FRONTIER_BIG_SLOTS=1 gives what does not depend on the slots.
//
//	go test -run TestBigSlots -frontier.big -v ./engine/frontier/
//
// Measured (2 CPUs shared with other work, load 4 to 9), LIFO / FIFO:
//
//	10M requests, 10,000 slots: 119k / 109k enqueues/s, 21k / 18k dequeues/s (the slots
//	taking turns: a read from the store for every few requests); Go heap after a GC 14
//	MiB once queued, 28 / 27 MiB half drained (read-ahead included); peak Go heap 136 /
//	144 MiB, peak RSS 316 / 335 MiB.
//	10M requests, 1 slot: 99k / 117k enqueues/s, 693k / 635k dequeues/s; Go heap 9 MiB
//	once queued, 8 / 7 MiB half drained; peak Go heap 33 / 35 MiB, peak RSS 154 / 175 MiB.
//
// That is about 500 B of heap a slot once queued (1.5 KB with its share of the 16 MiB
// read-ahead while the slots take turns).
func TestBigSlots(t *testing.T) {
	n := bigSize(t, "FRONTIER_BIG_N", 10_000_000)
	slots := bigSize(t, "FRONTIER_BIG_SLOTS", 10_000)
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo=%v", fifo), func(t *testing.T) {
			goruntime.GC()
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			mp := startMemPeak()
			f := open(t, t.TempDir(), frontier.Options{FIFO: fifo, Sync: true, SlotKey: engine.SlotKey})
			defer f.Close()
			enq := enqueueAll(t, f, n, func(i int) *types.Request { return slotReq(i, slots) })
			heapOf := func() uint64 {
				goruntime.GC()
				goruntime.ReadMemStats(&ms)
				return ms.HeapAlloc - base
			}
			queued := heapOf()
			var turning uint64
			deq := drainAll(t, f, n, func(i int) {
				if i == n/2 {
					turning = heapOf()
				}
			})
			heap, hwm := mp.end()
			t.Logf("%d requests in %d slots: %.0f enqueues/s, %.0f dequeues/s, peak Go heap %d MiB, peak RSS %d MiB; "+
				"Go heap once queued %d MiB (%d B a slot, bloom filter included), half drained %d MiB (%d B a slot)",
				n, slots, float64(n)/enq.Seconds(), float64(n)/deq.Seconds(), heap>>20, hwm>>20,
				queued>>20, queued/uint64(slots), turning>>20, turning/uint64(slots))
			if f.Len() != 0 || f.SeenCount() != int64(n) {
				t.Fatalf("len %d, seen %d", f.Len(), f.SeenCount())
			}
		})
	}
}
