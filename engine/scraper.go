package engine

// This file is the scraper (Scrapy: Scraper): it runs the spider's callbacks and errbacks on
// what the downloader gave, then each item through the pipelines and into the feeds, in the
// order the items were emitted, and sends item_scraped.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

// scraper owns the spider's callbacks and the item path. Its counters belong to the engine
// goroutine; the callbacks and items run on its worker goroutines and report back with post.
type scraper struct {
	spider    Spider
	pipelines []Pipeline
	feeds     *feedSink
	inFilters []SpiderInputFilter
	job       *jobCommit // nil: not a job
	sig       *signalBus
	stats     *Stats
	logger    *slog.Logger
	post      func(event)
	holds     func(*types.Request) bool // the lease of a request is still this process's
	settle    func(context.Context, *requestLife)
	wg        *sync.WaitGroup

	// Owned by the engine goroutine.
	maxParsing, maxItems      int
	parsing, itemsActive      int // callback and errback calls, items, running
	itemQ                     []pendingItem
	itemSeq                   uint64 // sequence number of the next item started
	parseWorkers, itemWorkers workers
	errorLimit, spiderErrors  int64
}

type pendingItem struct {
	item types.Item
	resp *types.Response
	life *requestLife // nil for items of start()
}

// readyItem is an item done with the pipelines; item nil means dropped or failed.
type readyItem struct {
	item types.Item
	resp *types.Response
	life *requestLife
}

// idle reports whether no callback, errback or item is running or waiting.
func (s *scraper) idle() bool {
	return s.parsing == 0 && s.itemsActive == 0 && len(s.itemQ) == 0
}

// itemsInFlight is how many items are in the pipelines or wait for them.
func (s *scraper) itemsInFlight() int { return s.itemsActive + len(s.itemQ) }

// queueItem queues an item l's callback (nil: start()) emitted from resp.
func (s *scraper) queueItem(item types.Item, resp *types.Response, l *requestLife) {
	s.itemQ = append(s.itemQ, pendingItem{item: item, resp: resp, life: l})
	if l != nil {
		l.items++
	}
}

// respond hands a downloaded response to the spider: the spider input filters, then the
// callback (for a job through its callback log, see jobCommit.run).
func (s *scraper) respond(ctx context.Context, l *requestLife, resp *types.Response) {
	for _, f := range s.inFilters {
		if ferr := f.ProcessSpiderInput(ctx, resp); ferr != nil {
			if resp.Request.Errback != "" {
				s.errback(ctx, l, resp.Request, resp, ferr)
			} else {
				ClosePage(resp)
				s.settle(ctx, l)
			}
			return
		}
	}
	died, suspect := s.job.died(l)
	if died {
		s.giveUp(ctx, l, resp)
		return
	}
	s.parsing++
	if l != nil {
		l.calls++
	}
	s.job.run(l, suspect, func() { s.parse(ctx, l, resp) })
}

// failed hands a failed download to the request's errback, if it has one.
func (s *scraper) failed(ctx context.Context, l *requestLife, req *types.Request, err error) {
	if req.Errback != "" {
		s.errback(ctx, l, req, nil, err)
		return
	}
	s.settle(ctx, l)
}

// parse runs the callback of resp on a worker goroutine (s.parsing counts it already).
func (s *scraper) parse(ctx context.Context, l *requestLife, resp *types.Response) {
	s.parseWorkers.run(s.wg, s.maxParsing, func() {
		var errs int64
		if perr := s.spider.Parse(ctx, resp, s.emitFor(resp, l)); perr != nil && ctx.Err() == nil {
			errs++
			s.spiderError(ctx, "Spider error processing "+reqString(resp.Request)+" (referer: "+referer(resp.Request)+")", perr, resp)
			if resp.Request.Errback != "" {
				errs += s.callErrback(ctx, l, resp.Request, resp, perr)
			}
		}
		ClosePage(resp)
		s.post(event{kind: evParsed, errs: errs, life: l})
	})
}

// emitFor returns the Emit for outputs of parent's callback or errback, the callback of the
// scheduled request l follows (nil for none).
func (s *scraper) emitFor(parent *types.Response, l *requestLife) Emit {
	return func(o types.Output) {
		s.post(event{kind: evOutput, parent: parent, out: o, life: l, chained: true})
	}
}

// errback calls the request's errback on a worker goroutine.
func (s *scraper) errback(ctx context.Context, l *requestLife, req *types.Request, resp *types.Response, err error) {
	s.parsing++
	if l != nil {
		l.calls++
	}
	s.parseWorkers.run(s.wg, s.maxParsing, func() {
		errs := s.callErrback(ctx, l, req, resp, err)
		ClosePage(resp)
		s.post(event{kind: evParsed, errs: errs, life: l})
	})
}

