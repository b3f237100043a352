package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier/frontiertest"
	"github.com/jscrawl/jscrawl/types"
)

// drain returns the URLs Next hands out until it returns nil.
func drain(s engine.Scheduler) []string {
	var out []string
	for r := s.Next(); r != nil; r = s.Next() {
		out = append(out, r.URL)
	}
	return out
}

// TestMemorySchedulerSlotOrder: the memory scheduler hands out the best request among the
// ready slots (priority first, slots of one priority taking turns), skips slots that wait
// or are busy, reserves the slot of each request it hands out, tells when the first
// waiting slot is due, and takes a busy slot back once told it changed.
func TestMemorySchedulerSlotOrder(t *testing.T) {
	for _, queue := range []string{"lifo", "fifo"} {
		t.Run(queue, func(t *testing.T) {
			s := engine.NewMemoryScheduler(settings(t, map[string]any{types.SchedulerMemoryQueue: queue}), nil, nil, nil)
			later := time.Now().Add(time.Hour)
			f := frontiertest.NewSlots()
			f.Blocked["c.test"], f.Waiting["d.test"] = true, later
			s.UseSlots(f)
			for _, r := range []*types.Request{
				{URL: "http://a.test/1"}, {URL: "http://a.test/2"},
				{URL: "http://b.test/1"}, {URL: "http://b.test/2"},
				{URL: "http://c.test/1", Priority: 9}, // busy: its priority does not hold the others back
				{URL: "http://d.test/1", Priority: 9}, // waiting
				{URL: "http://b.test/3", Priority: 1},
			} {
				s.Enqueue(r)
			}
			if at, ok := s.NextReady(); !ok || !at.Equal(later) {
				t.Errorf("NextReady = %v, %v; want d.test's %v", at, ok, later)
			}
			// One pass with a fake that never changes: each slot stays ready after a take.
			want := []string{"http://b.test/3", "http://a.test/2", "http://b.test/2", "http://a.test/1", "http://b.test/1"}
			if queue == "fifo" {
				want = []string{"http://b.test/3", "http://a.test/1", "http://b.test/1", "http://a.test/2", "http://b.test/2"}
			}
			got := drain(s)
			if !slices.Equal(got, want) {
				t.Errorf("order = %q, want %q", got, want)
			}
			if !slices.Equal(f.Reserved, []string{"b.test", "a.test", "b.test", "a.test", "b.test"}) {
				t.Errorf("reserved = %q", f.Reserved)
			}
			if n := s.Len(); n != 2 {
				t.Errorf("Len = %d, want the 2 of c.test and d.test", n)
			}
			if slots, ready, waiting := s.SlotCounts(); slots != 2 || ready != 0 || waiting != 1 {
				t.Errorf("SlotCounts = %d, %d, %d; want 2 slots, 0 ready, 1 waiting", slots, ready, waiting)
			}
			f.Set("c.test", "ready")
			if got := drain(s); len(got) != 0 {
				t.Errorf("a busy slot came back untold: %q", got)
			}
			s.SlotChanged("c.test")
			if got := drain(s); !slices.Equal(got, []string{"http://c.test/1"}) {
				t.Errorf("after SlotChanged: %q, want c.test's request", got)
			}
			f.Set("d.test", "ready")
			s.Recheck()
			if got := drain(s); !slices.Equal(got, []string{"http://d.test/1"}) {
				t.Errorf("after Recheck: %q, want d.test's request", got)
			}
			if _, ok := s.NextReady(); ok || s.Len() != 0 {
				t.Errorf("NextReady still has a time, or Len = %d", s.Len())
			}
		})
	}
}
