// Package engine is the crawl machinery: the Engine that drives a Spider, the Scheduler and
// its duplicate filter, the Downloader with its download slots and middleware chain, the
// spider middlewares, item pipelines, stats and signals (Scrapy: scrapy.core and the
// built-in middlewares). It never imports goja: the whole engine runs with a Go Spider.
package engine

import (
	"context"
	"errors"
	"time"

	"github.com/jscrawl/jscrawl/engine/frontier/order"
	"github.com/jscrawl/jscrawl/types"
)

// Scheduler stores requests until the engine asks for them (Scrapy: enqueue_request and
// next_request). Only the engine goroutine calls it, so implementations need no locking.
// An on-disk or Redis frontier implements the same interface.
type Scheduler interface {
	// Enqueue stores req; false means it was dropped (a duplicate).
	Enqueue(req *types.Request) bool
	// Next returns the next request to download, nil when none is ready. The request is
	// leased: handed to the engine until Done (an on-disk frontier returns a lease that was
	// never Done to the queue when a job resumes).
	Next() *types.Request
	// Done ends the lease of a request Next returned: it was processed, its callback (or
	// errback) finished and what that produced was handed on, or it failed for good.
	Done(req *types.Request)
	// Len returns the number of stored requests not leased.
	Len() int
}

// SlotScheduler is a Scheduler that queues requests per download slot (SlotKey) and hands
// out only requests whose slot can start a download now, so that a request for an idle
// host never waits behind requests for hosts waiting out their delays (a host-aware
// frontier). The engine gives it the download slots' Readiness before the crawl and tells
// it when a slot's state changed; Next returns nil while every slot with queued requests
// waits or is busy, and reserves the slot of the request it returns
// (order.Readiness.Reserve). Every scheduler of jscrawl is one; the ordering of slots is
// order.SlotIndex's. Called on the engine goroutine.
type SlotScheduler interface {
	Scheduler
	// UseSlots sets the Readiness that Next asks.
	UseSlots(r order.Readiness)
	// SlotChanged tells the scheduler that slot key may be ready sooner than it knew (a
	// download of it ended or was sent).
	SlotChanged(key string)
	// NextReady returns when a slot waiting on a time becomes ready; false when none waits
	// on a time.
	NextReady() (time.Time, bool)
	// Recheck asks the Readiness about every slot again.
	Recheck()
	// SlotCounts returns how many slots have queued requests, how many of them are ready
	// and how many wait on a time (a delay, a pause).
	SlotCounts() (slots, ready, waiting int)
}

// SlotSizer is a SlotScheduler that tells its slots' queue sizes, for jscrawl ps. Called
// on the engine goroutine.
type SlotSizer interface {
	// SlotSizes returns the n biggest slots' queue sizes, biggest first.
	SlotSizes(n int) []order.SlotSize
}

// SharedScheduler is a Scheduler that the processes of one crawl share (the Redis
// frontier): the crawl is over only when it is over in all of them, and one of them runs
// start(). The engine checks for it; its methods are called on the engine goroutine and
// must not block.
type SharedScheduler interface {
	Scheduler
	// WrapStart wraps the spider's Start once, before the crawl begins. The returned
	// function runs start() in the process allowed to, or waits while another runs it.
	WrapStart(start func(ctx context.Context, emit Emit) error) func(ctx context.Context, emit Emit) error
	// StartDone tells the scheduler that every output of the wrapped start has been routed,
	// and what it returned.
	StartDone(err error)
	// Settled reports whether the whole crawl is over. The engine asks when it is idle
	// itself, and waits while it is not.
	Settled() bool
	// Wake receives when Next may return a request or Settled may have changed.
	Wake() <-chan struct{}
}

// LeaseScheduler is a SharedScheduler whose requests are leased from a store that the
// crawl's processes share (the Redis frontier), so that a process can lose one: paused or
// cut off longer than a lease lasts, it finds that another process took the request over.
// The engine calls Holds, from any goroutine, before it parses a downloaded response and
// before it exports each item of the request, and skips the response or drops the item
// (item_dropped_reasons_count/lease_lost) when it returns false; it still calls Done for
// the request. It calls EnqueueFrom, on its goroutine, instead of Enqueue for a request
// that a callback or errback of parent yielded or that a middleware made from parent (a
// redirect, a retry), so that the store refuses it once parent's lease is lost.
type LeaseScheduler interface {
	SharedScheduler
	// Holds reports whether this process still holds the lease of req, a request Next
	// returned and Done was not called for; false is final.
	Holds(req *types.Request) bool
	// EnqueueFrom is Enqueue for a request produced while processing parent.
	EnqueueFrom(parent, req *types.Request) bool
}

