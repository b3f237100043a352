package engine

// This file orders the middleware chains: the built-in middlewares at their Scrapy order
// numbers, overridden by the *_MIDDLEWARES settings, with the spider's own among them.

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// DefaultMiddlewareOrder is the order number of a middleware that names none (Scrapy's
// project template uses 543).
const DefaultMiddlewareOrder = 543

// OrderedMiddleware is a downloader middleware with its order number.
type OrderedMiddleware struct {
	Order int
	M     DownloaderMiddleware
}

// OutputFilter is an enabled built-in spider output filter with its Scrapy name and order
// number (after SPIDER_MIDDLEWARES).
type OutputFilter struct {
	Name   string
	Order  int
	Filter SpiderOutputFilter
}

// OutputFilters returns the enabled built-in spider output filters, nearest the engine
// first. A spider whose own middlewares sit among them runs the ones above its
// middlewares itself and marks its outputs with types.Output.FilteredFrom.
func (e *Engine) OutputFilters() []OutputFilter { return slices.Clone(e.outFilters) }

// builtin is a built-in middleware with its Scrapy name and default order number.
type builtin[T any] struct {
	name  string
	order int
	m     T
}

// ordered applies the setting key (name → order number, or null to disable) to the
// built-ins and returns them sorted by order, nearest the engine first. An unknown name is
// a warning.
func ordered[T any](settings *types.Settings, key string, logger *slog.Logger, bs []builtin[T]) []T {
	keep := orderedBuiltins(settings, key, logger, bs)
	out := make([]T, len(keep))
	for i, b := range keep {
		out[i] = b.m
	}
	return out
}

// orderedBuiltins is ordered keeping each built-in's name and final order number.
func orderedBuiltins[T any](settings *types.Settings, key string, logger *slog.Logger, bs []builtin[T]) []builtin[T] {
	conf := settings.Map(key)
	known := map[string]bool{}
	var keep []builtin[T]
	for _, b := range bs {
		known[b.name] = true
		if v, ok := conf[b.name]; ok {
			if v == nil {
				continue // disabled
			}
			if f, ok := v.(float64); ok {
				b.order = int(f)
			} else if n, ok := v.(int64); ok {
				b.order = int(n)
			} else if n, ok := v.(int); ok {
				b.order = n
			}
		}
		keep = append(keep, b)
	}
	for name := range conf {
		if !known[name] {
			logger.Warn(fmt.Sprintf("%s: unknown built-in middleware %q (known: %s)", key, name, builtinNames(bs)))
		}
	}
	slices.SortStableFunc(keep, func(a, b builtin[T]) int { return a.order - b.order })
	return keep
}

func builtinNames[T any](bs []builtin[T]) string {
	var names []string
	for _, b := range bs {
		names = append(names, b.name)
	}
	return strings.Join(names, ", ")
}

// downloaderChain is the built-in downloader middlewares and the added ones, sorted by
// order number (DOWNLOADER_MIDDLEWARES moves or disables a built-in).
func (e *Engine) downloaderChain() []DownloaderMiddleware {
	bs := []builtin[DownloaderMiddleware]{
		{"OffsiteMiddleware", 50, e.offsite},
		{"RobotsTxtMiddleware", 100, NewRobotsTxtMiddleware(e.settings, e.stats, e.logger, e.slots)},
		{"HttpAuthMiddleware", 300, NewHTTPAuthMiddleware(e.settings)},
		{"RetryMiddleware", 550, NewRetryMiddleware(e.settings, e.stats, e.logger, e.slots)},
		{"MetaRefreshMiddleware", 580, NewMetaRefreshMiddleware(e.settings, e.stats, e.logger)},
		{"RedirectMiddleware", 600, NewRedirectMiddleware(e.settings, e.stats, e.logger)},
		{"CookiesMiddleware", 700, NewCookiesMiddleware(e.settings, e.logger)},
		{"HttpProxyMiddleware", 750, NewHTTPProxyMiddleware(e.settings, e.stats)},
		{"HttpCacheMiddleware", 900, NewHTTPCacheMiddleware(e.settings, e.spiderName(), e.stats, e.logger)},
	}
	for _, m := range e.dlmws {
		bs = append(bs, builtin[DownloaderMiddleware]{"", m.Order, m.M})
	}
	// Added middlewares have no name, so the setting cannot disable them; they sort among
	// the built-ins by order, ties keeping the order they were added in.
	return ordered(e.settings, types.DownloaderMiddlewares, e.logger, bs)
}
