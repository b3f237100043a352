package engine

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// Engine drives a Spider: it schedules its requests, downloads them through the middleware
// chain and download slots, hands responses to the spider's callbacks and items to the
// pipelines and exporters, and closes the crawl when nothing is left (Scrapy:
// ExecutionEngine with its Scheduler, Downloader and Scraper). One engine goroutine, the
// one that calls Run, owns the scheduler and the requests' lives (loop.go); the downloader
// side (download_side.go) downloads, the scraper (scraper.go) runs callbacks, pipelines
// and feeds, each on worker goroutines that report back through a non-blocking inbox. A job
// (jobcommit.go) and a shared crawl (SchedulerParts) decorate those roles.
//
// Backpressure (Scrapy: needs_backout): a request is taken from the scheduler only while
// fewer than CONCURRENT_REQUESTS scheduled downloads are active and fewer than
// 2×CONCURRENT_REQUESTS responses are being parsed (parse and errback calls in flight).
type Engine struct {
	spider   Spider
	settings *types.Settings
	cfg      crawlConfig
	logger   *slog.Logger
	stats    *Stats
	sched    Scheduler
	parts    SchedulerParts

	dl      *downloadSide
	chain   *outputChain
	scraper *scraper
	job     *jobCommit // nil: not a job
	slotw   *slotWatch // nil: the scheduler does not queue per slot
	sig     signalBus
	in      *inbox
	stop    *stopState
	idle    idleState
	wg      sync.WaitGroup

	// Owned by the engine goroutine.
	lives       lives // scheduled requests between Next and Done
	downloads   int   // scheduled downloads running
	starting    bool  // start() runs
	startDone   bool  // start() yielded all its requests (in this run or an earlier one)
	closing     bool
	reason      string
	cancelStart context.CancelFunc
}

// crawlConfig is the engine's settings, decoded once in New.
type crawlConfig struct {
	maxDownloads, maxParsing, maxItems int
	itemLimit, pageLimit, errorLimit   int64
	redirectMax                        int // REDIRECT_MAX_TIMES+1
	retryTimes                         int
	closeTimeout, logEvery             time.Duration
	shutdownTimeout                    time.Duration
	feedErrorsIgnore, warcErrorsIgnore bool
}

func decodeConfig(s *types.Settings) crawlConfig {
	conc := s.Concurrency()
	return crawlConfig{
		maxDownloads:     conc,
		maxParsing:       2 * conc,
		maxItems:         max(s.Int(types.ConcurrentItems), 1),
		itemLimit:        int64(s.Int(types.CloseSpiderItemCount)),
		pageLimit:        int64(s.Int(types.CloseSpiderPageCount)),
		errorLimit:       int64(s.Int(types.CloseSpiderErrorCount)),
		redirectMax:      max(s.Int(types.RedirectMaxTimes), 0) + 1,
		retryTimes:       s.Int(types.RetryTimes),
		closeTimeout:     s.Duration(types.CloseSpiderTimeout),
		logEvery:         s.Duration(types.LogStatsInterval),
		shutdownTimeout:  s.Duration(types.ShutdownTimeout),
		feedErrorsIgnore: strings.EqualFold(s.String(types.FeedErrors), FeedErrorsIgnore),
		warcErrorsIgnore: strings.EqualFold(s.String(types.WARCErrors), WARCErrorsIgnore),
	}
}

// New returns an Engine for spider with settings (nil for the defaults). It compiles the
// downloader middleware chain and the spider middleware chain once, placing the spider's
// own middlewares (OwnMiddlewares) among the built-ins.
func New(spider Spider, settings *types.Settings, opts ...Option) *Engine {
	if settings == nil {
		settings = types.NewSettings()
	}
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.stats == nil {
		c.stats = NewStats()
	}
	if c.sched == nil {
		ms := NewMemoryScheduler(settings, nil, c.stats, c.logger)
		c.sched, c.parts = ms, ms.Parts()
	}
	e := &Engine{spider: spider, settings: settings, cfg: decodeConfig(settings), logger: c.logger, stats: c.stats,
		sched: c.sched, parts: c.parts, in: newInbox(), stop: newStopState(),
		startDone: c.startDone}
	e.sig.logger = e.logger
	if c.parts.Slots != nil {
		e.slotw = &slotWatch{sched: c.parts.Slots, sizes: c.parts.Sizes, stats: e.stats, post: e.in.post}
	}
	dlOwn, outOwn := ownOrders(spider)
	e.dl = newDownloadSide(spider, settings, &c, &e.cfg, e.stop, e.slotw, e.CloseSpider, dlOwn)
	e.chain = compileOutputChain(settings, e.stats, e.logger, e.dl.offsite, outOwn, c.parts.memory, &e.sig)
	feeds := newFeedSink(c.exporters, &e.cfg, e.stats, e.logger, e.CloseSpider)
	if c.committer != nil {
		e.job = &jobCommit{committer: c.committer, every: c.commitEvery, retryTimes: e.cfg.retryTimes,
			feeds: feeds, spider: spider, stats: e.stats, logger: e.logger}
		e.job.log, _ = c.committer.(CallbackLog)
	}
	e.scraper = &scraper{spider: spider, pipelines: c.pipelines, feeds: feeds, inFilters: e.chain.in, job: e.job,
		sig: &e.sig, stats: e.stats, logger: e.logger, post: e.in.post, holds: e.holds, settle: e.settle, wg: &e.wg,
		maxParsing: e.cfg.maxParsing, maxItems: e.cfg.maxItems, errorLimit: e.cfg.errorLimit}
	return e
}

// Stats returns the stats collector.
func (e *Engine) Stats() *Stats { return e.stats }

// Settings returns the settings.
func (e *Engine) Settings() *types.Settings { return e.settings }

// Crawl schedules req as if a spider had emitted it (Scrapy: engine.crawl). Safe from any
// goroutine; ignored once the crawl is closing.
func (e *Engine) Crawl(req *types.Request) {
	e.in.post(event{kind: evOutput, out: types.Output{Request: req}})
}

// CloseSpider closes the crawl gracefully with reason (Scrapy: engine.close_spider): no new
// download starts, the scheduler's remainder is discarded, and downloads, parses and items
// in flight finish. Safe from any goroutine.
func (e *Engine) CloseSpider(reason string) {
	e.in.post(event{kind: evClose, reason: reason})
}

// Backlog returns how many requests wait to be downloaded: in the scheduler or emitted and
// not yet routed. Safe from any goroutine; a producer of start requests slows down on it
// (Scrapy consumes start requests lazily, when the scheduler has room).
func (e *Engine) Backlog() int { return int(e.in.reqs.Load() + e.in.schedLen.Load()) }

// emitStart returns the Emit of start().
func (e *Engine) emitStart() Emit {
	return func(o types.Output) { e.in.post(event{kind: evOutput, out: o}) }
}