// Committer persists the progress of a job (the jobdir). The engine calls Commit from its
// goroutine every JOBDIR_COMMIT_INTERVAL and once at the end (p.Final), with no item being
// exported meanwhile: the exporters then hold exactly the items of the requests the
// scheduler was told were Done, and the items of start(), so a committer that saves the
// scheduler's state with the feeds' positions saves one consistent cut of the crawl.
type Committer interface {
	Commit(ctx context.Context, p Progress) error
}

// CallbackLog is implemented by a Committer that remembers across the runs of a job the
// requests whose callback was running when a run died (a crash, a kill, a hard stop): the
// engine gives up a request whose callback took RETRY_TIMES + 1 runs down with it, so a job
// whose page kills the process on every try still finishes; and it runs such a suspect
// callback alone, so the others are not taken down with it again. The engine goroutine
// calls it, before a request's callback runs and once it has returned.
type CallbackLog interface {
	// CallbackDied returns how many earlier runs died while req's callback ran.
	CallbackDied(req *types.Request) int
	// CallbackStarted records that req's callback starts.
	CallbackStarted(req *types.Request)
	// CallbackEnded records that req's callback returned (or its request was given up).
	CallbackEnded(req *types.Request)
}

// Progress is what the engine tells a Committer besides what it shares with it (the
// scheduler, the stats, the exporters).
type Progress struct {
	Final     bool   // the crawl is over (finished, closed or stopped)
	Reason    string // the finish_reason, when Final
	StartDone bool   // start() has yielded all its requests
}

// Downloader obtains a Response for a Request. It must be safe for concurrent use. A 404 or
// 500 is a Response, not an error (the net/http.RoundTripper contract).
type Downloader interface {
	Fetch(ctx context.Context, req *types.Request) (*types.Response, error)
}

// DownloaderFunc adapts a function to Downloader.
type DownloaderFunc func(ctx context.Context, req *types.Request) (*types.Response, error)

// Fetch calls f.
func (f DownloaderFunc) Fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	return f(ctx, req)
}

// DownloaderMiddleware wraps the rest of the chain (Scrapy: a downloader middleware; caddy's
// MiddlewareHandler shape). Code before next.Fetch is process_request, code after it is
// process_response, and the error path is process_exception. next is never nil. It is
// called concurrently from download goroutines.
type DownloaderMiddleware interface {
	Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error)
}

// SpiderInputFilter checks a response before its callback runs (Scrapy:
// process_spider_input, as HttpErrorMiddleware). A non-nil error skips the callback and
// goes to the errback. Called on the engine goroutine.
type SpiderInputFilter interface {
	ProcessSpiderInput(ctx context.Context, resp *types.Response) error
}

// SpiderOutputFilter sees every request and item a spider produces before the engine routes
// it (Scrapy: process_spider_output, as DepthMiddleware and OffsiteMiddleware). resp is nil
// for start requests. Returning false drops the output. Called on the engine goroutine, or
// by a spider that runs it among its own middlewares, so it must be safe for concurrent use.
type SpiderOutputFilter interface {
	ProcessSpiderOutput(ctx context.Context, resp *types.Response, out types.Output) (types.Output, bool)
}

// Pipeline processes one scraped item (Scrapy: an item pipeline's process_item). Return an
// error wrapping ErrDropItem to drop it. It may be called concurrently, up to
// CONCURRENT_ITEMS at a time.
type Pipeline interface {
	ProcessItem(ctx context.Context, item types.Item) (types.Item, error)
}

// Emit hands one spider output to the engine. It never blocks and is safe to call from any
// goroutine, including a JS event loop.
type Emit func(types.Output)

// Spider is what the engine drives (Scrapy: a Spider). jsapi.Spider implements it on top of
// a pool of JS VMs. Start is called once; Parse and Errback are called concurrently from
// engine worker goroutines and return when the callback has finished, including everything
// it awaited.
type Spider interface {
	// Start produces the start requests (Scrapy: start()).
	Start(ctx context.Context, emit Emit) error
	// Parse runs the callback named by resp.Request.CallbackName().
	Parse(ctx context.Context, resp *types.Response, emit Emit) error
	// Errback runs the errback named by f.Request.Errback, which is not empty.
	Errback(ctx context.Context, f *types.Failure, emit Emit) error
}

// Opener is implemented by components that need set-up when the crawl opens (Scrapy:
// open_spider). The engine calls it once, before anything else.
type Opener interface {
	Open(ctx context.Context) error
}

// Sentinel errors.
var (
	// ErrDropItem drops an item in a pipeline (Scrapy: DropItem).
	ErrDropItem = errors.New("item dropped")
	// ErrIgnoreRequest drops a request in a middleware (Scrapy: IgnoreRequest).
	ErrIgnoreRequest = errors.New("request ignored")
	// ErrCloseSpider asks the engine to close the crawl (Scrapy: CloseSpider).
	ErrCloseSpider = errors.New("close spider")
)