// callErrback calls Spider.Errback and reports its error; it returns the number of spider
// errors (0 or 1).
func (s *scraper) callErrback(ctx context.Context, l *requestLife, req *types.Request, resp *types.Response, err error) int64 {
	f := &types.Failure{Request: req, Response: resp, Name: ErrorName(err), Message: ErrorMessage(err)}
	parent := resp
	if parent == nil {
		parent = &types.Response{URL: req.URL, Request: req}
	}
	if eerr := s.spider.Errback(ctx, f, s.emitFor(parent, l)); eerr != nil && ctx.Err() == nil {
		s.spiderError(ctx, "Spider error processing "+reqString(req)+" (errback "+req.Errback+")", eerr, resp)
		return 1
	}
	return 0
}

// giveUp fails l's request, whose callback was running when earlier runs of the job died
// more often than RETRY_TIMES: its callback is not run again; the failure is logged and
// counted as a spider error (spider_exceptions/GaveUpError) and goes to the errback, as a
// failing callback's does.
func (s *scraper) giveUp(ctx context.Context, l *requestLife, resp *types.Response) {
	err := &GaveUpError{Runs: l.died}
	s.spiderError(ctx, "Gave up "+reqString(resp.Request)+": not running its callback "+resp.Request.CallbackName()+" again", err, resp)
	if resp.Request.Errback != "" {
		s.errback(ctx, l, resp.Request, resp, err)
		return
	}
	ClosePage(resp)
	s.settle(ctx, l)
}

// parsed handles the end of a callback or errback call; it reports whether the spider
// errors reached CLOSESPIDER_ERRORCOUNT.
func (s *scraper) parsed(ctx context.Context, ev *event) (tooManyErrors bool) {
	s.parsing--
	if l := ev.life; l != nil {
		s.job.ended(l)
		l.calls--
		s.settle(ctx, l)
	}
	if ev.errs > 0 {
		s.spiderErrors += ev.errs
		return s.errorLimit > 0 && s.spiderErrors >= s.errorLimit
	}
	return false
}

// itemDone handles an item leaving the item path.
func (s *scraper) itemDone(ctx context.Context, ev *event) {
	s.itemsActive--
	if l := ev.life; l != nil {
		l.items--
		s.settle(ctx, l)
	}
}

// spiderError logs and counts an error from spider code (Scrapy: handle_spider_error).
func (s *scraper) spiderError(ctx context.Context, msg string, err error, resp *types.Response) {
	name := ErrorName(err)
	s.stats.Inc("spider_exceptions/count", 1)
	s.stats.Inc("spider_exceptions/"+name, 1)
	s.logger.Error(msg + "\n" + err.Error())
	s.sig.send(ctx, SignalEvent{Signal: SpiderError, Err: err, Response: resp})
}

// startItems starts item goroutines while fewer than CONCURRENT_ITEMS run.
func (s *scraper) startItems(ctx context.Context) {
	for len(s.itemQ) > 0 && s.itemsActive < s.maxItems {
		it := s.itemQ[0]
		s.itemQ[0] = pendingItem{}
		s.itemQ = s.itemQ[1:]
		if len(s.itemQ) == 0 {
			s.itemQ = nil
		}
		s.itemsActive++
		seq := s.itemSeq
		s.itemSeq++
		// deliver posts evItemDone when the item leaves the reorder buffer, so items parked
		// there behind a slow one count against CONCURRENT_ITEMS too.
		s.itemWorkers.run(s.wg, s.maxItems, func() { s.processItem(ctx, seq, it) })
	}
}

// processItem runs the pipelines on one item, then hands it to deliver, which exports items
// in the order they were emitted (Scrapy: start_itemproc). seq is the item's place in that
// order. A pipeline error wrapping ErrDropItem counts item_dropped_count and
// item_dropped_reasons_count/DropItem and logs a WARNING; any other error logs an ERROR
// and counts item_error_count (a jscrawl addition: Scrapy counts nothing there).
func (s *scraper) processItem(ctx context.Context, seq uint64, it pendingItem) {
	item, resp := it.item, it.resp
	for _, p := range s.pipelines {
		out, err := p.ProcessItem(ctx, item)
		if err != nil {
			if errors.Is(err, ErrDropItem) {
				s.stats.Inc("item_dropped_count", 1)
				s.stats.Inc("item_dropped_reasons_count/DropItem", 1)
				s.logger.Warn("Dropped: " + err.Error())
				s.sig.send(ctx, SignalEvent{Signal: ItemDropped, Item: item, Response: resp, Err: err})
			} else {
				s.stats.Inc("item_error_count", 1)
				s.logger.Error(fmt.Sprintf("Error processing %s\n%v", itemJSON(item), err))
				s.sig.send(ctx, SignalEvent{Signal: ItemError, Item: item, Response: resp, Err: err})
			}
			s.deliver(ctx, seq, readyItem{resp: resp, life: it.life})
			return
		}
		item = out
	}
	s.deliver(ctx, seq, readyItem{item: item, resp: resp, life: it.life})
}

