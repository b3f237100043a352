package job_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// gate is a frontier.Readiness like the download slots': a slot runs one download at a
// time (busy from Reserve until the test ends it) and may wait on a delay the test sets.
type gate struct {
	busy    map[string]int
	waiting map[string]bool
	log     []string // the slots reserved
}

func newGate() *gate { return &gate{busy: map[string]int{}, waiting: map[string]bool{}} }

func (g *gate) ReadyAt(key string) (time.Time, bool) {
	if g.busy[key] > 0 {
		return time.Time{}, false
	}
	if g.waiting[key] {
		return time.Now().Add(time.Hour), true
	}
	return time.Time{}, true
}

func (g *gate) Reserve(key string) {
	g.busy[key]++
	g.log = append(g.log, key)
}

// TestSlotParity drives the memory scheduler and a job's (jobdir) scheduler with the same
// random enqueues (hosts, priorities, duplicates, dontFilter), the same slot gates, the
// same downloads ended and delays set and lifted (SlotChanged), and commits of the job:
// both hand out the same requests in the same order and reserve the same slots.
func TestSlotParity(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo=%v", fifo), func(t *testing.T) {
			settings := types.NewSettings()
			if fifo {
				if err := settings.Set(types.SchedulerMemoryQueue, "fifo", 100); err != nil {
					t.Fatal(err)
				}
			}
			mem := engine.NewMemoryScheduler(settings, nil, nil, nil)
			dir := t.TempDir()
			j, err := openJobFIFO(dir, fifo)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			disk := j.Scheduler()
			mg, dg := newGate(), newGate()
			mem.UseSlots(mg)
			disk.UseSlots(dg)
			both := func(f func(s engine.SlotScheduler)) { f(mem); f(disk) }

			rng := rand.New(rand.NewPCG(11, uint64(len(t.Name()))))
			type flight struct{ m, d *types.Request }
			var inflight []flight
			handed := 0
			for op := range 6000 {
				switch x := rng.IntN(100); {
				case x < 45:
					host := fmt.Sprintf("h%d.test", rng.IntN(12))
					rq := &types.Request{
						URL:        fmt.Sprintf("http://%s/%d", host, rng.IntN(300)),
						Priority:   rng.IntN(4) - 1,
						DontFilter: rng.IntN(15) == 0,
					}
					m, d := mem.Enqueue(rq.Copy()), disk.Enqueue(rq.Copy())
					if m != d {
						t.Fatalf("op %d: Enqueue(%s) = %v in memory, %v on disk", op, rq.URL, m, d)
					}
				case x < 75:
					m, d := mem.Next(), disk.Next()
					if (m == nil) != (d == nil) || m != nil && (m.URL != d.URL || m.Priority != d.Priority) {
						t.Fatalf("op %d (after %d handed out): Next = %v in memory, %v on disk", op, handed, m, d)
					}
					if m != nil {
						handed++
						inflight = append(inflight, flight{m, d})
					}
				case x < 92: // a download ends: its slot is free again
					if len(inflight) == 0 {
						break
					}
					i := rng.IntN(len(inflight))
					fl := inflight[i]
					inflight = slices.Delete(inflight, i, i+1)
					key := engine.SlotKey(fl.m)
					mg.busy[key]--
					dg.busy[key]--
					mem.Done(fl.m)
					disk.Done(fl.d)
					both(func(s engine.SlotScheduler) { s.SlotChanged(key) })
				case x < 97: // a delay set or lifted
					key := fmt.Sprintf("h%d.test", rng.IntN(12))
					w := rng.IntN(2) == 0
					mg.waiting[key], dg.waiting[key] = w, w
					both(func(s engine.SlotScheduler) { s.SlotChanged(key) })
				default:
					if err := j.Commit(context.Background(), engine.Progress{}); err != nil {
						t.Fatal(err)
					}
				}
				if mem.Len() != disk.Len() {
					t.Fatalf("op %d: Len = %d in memory, %d on disk", op, mem.Len(), disk.Len())
				}
				var mc, dc [3]int
				mc[0], mc[1], mc[2] = mem.SlotCounts()
				dc[0], dc[1], dc[2] = disk.SlotCounts()
				if mc != dc {
					t.Fatalf("op %d: SlotCounts = %v in memory, %v on disk", op, mc, dc)
				}
			}
			// The end: delays lifted, downloads ended as soon as they start.
			end := func(m, d *types.Request) {
				key := engine.SlotKey(m)
				mg.busy[key]--
				dg.busy[key]--
				mem.Done(m)
				disk.Done(d)
				both(func(s engine.SlotScheduler) { s.SlotChanged(key) })
			}
			for _, fl := range inflight {
				end(fl.m, fl.d)
			}
			// Lifted slot by slot (Recheck files the slots in map order: ties would differ).
			for i := range 12 {
				key := fmt.Sprintf("h%d.test", i)
				mg.waiting[key], dg.waiting[key] = false, false
				both(func(s engine.SlotScheduler) { s.SlotChanged(key) })
			}
			left := mem.Len()
			for {
				m, d := mem.Next(), disk.Next()
				if (m == nil) != (d == nil) || m != nil && m.URL != d.URL {
					t.Fatalf("drain (after %d handed out): Next = %v in memory, %v on disk", handed, m, d)
				}
				if m == nil {
					break
				}
				handed++
				end(m, d)
			}
			if mem.Len() != 0 || disk.Len() != 0 || !slices.Equal(mg.log, dg.log) {
				t.Fatalf("after the drain: Len %d in memory, %d on disk; the slots reserved the same: %v",
					mem.Len(), disk.Len(), slices.Equal(mg.log, dg.log))
			}
			t.Logf("%d requests handed out in the same order, %d of them in the drain", handed, left)
		})
	}
}
