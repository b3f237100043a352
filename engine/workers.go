package engine

import (
	"sync"
	"sync/atomic"
)

// workers runs the engine's jobs (downloads, callbacks, items) on goroutines that outlive
// a job: a job handed to a waiting worker costs a channel hand-off, where a goroutine of
// its own would cost its start and the growth of its stack, anew for every job. At most
// limit workers are kept; a job that finds them all busy gets a goroutine of its own, so
// no job ever waits for a worker.
type workers struct {
	jobs    chan func()  // to the workers that were claimed (idle); never full
	idle    atomic.Int64 // workers waiting for a job that no job has claimed yet
	started int          // workers started: the engine goroutine's count
}

// run starts job at once: on a waiting worker, else on a new one while fewer than limit
// run, else on a goroutine of its own. The engine goroutine is the only caller.
func (w *workers) run(wg *sync.WaitGroup, limit int, job func()) {
	if w.jobs == nil {
		w.jobs = make(chan func(), limit)
	}
	if w.idle.Add(-1) >= 0 {
		// Claimed a waiting worker; no more jobs are in the channel than workers were
		// claimed, so the send does not block.
		w.jobs <- job
		return
	}
	w.idle.Add(1)
	if w.started < limit {
		w.started++
		wg.Go(func() { w.work(job) })
		return
	}
	wg.Go(job)
}

// work runs job, then the jobs it is handed, until stop.
func (w *workers) work(job func()) {
	for {
		job()
		w.idle.Add(1)
		next, ok := <-w.jobs
		if !ok {
			return
		}
		job = next
	}
}

// stop lets the workers end once the jobs handed out are done. The engine calls it when
// its loop has ended, before it waits for its goroutines.
func (w *workers) stop() {
	if w.jobs != nil {
		close(w.jobs)
	}
}
