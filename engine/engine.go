package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/engine/proxypool"
	"github.com/jscrawl/jscrawl/engine/session"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// Option configures an Engine in New.
type Option func(*Engine)

// WithPipelines adds item pipelines, run in order on each item.
func WithPipelines(p ...Pipeline) Option {
	return func(e *Engine) { e.pipelines = append(e.pipelines, p...) }
}

// WithExporters adds feed exporters; each scraped item is exported to all of them.
func WithExporters(x ...Exporter) Option {
	return func(e *Engine) { e.exporters = append(e.exporters, x...) }
}

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(e *Engine) { e.logger = l } }

// WithStats sets the stats collector (default NewStats()).
func WithStats(s *Stats) Option { return func(e *Engine) { e.stats = s } }

// WithHTTPClient sets the HTTP client the downloader copies (default: one with a
// keep-alive Transport sized to CONCURRENT_REQUESTS).
func WithHTTPClient(c *http.Client) Option { return func(e *Engine) { e.client = c } }

// WithScheduler replaces the default MemoryScheduler. A scheduler that is also a SlotGate or
// a RobotsCache (the Redis frontier) shares the download slots or robots.txt as well.
func WithScheduler(s Scheduler) Option { return func(e *Engine) { e.sched = s } }

// WithDownloaderMiddlewares adds downloader middlewares at order 543, Scrapy's place for
// user middlewares: on the engine side of the built-in RetryMiddleware (550). Several are
// chained in the order given, nearest the engine first.
func WithDownloaderMiddlewares(m ...DownloaderMiddleware) Option {
	return func(e *Engine) {
		for _, x := range m {
			e.dlmws = append(e.dlmws, OrderedMiddleware{Order: DefaultMiddlewareOrder, M: x})
		}
	}
}

// WithOrderedDownloaderMiddlewares adds downloader middlewares at their order numbers among
// the built-ins (Scrapy: DOWNLOADER_MIDDLEWARES; lower runs nearer the engine).
func WithOrderedDownloaderMiddlewares(m ...OrderedMiddleware) Option {
	return func(e *Engine) { e.dlmws = append(e.dlmws, m...) }
}

// WithCommitter makes the crawl a job whose progress c saves every interval and at the end
// (the jobdir): each scheduled request's items are then exported together once its callback
// has finished and all of them are out of the pipelines, and only then is the request Done,
// so a commit never saves the items of a request it does not save as done.
func WithCommitter(c Committer, interval time.Duration) Option {
	return func(e *Engine) { e.committer, e.commitEvery = c, interval }
}

// WithProxyPool makes the downloads without meta.proxy rotate over pool (nil: none)
// instead of the pool New would build from PROXY_LIST (proxypool.FromSettings), for a
// caller that read the list already, to report a bad one.
func WithProxyPool(pool *proxypool.Pool) Option {
	return func(e *Engine) { e.proxies, e.proxiesSet = pool, true }
}

// WithStartDone tells the engine that start() already yielded all its requests in an earlier
// run of the job: it is not called again.
func WithStartDone() Option { return func(e *Engine) { e.startDone = true } }

// Engine drives a Spider: it schedules its requests, downloads them through the middleware
// chain and download slots, hands responses to the spider's callbacks and items to the
// pipelines and exporters, and closes the crawl when nothing is left (Scrapy:
// ExecutionEngine with its Scheduler, Downloader and Scraper). One engine goroutine, the
// one that calls Run, owns the scheduler and the in-flight bookkeeping; downloads, parses
// and items run on worker goroutines that report back through a non-blocking inbox.
//
// Backpressure (Scrapy: needs_backout): a request is taken from the scheduler only while
// fewer than CONCURRENT_REQUESTS scheduled downloads are active and fewer than
// 2×CONCURRENT_REQUESTS responses are being parsed (parse and errback calls in flight).
type Engine struct {
	spider    Spider
	settings  *types.Settings
	pipelines []Pipeline
	exporters []Exporter
	logger    *slog.Logger
	stats     *Stats
	client    *http.Client
	sched     Scheduler
	dlmws     []OrderedMiddleware

	warcOut        *warc.Writer  // WithWARC
	replay         *warc.Archive // WithReplay
	replayFallback bool
	decorators     []HandlerDecorator // WithHandlerDecorator

	downloader Downloader      // compiled chain, also used by Download
	slots      *SlotDownloader // the bottom of the chain, above the HTTP downloader
	http       *HTTPDownloader // below the slots; owns the browser of browser requests
	service    serviceClient   // ServiceDownload's downloader, made on first use
	offsite    *OffsiteMiddleware
	sessions   *session.Pool // SESSION_POOL_ENABLED, else nil
	// The proxy pool of PROXY_LIST (nil: none), or the error of reading it, and whether
	// WithProxyPool gave it.
	proxies    *proxypool.Pool
	proxiesErr error
	proxiesSet bool
	inflight   inflight // downloads in flight, for Downloads
	inFilters  []SpiderInputFilter
	outFilters []SpiderOutputFilter // spider side first
	outPlan    []OutputStage        // the spider's part of the output chain (OutputPlan)
	spiderPart int                  // outFilters[:spiderPart] are in outPlan
	// lateRef is the index in outFilters of the RefererMiddleware when route may run it
	// after the duplicate filter (see route), else -1.
	lateRef int

	sigMu    sync.RWMutex
	handlers map[Signal][]SignalHandler

	inMu  sync.Mutex
	inbox []event
	// Backlog: requests posted but not yet routed, and the scheduler's length as of the
	// engine goroutine's last pass (read by Backlog from any goroutine).
	inboxReqs atomic.Int64
	schedLen  atomic.Int64
	spare     []event
	wake      chan struct{}
	running   bool
	ran       bool

	backlogDrop backlogDrop // wakes WaitBacklog after each pass

	exportMu sync.Mutex
	export   exportState // guarded by exportMu
	wg       sync.WaitGroup
	// memExceeded is set by the memory watcher: finish_reason is then memusage_exceeded,
	// whatever close or hard stop came before or after.
	memExceeded atomic.Bool

	// Owned by the engine goroutine.
	maxDownloads, maxParsing, maxItems int
	downloads, parsing, itemsActive    int
	starting                           bool
	itemQ                              []pendingItem
	// Goroutines kept for the jobs of downloads, of callbacks and errbacks, and of items.
	downloadWorkers, parseWorkers, itemWorkers workers
	closing                                    bool
	reason                                     string
	cancelStart                                context.CancelFunc
	itemLimit, pageLimit, errorLimit           int64
	spiderErrors                               int64
	itemSeq                                    uint64 // sequence number of the next item started
	shut                                       shutdown
	startDone                                  bool
	tracks                                     map[*types.Request]*reqTrack // scheduled requests in flight

	// A SlotScheduler (nil: another Scheduler): the slots whose state changed since the
	// engine goroutine last told it (slotMu), and when the scheduler stats were last set.
	slotSched    SlotScheduler
	slotMu       sync.Mutex
	slotsChanged map[string]struct{}
	slotStatsAt  time.Time
	slotSnap     atomic.Pointer[[]SlotInfo] // the biggest slots' queues as of slotStatsAt

	committer Committer
	commitErr bool // a commit failed: later failures are counted, not logged again
	// A job's callbacks (CallbackLog): logging counts those recorded as running; a suspect
	// one (running when an earlier run died) runs alone, the others wait in held meanwhile.
	logging        int
	suspectRunning bool
	held           []heldParse
	commitEvery    time.Duration

	// spider_idle (idle.go): the holds of HoldIdle not yet done (taken from any goroutine);
	// owned by the engine goroutine: whether spider_idle was sent since the crawl was last
	// busy, the DontCloseSpider retry timer and its period (0: IdleRetry).
	idleHolds      atomic.Int64
	idleSent       bool
	idleRetry      <-chan time.Time
	idleRetryEvery time.Duration

	// stopping is closed when the crawl starts closing (middlewares stop retrying);
	// abortCtx is cancelled SHUTDOWN_TIMEOUT later, aborting the downloads still running;
	// hardStop cancels Run's context; stopped is closed once it is cancelled (see Stopped).
	stopping       chan struct{}
	abortCtx       context.Context
	abortDownloads context.CancelFunc
	hardStop       context.CancelFunc
	stopped        chan struct{}
	drained        chan struct{} // closed once Run closed the spider (see Drained)
	feedsClosed    bool          // under exportMu: closeExporters ran
}

