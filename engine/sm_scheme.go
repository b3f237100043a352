package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// SchemeMiddleware drops requests whose URL scheme is not in DOWNLOAD_SCHEMES, logging an
// ERROR that names the URL and the setting (Scrapy fails such a download with NotSupported).
type SchemeMiddleware struct {
	schemes []string
	logger  *slog.Logger
}

// NewSchemeMiddleware returns a SchemeMiddleware configured from settings.
func NewSchemeMiddleware(settings *types.Settings, logger *slog.Logger) *SchemeMiddleware {
	logger = orDiscard(logger)
	return &SchemeMiddleware{schemes: settings.StringList(types.DownloadSchemes), logger: logger}
}

// ProcessSpiderOutput implements SpiderOutputFilter.
func (m *SchemeMiddleware) ProcessSpiderOutput(_ context.Context, _ *types.Response, out types.Output) (types.Output, bool) {
	if out.Request == nil {
		return out, true
	}
	scheme, _, ok := strings.Cut(out.Request.URL, ":")
	if ok && slices.ContainsFunc(m.schemes, func(s string) bool { return strings.EqualFold(s, scheme) }) {
		return out, true
	}
	m.logger.Error(fmt.Sprintf("Ignoring request %s: URL scheme %q is not in %s %v",
		reqString(out.Request), scheme, types.DownloadSchemes, m.schemes))
	return out, false
}

// Interface guards
var _ SpiderOutputFilter = (*SchemeMiddleware)(nil)
