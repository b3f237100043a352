package engine

// This file is the engine loop (Scrapy: ExecutionEngine): the lifecycle of the crawl, and
// the engine goroutine's pass of handling the inbox, routing outputs to the scheduler and
// the scraper, and starting downloads while there is room.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// Run runs the crawl and blocks until it ends: when the scheduler is empty and nothing is
// downloading, being parsed (Start included) or in a pipeline; after CloseSpider or a
// CLOSESPIDER_* limit; or when ctx is cancelled (a hard stop: downloads in flight are
// cancelled and Run waits for every goroutine, finish_reason "shutdown"). The spider,
// pipelines and exporters are closed in every case. Run returns nil for a crawl that ran,
// even with errors, and an error only if it could not run (Spider.Open or a pipeline's Open
// failed, or Run was called twice). While the crawl runs, the memory watcher (MEMUSAGE_*)
// checks the process's memory: past MEMUSAGE_LIMIT_MB it interrupts the spider (when it is
// an Interrupter) and closes with finish_reason memusage_exceeded, which nothing overrides.
func (e *Engine) Run(ctx context.Context) error {
	if !e.in.begin() {
		return errors.New("run engine: already run")
	}
	ctx, e.stop.hardStop = context.WithCancel(ctx)
	defer e.stop.hardStop()
	context.AfterFunc(ctx, func() { close(e.stop.stopped) })

	start := time.Now()
	e.stats.Set("start_time", start.UTC().Format(time.RFC3339))
	e.sig.send(ctx, SignalEvent{Signal: EngineStarted})
	if err := e.scraper.open(ctx); err != nil {
		e.scraper.feeds.close()
		return err
	}
	e.logger.Info("Spider opened")
	e.sig.send(ctx, SignalEvent{Signal: SpiderOpened})

	stopMem := e.watchMemory()
	// A resumed job's stats hold the items of its earlier runs: CLOSESPIDER_ITEMCOUNT
	// counts them too.
	f := e.scraper.feeds
	f.mu.Lock()
	f.stored = e.stats.Int("item_scraped_count")
	f.mu.Unlock()
	e.crawl(ctx)
	e.scraper.parseWorkers.stop()
	e.scraper.itemWorkers.stop()
	e.wg.Wait()
	stopMem()
	if err := e.dl.close(); err != nil {
		e.logger.Debug(fmt.Sprintf("Closing the download handlers: %v", err))
	}
	e.in.end()
	e.finish(ctx, start)
	if ms := e.parts.memory; ms != nil {
		if err := ms.Close(); err != nil {
			e.logger.Warn("Could not remove the scheduler's spill folder", "error", err)
		}
	}
	return nil
}

// crawl is the engine goroutine's loop.
func (e *Engine) crawl(ctx context.Context) {
	startCtx, cancelStart := context.WithCancel(ctx)
	e.cancelStart = cancelStart
	defer cancelStart()
	defer e.stop.clock.stop()
	// Scheduled downloads see the stopping channel and end when abortCtx does.
	dlCtx, cancelDl := context.WithCancel(withStopping(ctx, e.stop.stopping))
	defer cancelDl()
	defer context.AfterFunc(e.stop.abortCtx, cancelDl)()
	e.lives = lives{}
	downloadWorkers := &workers{}
	defer downloadWorkers.stop()
	start := e.parts.wrapStart(e.spider.Start)
	if !e.startDone {
		e.starting = true
		e.wg.Go(func() {
			err := start(startCtx, e.emitStart())
			e.in.post(event{kind: evStartDone, err: err})
		})
	}
	commitTick, stopCommits := e.job.ticker()
	defer stopCommits()
	var timeout <-chan time.Time
	if d := e.cfg.closeTimeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	var logTick <-chan time.Time
	ls := logStats{e: e, interval: e.cfg.logEvery}
	if ls.interval > 0 {
		t := time.NewTicker(ls.interval)
		defer t.Stop()
		logTick = t.C
		ls.log()
	}

	// With a SlotScheduler, a timer for the first slot waiting out its delay.
	readyTimer := time.NewTimer(time.Hour)
	readyTimer.Stop()
	defer readyTimer.Stop()
	var readyC, slotTick <-chan time.Time
	if e.slotw != nil {
		// The slots' stats and snapshot (Slots) stay fresh while the engine waits.
		t := time.NewTicker(time.Second)
		defer t.Stop()
		slotTick = t.C
	}
	sharedWake := e.parts.wake()
	for {
		e.drain(ctx)
		e.admit(dlCtx, downloadWorkers)
		readyC = nil
		if !e.closing {
			if at, ok := e.slotw.nextReady(); ok {
				readyTimer.Reset(max(time.Until(at), 0))
				readyC = readyTimer.C
			}
		}
		if e.isIdle() {
			if !e.closing && ctx.Err() != nil {
				// A hard stop whose cancelled work all finished before the loop saw ctx end.
				e.closeWith("shutdown")
				return
			}
			if e.closing {
				return
			}
			switch {
			case e.idle.held():
				// A spider_idle handler's work is pending, or DontCloseSpider: wait.
			case !e.idle.sent:
				e.idle.sent = true
				if e.sig.send(ctx, SignalEvent{Signal: SpiderIdle}) {
					e.idle.dontClose()
				}
				continue
			case e.parts.settled():
				e.reason = "finished"
				return
			default:
				// Other processes of the crawl may still schedule requests: wait for them,
				// sending spider_idle again on the next pass.
				e.idle.sent = false
			}
		} else {
			e.idle.sent = false
		}
		select {
		case <-readyC:
		case <-slotTick:
			e.slotw.update(true)
		case <-e.idle.retry:
			e.idle.retried()
		case <-sharedWake:
		case <-e.in.wake:
		case <-ctx.Done():
			e.closeWith("shutdown") // keeps the reason of a close already begun
			return
		case <-e.stop.clock.c():
			e.shutdownTick()
		case <-timeout:
			e.closeWith("closespider_timeout")
		case <-logTick:
			ls.log()
		case <-commitTick:
			if !e.job.commit(ctx, Progress{StartDone: e.startDone}) {
				e.closeWith("jobdir_error")
			}
		}
	}
}

