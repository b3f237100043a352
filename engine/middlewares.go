package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"

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
		if metaBool(req, "handleHttpStatusAll") {
			return nil
		}
		if v := req.MetaValue("handleHttpStatusList"); v != nil {
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

// OffsiteMiddleware drops requests to hosts outside the spider's allowed domains (Scrapy:
// OffsiteMiddleware): a host is allowed when it equals an allowed domain or is a subdomain
// of one; ports are ignored; no allowed domains allows all. dontFilter requests pass. Stats:
// offsite/filtered, offsite/domains (distinct hosts); the first request to each host is
// logged at DEBUG. It is also a downloader middleware for redirected requests (see Fetch).
// Safe for concurrent use.
type OffsiteMiddleware struct {
	domains []string
	mu      sync.Mutex
	seen    map[string]bool // guarded by mu
	stats   *Stats
	logger  *slog.Logger
}

// NewOffsiteMiddleware returns an OffsiteMiddleware for domains (host names; a port or
// scheme in an entry is ignored).
func NewOffsiteMiddleware(domains []string, stats *Stats, logger *slog.Logger) *OffsiteMiddleware {
	logger = orDiscard(logger)
	m := &OffsiteMiddleware{seen: map[string]bool{}, stats: stats, logger: logger}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if i := strings.Index(d, "://"); i >= 0 {
			d = d[i+3:]
		}
		if h, _, ok := strings.Cut(d, "/"); ok {
			d = h
		}
		if u, err := url.Parse("//" + d); err == nil && u.Hostname() != "" {
			d = u.Hostname()
		}
		if d != "" {
			m.domains = append(m.domains, d)
		}
	}
	return m
}

// Allowed reports whether host (a host name without port) is allowed.
func (m *OffsiteMiddleware) Allowed(host string) bool {
	if len(m.domains) == 0 {
		return true
	}
	host = strings.ToLower(host)
	for _, d := range m.domains {
		if host == d || (len(host) > len(d) && strings.HasSuffix(host, d) && host[len(host)-len(d)-1] == '.') {
			return true
		}
	}
	return false
}

// ProcessSpiderOutput implements SpiderOutputFilter.
func (m *OffsiteMiddleware) ProcessSpiderOutput(_ context.Context, _ *types.Response, out types.Output) (types.Output, bool) {
	req := out.Request
	if req == nil || req.DontFilter || len(m.domains) == 0 {
		return out, true
	}
	host := ""
	if u, err := req.ParsedURL(); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	if m.Allowed(host) {
		return out, true
	}
	m.filtered(host, req)
	return out, false
}

// filtered counts a filtered request, logging the first one to each host.
func (m *OffsiteMiddleware) filtered(host string, req *types.Request) {
	m.mu.Lock()
	first := !m.seen[host]
	m.seen[host] = true
	m.mu.Unlock()
	if first {
		m.stats.Inc("offsite/domains", 1)
		m.logger.Debug(fmt.Sprintf("Filtered offsite request to %q: %s", host, reqString(req)))
	}
	m.stats.Inc("offsite/filtered", 1)
}

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

// Interface guards
var (
	_ DownloaderMiddleware = (*RetryMiddleware)(nil)
	_ SpiderInputFilter    = (*HTTPErrorMiddleware)(nil)
	_ SpiderOutputFilter   = (*OffsiteMiddleware)(nil)
	_ SpiderOutputFilter   = (*DepthMiddleware)(nil)
	_ SpiderOutputFilter   = (*URLLengthMiddleware)(nil)
	_ SpiderOutputFilter   = (*SchemeMiddleware)(nil)
)

// orDiscard returns l, or a logger that discards everything when l is nil.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
