package engine

// This file orders the middleware chains: the built-in middlewares at their Scrapy order
// numbers, overridden by the *_MIDDLEWARES settings, with the spider's own among them.

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/engine/session"
	"github.com/jscrawl/jscrawl/types"
)

// DefaultMiddlewareOrder is the order number of a middleware that names none (Scrapy's
// project template uses 543).
const DefaultMiddlewareOrder = 543

// MiddlewareOrder reads an order number: a value of a *_MIDDLEWARES setting or a spider
// middleware's `order` property, as decoded from JSON or exported from JS. ok is false for
// anything but a finite number, which is truncated to an integer.
func MiddlewareOrder(v any) (order int, ok bool) {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, false
		}
		return int(n), true
	case int64:
		return int(n), true
	case int:
		return n, true
	}
	return 0, false
}

// OrderedMiddleware is a downloader middleware with its order number.
type OrderedMiddleware struct {
	Order int
	M     DownloaderMiddleware
}

// OwnMiddlewares is implemented by a spider that brings its own middlewares (jsapi.Spider:
// the module's downloaderMiddlewares and spiderMiddlewares exports). New asks it once for
// their order numbers and places them among the built-ins (Scrapy: DOWNLOADER_MIDDLEWARES
// and SPIDER_MIDDLEWARES list the project's middlewares with the built-ins).
type OwnMiddlewares interface {
	// MiddlewareOrders returns the order numbers of the spider's downloader middlewares
	// and of its spider middlewares that have an output hook (processSpiderOutput or
	// processSpiderException), each in the order declared; their indexes there are the
	// numbers DownloaderMiddlewares and OutputStage.Own use.
	MiddlewareOrders() (downloader, spiderOutput []int)
	// DownloaderMiddlewares returns one DownloaderMiddleware that runs the spider's
	// downloader middlewares idx, which are adjacent in the chain (nearest the engine
	// first), with the semantics of Scrapy's DownloaderMiddlewareManager among them. New
	// calls it once per run of adjacent ones.
	DownloaderMiddlewares(idx []int) DownloaderMiddleware
}

// OutputStage is one stage of the spider's part of the spider output chain (OutputPlan):
// one of the spider's own middlewares (Own ≥ 0, its number in OwnMiddlewares'
// spiderOutput) or a run of adjacent built-in output filters (Own is -1).
type OutputStage struct {
	Own     int
	Filters []SpiderOutputFilter // spider side first; for Own -1
}

// OutputPlan returns the spider's part of the spider output chain (Scrapy:
// SpiderMiddlewareManager's process_spider_output), spider side first: its own middlewares
// with an output hook and the built-in output filters their order numbers place on the
// spider side of the last of them. The spider runs it on what its callbacks and errbacks
// produce; the engine then runs the built-ins nearer the engine. Nil when the spider has no
// such middleware: the engine runs every filter.
func (e *Engine) OutputPlan() []OutputStage { return e.chain.plan }

// link is one middleware of a chain with its order number: a built-in (with its Scrapy
// name, or "" for one added with an Option) or the spider's own middleware number own.
type link[T any] struct {
	name  string
	order int
	own   int // -1 for a built-in
	m     T
}

// chainOrder orders one middleware chain, nearest the engine first (Scrapy:
// build_component_list over *_MIDDLEWARES_BASE and *_MIDDLEWARES): the built-ins at their
// order numbers as the setting key moves them (a number) or disables them (null) by name,
// an unknown name being a warning, and the spider's own middleware i at order own[i]. Ties
// keep the built-ins nearer the engine, then the order given, as Scrapy sorts the base
// entries before the project's.
func chainOrder[T any](settings *types.Settings, key string, logger *slog.Logger, builtins []link[T], own []int) []link[T] {
	conf := settings.Map(key)
	known := map[string]bool{}
	var keep []link[T]
	for _, b := range builtins {
		b.own = -1
		if b.name != "" {
			known[b.name] = true
			if v, ok := conf[b.name]; ok {
				if v == nil {
					continue // disabled
				}
				if o, ok := MiddlewareOrder(v); ok {
					b.order = o
				}
			}
		}
		keep = append(keep, b)
	}
	for name := range conf {
		if !known[name] {
			logger.Warn(fmt.Sprintf("%s: unknown built-in middleware %q (known: %s)", key, name, linkNames(builtins)))
		}
	}
	for i, o := range own {
		keep = append(keep, link[T]{order: o, own: i})
	}
	slices.SortStableFunc(keep, func(a, b link[T]) int { return a.order - b.order })
	return keep
}

