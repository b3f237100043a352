package engine

// This file holds New's options: what a caller gives the engine's roles (the pipelines and
// feeds of the scraper, the scheduler and its parts, the downloader's client, middlewares
// and handler decorators, a job's committer).

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/jscrawl/jscrawl/engine/proxypool"
	"github.com/jscrawl/jscrawl/engine/warc"
)

// Option configures an Engine in New.
type Option func(*config)

// config is what the options gave New.
type config struct {
	pipelines []Pipeline
	exporters []Exporter
	logger    *slog.Logger
	stats     *Stats
	client    *http.Client
	sched     Scheduler
	parts     SchedulerParts
	dlmws     []OrderedMiddleware

	warcOut        *warc.Writer
	replay         *warc.Archive
	replayFallback bool
	decorators     []HandlerDecorator

	proxies    *proxypool.Pool
	proxiesSet bool

	committer   Committer
	commitEvery time.Duration
	startDone   bool
}

// WithPipelines adds item pipelines, run in order on each item.
func WithPipelines(p ...Pipeline) Option {
	return func(c *config) { c.pipelines = append(c.pipelines, p...) }
}

// WithExporters adds feed exporters; each scraped item is exported to all of them.
func WithExporters(x ...Exporter) Option {
	return func(c *config) { c.exporters = append(c.exporters, x...) }
}

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithStats sets the stats collector (default NewStats()).
func WithStats(s *Stats) Option { return func(c *config) { c.stats = s } }

// WithHTTPClient sets the HTTP client the downloader copies (default: one with a
// keep-alive Transport sized to CONCURRENT_REQUESTS).
func WithHTTPClient(cl *http.Client) Option { return func(c *config) { c.client = cl } }

// WithScheduler replaces the default MemoryScheduler with s, whose capabilities beyond
// Scheduler are parts (a scheduler package tells them: redisfrontier.Frontier.Parts,
// job.Scheduler.Parts, MemoryScheduler.Parts; SchedulerParts{} for none).
func WithScheduler(s Scheduler, parts SchedulerParts) Option {
	return func(c *config) { c.sched, c.parts = s, parts }
}

// WithDownloaderMiddlewares adds downloader middlewares at order 543, Scrapy's place for
// user middlewares: on the engine side of the built-in RetryMiddleware (550). Several are
// chained in the order given, nearest the engine first.
func WithDownloaderMiddlewares(m ...DownloaderMiddleware) Option {
	return func(c *config) {
		for _, x := range m {
			c.dlmws = append(c.dlmws, OrderedMiddleware{Order: DefaultMiddlewareOrder, M: x})
		}
	}
}

// WithOrderedDownloaderMiddlewares adds downloader middlewares at their order numbers among
// the built-ins (Scrapy: DOWNLOADER_MIDDLEWARES; lower runs nearer the engine).
func WithOrderedDownloaderMiddlewares(m ...OrderedMiddleware) Option {
	return func(c *config) { c.dlmws = append(c.dlmws, m...) }
}

// WithCommitter makes the crawl a job whose progress c saves every interval and at the end
// (the jobdir): each scheduled request's items are then exported together once its callback
// has finished and all of them are out of the pipelines, and only then is the request Done,
// so a commit never saves the items of a request it does not save as done.
func WithCommitter(cm Committer, interval time.Duration) Option {
	return func(c *config) { c.committer, c.commitEvery = cm, interval }
}

// WithProxyPool makes the downloads without meta.proxy rotate over pool (nil: none)
// instead of the pool New would build from PROXY_LIST (proxypool.FromSettings), for a
// caller that read the list already, to report a bad one.
func WithProxyPool(pool *proxypool.Pool) Option {
	return func(c *config) { c.proxies, c.proxiesSet = pool, true }
}

// WithStartDone tells the engine that start() already yielded all its requests in an earlier
// run of the job: it is not called again.
func WithStartDone() Option { return func(c *config) { c.startDone = true } }
