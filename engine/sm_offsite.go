package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

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
	return m.allowedLower(strings.ToLower(host))
}

// allowedLower is Allowed for a lower-case host.
func (m *OffsiteMiddleware) allowedLower(host string) bool {
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
	host := req.Hostname()
	if m.allowedLower(host) {
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

// Fetch implements DownloaderMiddleware: the downloader-side offsite check of redirected
// requests (Scrapy: the downloader OffsiteMiddleware). A scheduled request that a redirect
// produced (meta.redirectUrls set) fails with IgnoreRequest when its host is not allowed;
// requests the spider yielded were filtered by ProcessSpiderOutput already, and inline
// downloads (Engine.Download) are never filtered. dontFilter requests pass. The failure is
// counted in downloader/exception_type_count/IgnoreRequest, as Scrapy's DownloaderStats
// counts it.
func (m *OffsiteMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if req.DontFilter || len(m.domains) == 0 || isInline(ctx) || len(req.RedirectURLs()) == 0 {
		return next.Fetch(ctx, req)
	}
	host := req.Hostname()
	if m.allowedLower(host) {
		return next.Fetch(ctx, req)
	}
	m.filtered(host, req)
	err := &DownloadError{Name: NameIgnoreRequest, URL: req.URL,
		Err: fmt.Errorf("filtered offsite redirect to %q: %w", host, ErrIgnoreRequest)}
	countException(m.stats, err)
	return nil, err
}

// Interface guards
var (
	_ SpiderOutputFilter   = (*OffsiteMiddleware)(nil)
	_ DownloaderMiddleware = (*OffsiteMiddleware)(nil)
)
