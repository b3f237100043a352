package engine

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jscrawl/jscrawl/types"
)

// DepthMiddleware sets each request's depth to its parent response's depth plus one,
// drops requests deeper than DEPTH_LIMIT, lowers priority by depth×DEPTH_PRIORITY and
// tracks request_depth_max (and request_depth_count/<n> with DEPTH_STATS_VERBOSE)
// (Scrapy: DepthMiddleware). Safe for concurrent use.
type DepthMiddleware struct {
	limit, prio int
	verbose     bool
	stats       *Stats
	logger      *slog.Logger
}

// NewDepthMiddleware returns a DepthMiddleware configured from settings.
func NewDepthMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger) *DepthMiddleware {
	logger = orDiscard(logger)
	return &DepthMiddleware{
		limit:   settings.Int(types.DepthLimit),
		prio:    settings.Int(types.DepthPriority),
		verbose: settings.Bool(types.DepthStatsVerbose),
		stats:   stats,
		logger:  logger,
	}
}

// ProcessSpiderOutput implements SpiderOutputFilter.
func (m *DepthMiddleware) ProcessSpiderOutput(_ context.Context, resp *types.Response, out types.Output) (types.Output, bool) {
	req := out.Request
	if req == nil {
		return out, true
	}
	if resp == nil || resp.Request == nil {
		if m.verbose {
			m.stats.Inc("request_depth_count/"+itoa(req.Depth), 1)
		}
		return out, true
	}
	depth := resp.Request.Depth + 1
	req.Depth = depth
	if m.prio != 0 {
		req.Priority -= depth * m.prio
	}
	if m.limit > 0 && depth > m.limit {
		m.logger.Debug(fmt.Sprintf("Ignoring link (depth > %d): %s", m.limit, req.URL))
		return out, false
	}
	if m.verbose {
		m.stats.Inc("request_depth_count/"+itoa(depth), 1)
	}
	m.stats.Max("request_depth_max", int64(depth))
	return out, true
}

// Interface guards
var _ SpiderOutputFilter = (*DepthMiddleware)(nil)
