package engine

// This file is what a job (--jobdir) adds to the crawl, as a decorator of the scraper and the
// engine loop: a request's items are exported together once it is Done, progress is
// committed with no item being exported, a callback that took earlier runs down runs alone
// or is given up, and a request whose callback the spider lost is not downloaded. A nil
// *jobCommit is a crawl that is not a job: each method then does what such a crawl does.

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// jobCommit is a job's side of the crawl (WithCommitter).
type jobCommit struct {
	committer  Committer
	log        CallbackLog // nil: the committer keeps no callback log
	every      time.Duration
	retryTimes int
	feeds      *feedSink
	spider     Spider
	stats      *Stats
	logger     *slog.Logger

	// Owned by the engine goroutine.
	commitErr bool // a commit failed: later failures are counted, not logged again
	// logging counts the callbacks recorded as running; a suspect one (running when an
	// earlier run died) runs alone, the others wait in held meanwhile.
	logging        int
	suspectRunning bool
	held           []heldParse
}

// heldParse is a callback of a job waiting for a suspect callback (one that was running when
// an earlier run of the job died) to end, or a suspect waiting for the others to end.
type heldParse struct {
	start   func()
	suspect bool
}

// admits reports whether the spider still has req's callback (and errback). A job's
// request whose callback an edited spider lost is an error, counted in
// jobdir/missing_callback, and Done: it is not downloaded.
func (j *jobCommit) admits(sched Scheduler, req *types.Request) bool {
	if j == nil {
		return true
	}
	hc, ok := j.spider.(interface{ HasCallback(name string) bool })
	if !ok {
		return true
	}
	for _, name := range []string{req.CallbackName(), req.Errback} {
		if name != "" && !hc.HasCallback(name) {
			j.stats.Inc("jobdir/missing_callback", 1)
			j.logger.Error(fmt.Sprintf("Request %s of the job names the method %s, which the spider no longer has: not downloaded", reqString(req), name))
			sched.Done(req)
			return false
		}
	}
	return true
}

// died reports whether l's callback is not to run again: it was running when more than
// RETRY_TIMES earlier runs died (the job forgets it then, and l.died says how many);
// suspect, whether it was running when one did.
func (j *jobCommit) died(l *requestLife) (giveUp, suspect bool) {
	if j == nil || j.log == nil || l == nil {
		return false, false
	}
	l.died = j.log.CallbackDied(l.req)
	if l.died > j.retryTimes {
		j.log.CallbackStarted(l.req) // and ended: the job forgets it
		j.log.CallbackEnded(l.req)
		return true, false
	}
	return false, l.died > 0
}

// run runs parse, l's callback, recorded in the callback log: a suspect callback runs
// alone, so a run it takes down again takes no other callback with it (CallbackLog).
func (j *jobCommit) run(l *requestLife, suspect bool, parse func()) {
	if j == nil || j.log == nil || l == nil {
		parse()
		return
	}
	start := func() {
		j.log.CallbackStarted(l.req)
		l.logged, l.suspect = true, suspect
		j.logging++
		j.suspectRunning = j.suspectRunning || suspect
		parse()
	}
	if j.suspectRunning || len(j.held) > 0 || (suspect && j.logging > 0) {
		j.held = append(j.held, heldParse{start: start, suspect: suspect})
		return
	}
	start()
}

// ended records the end of l's callback or errback call, and starts the held callbacks
// that may run now, in order.
func (j *jobCommit) ended(l *requestLife) {
	if j == nil || !l.logged {
		return
	}
	l.logged = false
	j.log.CallbackEnded(l.req)
	j.logging--
	if l.suspect {
		l.suspect, j.suspectRunning = false, false
	}
	for len(j.held) > 0 && !j.suspectRunning {
		h := j.held[0]
		if h.suspect && j.logging > 0 {
			return
		}
		j.held[0] = heldParse{}
		j.held = j.held[1:]
		h.start()
	}
}

// done exports the items of l's request and tells sched it is Done, with no
// commit in between; it returns the items exported, for item_scraped.
func (j *jobCommit) done(sched Scheduler, l *requestLife) []readyItem {
	if j == nil {
		sched.Done(l.req)
		return nil
	}
	j.feeds.mu.Lock()
	held := l.held
	l.held = nil
	var ready []readyItem
	for _, r := range held {
		if j.feeds.exportOne(r.item) {
			ready = append(ready, r)
		}
	}
	sched.Done(l.req)
	j.feeds.mu.Unlock()
	return ready
}

// ticker returns the channel of the periodic commits (nil: none) and its stop.
func (j *jobCommit) ticker() (<-chan time.Time, func()) {
	if j == nil || j.every <= 0 {
		return nil, func() {}
	}
	t := time.NewTicker(j.every)
	return t.C, t.Stop
}

// commit asks the committer to save the job's progress, with no item being exported. It
// reports whether it was saved; a failure is counted (jobdir/commit_error_count) and logged
// once.
func (j *jobCommit) commit(ctx context.Context, p Progress) bool {
	if j == nil {
		return true
	}
	j.feeds.mu.Lock()
	err := j.committer.Commit(ctx, p)
	j.feeds.mu.Unlock()
	if err != nil {
		j.stats.Inc("jobdir/commit_error_count", 1)
		if !j.commitErr {
			j.logger.Error(fmt.Sprintf("Could not save the job's progress: %v", err))
		}
		j.commitErr = true
		return false
	}
	return true
}