func linkNames[T any](bs []link[T]) string {
	var names []string
	for _, b := range bs {
		if b.name != "" {
			names = append(names, b.name)
		}
	}
	return strings.Join(names, ", ")
}

// ownOrders returns the order numbers of the spider's own downloader and output
// middlewares (none for a spider without OwnMiddlewares).
func ownOrders(spider Spider) (downloader, spiderOutput []int) {
	if o, ok := spider.(OwnMiddlewares); ok {
		return o.MiddlewareOrders()
	}
	return nil, nil
}

// downloaderChain is the built-in downloader middlewares, the added ones and the spider's
// own, sorted by order number (DOWNLOADER_MIDDLEWARES moves or disables a built-in). The
// spider's own middlewares that end up adjacent run as one group (OwnMiddlewares).
func (d *downloadSide) chain(spider Spider, own []int) []DownloaderMiddleware {
	bs := []link[DownloaderMiddleware]{
		{name: "OffsiteMiddleware", order: 50, m: d.offsite},
		{name: "RobotsTxtMiddleware", order: 100, m: NewRobotsTxtMiddleware(d.settings, d.stats, d.logger, d.slots).sharedBy(d.parts.Robots)},
		{name: "HttpAuthMiddleware", order: 300, m: NewHTTPAuthMiddleware(d.settings)},
		{name: "RetryMiddleware", order: 550, m: NewRetryMiddleware(d.settings, d.stats, d.logger, d.slots)},
		{name: "MetaRefreshMiddleware", order: 580, m: NewMetaRefreshMiddleware(d.settings, d.stats, d.logger)},
		{name: "RedirectMiddleware", order: 600, m: NewRedirectMiddleware(d.settings, d.stats, d.logger)},
		{name: "CookiesMiddleware", order: 700, m: NewCookiesMiddleware(d.settings, d.logger)},
		{name: "HttpProxyMiddleware", order: 750, m: NewHTTPProxyMiddleware(d.settings, d.stats).WithPool(d.proxies, d.proxiesErr, d.logger)},
		{name: "HttpCacheMiddleware", order: 900, m: NewHTTPCacheMiddleware(d.settings, spiderName(spider), d.stats, d.logger)},
	}
	// SessionMiddleware is there with SESSION_POOL_ENABLED only, but its name is always known
	// to DOWNLOADER_MIDDLEWARES.
	if d.sessions == nil {
		bs = append(bs, link[DownloaderMiddleware]{name: "SessionMiddleware", order: 560, m: nil})
	} else {
		detector, _ := spider.(BlockDetector)
		bs = append(bs, link[DownloaderMiddleware]{name: "SessionMiddleware", order: 560,
			m: NewSessionMiddleware(d.settings, d.sessions, detector, d.parts.Sessions, d.stats, d.logger)})
	}
	// Added middlewares have no name, so the setting cannot disable them; they sort among
	// the built-ins by order, ties keeping the order they were added in.
	for _, m := range d.added {
		bs = append(bs, link[DownloaderMiddleware]{order: m.Order, m: m.M})
	}
	var chain []DownloaderMiddleware
	links := chainOrder(d.settings, types.DownloaderMiddlewares, d.logger, bs, own)
	if d.sessions != nil {
		// What a middleware keeps per session (a proxy pool's per-session proxy) goes when
		// the session retires.
		for _, l := range links {
			if f, ok := l.m.(SessionForgetter); ok && l.own < 0 {
				d.sessions.OnRetire(func(s *session.Session, _ string) { f.ForgetSession(s.Name()) })
			}
		}
	}
	links = slices.DeleteFunc(links, func(l link[DownloaderMiddleware]) bool { return l.own < 0 && l.m == nil })
	for i := 0; i < len(links); i++ {
		if links[i].own < 0 {
			chain = append(chain, links[i].m)
			continue
		}
		var idx []int
		for ; i < len(links) && links[i].own >= 0; i++ {
			idx = append(idx, links[i].own)
		}
		i--
		chain = append(chain, spider.(OwnMiddlewares).DownloaderMiddlewares(idx))
	}
	return chain
}

// outputChain is the spider middleware chain compiled once (New): the input filters, the
// output filters (spider side first) and the spider's part of them (OutputPlan), which the
// spider runs on what its callbacks produce; run runs the rest, in one place.
type outputChain struct {
	in         []SpiderInputFilter
	out        []SpiderOutputFilter // spider side first
	plan       []OutputStage        // the spider's part of the chain (OutputPlan)
	spiderPart int                  // out[:spiderPart] are in plan
	// lateRef is the index in out of the RefererMiddleware when run may run it after the
	// memory scheduler's duplicate filter, else -1.
	lateRef int
	memory  *MemoryScheduler
	sig     *signalBus
}

