package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// fakeSlots is a frontier.Readiness the test sets: a slot listed in busy is blocked, one in
// until waits until its time; every other slot is ready. It records the reservations.
type fakeSlots struct {
	busy     map[string]bool
	until    map[string]time.Time
	reserved []string
}

func (f *fakeSlots) ReadyAt(key string) (time.Time, bool) {
	if f.busy[key] {
		return time.Time{}, false
	}
	return f.until[key], true
}

func (f *fakeSlots) Reserve(key string) { f.reserved = append(f.reserved, key) }

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
			f := &fakeSlots{busy: map[string]bool{"c.test": true}, until: map[string]time.Time{"d.test": later}}
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
			if !slices.Equal(f.reserved, []string{"b.test", "a.test", "b.test", "a.test", "b.test"}) {
				t.Errorf("reserved = %q", f.reserved)
			}
			if n := s.Len(); n != 2 {
				t.Errorf("Len = %d, want the 2 of c.test and d.test", n)
			}
			if slots, ready, waiting := s.SlotCounts(); slots != 2 || ready != 0 || waiting != 1 {
				t.Errorf("SlotCounts = %d, %d, %d; want 2 slots, 0 ready, 1 waiting", slots, ready, waiting)
			}
			f.busy["c.test"] = false
			if got := drain(s); len(got) != 0 {
				t.Errorf("a busy slot came back untold: %q", got)
			}
			s.SlotChanged("c.test")
			if got := drain(s); !slices.Equal(got, []string{"http://c.test/1"}) {
				t.Errorf("after SlotChanged: %q, want c.test's request", got)
			}
			f.until["d.test"] = time.Time{}
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
