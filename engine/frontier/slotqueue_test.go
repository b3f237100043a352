package frontier_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/engine/frontier/frontiertest"
	"github.com/jscrawl/jscrawl/types"
)

// sreq is a request of host slot with priority prio.
func sreq(slot string, n, prio int) *types.Request {
	return &types.Request{URL: fmt.Sprintf("http://%s/%d", slot, n), Priority: prio}
}

// slotStep is one step of TestSlotOrder: enqueue, set slots' states (then SlotChanged on
// each), and take len(next) requests, "" for none.
type slotStep struct {
	enq  []*types.Request
	set  map[string]string
	next []string
}

// TestSlotOrder checks the order across slots with a Readiness the test controls.
func TestSlotOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fifo  bool
		steps []slotStep
	}{
		{"equal priorities take turns", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("a", 2, 0), sreq("a", 3, 0), sreq("b", 1, 0), sreq("b", 2, 0), sreq("c", 1, 0)},
				next: []string{"a/3", "b/2", "c/1", "a/2", "b/1", "a/1", ""}},
		}},
		{"turns, fifo within a slot", true, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("a", 2, 0), sreq("b", 1, 0), sreq("b", 2, 0)},
				next: []string{"a/1", "b/1", "a/2", "b/2", ""}},
		}},
		{"a waiting slot is skipped", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("a", 2, 0), sreq("b", 1, 0)},
				set: map[string]string{"a": "wait"}, next: []string{"b/1", ""}},
			{set: map[string]string{"a": "ready"}, next: []string{"a/2", "a/1", ""}},
		}},
		{"a higher priority of a ready slot goes first", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("a", 2, 0), sreq("b", 1, 5), sreq("c", 1, 3)},
				next: []string{"b/1", "c/1", "a/2"}},
			{enq: []*types.Request{sreq("a", 3, -1), sreq("c", 2, 7)}, next: []string{"c/2", "a/1", "a/3", ""}},
		}},
		{"a waiting slot's higher priority waits", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("b", 1, 9)},
				set: map[string]string{"b": "wait"}, next: []string{"a/1", ""}},
			{set: map[string]string{"b": "ready"}, next: []string{"b/1", ""}},
		}},
		{"priorities within a slot", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("a", 2, 2), sreq("a", 3, 1), sreq("b", 1, 1)},
				next: []string{"a/2", "b/1", "a/3", "a/1", ""}}, // b's turn before a's second

		}},
		{"a blocked slot comes back on SlotChanged", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 1), sreq("a", 2, 1), sreq("b", 1, 0), sreq("b", 2, 0)},
				next: []string{"a/2"}},
			{set: map[string]string{"a": "block"}, next: []string{"b/2", "b/1", ""}},
			{enq: []*types.Request{sreq("b", 3, 0)}, next: []string{"b/3", ""}},
			{set: map[string]string{"a": "ready"}, next: []string{"a/1", ""}},
		}},
		{"an emptied slot filled again", false, []slotStep{
			{enq: []*types.Request{sreq("a", 1, 0), sreq("b", 1, 0)}, next: []string{"a/1"}},
			{enq: []*types.Request{sreq("a", 2, 0)}, next: []string{"b/1", "a/2", ""}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, t.TempDir(), frontier.Options{FIFO: tc.fifo, SlotKey: engine.SlotKey})
			defer f.Close()
			r := frontiertest.NewSlots()
			f.UseSlots(r)
			var got, want, handed []string
			for _, st := range tc.steps {
				for _, rq := range st.enq {
					if !f.Enqueue(rq) {
						t.Fatalf("Enqueue(%s) dropped", rq.URL)
					}
				}
				for _, k := range slices.Sorted(mapKeys(st.set)) {
					r.Set(k, st.set[k])
					f.SlotChanged(k)
				}
				for _, w := range st.next {
					var g string
					if rq := f.Next(); rq != nil {
						g = strings.TrimPrefix(rq.URL, "http://")
						handed = append(handed, engine.SlotKey(rq))
						f.Done(rq)
					}
					got, want = append(got, g), append(want, w)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("Next order:\n got %q\nwant %q", got, want)
			}
			if !slices.Equal(r.Reserved, handed) {
				t.Fatalf("reserved %q, handed out %q", r.Reserved, handed)
			}
			if err := f.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestSlotCounts checks SlotCounts, NextReady and SlotSizes.
func TestSlotCounts(t *testing.T) {
	f := open(t, t.TempDir(), frontier.Options{SlotKey: engine.SlotKey})
	defer f.Close()
	r := frontiertest.NewSlots()
	f.UseSlots(r)
	for i, n := range map[string]int{"a": 3, "b": 1, "c": 2, "d": 2} {
		for j := range n {
			f.Enqueue(sreq(i, j, 0))
		}
	}
	r.Set("a", "wait")
	r.Set("b", "block")
	f.Recheck()
	if s, ready, waiting := f.SlotCounts(); s != 4 || ready != 2 || waiting != 1 {
		t.Fatalf("SlotCounts = %d, %d, %d; want 4, 2, 1", s, ready, waiting)
	}
	if at, ok := f.NextReady(); !ok || !at.Equal(r.Waiting["a"]) {
		t.Fatalf("NextReady = %v, %v; want a's time", at, ok)
	}
	want := []frontier.SlotSize{{Slot: "a", Queued: 3}, {Slot: "c", Queued: 2}, {Slot: "d", Queued: 2}}
	if got := f.SlotSizes(3); !reflect.DeepEqual(got, want) {
		t.Fatalf("SlotSizes(3) = %v, want %v", got, want)
	}
	want = append(want, frontier.SlotSize{Slot: "b", Queued: 1})
	for _, n := range []int{10, 0} {
		if got := f.SlotSizes(n); !reflect.DeepEqual(got, want) {
			t.Fatalf("SlotSizes(%d) = %v, want %v", n, got, want)
		}
	}
}

// slotModel is the expected content of a slotted frontier: per slot and priority, the
// requests bottom to top.
type slotModel struct {
	fifo bool
	q    map[string]map[int][]string
}

func (m *slotModel) push(slot string, prio int, url string) {
	if m.q[slot] == nil {
		m.q[slot] = map[int][]string{}
	}
	m.q[slot][prio] = append(m.q[slot][prio], url)
}

// take checks that url of priority prio is what slot must hand out next, and removes it.
func (m *slotModel) take(slot string, prio int, url string) error {
	best, ok := 0, false
	for p, l := range m.q[slot] {
		if len(l) > 0 && (!ok || p > best) {
			best, ok = p, true
		}
	}
	if !ok || best != prio {
		return fmt.Errorf("%s (priority %d): slot %s's best priority is %d (%v)", url, prio, slot, best, ok)
	}
	l := m.q[slot][prio]
	i := len(l) - 1
	if m.fifo {
		i = 0
	}
	if l[i] != url {
		return fmt.Errorf("%s: slot %s priority %d's next is %s", url, slot, prio, l[i])
	}
	m.q[slot][prio] = slices.Delete(l, i, i+1)
	return nil
}

func (m *slotModel) len() int {
	n := 0
	for _, ps := range m.q {
		for _, l := range ps {
			n += len(l)
		}
	}
	return n
}

// TestSlotStorage drives frontiers with random enqueues (many slots, priorities,
// duplicates), slot states, dequeues, commits and reopens: each slot's order is the
// model's (priority, then LIFO or FIFO) whether the requests stay in memory or go through
// the store and a small read-ahead budget, and a frontier that never writes hands out the
// same sequence.
func TestSlotStorage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fifo   bool
		limit  int // BufferLimit
		budget int // read-ahead budget in bytes (0: the default)
		commit int // one op in commit commits (0: never)
		reopen bool
		slots  int
	}{
		{"lifo/spill", false, 5, 0, 0, false, 40},
		{"fifo/spill", true, 5, 0, 0, false, 40},
		{"lifo/budget", false, 3, 1000, 40, false, 40},
		{"fifo/budget", true, 3, 1000, 40, false, 40},
		{"lifo/reopen", false, 3, 1000, 40, true, 40},
		{"fifo/reopen", true, 3, 1000, 40, true, 40},
		// Commits far apart: long ranges of dequeued positions (range tombstones).
		{"lifo/reopen/2 slots", false, 3, 0, 400, true, 2},
		{"fifo/reopen/2 slots", true, 3, 0, 400, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(len(tc.name))))
			dir := t.TempDir()
			opts := frontier.Options{FIFO: tc.fifo, BufferLimit: tc.limit, SlotKey: engine.SlotKey}
			r := frontiertest.NewSlots()
			reopen := func() *frontier.Frontier {
				f := open(t, dir, opts)
				if tc.budget > 0 {
					frontier.SetReadAheadBudget(f, tc.budget)
				}
				f.UseSlots(r)
				return f
			}
			f := reopen()
			defer func() { f.Close() }()
			// ref never writes to its store: its order is the queues' alone.
			var ref *frontier.Frontier
			if !tc.reopen {
				ref = open(t, t.TempDir(), frontier.Options{FIFO: tc.fifo, BufferLimit: 1 << 20, SlotKey: engine.SlotKey})
				defer ref.Close()
				ref.UseSlots(r)
			}
			m := &slotModel{fifo: tc.fifo, q: map[string]map[int][]string{}}
			var leased []*types.Request
			deq := 0
			for op := range 8000 {
				switch x := rng.IntN(100); {
				case x < 50:
					slot := fmt.Sprintf("h%d", rng.IntN(tc.slots))
					rq := &types.Request{URL: fmt.Sprintf("http://%s/%d", slot, rng.IntN(400*40/tc.slots)), Priority: rng.IntN(3) - 1}
					ok := f.Enqueue(rq)
					if ref != nil && ref.Enqueue(rq) != ok {
						t.Fatalf("op %d: Enqueue(%s) differs", op, rq.URL)
					}
					if ok {
						m.push(slot, rq.Priority, rq.URL)
					}
				case x < 55:
					slot := fmt.Sprintf("h%d", rng.IntN(tc.slots))
					r.Set(slot, []string{"ready", "wait", "block"}[rng.IntN(3)])
					f.SlotChanged(slot)
					if ref != nil {
						ref.SlotChanged(slot)
					}
				case x < 90:
					got := f.Next()
					if ref != nil {
						want := ref.Next()
						if (got == nil) != (want == nil) || got != nil && got.URL != want.URL {
							t.Fatalf("op %d: Next = %v, without the store %v", op, got, want)
						}
					}
					if got == nil {
						break
					}
					deq++
					if err := m.take(engine.SlotKey(got), got.Priority, got.URL); err != nil {
						t.Fatalf("op %d: %v", op, err)
					}
					leased = append(leased, got)
				default:
					if len(leased) > 0 {
						i := rng.IntN(len(leased))
						f.Done(leased[i])
						leased = slices.Delete(leased, i, i+1)
					}
				}
				if f.Len() != m.len() {
					t.Fatalf("op %d: Len = %d, model %d", op, f.Len(), m.len())
				}
				if b := tc.budget; b > 0 && frontier.ReadAhead(f) > b+64*16+2*64 { // a read may pass its share by a record

					t.Fatalf("op %d: %d requests read ahead, budget %d", op, frontier.ReadAhead(f), b)
				}
				if tc.commit > 0 && rng.IntN(tc.commit) == 0 {
					if err := f.Commit(nil); err != nil {
						t.Fatal(err)
					}
					if tc.reopen && rng.IntN(max(1, 200/tc.commit)) == 0 {
						if err := f.Close(); err != nil {
							t.Fatal(err)
						}
						f = reopen()
						for _, rq := range leased { // back to pending, in lease order
							m.push(engine.SlotKey(rq), rq.Priority, rq.URL)
						}
						leased = nil
					}
				}
			}
			for k := range r.Waiting {
				r.Set(k, "ready")
			}
			for k := range r.Blocked {
				r.Set(k, "ready")
			}
			f.Recheck()
			for rq := f.Next(); rq != nil; rq = f.Next() {
				if err := m.take(engine.SlotKey(rq), rq.Priority, rq.URL); err != nil {
					t.Fatalf("drain: %v", err)
				}
			}
			if m.len() != 0 || f.Err() != nil || deq < 1000 {
				t.Fatalf("after the drain: model holds %d, err %v, %d dequeued", m.len(), f.Err(), deq)
			}
		})
	}
}

