package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/jscrawl/jscrawl/types"
)

// HTTPErrorMiddleware rejects non-2xx responses before their callback runs unless the
// request's meta.handleHttpStatusList contains the status, meta.handleHttpStatusAll is set,
// or HTTPERROR_ALLOWED_CODES / HTTPERROR_ALLOW_ALL allow it (Scrapy: HttpErrorMiddleware).
// The rejection is an *HTTPError, which the engine hands to the errback. Stats:
// httperror/response_ignored_count, httperror/response_ignored_status_count/<code>.
type HTTPErrorMiddleware struct {
	allowAll bool
	allowed  []int
	stats    *Stats
	logger   *slog.Logger
}

// NewHTTPErrorMiddleware returns an HTTPErrorMiddleware configured from settings.
func NewHTTPErrorMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger) *HTTPErrorMiddleware {
	logger = orDiscard(logger)
	return &HTTPErrorMiddleware{
		allowAll: settings.Bool(types.HTTPErrorAllowAll),
		allowed:  settings.IntList(types.HTTPErrorAllowedCodes),
		stats:    stats,
		logger:   logger,
	}
}

// ProcessSpiderInput implements SpiderInputFilter.
func (m *HTTPErrorMiddleware) ProcessSpiderInput(_ context.Context, resp *types.Response) error {
	if resp.Status >= 200 && resp.Status < 300 {
		return nil
	}
	req := resp.Request
	if req != nil {
		if metaBool(req, types.MetaHandleHTTPStatusAll) {
			return nil
		}
		if v := req.MetaValue(types.MetaHandleHTTPStatusList); v != nil {
			if slices.Contains(intList(v), resp.Status) {
				return nil
			}
		} else if m.allowAll || slices.Contains(m.allowed, resp.Status) {
			return nil
		}
	} else if m.allowAll || slices.Contains(m.allowed, resp.Status) {
		return nil
	}
	m.stats.Inc("httperror/response_ignored_count", 1)
	m.stats.Inc("httperror/response_ignored_status_count/"+itoa(resp.Status), 1)
	m.logger.Info(fmt.Sprintf("Ignoring response %s: HTTP status code is not handled or not allowed", respString(resp)))
	return &HTTPError{Response: resp}
}

// Interface guards
var _ SpiderInputFilter = (*HTTPErrorMiddleware)(nil)