// compileOutputChain orders the built-in spider middlewares (SPIDER_MIDDLEWARES moves or
// disables them) and the spider's own output middlewares (own: their order numbers); the
// spider's part of the chain ends at its own middleware nearest the engine.
func compileOutputChain(settings *types.Settings, stats *Stats, logger *slog.Logger, offsite *OffsiteMiddleware, own []int, memory *MemoryScheduler, sig *signalBus) *outputChain {
	links := chainOrder(settings, types.SpiderMiddlewares, logger, []link[any]{
		{name: "HttpErrorMiddleware", order: 50, m: NewHTTPErrorMiddleware(settings, stats, logger)},
		{name: "SchemeMiddleware", order: 60, m: NewSchemeMiddleware(settings, logger)},
		{name: "OffsiteMiddleware", order: 500, m: offsite},
		{name: "RefererMiddleware", order: 700, m: NewRefererMiddleware(settings, logger)},
		{name: "UrlLengthMiddleware", order: 800, m: NewURLLengthMiddleware(settings, stats, logger)},
		{name: "DepthMiddleware", order: 900, m: NewDepthMiddleware(settings, stats, logger)},
	}, own)
	c := &outputChain{sig: sig}
	for _, l := range links {
		if f, ok := l.m.(SpiderInputFilter); ok {
			c.in = append(c.in, f)
		}
	}
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		if l.own >= 0 {
			c.plan = append(c.plan, OutputStage{Own: l.own})
			c.spiderPart = len(c.out)
			continue
		}
		f, ok := l.m.(SpiderOutputFilter)
		if !ok {
			continue
		}
		c.out = append(c.out, f)
		if last := len(c.plan) - 1; last >= 0 && c.plan[last].Own < 0 {
			c.plan[last].Filters = append(c.plan[last].Filters, f)
		} else {
			c.plan = append(c.plan, OutputStage{Own: -1, Filters: []SpiderOutputFilter{f}})
		}
	}
	// The built-ins engine side of the spider's last middleware are the engine's to run.
	for len(c.plan) > 0 && c.plan[len(c.plan)-1].Own < 0 {
		c.plan = c.plan[:len(c.plan)-1]
	}
	c.lateRef = lateReferer(c.out, memory)
	if c.lateRef >= 0 {
		c.memory = memory
	}
	return c
}

// run runs the output filters on a request one output carries (a chained output passed
// the spider's part of the chain: only the filters after it run) and hands the request that
// passes to enqueue. It returns that request, or nil when a filter dropped it, and whether
// it was scheduled.
//
// The Referer header is only seen once a request is scheduled, when the filters after
// RefererMiddleware are built-ins that never read headers and the scheduler a
// MemoryScheduler with a MemoryDupeFilter (lateRef), and no request_dropped handler could
// see a dropped request's headers: then RefererMiddleware runs only on requests that the
// duplicate filter let pass, just before they are stored, and a duplicate costs no
// header. Otherwise it runs in its place in the chain.
func (c *outputChain) run(ctx context.Context, parent *types.Response, out types.Output, chained bool, enqueue func(*types.Request) bool) (*types.Request, bool) {
	first := 0
	if chained {
		first = c.spiderPart
	}
	late := -1
	if c.lateRef >= first && !c.sig.connected(RequestDropped) {
		late = c.lateRef
	}
	for i := first; i < len(c.out); i++ {
		if i == late {
			continue
		}
		var ok bool
		if out, ok = c.out[i].ProcessSpiderOutput(ctx, parent, out); !ok {
			return nil, false
		}
	}
	if out.Request == nil {
		return nil, false
	}
	if late >= 0 {
		return out.Request, c.memory.enqueueThen(out.Request, func(req *types.Request) {
			c.out[late].ProcessSpiderOutput(ctx, parent, types.Output{Request: req})
		})
	}
	return out.Request, enqueue(out.Request)
}

// lateReferer returns the index of the RefererMiddleware in filters when run may run it
// after the scheduler's duplicate filter: every filter after it is a built-in that reads
// no header, and the scheduler is a MemoryScheduler (memory) whose duplicate filter reads
// none. Else -1.
func lateReferer(filters []SpiderOutputFilter, memory *MemoryScheduler) int {
	if memory == nil || !memory.headerBlind() {
		return -1
	}
	for i, f := range filters {
		if _, ok := f.(*RefererMiddleware); !ok {
			continue
		}
		for _, g := range filters[i+1:] {
			switch g.(type) {
			case *OffsiteMiddleware, *SchemeMiddleware, *URLLengthMiddleware, *DepthMiddleware:
			default:
				return -1
			}
		}
		return i
	}
	return -1
}