// Interface guards
var (
	_ engine.SlotScheduler = (*frontier.Frontier)(nil)
	_ engine.SlotSizer     = (*frontier.Frontier)(nil)
)

// TestOneSlotReadiness: a frontier without Options.SlotKey keeps its requests in one slot
// "", which is no download slot: a Readiness given to it is not asked.
func TestOneSlotReadiness(t *testing.T) {
	f := open(t, t.TempDir(), frontier.Options{})
	defer f.Close()
	f.Enqueue(sreq("a", 1, 0))
	f.Enqueue(sreq("b", 1, 0))
	r := frontiertest.NewSlots()
	r.Set("", "block")
	r.Set("a", "block")
	r.Set("b", "block")
	f.UseSlots(r)
	f.SlotChanged("")
	f.Recheck()
	if n, ready, waiting := f.SlotCounts(); n != 1 || ready != 1 || waiting != 0 {
		t.Fatalf("SlotCounts = %d, %d, %d; want 1, 1, 0", n, ready, waiting)
	}
	if got := drain(t, f); !slices.Equal(got, []string{"http://b/1", "http://a/1"}) || len(r.Reserved) != 0 {
		t.Fatalf("drained %q, reserved %q", got, r.Reserved)
	}
	if n, _, _ := f.SlotCounts(); n != 0 {
		t.Fatalf("SlotCounts = %d slots once drained", n)
	}
}