type evKind uint8

const (
	evOutput evKind = iota
	evDownloaded
	evParsed
	evItemDone
	evStartDone
	evClose
	evIdleDone // a HoldIdle's done; err is ErrDontCloseSpider for a retry
	evSlots    // download slots changed (slotsChanged)
)

// event is one message to the engine goroutine.
type event struct {
	kind   evKind
	parent *types.Response // evOutput: the response whose callback emitted out
	out    types.Output
	req    *types.Request
	resp   *types.Response
	err    error
	errs   int64 // evParsed: spider errors in the call
	tr     *reqTrack
	reason string

	// chained (evOutput): out comes from a callback or errback, so it passed the spider's
	// part of the output chain (OutputPlan).
	chained bool
}

// reqTrack follows one scheduled request from its download to the end of what it produced,
// when the scheduler is told it is Done. The counters belong to the engine goroutine.
type reqTrack struct {
	req   *types.Request // as Next returned it
	calls int            // its callback and errback calls running
	items int            // items it produced still before or in the pipelines
	held  []readyItem    // a job's items out of the pipelines, exported when it is Done (exportMu)
	// logged: its callback's start was recorded in the job's CallbackLog, its end not yet;
	// suspect: it was running when an earlier run of the job died.
	logged, suspect bool
}

// slotChanged is SlotNotify's function: it queues key for the SlotScheduler, which the
// engine goroutine tells at its next pass. Safe from any goroutine; never blocks.
func (e *Engine) slotChanged(key string) {
	e.slotMu.Lock()
	first := len(e.slotsChanged) == 0
	if e.slotsChanged == nil {
		e.slotsChanged = map[string]struct{}{}
	}
	e.slotsChanged[key] = struct{}{}
	e.slotMu.Unlock()
	if first {
		e.post(event{kind: evSlots})
	}
}

// tellSlots passes the slots changed since the last call on to the SlotScheduler.
func (e *Engine) tellSlots() {
	e.slotMu.Lock()
	changed := e.slotsChanged
	e.slotsChanged = nil
	e.slotMu.Unlock()
	for k := range changed {
		e.slotSched.SlotChanged(k)
	}
}