// deliver takes the item with sequence number seq out of the pipelines and exports, in
// sequence order, every item that is no longer waiting for an earlier one. Items from one
// callback thus reach the feeds in the order they were yielded, whatever CONCURRENT_ITEMS
// is. Each item released posts evItemDone: an item counts as active (CONCURRENT_ITEMS)
// from its start until it leaves the buffer, so a slow item holds back at most
// CONCURRENT_ITEMS-1 others and the buffer stays that small.
func (s *scraper) deliver(ctx context.Context, seq uint64, it readyItem) {
	f := s.feeds
	f.mu.Lock()
	if seq != f.next {
		f.waiting[seq] = it // behind an earlier item still in the pipelines
		f.mu.Unlock()
		return
	}
	// Mostly one item at a time, in order: the arrays keep that case off the heap.
	var readyBuf [1]readyItem
	var releasedBuf [1]*requestLife
	ready := readyBuf[:0] // exported, for the signals
	released := releasedBuf[:0]
	for r := it; ; {
		f.next++
		released = append(released, r.life)
		switch {
		case r.item == nil:
		case r.life != nil && !s.holds(r.life.req):
			// Another worker took the request over and scrapes it: not exported here.
			s.stats.Inc("item_dropped_count", 1)
			s.stats.Inc("item_dropped_reasons_count/lease_lost", 1)
		case s.job != nil && r.life != nil:
			r.life.held = append(r.life.held, r) // a job exports them when the request is Done
		case f.exportOne(r.item):
			ready = append(ready, r)
		}
		var ok bool
		if r, ok = f.waiting[f.next]; !ok {
			break
		}
		delete(f.waiting, f.next)
	}
	f.mu.Unlock()
	// The logs and signals go out after the lock, in order within this batch, and before
	// the items stop counting as active (a handler may still schedule requests).
	s.scraped(ctx, ready)
	for _, l := range released {
		s.post(event{kind: evItemDone, life: l})
	}
}

// scraped logs and signals items every feed stored.
func (s *scraper) scraped(ctx context.Context, ready []readyItem) {
	for _, r := range ready {
		if s.logger.Enabled(ctx, slog.LevelDebug) {
			from := "<start>"
			if r.resp != nil {
				from = respString(r.resp)
			}
			s.logger.Debug("Scraped from " + from + "\n" + itemJSON(r.item))
		}
		s.sig.send(ctx, SignalEvent{Signal: ItemScraped, Item: r.item, Response: r.resp})
	}
}

// open calls Open on the spider and the pipelines.
func (s *scraper) open(ctx context.Context) error {
	if o, ok := s.spider.(Opener); ok {
		if err := o.Open(ctx); err != nil {
			return fmt.Errorf("open spider %s: %w", spiderName(s.spider), err)
		}
	}
	for i, p := range s.pipelines {
		if o, ok := p.(Opener); ok {
			if err := o.Open(ctx); err != nil {
				s.closeSpider()
				s.closePipelines(s.pipelines[:i])
				return fmt.Errorf("open pipeline %T: %w", p, err)
			}
		}
	}
	return nil
}

func (s *scraper) closePipelines(ps []Pipeline) {
	for _, p := range ps {
		if c, ok := p.(io.Closer); ok {
			if err := c.Close(); err != nil {
				s.logger.Error(fmt.Sprintf("Error closing pipeline %T: %v", p, err))
			}
		}
	}
}

func (s *scraper) closeSpider() {
	if c, ok := s.spider.(io.Closer); ok {
		if err := c.Close(); err != nil {
			s.logger.Error(fmt.Sprintf("Error closing spider: %v", err))
		}
	}
}

// ClosePage closes the browser page a response keeps open (includePage), if any: the
// engine once its callback or errback has returned (the page lives as long as the
// callback), and a middleware that drops the response (a retry, a redirect, a
// replacement).
func ClosePage(resp *types.Response) {
	if resp != nil && resp.Page != nil {
		_ = resp.Page.Close()
	}
}

func referer(req *types.Request) string {
	if req == nil {
		return "None"
	}
	if r := req.Headers.Get("Referer"); r != "" {
		return r
	}
	return "None"
}

func spiderName(s Spider) string {
	if n, ok := s.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}
