package engine

// This file holds what the middlewares share: Chain, which compiles the downloader
// middlewares, and the readers of request meta values. The middlewares themselves are in
// dm_*.go (downloader middlewares, Scrapy's DOWNLOADER_MIDDLEWARES) and sm_*.go (spider
// middlewares, SPIDER_MIDDLEWARES).

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// Chain compiles downloader middlewares around final, first middleware outermost (nearest
// the engine), as Scrapy orders DOWNLOADER_MIDDLEWARES from the engine side.
func Chain(final Downloader, mws ...DownloaderMiddleware) Downloader {
	d := final
	for _, mw := range slices.Backward(mws) {
		d = wrapMiddleware(mw, d)
	}
	return d
}

// wrapMiddleware binds mw to next in its own stack frame so the closure captures the
// right pair.
func wrapMiddleware(mw DownloaderMiddleware, next Downloader) Downloader {
	return DownloaderFunc(func(ctx context.Context, req *types.Request) (*types.Response, error) {
		return mw.Fetch(ctx, req, next)
	})
}

func metaBool(req *types.Request, key string) bool {
	switch v := req.MetaValue(key).(type) {
	case bool:
		return v
	case float64:
		return v != 0
	case int64:
		return v != 0
	case int:
		return v != 0
	}
	return false
}

func metaInt(req *types.Request, key string) (int, bool) {
	return toInt(req.MetaValue(key))
}

// metaFloat returns a numeric meta value, or a string holding a number.
func metaFloat(req *types.Request, key string) (float64, bool) {
	v := req.MetaValue(key)
	if s, ok := v.(string); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, err == nil
	}
	return toFloat(v)
}

func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	}
	return 0, false
}

func intList(v any) []int {
	var out []int
	switch l := v.(type) {
	case []any:
		for _, x := range l {
			if n, ok := toInt(x); ok {
				out = append(out, n)
			}
		}
	case []int:
		out = l
	case []int64:
		for _, x := range l {
			out = append(out, int(x))
		}
	case []float64:
		for _, x := range l {
			out = append(out, int(x))
		}
	}
	return out
}

// orDiscard returns l, or a logger that discards everything when l is nil.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