// New returns an Engine for spider with settings (nil for the defaults).
func New(spider Spider, settings *types.Settings, opts ...Option) *Engine {
	if settings == nil {
		settings = types.NewSettings()
	}
	e := &Engine{spider: spider, settings: settings, wake: make(chan struct{}, 1), stopping: make(chan struct{}), stopped: make(chan struct{}), drained: make(chan struct{})}
	e.abortCtx, e.abortDownloads = context.WithCancel(context.Background())
	e.hardStop = func() {}
	for _, o := range opts {
		o(e)
	}
	if e.logger == nil {
		e.logger = slog.Default()
	}
	if e.stats == nil {
		e.stats = NewStats()
	}
	if e.sched == nil {
		e.sched = NewMemoryScheduler(settings, nil, e.stats, e.logger)
	}
	var domains []string
	if ad, ok := spider.(interface{ AllowedDomains() []string }); ok {
		domains = ad.AllowedDomains()
	}
	// One OffsiteMiddleware filters yielded requests (spider side) and redirected ones
	// (downloader side), so offsite/domains counts each host once.
	e.offsite = NewOffsiteMiddleware(domains, e.stats, e.logger)
	if !e.proxiesSet {
		e.proxies, e.proxiesErr = proxypool.FromSettings(settings, e.logger)
		if e.proxiesErr != nil {
			e.logger.Error(fmt.Sprintf("%v: the downloads it should proxy fail", e.proxiesErr))
		}
	}
	if e.proxies != nil && settings.Bool(types.HTTPProxyEnabled) {
		e.logger.Info(fmt.Sprintf("Proxy pool: %d proxies, %s", e.proxies.Len(), e.proxies.Rotation()))
	}
	hd := NewHTTPDownloader(settings, e.client, e.stats)
	hd.env.logger = e.logger
	e.http = hd
	e.archiveHandlers(hd)
	gate, _ := e.sched.(SlotGate) // a shared scheduler shares the slots too
	slotOpts := []SlotOption{SlotLogger(e.logger), SharedSlots(gate), SlotPrepare(hd.prepare)}
	if c := hd.DNSCache(); c != nil {
		slotOpts = append(slotOpts, SlotDNS(c))
	}
	if ss, ok := e.sched.(SlotScheduler); ok {
		e.slotSched = ss
		slotOpts = append(slotOpts, SlotNotify(e.slotChanged))
	}
	e.slots = NewSlotDownloader(settings, markDownloading(hd), slotOpts...)
	if e.slotSched != nil {
		e.slotSched.UseSlots(e.slots)
	}
	e.sessions = e.sessionPool()
	dlOwn, outOwn := e.ownOrders()
	e.downloader = e.inflight.scope(Chain(e.inflight.track(e.slots), e.downloaderChain(dlOwn)...))
	e.spiderChain(outOwn)
	e.maxDownloads = max(settings.Int(types.ConcurrentRequests), 1)
	e.maxParsing = 2 * e.maxDownloads
	e.maxItems = max(settings.Int(types.ConcurrentItems), 1)
	e.itemLimit = int64(settings.Int(types.CloseSpiderItemCount))
	e.pageLimit = int64(settings.Int(types.CloseSpiderPageCount))
	e.errorLimit = int64(settings.Int(types.CloseSpiderErrorCount))
	e.export.waiting = map[uint64]readyItem{}
	e.export.failed = map[int]bool{}
	return e
}

// CloseHandlers closes the download handlers that hold resources (HTTPDownloader.Close:
// the Chromium of browser requests, if one was started). Run does it when the crawl
// ends; a command that only calls Download does it when done.
func (e *Engine) CloseHandlers() error {
	e.closeService()
	return e.http.Close()
}

// DownloadHandler returns the download handler DOWNLOAD_HANDLERS or a route (RegisterRoute)
// names name, as made for e (not wrapped for --warc or --replay), or nil.
func (e *Engine) DownloadHandler(name string) DownloadHandler { return e.http.Handler(name) }

// ProxyPool returns the proxy pool of PROXY_LIST, or nil without one: a session pool
// calls its Forget when it retires a session.
func (e *Engine) ProxyPool() *proxypool.Pool { return e.proxies }

// Stats returns the stats collector.
func (e *Engine) Stats() *Stats { return e.stats }

// Settings returns the settings.
func (e *Engine) Settings() *types.Settings { return e.settings }

// post appends ev to the inbox and wakes the engine goroutine. It never blocks. Only the
// event that finds the inbox empty wakes it: the engine empties the inbox after every
// wake before it waits again, so a wake is pending or a drain to come for any event
// behind that one.
func (e *Engine) post(ev event) {
	e.inMu.Lock()
	if e.ran && !e.running {
		e.inMu.Unlock()
		return // the crawl is over
	}
	first := len(e.inbox) == 0
	e.inbox = append(e.inbox, ev)
	if ev.kind == evOutput && ev.out.Request != nil {
		e.inboxReqs.Add(1)
	}
	e.inMu.Unlock()
	if !first {
		return
	}
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// emitFor returns the Emit for outputs of parent's callback or errback (nil for start
// requests, with chained false), the callback of the scheduled request tr follows (nil for
// none).
func (e *Engine) emitFor(parent *types.Response, tr *reqTrack, chained bool) Emit {
	return func(o types.Output) {
		e.post(event{kind: evOutput, parent: parent, out: o, tr: tr, chained: chained})
	}
}

// Crawl schedules req as if a spider had emitted it (Scrapy: engine.crawl). Safe from any
// goroutine; ignored once the crawl is closing.
func (e *Engine) Crawl(req *types.Request) {
	e.post(event{kind: evOutput, out: types.Output{Request: req}})
}

// CloseSpider closes the crawl gracefully with reason (Scrapy: engine.close_spider): no new
// download starts, the scheduler's remainder is discarded, and downloads, parses and items
// in flight finish. Safe from any goroutine.
func (e *Engine) CloseSpider(reason string) {
	e.post(event{kind: evClose, reason: reason})
}

// Download downloads req through the downloader middlewares, download slots, the global
// concurrency limit and retries, but not the scheduler, dupefilter or spider middlewares
// (Scrapy: engine.download_async). A 404 is a Response, not an error. A request a
// middleware replaces (a redirect) is downloaded in its place through the whole chain,
// at most REDIRECT_MAX_TIMES+1 times in a row (then a MaxRedirectsError). The downloader
// offsite check does not apply to inline downloads. Safe from any goroutine, before,
// during and after Run.
//
// A request with meta.dontCount is a service request instead (see ServiceDownload).
func (e *Engine) Download(ctx context.Context, req *types.Request) (*types.Response, error) {
	if metaBool(req, types.MetaDontCount) {
		return e.ServiceDownload(ctx, req)
	}
	ctx = withStopping(context.WithValue(ctx, inlineKey{}, true), e.stopping)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.abortCtx, cancel)()
	resp, err := e.downloader.Fetch(ctx, req)
	limit := max(e.settings.Int(types.RedirectMaxTimes), 0) + 1
	for i := 0; err != nil; i++ {
		var re *RescheduleError
		if !errors.As(err, &re) {
			break
		}
		if i >= limit {
			err = &DownloadError{Name: NameMaxRedirects, URL: req.URL,
				Err: fmt.Errorf("replaced by a middleware more than %d times (%s), last by %s", limit, types.RedirectMaxTimes, re.Request.URL)}
			countException(e.stats, err)
			break
		}
		resp, err = e.downloader.Fetch(ctx, re.Request)
	}
	if err != nil {
		return nil, err
	}
	e.received(ctx, resp)
	return resp, nil
}

