package job_test

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/engine/frontier/frontiertest"
	"github.com/jscrawl/jscrawl/engine/job"
	"github.com/jscrawl/jscrawl/types"
)

func openJob(t *testing.T, dir string) *job.Job {
	t.Helper()
	j, err := openJobFIFO(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// openJobFIFO opens and binds the job in dir, its queues FIFO or LIFO.
func openJobFIFO(dir string, fifo bool) (*job.Job, error) {
	j, err := job.Open(dir, job.Options{Spider: "s", FIFO: fifo, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	if err := j.Bind(context.Background(), engine.NewStats(), nil, nil); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

func nextURLs(s engine.Scheduler, n int) []string {
	var out []string
	for range n {
		rq := s.Next()
		if rq == nil {
			out = append(out, "")
			continue
		}
		out = append(out, rq.URL)
		s.Done(rq)
	}
	return out
}

// TestSchedulerSlots checks that a job's scheduler queues per host: a waiting host is
// skipped, the slots' queues survive a commit and a reopen, and the status file lists the
// biggest slots.
func TestSchedulerSlots(t *testing.T) {
	dir := t.TempDir()
	j := openJob(t, dir)
	s := j.Scheduler()
	r := frontiertest.NewSlots()
	s.UseSlots(r)
	for i := range 3 {
		for _, h := range []string{"a", "b", "c"}[:3-i] {
			s.Enqueue(&types.Request{URL: fmt.Sprintf("http://%s/%d", h, i)})
		}
	}
	r.Set("a", "wait")
	s.SlotChanged("a")
	if got, want := nextURLs(s, 2), []string{"http://b/1", "http://c/0"}; !slices.Equal(got, want) {
		t.Fatalf("with a waiting: %q, want %q", got, want)
	}
	if n, ready, waiting := s.SlotCounts(); n != 2 || ready != 1 || waiting != 1 {
		t.Fatalf("SlotCounts = %d, %d, %d; want 2, 1, 1", n, ready, waiting)
	}
	if err := j.Commit(context.Background(), engine.Progress{}); err != nil {
		t.Fatal(err)
	}
	st, err := job.ReadStatus(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []frontier.SlotSize{{Slot: "a", Queued: 3}, {Slot: "b", Queued: 1}}
	if st.Slots != 2 || !reflect.DeepEqual(st.TopSlots, want) {
		t.Fatalf("status: %d slots %v; want 2 %v", st.Slots, st.TopSlots, want)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j = openJob(t, dir)
	defer j.Close()
	s = j.Scheduler()
	s.UseSlots(frontiertest.NewSlots())
	if got, want := nextURLs(s, 5), []string{"http://a/2", "http://b/0", "http://a/1", "http://a/0", ""}; !slices.Equal(got, want) {
		t.Fatalf("reopened: %q, want %q", got, want)
	}
}