// isIdle reports whether the crawl has nothing left to do.
func (e *Engine) isIdle() bool {
	return (e.closing || e.sched.Len() == 0) && e.downloads == 0 && e.scraper.idle() && !e.starting
}

// closeWith starts a graceful close with reason, unless one has started.
func (e *Engine) closeWith(reason string) {
	if e.closing {
		return
	}
	e.closing = true
	e.reason = reason
	e.cancelStart()
	e.startShutdown()
	e.logger.Info(fmt.Sprintf("Closing spider (%s)", reason))
}

// drain handles every event in the inbox.
func (e *Engine) drain(ctx context.Context) {
	for {
		evs := e.in.take()
		if len(evs) == 0 {
			return
		}
		for i := range evs {
			if evs[i].kind == evOutput && evs[i].out.Request != nil {
				e.in.reqs.Add(-1)
			}
			e.handle(ctx, &evs[i])
			evs[i] = event{}
		}
		e.in.give(evs)
		e.scraper.startItems(ctx)
	}
}

func (e *Engine) handle(ctx context.Context, ev *event) {
	switch ev.kind {
	case evOutput:
		e.route(ctx, ev.parent, ev.life, ev.out, ev.chained)
	case evDownloaded:
		e.downloads--
		e.downloaded(ctx, ev.req, ev.resp, ev.err)
	case evParsed:
		if e.scraper.parsed(ctx, ev) {
			e.closeWith("closespider_errorcount")
		}
	case evItemDone:
		e.scraper.itemDone(ctx, ev)
		if e.cfg.itemLimit > 0 && e.stats.Int("item_scraped_count") >= e.cfg.itemLimit {
			e.closeWith("closespider_itemcount")
		}
	case evStartDone:
		e.starting = false
		e.startDone = ev.err == nil
		e.parts.startDone(ev.err)
		if ev.err != nil && !errors.Is(ev.err, context.Canceled) {
			e.scraper.spiderError(ctx, "Error while obtaining start requests", ev.err, nil)
			e.scraper.spiderErrors++
		}
	case evClose:
		e.closeWith(ev.reason)
	case evIdleDone:
		e.idle.done(ev)
	case evSlots:
		e.slotw.tell()
	}
}

// route hands one output to the scraper (an item) or through the rest of the spider output
// chain to the scheduler (a request). A chained output passed the spider's part of the
// chain.
func (e *Engine) route(ctx context.Context, parent *types.Response, l *requestLife, out types.Output, chained bool) {
	if out.Request == nil {
		if out.Item != nil {
			e.scraper.queueItem(out.Item, parent, l)
		}
		return
	}
	if e.closing && e.job == nil && !(e.parts.Shared != nil) {
		// A job keeps them (a paused job resumes with them), and so does a shared crawl
		// (its other workers take them): the parent's lease is acknowledged after.
		return
	}
	req, scheduled := e.chain.run(ctx, parent, out, chained, func(req *types.Request) bool { return e.enqueue(l, req) })
	switch {
	case req == nil:
	case scheduled:
		e.sig.send(ctx, SignalEvent{Signal: RequestScheduled, Request: req})
	default:
		e.sig.send(ctx, SignalEvent{Signal: RequestDropped, Request: req})
	}
}

// admit starts downloads while there is room (Scrapy: needs_backout).
func (e *Engine) admit(ctx context.Context, w *workers) {
	defer func() {
		e.in.schedLen.Store(int64(e.sched.Len()))
		e.in.drop.notify()
		e.slotw.update(false)
	}()
	rechecked := false
	for !e.closing && e.downloads < e.cfg.maxDownloads && e.scraper.parsing < e.cfg.maxParsing {
		// CLOSESPIDER_PAGECOUNT: start no more downloads than could still be counted, so the
		// crawl stops at the count instead of overshooting by the downloads in flight.
		if e.cfg.pageLimit > 0 && e.stats.Int("response_received_count")+int64(e.downloads) >= e.cfg.pageLimit {
			if e.downloads == 0 { // reached by inline downloads
				e.closeWith("closespider_pagecount")
			}
			return
		}
		req := e.sched.Next()
		if req == nil {
			// Nothing in flight yet every slot with work seemed busy: ask again (a change the
			// slots reported may have been missed, or an inline download held the slot).
			if e.downloads == 0 && !rechecked && e.sched.Len() > 0 && e.slotw.recheck() {
				rechecked = true
				continue
			}
			return
		}
		dctx := ctx
		var res *slotReservation
		if e.slotw != nil {
			dctx, res = e.dl.slots.withReservation(ctx, SlotKey(req))
		}
		if !e.job.admits(e.sched, req) {
			e.dl.slots.unreserve(res)
			continue
		}
		e.lives.begin(req)
		e.downloads++
		w.run(&e.wg, e.cfg.maxDownloads, func() {
			resp, err := e.dl.downloader.Fetch(dctx, req)
			e.dl.slots.unreserve(res)
			if err == nil {
				e.dl.received(ctx, resp)
			}
			e.in.post(event{kind: evDownloaded, req: req, resp: resp, err: err})
		})
	}
}