// received counts and logs a downloaded response.
func (e *Engine) received(ctx context.Context, resp *types.Response) {
	e.stats.Inc("response_received_count", 1)
	if e.logger.Enabled(ctx, slog.LevelDebug) {
		e.logger.Debug(fmt.Sprintf("Crawled (%d) %s (referer: %s)", resp.Status, reqString(resp.Request), referer(resp.Request)))
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

func (e *Engine) spiderName() string {
	if n, ok := e.spider.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

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
	e.inMu.Lock()
	if e.ran {
		e.inMu.Unlock()
		return errors.New("run engine: already run")
	}
	e.ran, e.running = true, true
	e.inMu.Unlock()
	ctx, e.hardStop = context.WithCancel(ctx)
	defer e.hardStop()
	context.AfterFunc(ctx, func() { close(e.stopped) })

	start := time.Now()
	e.stats.Set("start_time", start.UTC().Format(time.RFC3339))
	e.send(ctx, SignalEvent{Signal: EngineStarted})
	if err := e.open(ctx); err != nil {
		e.closeExporters()
		return err
	}
	e.logger.Info("Spider opened")
	e.send(ctx, SignalEvent{Signal: SpiderOpened})

	stopMem := e.watchMemory()
	// A resumed job's stats hold the items of its earlier runs: CLOSESPIDER_ITEMCOUNT
	// counts them too.
	e.exportMu.Lock()
	e.export.stored = e.stats.Int("item_scraped_count")
	e.exportMu.Unlock()
	e.crawl(ctx)
	e.downloadWorkers.stop()
	e.parseWorkers.stop()
	e.itemWorkers.stop()
	e.wg.Wait()
	stopMem()
	if err := e.http.Close(); err != nil {
		e.logger.Debug(fmt.Sprintf("Closing the download handlers: %v", err))
	}
	e.closeService()

	e.inMu.Lock()
	e.running = false
	e.inbox = nil
	e.inMu.Unlock()
	e.finish(ctx, start)
	if ms, ok := e.sched.(*MemoryScheduler); ok {
		if err := ms.Close(); err != nil {
			e.logger.Warn("Could not remove the scheduler's spill folder", "error", err)
		}
	}
	return nil
}

// open calls Open on the spider and the pipelines.
func (e *Engine) open(ctx context.Context) error {
	if o, ok := e.spider.(Opener); ok {
		if err := o.Open(ctx); err != nil {
			return fmt.Errorf("open spider %s: %w", e.spiderName(), err)
		}
	}
	for i, p := range e.pipelines {
		if o, ok := p.(Opener); ok {
			if err := o.Open(ctx); err != nil {
				e.closeSpider()
				e.closePipelines(e.pipelines[:i])
				return fmt.Errorf("open pipeline %T: %w", p, err)
			}
		}
	}
	return nil
}

// crawl is the engine goroutine's loop.
func (e *Engine) crawl(ctx context.Context) {
	startCtx, cancelStart := context.WithCancel(ctx)
	e.cancelStart = cancelStart
	defer cancelStart()
	defer e.shut.stop()
	// Scheduled downloads see the stopping channel and end when abortCtx does.
	dlCtx, cancelDl := context.WithCancel(withStopping(ctx, e.stopping))
	defer cancelDl()
	defer context.AfterFunc(e.abortCtx, cancelDl)()
	e.tracks = map[*types.Request]*reqTrack{}
	start := e.spider.Start
	shared, _ := e.sched.(SharedScheduler)
	var sharedWake <-chan struct{}
	if shared != nil {
		start, sharedWake = shared.WrapStart(start), shared.Wake()
	}
	if !e.startDone {
		e.starting = true
		e.wg.Go(func() {
			err := start(startCtx, e.emitFor(nil, nil, false))
			e.post(event{kind: evStartDone, err: err})
		})
	}
	var commitTick <-chan time.Time
	if e.committer != nil && e.commitEvery > 0 {
		t := time.NewTicker(e.commitEvery)
		defer t.Stop()
		commitTick = t.C
	}

	var timeout <-chan time.Time
	if d := e.settings.Duration(types.CloseSpiderTimeout); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	var logTick <-chan time.Time
	ls := logStats{e: e, interval: e.settings.Duration(types.LogStatsInterval)}
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
	if e.slotSched != nil {
		// The slots' stats and snapshot (Slots) stay fresh while the engine waits.
		t := time.NewTicker(time.Second)
		defer t.Stop()
		slotTick = t.C
	}
	for {
		e.drain(ctx)
		e.admit(dlCtx)
		readyC = nil
		if e.slotSched != nil && !e.closing {
			if at, ok := e.slotSched.NextReady(); ok {
				readyTimer.Reset(max(time.Until(at), 0))
				readyC = readyTimer.C
			}
		}
		if e.idle() {
			if !e.closing && ctx.Err() != nil {
				// A hard stop whose cancelled work all finished before the loop saw ctx end.
				e.closeWith("shutdown")
				return
			}
			if e.closing {
				return
			}
			switch {
			case e.idleHeld():
				// A spider_idle handler's work is pending, or DontCloseSpider: wait.
			case !e.idleSent:
				e.idleSent = true
				if e.send(ctx, SignalEvent{Signal: SpiderIdle}) {
					e.dontClose()
				}
				continue
			case shared == nil || shared.Settled():
				e.reason = "finished"
				return
			default:
				// Other processes of the crawl may still schedule requests: wait for them,
				// sending spider_idle again on the next pass.
				e.idleSent = false
			}
		} else {
			e.idleSent = false
		}
		select {
		case <-readyC:
		case <-slotTick:
			e.slotStats(true)
		case <-e.idleRetry:
			e.idleRetried()
		case <-sharedWake:
		case <-e.wake:
		case <-ctx.Done():
			e.closeWith("shutdown") // keeps the reason of a close already begun
			return
		case <-e.shut.c():
			e.shutdownTick()
		case <-timeout:
			e.closeWith("closespider_timeout")
		case <-logTick:
			ls.log()
		case <-commitTick:
			e.commit(ctx, Progress{StartDone: e.startDone})
		}
	}
}

func (e *Engine) pending() bool {
	e.inMu.Lock()
	defer e.inMu.Unlock()
	return len(e.inbox) > 0
}

// idle reports whether the crawl has nothing left to do.
func (e *Engine) idle() bool {
	return (e.closing || e.sched.Len() == 0) && e.downloads == 0 && e.parsing == 0 &&
		e.itemsActive == 0 && len(e.itemQ) == 0 && !e.starting
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
		e.inMu.Lock()
		evs := e.inbox
		if len(evs) == 0 {
			e.inMu.Unlock()
			return
		}
		e.inbox = e.spare[:0]
		e.inMu.Unlock()
		for i := range evs {
			if evs[i].kind == evOutput && evs[i].out.Request != nil {
				e.inboxReqs.Add(-1)
			}
			e.handle(ctx, &evs[i])
			evs[i] = event{}
		}
		e.spare = evs
		e.startItems(ctx)
	}
}

func (e *Engine) handle(ctx context.Context, ev *event) {
	switch ev.kind {
	case evOutput:
		e.route(ctx, ev.parent, ev.tr, ev.out, ev.chained)
	case evDownloaded:
		e.downloads--
		e.downloaded(ctx, ev.req, ev.resp, ev.err)
	case evParsed:
		e.parsing--
		if ev.tr != nil && ev.tr.logged {
			ev.tr.logged = false
			e.committer.(CallbackLog).CallbackEnded(ev.tr.req)
			e.logging--
			if ev.tr.suspect {
				ev.tr.suspect, e.suspectRunning = false, false
			}
			e.releaseHeld()
		}
		if ev.tr != nil {
			ev.tr.calls--
			e.maybeDone(ctx, ev.tr)
		}
		if ev.errs > 0 {
			e.spiderErrors += ev.errs
			if e.errorLimit > 0 && e.spiderErrors >= e.errorLimit {
				e.closeWith("closespider_errorcount")
			}
		}
	case evItemDone:
		e.itemsActive--
		if ev.tr != nil {
			ev.tr.items--
			e.maybeDone(ctx, ev.tr)
		}
		if e.itemLimit > 0 && e.stats.Int("item_scraped_count") >= e.itemLimit {
			e.closeWith("closespider_itemcount")
		}
	case evStartDone:
		e.starting = false
		e.startDone = ev.err == nil
		if s, ok := e.sched.(SharedScheduler); ok {
			s.StartDone(ev.err)
		}
		if ev.err != nil && !errors.Is(ev.err, context.Canceled) {
			e.spiderError(ctx, "Error while obtaining start requests", ev.err, nil)
			e.spiderErrors++
		}
	case evClose:
		e.closeWith(ev.reason)
	case evIdleDone:
		e.idleDone(ev)
	case evSlots:
		e.tellSlots()
	}
}

// route runs the spider output filters on one output and schedules or processes it. A
// chained output passed the spider's part of the chain: only the filters after it run.
//
// The Referer header is only seen once a request is scheduled, when the filters after
// RefererMiddleware are built-ins that never read headers and the scheduler a
// MemoryScheduler with a MemoryDupeFilter (lateRef), and no request_dropped handler could
// see a dropped request's headers: then RefererMiddleware runs only on requests that the
// duplicate filter let pass, just before they are stored, and a duplicate costs no
// header. Otherwise it runs in its place in the chain.
func (e *Engine) route(ctx context.Context, parent *types.Response, tr *reqTrack, out types.Output, chained bool) {
	if out.Request == nil {
		if out.Item != nil {
			e.itemQ = append(e.itemQ, pendingItem{item: out.Item, resp: parent, tr: tr})
			if tr != nil {
				tr.items++
			}
		}
		return
	}
	if _, shared := e.sched.(SharedScheduler); e.closing && e.committer == nil && !shared {
		// A job keeps them (a paused job resumes with them), and so does a shared crawl
		// (its other workers take them): the parent's lease is acknowledged after.
		return
	}
	// Spider side first, as Scrapy's process_spider_output.
	first := 0
	if chained {
		first = e.spiderPart
	}
	late := -1
	if e.lateRef >= first && !e.connected(RequestDropped) {
		late = e.lateRef
	}
	for i := first; i < len(e.outFilters); i++ {
		if i == late {
			continue
		}
		var ok bool
		if out, ok = e.outFilters[i].ProcessSpiderOutput(ctx, parent, out); !ok {
			return
		}
	}
	if out.Request == nil {
		return
	}
	var scheduled bool
	if late >= 0 {
		scheduled = e.sched.(*MemoryScheduler).enqueueThen(out.Request, func(req *types.Request) {
			e.outFilters[late].ProcessSpiderOutput(ctx, parent, types.Output{Request: req})
		})
	} else {
		scheduled = e.enqueue(tr, out.Request)
	}
	if scheduled {
		e.send(ctx, SignalEvent{Signal: RequestScheduled, Request: out.Request})
	} else {
		e.send(ctx, SignalEvent{Signal: RequestDropped, Request: out.Request})
	}
}

// Backlog returns how many requests wait to be downloaded: in the scheduler or emitted and
// not yet routed. Safe from any goroutine; a producer of start requests slows down on it
// (Scrapy consumes start requests lazily, when the scheduler has room).
func (e *Engine) Backlog() int { return int(e.inboxReqs.Load() + e.schedLen.Load()) }

// admit starts downloads while there is room (Scrapy: needs_backout).
func (e *Engine) admit(ctx context.Context) {
	defer func() {
		e.schedLen.Store(int64(e.sched.Len()))
		e.backlogDrop.notify()
		e.slotStats(false)
	}()
	rechecked := false
	for !e.closing && e.downloads < e.maxDownloads && e.parsing < e.maxParsing {
		// CLOSESPIDER_PAGECOUNT: start no more downloads than could still be counted, so the
		// crawl stops at the count instead of overshooting by the downloads in flight.
		if e.pageLimit > 0 && e.stats.Int("response_received_count")+int64(e.downloads) >= e.pageLimit {
			if e.downloads == 0 { // reached by inline downloads
				e.closeWith("closespider_pagecount")
			}
			return
		}
		req := e.sched.Next()
		if req == nil {
			if e.slotSched != nil && e.downloads == 0 && !rechecked && e.sched.Len() > 0 {
				// Nothing in flight yet every slot with work seemed busy: ask again (a
				// change the slots reported may have been missed, or an inline download
				// held the slot).
				rechecked = true
				e.slotSched.Recheck()
				continue
			}
			return
		}
		dctx := ctx
		var res *slotReservation
		if e.slotSched != nil {
			dctx, res = e.slots.withReservation(ctx, SlotKey(req))
		}
		if e.committer != nil && !e.hasCallback(req) {
			e.slots.unreserve(res)
			continue
		}
		e.tracks[req] = &reqTrack{req: req}
		e.downloads++
		e.downloadWorkers.run(&e.wg, e.maxDownloads, func() {
			resp, err := e.downloader.Fetch(dctx, req)
			e.slots.unreserve(res)
			if err == nil {
				e.received(ctx, resp)
			}
			e.post(event{kind: evDownloaded, req: req, resp: resp, err: err})
		})
	}
}

// slotStats sets scheduler/slots (slots with queued requests), scheduler/ready (those that
// can start a download now) and scheduler/waiting (those waiting on a delay or pause), at most every 250 ms unless forced; forced (every second),
// it also takes the snapshot Slots returns.
func (e *Engine) slotStats(force bool) {
	if e.slotSched == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(e.slotStatsAt) < 250*time.Millisecond {
		return
	}
	e.slotStatsAt = now
	slots, ready, waiting := e.slotSched.SlotCounts()
	e.stats.Set("scheduler/slots", int64(slots))
	e.stats.Set("scheduler/ready", int64(ready))
	e.stats.Set("scheduler/waiting", int64(waiting))
	if sz, ok := e.slotSched.(SlotSizer); ok && force {
		sizes := sz.SlotSizes(slotsShown)
		infos := make([]SlotInfo, 0, len(sizes))
		for _, z := range sizes {
			info := SlotInfo{Slot: z.Slot, Queued: z.Queued, State: "busy"}
			if at, ok := e.slots.ReadyAt(z.Slot); ok {
				info.State = "ready"
				if w := at.Sub(now); w > 0 {
					info.State, info.ReadyIn = "waiting", w.Seconds()
				}
			}
			infos = append(infos, info)
		}
		e.slotSnap.Store(&infos)
	}
}

// slotsShown is how many slots Slots lists.
const slotsShown = 20

// SlotInfo is one download slot's queue as Slots tells it.
type SlotInfo struct {
	Slot    string  `json:"slot"`
	Queued  int     `json:"queued"`
	State   string  `json:"state"`              // ready, waiting (on a delay or pause) or busy (its concurrency in use)
	ReadyIn float64 `json:"ready_in,omitempty"` // waiting: seconds until it can start a download
}

// Slots returns the download slots with the most queued requests (at most 20), as of the
// engine's last look (every 250 ms or so). Safe from any goroutine.
func (e *Engine) Slots() []SlotInfo {
	if p := e.slotSnap.Load(); p != nil {
		return *p
	}
	return nil
}

// downloaded routes a finished download to a parse or an errback goroutine.
func (e *Engine) downloaded(ctx context.Context, req *types.Request, resp *types.Response, err error) {
	tr := e.tracks[req]
	if tr != nil && !e.holds(req) {
		// Another worker took the request over (this one was paused or cut off longer
		// than its lease): it processes the response, this one does not.
		ClosePage(resp)
		e.stats.Inc("frontier/responses_lease_lost", 1)
		e.logger.Warn(fmt.Sprintf("Not processing %s: its lease expired and went to another worker", reqString(req)))
		e.done(ctx, tr)
		return
	}
	var re *RescheduleError
	if errors.As(err, &re) {
		// A middleware replaced the request: schedule the replacement (the duplicate filter
		// applies unless it has dontFilter).
		if e.enqueue(tr, re.Request) {
			e.send(ctx, SignalEvent{Signal: RequestScheduled, Request: re.Request})
		} else {
			e.send(ctx, SignalEvent{Signal: RequestDropped, Request: re.Request})
		}
		e.done(ctx, tr)
		return
	}
	if err != nil {
		if ctx.Err() != nil {
			return // hard stop: the request stays leased, a resumed job downloads it again
		}
		if e.abortCtx.Err() != nil && ErrorName(err) == NameCancelled {
			e.logger.Debug(fmt.Sprintf("Aborted %s: SHUTDOWN_TIMEOUT", reqString(req)))
			return // as a hard stop
		}
		if errors.Is(err, ErrIgnoreRequest) {
			e.logger.Debug(fmt.Sprintf("Ignoring request %s: %v", reqString(req), err))
		} else {
			e.logger.Error(fmt.Sprintf("Error downloading %s: %v", reqString(req), err))
		}
		if req.Errback != "" {
			e.errback(ctx, tr, req, nil, err)
		} else {
			e.done(ctx, tr)
		}
		return
	}
	e.send(ctx, SignalEvent{Signal: ResponseReceived, Response: resp, Request: req})
	if e.pageLimit > 0 && e.stats.Int("response_received_count") >= e.pageLimit {
		e.closeWith("closespider_pagecount")
	}
	for _, f := range e.inFilters {
		if ferr := f.ProcessSpiderInput(ctx, resp); ferr != nil {
			if resp.Request.Errback != "" {
				e.errback(ctx, tr, resp.Request, resp, ferr)
			} else {
				ClosePage(resp)
				e.done(ctx, tr)
			}
			return
		}
	}
	cl, logged := e.committer.(CallbackLog)
	logged = logged && tr != nil
	suspect := false
	if logged {
		died := cl.CallbackDied(tr.req)
		if died > e.settings.Int(types.RetryTimes) {
			cl.CallbackStarted(tr.req) // and ended: the job forgets it
			cl.CallbackEnded(tr.req)
			e.giveUp(ctx, tr, resp, died)
			return
		}
		suspect = died > 0
	}
	e.parsing++
	if tr != nil {
		tr.calls++
	}
	if !logged {
		e.parse(ctx, tr, resp)
		return
	}
	start := func() {
		cl.CallbackStarted(tr.req)
		tr.logged, tr.suspect = true, suspect
		e.logging++
		e.suspectRunning = e.suspectRunning || suspect
		e.parse(ctx, tr, resp)
	}
	if e.suspectRunning || len(e.held) > 0 || (suspect && e.logging > 0) {
		// A callback that was running when an earlier run died runs alone, so a run it
		// takes down again takes no other callback with it (CallbackLog).
		e.held = append(e.held, heldParse{start: start, suspect: suspect})
		return
	}
	start()
}

// heldParse is a callback of a job waiting for a suspect callback (one that was running when
// an earlier run of the job died) to end, or a suspect waiting for the others to end.
type heldParse struct {
	start   func()
	suspect bool
}

// releaseHeld starts the held callbacks that may run now, in order.
func (e *Engine) releaseHeld() {
	for len(e.held) > 0 && !e.suspectRunning {
		h := e.held[0]
		if h.suspect && e.logging > 0 {
			return
		}
		e.held[0] = heldParse{}
		e.held = e.held[1:]
		h.start()
	}
}

// parse runs the callback of resp on a worker goroutine (e.parsing counts it already).
func (e *Engine) parse(ctx context.Context, tr *reqTrack, resp *types.Response) {
	e.parseWorkers.run(&e.wg, e.maxParsing, func() {
		var errs int64
		if perr := e.spider.Parse(ctx, resp, e.emitFor(resp, tr, true)); perr != nil && ctx.Err() == nil {
			errs++
			e.spiderError(ctx, "Spider error processing "+reqString(resp.Request)+" (referer: "+referer(resp.Request)+")", perr, resp)
			if resp.Request.Errback != "" {
				errs += e.callErrback(ctx, tr, resp.Request, resp, perr)
			}
		}
		ClosePage(resp)
		e.post(event{kind: evParsed, errs: errs, tr: tr})
	})
}

// enqueue schedules req, produced while processing tr's request (tr nil: from start() or
// outside a callback), through EnqueueFrom when the scheduler is a LeaseScheduler.
func (e *Engine) enqueue(tr *reqTrack, req *types.Request) bool {
	if ls, ok := e.sched.(LeaseScheduler); ok && tr != nil {
		return ls.EnqueueFrom(tr.req, req)
	}
	return e.sched.Enqueue(req)
}

// holds reports whether the scheduler still holds the lease of req (always, but for a
// LeaseScheduler). Safe from any goroutine.
func (e *Engine) holds(req *types.Request) bool {
	ls, ok := e.sched.(LeaseScheduler)
	return !ok || ls.Holds(req)
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

// giveUp fails tr's request, whose callback was running when died runs of the job died:
// its callback is not run again; the failure is logged and counted as a spider error
// (spider_exceptions/GaveUpError) and goes to the errback, as a failing callback's does.
func (e *Engine) giveUp(ctx context.Context, tr *reqTrack, resp *types.Response, died int) {
	err := &GaveUpError{Runs: died}
	e.spiderError(ctx, "Gave up "+reqString(resp.Request)+": not running its callback "+resp.Request.CallbackName()+" again", err, resp)
	if resp.Request.Errback != "" {
		e.errback(ctx, tr, resp.Request, resp, err)
		return
	}
	ClosePage(resp)
	e.done(ctx, tr)
}

// errback calls the request's errback on a worker goroutine.
func (e *Engine) errback(ctx context.Context, tr *reqTrack, req *types.Request, resp *types.Response, err error) {
	e.parsing++
	if tr != nil {
		tr.calls++
	}
	e.parseWorkers.run(&e.wg, e.maxParsing, func() {
		errs := e.callErrback(ctx, tr, req, resp, err)
		ClosePage(resp)
		e.post(event{kind: evParsed, errs: errs, tr: tr})
	})
}

// maybeDone tells the scheduler a request is Done once its calls have returned and its items
// have left the pipelines.
func (e *Engine) maybeDone(ctx context.Context, tr *reqTrack) {
	if tr.calls == 0 && tr.items == 0 {
		e.done(ctx, tr)
	}
}

// done exports a job's items of tr's request and tells the scheduler it is Done (tr nil: a
// request not from the scheduler).
func (e *Engine) done(ctx context.Context, tr *reqTrack) {
	if tr == nil {
		return
	}
	delete(e.tracks, tr.req)
	if e.committer != nil {
		e.exportMu.Lock()
		held := tr.held
		tr.held = nil
		var ready []readyItem
		for _, r := range held {
			if e.exportOne(r.item) {
				ready = append(ready, r)
			}
		}
		e.sched.Done(tr.req)
		e.exportMu.Unlock()
		e.scraped(ctx, ready)
		return
	}
	e.sched.Done(tr.req)
}

// hasCallback reports whether the spider still has req's callback (and errback). A job's
// request whose callback an edited spider lost is an error, counted in
// jobdir/missing_callback, and Done: it is not downloaded.
func (e *Engine) hasCallback(req *types.Request) bool {
	hc, ok := e.spider.(interface{ HasCallback(name string) bool })
	if !ok {
		return true
	}
	for _, name := range []string{req.CallbackName(), req.Errback} {
		if name != "" && !hc.HasCallback(name) {
			e.stats.Inc("jobdir/missing_callback", 1)
			e.logger.Error(fmt.Sprintf("Request %s of the job names the method %s, which the spider no longer has: not downloaded", reqString(req), name))
			e.sched.Done(req)
			return false
		}
	}
	return true
}

// commit asks the committer to save the job's progress, with no item being exported. A
// failed commit closes the spider (finish_reason jobdir_error); it returns false then.
func (e *Engine) commit(ctx context.Context, p Progress) bool {
	e.exportMu.Lock()
	err := e.committer.Commit(ctx, p)
	e.exportMu.Unlock()
	if err != nil {
		e.stats.Inc("jobdir/commit_error_count", 1)
		if !e.commitErr {
			e.logger.Error(fmt.Sprintf("Could not save the job's progress: %v", err))
		}
		e.commitErr = true
		if !p.Final {
			e.closeWith("jobdir_error")
		}
		return false
	}
	return true
}

// callErrback calls Spider.Errback and reports its error; it returns the number of spider
// errors (0 or 1).
func (e *Engine) callErrback(ctx context.Context, tr *reqTrack, req *types.Request, resp *types.Response, err error) int64 {
	f := &types.Failure{Request: req, Response: resp, Name: ErrorName(err), Message: ErrorMessage(err)}
	parent := resp
	if parent == nil {
		parent = &types.Response{URL: req.URL, Request: req}
	}
	if eerr := e.spider.Errback(ctx, f, e.emitFor(parent, tr, true)); eerr != nil && ctx.Err() == nil {
		e.spiderError(ctx, "Spider error processing "+reqString(req)+" (errback "+req.Errback+")", eerr, resp)
		return 1
	}
	return 0
}

// spiderError logs and counts an error from spider code (Scrapy: handle_spider_error).
func (e *Engine) spiderError(ctx context.Context, msg string, err error, resp *types.Response) {
	name := ErrorName(err)
	e.stats.Inc("spider_exceptions/count", 1)
	e.stats.Inc("spider_exceptions/"+name, 1)
	e.logger.Error(msg + "\n" + err.Error())
	e.send(ctx, SignalEvent{Signal: SpiderError, Err: err, Response: resp})
}

// finish closes the spider, pipelines and exporters and dumps the stats.
func (e *Engine) finish(ctx context.Context, start time.Time) {
	reason := e.reason
	if reason == "" {
		reason = "finished"
	}
	if e.memExceeded.Load() {
		reason = ReasonMemUsageExceeded
	}
	if !e.closing || reason == "finished" {
		e.logger.Info(fmt.Sprintf("Closing spider (%s)", reason))
	}
	// Pipelines close first (Scrapy: close_spider of each pipeline), while the spider they
	// may call is still open; then spider_closed, whose handlers may still use the spider
	// (Scrapy sends it before the stats are dumped); then the spider, then the feeds.
	e.closePipelines(e.pipelines)
	e.stats.Set("finish_reason", reason)
	e.send(context.WithoutCancel(ctx), SignalEvent{Signal: SpiderClosed, Reason: reason})
	if e.committer != nil && !e.commit(context.WithoutCancel(ctx), Progress{Final: true, Reason: reason, StartDone: e.startDone}) &&
		reason != ReasonMemUsageExceeded {
		// The job's last progress is not saved: the crawl did not end the way the job says.
		reason = "jobdir_error"
		e.stats.Set("finish_reason", reason)
	}
	e.closeSpider()
	close(e.drained)
	if !e.closeExporters() && !strings.EqualFold(e.settings.String(types.FeedErrors), FeedErrorsIgnore) &&
		(reason == "finished" || strings.HasPrefix(reason, "closespider_")) {
		// A feed whose end could not be written: the crawl did not store what it scraped.
		reason = "feed_error"
		e.stats.Set("finish_reason", reason)
	}
	end := time.Now()
	e.stats.Inc("item_scraped_count", 0)
	e.stats.Inc("response_received_count", 0)
	e.stats.Set("finish_time", end.UTC().Format(time.RFC3339))
	e.stats.Set("elapsed_time_seconds", end.Sub(start).Seconds())
	// One record with the stats as an attribute: the text handler writes it as Scrapy's
	// indented dump, the JSON one as an object.
	e.logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "Dumping stats", slog.Any("stats", e.stats.Snapshot()))
	e.logger.Info(fmt.Sprintf("Spider closed (%s)", reason))
}

func (e *Engine) closeSpider() {
	if c, ok := e.spider.(io.Closer); ok {
		if err := c.Close(); err != nil {
			e.logger.Error(fmt.Sprintf("Error closing spider: %v", err))
		}
	}
}

// logStats writes the periodic progress line (Scrapy: LogStats).
type logStats struct {
	e            *Engine
	interval     time.Duration
	pages, items int64
}

func (l *logStats) log() {
	pages := l.e.stats.Int("response_received_count")
	items := l.e.stats.Int("item_scraped_count")
	mult := float64(time.Minute) / float64(l.interval)
	hosts := ""
	if ss := l.e.slotSched; ss != nil {
		l.e.slotStats(true)
		if slots, ready, waiting := ss.SlotCounts(); slots > 1 {
			hosts = fmt.Sprintf("; %d hosts with work: %d ready, %d waiting on delays, %d busy", slots, ready, waiting, slots-ready-waiting)
		}
	}
	if l.e.sessions != nil {
		hosts += fmt.Sprintf("; sessions: %d active, %d retired, %d blocked", l.e.sessions.Active(),
			l.e.stats.Int("session/retired_count"), l.e.stats.Int("session/blocked_count"))
	}
	l.e.logger.Info(fmt.Sprintf("Crawled %d pages (at %d pages/min), scraped %d items (at %d items/min)%s",
		pages, int64(float64(pages-l.pages)*mult), items, int64(float64(items-l.items)*mult), hosts))
	l.pages, l.items = pages, items
}
