package engine

// This file follows each scheduled request from the moment the scheduler hands it out to
// the moment it is Done, in one place: requestLife holds its state and what still holds it
// open, settle is the one place where it ends.

import (
	"context"
	"errors"
	"fmt"

	"github.com/jscrawl/jscrawl/types"
)

// lifeState is where a scheduled request is in its life.
type lifeState uint8

const (
	lifeDownloading lifeState = iota // taken from the scheduler, being downloaded
	lifeProcessing                   // downloaded (or failed): with the spider and the pipelines
	lifeDone                         // Done: the scheduler was told
)

// requestLife is one scheduled request's life. The engine goroutine owns it; worker
// goroutines carry it in their events.
type requestLife struct {
	req   *types.Request // as Next returned it
	state lifeState
	calls int         // its callback and errback calls running
	items int         // items it produced still before or in the pipelines
	held  []readyItem // a job's items out of the pipelines, exported when it is Done (feeds.mu)
	// A job's callback log (jobCommit): logged, its callback's start was recorded and its
	// end not yet; suspect, it was running when an earlier run of the job died; died, how
	// many runs did.
	logged, suspect bool
	died            int
}

// lives are the scheduled requests between Next and Done.
type lives map[*types.Request]*requestLife

// begin starts the life of req, which Next returned.
func (ls lives) begin(req *types.Request) *requestLife {
	l := &requestLife{req: req}
	ls[req] = l
	return l
}

// settle ends l's life once nothing holds it any more (its calls returned, its items left
// the pipelines): a job's items of it are exported and the scheduler is told it is Done.
// Every path of a scheduled request ends here. l nil is a request not from the scheduler.
func (e *Engine) settle(ctx context.Context, l *requestLife) {
	if l == nil || l.calls > 0 || l.items > 0 || l.state == lifeDone {
		return
	}
	l.state = lifeDone
	delete(e.lives, l.req)
	e.scraper.scraped(ctx, e.job.done(e.sched, l))
}

// downloaded routes a finished download: to the scheduler again (a middleware replaced
// the request), to the spider (a response, an errback), or to its end.
func (e *Engine) downloaded(ctx context.Context, req *types.Request, resp *types.Response, err error) {
	l := e.lives[req]
	if l != nil {
		l.state = lifeProcessing
	}
	if l != nil && !e.holds(req) {
		// Another worker took the request over (this one was paused or cut off longer
		// than its lease): it processes the response, this one does not.
		ClosePage(resp)
		e.stats.Inc("frontier/responses_lease_lost", 1)
		e.logger.Warn(fmt.Sprintf("Not processing %s: its lease expired and went to another worker", reqString(req)))
		e.settle(ctx, l)
		return
	}
	var re *RescheduleError
	if errors.As(err, &re) {
		// A middleware replaced the request: schedule the replacement (the duplicate filter
		// applies unless it has dontFilter).
		e.schedule(ctx, l, re.Request)
		e.settle(ctx, l)
		return
	}
	if err != nil {
		if ctx.Err() != nil {
			return // hard stop: the request stays leased, a resumed job downloads it again
		}
		if e.stop.abortCtx.Err() != nil && ErrorName(err) == NameCancelled {
			e.logger.Debug(fmt.Sprintf("Aborted %s: SHUTDOWN_TIMEOUT", reqString(req)))
			return // as a hard stop
		}
		if errors.Is(err, ErrIgnoreRequest) {
			e.logger.Debug(fmt.Sprintf("Ignoring request %s: %v", reqString(req), err))
		} else {
			e.logger.Error(fmt.Sprintf("Error downloading %s: %v", reqString(req), err))
		}
		e.scraper.failed(ctx, l, req, err)
		return
	}
	e.sig.send(ctx, SignalEvent{Signal: ResponseReceived, Response: resp, Request: req})
	if e.cfg.pageLimit > 0 && e.stats.Int("response_received_count") >= e.cfg.pageLimit {
		e.closeWith("closespider_pagecount")
	}
	e.scraper.respond(ctx, l, resp)
}

// schedule enqueues req, produced while processing l's request (nil: from start() or
// outside a callback), and sends request_scheduled or request_dropped.
func (e *Engine) schedule(ctx context.Context, l *requestLife, req *types.Request) {
	if e.enqueue(l, req) {
		e.sig.send(ctx, SignalEvent{Signal: RequestScheduled, Request: req})
	} else {
		e.sig.send(ctx, SignalEvent{Signal: RequestDropped, Request: req})
	}
}

// enqueue schedules req, produced while processing l's request, through EnqueueFrom when
// the scheduler leases its requests.
func (e *Engine) enqueue(l *requestLife, req *types.Request) bool {
	if e.parts.Leases != nil && l != nil {
		return e.parts.Leases.EnqueueFrom(l.req, req)
	}
	return e.sched.Enqueue(req)
}

// holds reports whether the scheduler still holds the lease of req (always, but for a
// LeaseScheduler). Safe from any goroutine.
func (e *Engine) holds(req *types.Request) bool {
	return e.parts.Leases == nil || e.parts.Leases.Holds(req)
}
