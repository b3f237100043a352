package engine

// This file orders the middleware chains: the built-in middlewares at their Scrapy order
// numbers, overridden by the *_MIDDLEWARES settings, with the spider's own among them.

import (
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
func (e *Engine) OutputPlan() []OutputStage { return e.outPlan }

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
func (e *Engine) ownOrders() (downloader, spiderOutput []int) {
	if o, ok := e.spider.(OwnMiddlewares); ok {
		return o.MiddlewareOrders()
	}
	return nil, nil
}

// downloaderChain is the built-in downloader middlewares, the added ones and the spider's
// own, sorted by order number (DOWNLOADER_MIDDLEWARES moves or disables a built-in). The
// spider's own middlewares that end up adjacent run as one group (OwnMiddlewares).
func (e *Engine) downloaderChain(own []int) []DownloaderMiddleware {
	bs := []link[DownloaderMiddleware]{
		{name: "OffsiteMiddleware", order: 50, m: e.offsite},
		{name: "RobotsTxtMiddleware", order: 100, m: NewRobotsTxtMiddleware(e.settings, e.stats, e.logger, e.slots).sharedBy(e.sched)},
		{name: "HttpAuthMiddleware", order: 300, m: NewHTTPAuthMiddleware(e.settings)},
		{name: "RetryMiddleware", order: 550, m: NewRetryMiddleware(e.settings, e.stats, e.logger, e.slots)},
		{name: "MetaRefreshMiddleware", order: 580, m: NewMetaRefreshMiddleware(e.settings, e.stats, e.logger)},
		{name: "RedirectMiddleware", order: 600, m: NewRedirectMiddleware(e.settings, e.stats, e.logger)},
		{name: "CookiesMiddleware", order: 700, m: NewCookiesMiddleware(e.settings, e.logger)},
		{name: "HttpProxyMiddleware", order: 750, m: NewHTTPProxyMiddleware(e.settings, e.stats).WithPool(e.proxies, e.proxiesErr, e.logger)},
		{name: "HttpCacheMiddleware", order: 900, m: NewHTTPCacheMiddleware(e.settings, e.spiderName(), e.stats, e.logger)},
	}
	// SessionMiddleware is there with SESSION_POOL_ENABLED only, but its name is always known
	// to DOWNLOADER_MIDDLEWARES.
	if e.sessions == nil {
		bs = append(bs, link[DownloaderMiddleware]{name: "SessionMiddleware", order: 560, m: nil})
	} else {
		detector, _ := e.spider.(BlockDetector)
		registry, _ := e.sched.(SessionRegistry)
		bs = append(bs, link[DownloaderMiddleware]{name: "SessionMiddleware", order: 560,
			m: NewSessionMiddleware(e.settings, e.sessions, detector, registry, e.stats, e.logger)})
	}
	// Added middlewares have no name, so the setting cannot disable them; they sort among
	// the built-ins by order, ties keeping the order they were added in.
	for _, m := range e.dlmws {
		bs = append(bs, link[DownloaderMiddleware]{order: m.Order, m: m.M})
	}
	var chain []DownloaderMiddleware
	links := chainOrder(e.settings, types.DownloaderMiddlewares, e.logger, bs, own)
	if e.sessions != nil {
		// What a middleware keeps per session (a proxy pool's per-session proxy) goes when
		// the session retires.
		for _, l := range links {
			if f, ok := l.m.(SessionForgetter); ok && l.own < 0 {
				e.sessions.OnRetire(func(s *session.Session, _ string) { f.ForgetSession(s.Name()) })
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
		chain = append(chain, e.spider.(OwnMiddlewares).DownloaderMiddlewares(idx))
	}
	return chain
}

// spiderChain orders the built-in spider middlewares (SPIDER_MIDDLEWARES moves or disables
// them) and the spider's own output middlewares, and sets the input filters, every output
// filter (spider side first) and the spider's part of the output chain (OutputPlan), which
// ends at its own middleware nearest the engine.
func (e *Engine) spiderChain(own []int) {
	links := chainOrder(e.settings, types.SpiderMiddlewares, e.logger, []link[any]{
		{name: "HttpErrorMiddleware", order: 50, m: NewHTTPErrorMiddleware(e.settings, e.stats, e.logger)},
		{name: "SchemeMiddleware", order: 60, m: NewSchemeMiddleware(e.settings, e.logger)},
		{name: "OffsiteMiddleware", order: 500, m: e.offsite},
		{name: "RefererMiddleware", order: 700, m: NewRefererMiddleware(e.settings, e.logger)},
		{name: "UrlLengthMiddleware", order: 800, m: NewURLLengthMiddleware(e.settings, e.stats, e.logger)},
		{name: "DepthMiddleware", order: 900, m: NewDepthMiddleware(e.settings, e.stats, e.logger)},
	}, own)
	for _, l := range links {
		if f, ok := l.m.(SpiderInputFilter); ok {
			e.inFilters = append(e.inFilters, f)
		}
	}
	e.outFilters, e.outPlan, e.spiderPart = nil, nil, 0
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		if l.own >= 0 {
			e.outPlan = append(e.outPlan, OutputStage{Own: l.own})
			e.spiderPart = len(e.outFilters)
			continue
		}
		f, ok := l.m.(SpiderOutputFilter)
		if !ok {
			continue
		}
		e.outFilters = append(e.outFilters, f)
		if last := len(e.outPlan) - 1; last >= 0 && e.outPlan[last].Own < 0 {
			e.outPlan[last].Filters = append(e.outPlan[last].Filters, f)
		} else {
			e.outPlan = append(e.outPlan, OutputStage{Own: -1, Filters: []SpiderOutputFilter{f}})
		}
	}
	// The built-ins engine side of the spider's last middleware are the engine's to run.
	for len(e.outPlan) > 0 && e.outPlan[len(e.outPlan)-1].Own < 0 {
		e.outPlan = e.outPlan[:len(e.outPlan)-1]
	}
	e.lateRef = lateReferer(e.outFilters, e.sched)
}

// lateReferer returns the index of the RefererMiddleware in filters when route may run it
// after the scheduler's duplicate filter: every filter after it is a built-in that reads
// no header, and sched is a MemoryScheduler whose duplicate filter reads none. Else -1.
func lateReferer(filters []SpiderOutputFilter, sched Scheduler) int {
	if ms, ok := sched.(*MemoryScheduler); !ok || !ms.headerBlind() {
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
