package engine

import (
	"sync"
	"testing"
	"time"
)

// TestWorkers checks that a job handed to workers starts at once whatever the limit (jobs
// past it get goroutines of their own), that a worker done with its job takes the next
// one instead of a new goroutine starting, and that stop ends the workers.
func TestWorkers(t *testing.T) {
	var w workers
	var wg sync.WaitGroup
	// Two jobs that hold each other up, with a limit of one worker: both must run at once.
	met := make(chan struct{}, 2)
	both := make(chan struct{})
	var once sync.Once
	hold := func() {
		met <- struct{}{}
		if len(met) == 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			t.Error("a job waited for a worker")
		}
	}
	w.run(&wg, 1, hold)
	w.run(&wg, 1, hold)
	<-both
	waitIdle(t, &w, 1)
	if w.started != 1 {
		t.Fatalf("started %d workers, want 1 (the second job past the limit runs on its own goroutine)", w.started)
	}
	// The idle worker takes the next jobs, one after the other.
	for i := range 3 {
		done := make(chan struct{})
		w.run(&wg, 1, func() { close(done) })
		<-done
		waitIdle(t, &w, 1)
		if w.started != 1 {
			t.Fatalf("job %d: started %d workers, want the idle one reused", i, w.started)
		}
	}
	w.stop()
	wg.Wait() // hangs if a worker does not end
}

// waitIdle waits until n workers are idle.
func waitIdle(t *testing.T, w *workers, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.idle.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d workers idle, want %d", w.idle.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
