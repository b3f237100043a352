package engine

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jscrawl/jscrawl/types"
)

// URLLengthMiddleware drops requests whose URL is longer than URLLENGTH_LIMIT (Scrapy:
// UrlLengthMiddleware). Stat: urllength/request_ignored_count.
type URLLengthMiddleware struct {
	limit  int
	stats  *Stats
	logger *slog.Logger
}

// NewURLLengthMiddleware returns a URLLengthMiddleware configured from settings.
func NewURLLengthMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger) *URLLengthMiddleware {
	logger = orDiscard(logger)
	return &URLLengthMiddleware{limit: settings.Int(types.URLLengthLimit), stats: stats, logger: logger}
}

// ProcessSpiderOutput implements SpiderOutputFilter.
func (m *URLLengthMiddleware) ProcessSpiderOutput(_ context.Context, _ *types.Response, out types.Output) (types.Output, bool) {
	if out.Request == nil || m.limit <= 0 || len(out.Request.URL) <= m.limit {
		return out, true
	}
	m.stats.Inc("urllength/request_ignored_count", 1)
	m.logger.Info(fmt.Sprintf("Ignoring link (url length > %d): %s", m.limit, out.Request.URL))
	return out, false
}

// Interface guards
var _ SpiderOutputFilter = (*URLLengthMiddleware)(nil)
