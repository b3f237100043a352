package engine

// This file is the downloader side of the engine (Scrapy: Downloader with its middleware
// manager): the download handlers and their decorators, the download slots, the downloader
// middleware chain, the proxy and session pools, and the inline and service downloads that
// go around the scheduler.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jscrawl/jscrawl/engine/proxypool"
	"github.com/jscrawl/jscrawl/engine/session"
	"github.com/jscrawl/jscrawl/types"
)

// downloadSide builds and holds what downloads a request. Safe for concurrent use once New
// returned.
type downloadSide struct {
	settings *types.Settings
	stats    *Stats
	logger   *slog.Logger
	client   *http.Client
	parts    SchedulerParts
	added    []OrderedMiddleware // WithDownloaderMiddlewares

	downloader Downloader      // the compiled chain
	slots      *SlotDownloader // the bottom of the chain, above the HTTP downloader
	http       *HTTPDownloader // below the slots; owns the handlers (the browser's too)
	service    serviceClient   // ServiceDownload's downloader, made on first use
	offsite    *OffsiteMiddleware
	sessions   *session.Pool // SESSION_POOL_ENABLED, else nil
	// The proxy pool of PROXY_LIST (nil: none) or the error of reading it.
	proxies    *proxypool.Pool
	proxiesErr error
	inflight   inflight // downloads in flight, for Downloads

	stop        *stopState
	redirectMax int // REDIRECT_MAX_TIMES+1: replacements Download follows in a row
}

// newDownloadSide builds the downloader side for spider from the options: the proxy pool,
// the HTTP downloader with its handlers wrapped for replay, recording and the decorators,
// the slots (told to slotw when the scheduler queues per slot), the session pool and the
// middleware chain with the spider's own middlewares (ownDL: their order numbers).
func newDownloadSide(spider Spider, settings *types.Settings, c *config, cfg *crawlConfig, stop *stopState, slotw *slotWatch, closeSpider func(string), ownDL []int) *downloadSide {
	d := &downloadSide{settings: settings, stats: c.stats, logger: c.logger, client: c.client, parts: c.parts, added: c.dlmws,
		stop: stop, redirectMax: cfg.redirectMax}
	var domains []string
	if ad, ok := spider.(interface{ AllowedDomains() []string }); ok {
		domains = ad.AllowedDomains()
	}
	// One OffsiteMiddleware filters yielded requests (spider side) and redirected ones
	// (downloader side), so offsite/domains counts each host once.
	d.offsite = NewOffsiteMiddleware(domains, d.stats, d.logger)
	d.proxies = c.proxies
	if !c.proxiesSet {
		d.proxies, d.proxiesErr = proxypool.FromSettings(settings, d.logger)
		if d.proxiesErr != nil {
			d.logger.Error(fmt.Sprintf("%v: the downloads it should proxy fail", d.proxiesErr))
		}
	}
	if d.proxies != nil && settings.Bool(types.HTTPProxyEnabled) {
		d.logger.Info(fmt.Sprintf("Proxy pool: %d proxies, %s", d.proxies.Len(), d.proxies.Rotation()))
	}
	hd := NewHTTPDownloader(settings, c.client, d.stats)
	hd.env.logger = d.logger
	d.http = hd
	archiveHandlers(hd, c, func(err error) { warcFailed(cfg, d.logger, closeSpider, err) })
	slotOpts := []SlotOption{SlotLogger(d.logger), SharedSlots(c.parts.Gate), SlotPrepare(hd.prepare)}
	if dc := hd.DNSCache(); dc != nil {
		slotOpts = append(slotOpts, SlotDNS(dc))
	}
	if slotw != nil {
		slotOpts = append(slotOpts, SlotNotify(slotw.changedSlot))
	}
	d.slots = NewSlotDownloader(settings, markDownloading(hd), slotOpts...)
	if slotw != nil {
		slotw.slots = d.slots
		slotw.sched.UseSlots(d.slots)
	}
	d.sessions = d.sessionPool(c.committer)
	d.downloader = d.inflight.scope(Chain(d.inflight.track(d.slots), d.chain(spider, ownDL)...))
	return d
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
	return e.dl.inline(ctx, req)
}

func (d *downloadSide) inline(ctx context.Context, req *types.Request) (*types.Response, error) {
	if metaBool(req, types.MetaDontCount) {
		return d.serviceDownload(ctx, req)
	}
	ctx = withStopping(context.WithValue(ctx, inlineKey{}, true), d.stop.stopping)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(d.stop.abortCtx, cancel)()
	resp, err := d.downloader.Fetch(ctx, req)
	for i := 0; err != nil; i++ {
		var re *RescheduleError
		if !errors.As(err, &re) {
			break
		}
		if i >= d.redirectMax {
			err = &DownloadError{Name: NameMaxRedirects, URL: req.URL,
				Err: fmt.Errorf("replaced by a middleware more than %d times (%s), last by %s", d.redirectMax, types.RedirectMaxTimes, re.Request.URL)}
			countException(d.stats, err)
			break
		}
		resp, err = d.downloader.Fetch(ctx, re.Request)
	}
	if err != nil {
		return nil, err
	}
	d.received(ctx, resp)
	return resp, nil
}

// received counts and logs a downloaded response.
func (d *downloadSide) received(ctx context.Context, resp *types.Response) {
	d.stats.Inc("response_received_count", 1)
	if d.logger.Enabled(ctx, slog.LevelDebug) {
		d.logger.Debug(fmt.Sprintf("Crawled (%d) %s (referer: %s)", resp.Status, reqString(resp.Request), referer(resp.Request)))
	}
}

// close closes the download handlers and the service client.
func (d *downloadSide) close() error {
	d.closeService()
	return d.http.Close()
}

// CloseHandlers closes the download handlers that hold resources (HTTPDownloader.Close:
// the Chromium of browser requests, if one was started). Run does it when the crawl
// ends; a command that only calls Download does it when done.
func (e *Engine) CloseHandlers() error { return e.dl.close() }

// DownloadHandler returns the download handler DOWNLOAD_HANDLERS or a route (RegisterRoute)
// names name, as made for e (not wrapped for --warc or --replay), or nil.
func (e *Engine) DownloadHandler(name string) DownloadHandler { return e.dl.http.Handler(name) }

// ProxyPool returns the proxy pool of PROXY_LIST, or nil without one: a session pool
// calls its Forget when it retires a session.
func (e *Engine) ProxyPool() *proxypool.Pool { return e.dl.proxies }
