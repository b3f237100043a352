package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/engine/proxypool"
	"github.com/jscrawl/jscrawl/types"
)

// proxyKey carries the proxy HTTPProxyMiddleware chose for a download to the Transport.
type proxyKey struct{}

// proxyChoice is the proxy of one download; a nil URL means "no proxy". try is set for a
// pool's proxy: the Transport records there how the proxy did.
type proxyChoice struct {
	u   *url.URL
	try *proxyTry
}

// proxyOf is ProxyOf, for the engine's own Transports.
func proxyOf(ctx context.Context) (*url.URL, bool) { return ProxyOf(ctx) }

// ProxyOf returns the proxy HTTPProxyMiddleware chose for the download of ctx (nil:
// direct), and false when it chose none. A Transport (or a download handler such as
// engine/browser's) calls it when it takes the choice: for a pool's proxy, that tells the
// middleware the download used it (an HTTP cache hit does not). Every download handler
// that honours proxies reads the choice through it.
func ProxyOf(ctx context.Context) (*url.URL, bool) {
	c, ok := ctx.Value(proxyKey{}).(proxyChoice)
	if ok && c.try != nil {
		c.try.used.Store(true)
	}
	return c.u, ok
}

// proxyFunc is the Transport.Proxy of the downloader: the proxy chosen by
// HTTPProxyMiddleware when there is one, else fallback (the environment's) unless
// HTTPPROXY_ENABLED is false.
func proxyFunc(enabled bool, fallback func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(r *http.Request) (*url.URL, error) {
		if u, ok := proxyOf(r.Context()); ok {
			return u, nil
		}
		if !enabled || fallback == nil {
			return nil, nil
		}
		return fallback(r)
	}
}

// HTTPProxyMiddleware sends a request through the proxy in its meta.proxy (Scrapy:
// HttpProxyMiddleware): "http://user:pass@host:port" (Basic Proxy-Authorization from the
// user info; https:// targets go through CONNECT), "https://..." or
// "socks5://user:pass@host:port" ("socks5h" resolves names on the proxy). meta.proxy ""
// or null sends the request directly. Without meta.proxy, an http(s) request goes through
// the proxy pool of PROXY_LIST when there is one (see proxypool.Pool and viaPool), else
// the http_proxy, https_proxy and no_proxy environment variables apply (net/http's
// ProxyFromEnvironment). HTTPPROXY_ENABLED false turns all three off. One Transport serves
// every proxy: it reads the choice from the request's context, and keeps connections per
// proxy. The pool's choice is not written into meta: response.meta.proxy stays what the
// spider set. Safe for concurrent use.
type HTTPProxyMiddleware struct {
	enabled bool
	stats   *Stats
	logger  *slog.Logger
	pool    *proxypool.Pool
	poolErr error        // PROXY_LIST could not be read: pool downloads fail with it
	healthy atomic.Int64 // the proxy/healthy gauge as last set, -1 before
}

// NewHTTPProxyMiddleware returns an HTTPProxyMiddleware configured from settings, without
// a pool (see WithPool). A bad meta.proxy fails the download with InvalidURLError, counted
// in stats.
func NewHTTPProxyMiddleware(settings *types.Settings, stats *Stats) *HTTPProxyMiddleware {
	if stats == nil {
		stats = NewStats()
	}
	return &HTTPProxyMiddleware{enabled: settings.Bool(types.HTTPProxyEnabled), stats: stats, logger: orDiscard(nil)}
}

// WithPool makes m send the downloads without meta.proxy through pool (nil: none), and
// log its benches to logger; err, when PROXY_LIST could not be read, fails them instead
// (never direct). It returns m.
func (m *HTTPProxyMiddleware) WithPool(pool *proxypool.Pool, err error, logger *slog.Logger) *HTTPProxyMiddleware {
	m.pool, m.poolErr, m.logger = pool, err, orDiscard(logger)
	m.healthy.Store(-1)
	return m
}

// gauge sets proxy/healthy to the pool's healthy proxies when that changed.
func (m *HTTPProxyMiddleware) gauge() {
	n := int64(m.pool.Healthy())
	if m.healthy.Swap(n) != n {
		m.stats.Set(statProxyHealthy, n)
	}
}

// Fetch implements DownloaderMiddleware.
func (m *HTTPProxyMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if !m.enabled {
		return withoutProxyAuth(ctx, req, next)
	}
	v, ok := req.Meta.Get(types.MetaProxy)
	if !ok {
		if (m.pool != nil || m.poolErr != nil) && httpURL(req.URL) {
			return m.viaPool(ctx, req, next)
		}
		return next.Fetch(ctx, req)
	}
	var choice proxyChoice
	var err error
	switch s := v.(type) {
	case nil:
	case string:
		if s != "" {
			choice.u, err = parseProxy(s)
		}
	default:
		err = fmt.Errorf("meta.proxy must be a URL string, got %T", v)
	}
	if err != nil {
		de := &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
		countException(m.stats, de)
		return nil, de
	}
	ctx = context.WithValue(ctx, proxyKey{}, choice)
	if choice.u == nil || !strings.HasPrefix(strings.ToLower(req.URL), "http:") {
		return withoutProxyAuth(ctx, req, next)
	}
	return next.Fetch(ctx, req)
}

// withoutProxyAuth downloads req without the Proxy-Authorization header the spider set,
// where the site, not a proxy, would get it: a direct download, and an https one through
// a proxy (the header would travel inside the tunnel; the proxy's own credentials, from
// its URL, go in the CONNECT); Scrapy drops it in both cases too. The response's request
// is req, header included.
func withoutProxyAuth(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if _, ok := req.Headers["Proxy-Authorization"]; !ok {
		return next.Fetch(ctx, req)
	}
	r := req.Copy()
	delete(r.Headers, "Proxy-Authorization")
	resp, err := next.Fetch(ctx, r)
	if resp != nil && resp.Request == r {
		resp.Request = req
	}
	return resp, err
}

// Stats of the proxy pool: proxy/benched_count counts benches, proxy/retry_count the
// downloads tried again on another proxy because theirs failed, proxy/healthy is the
// number of proxies not benched (a gauge); per proxy (its URL masked), proxyStat's
// response_count, error_count and benched_count.
const (
	statProxyBenched = "proxy/benched_count"
	statProxyRetry   = "proxy/retry_count"
	statProxyHealthy = "proxy/healthy"
)

// proxyStat is the key of a per-proxy stat: proxy/<masked URL>/<name>
// ("proxy/http://user:****@10.0.0.1:8080/response_count"); the name is after the last /.
func proxyStat(px *proxypool.Proxy, name string) string { return "proxy/" + px.String() + "/" + name }

// viaPool downloads req through the pool's proxies: the session's under per_session (see
// SessionOf), else the next one. A download that failed because of its proxy (proxyFault)
// benches the proxy and goes at once to another, through the download slot again (the
// site's delay holds), not counted against RETRY_TIMES; while every proxy is benched it
// waits for the first to come back, never going direct, until ctx ends or the crawl
// starts closing (then a CancelledError).
func (m *HTTPProxyMiddleware) viaPool(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if m.poolErr != nil {
		de := &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: m.poolErr}
		countException(m.stats, de)
		return nil, de
	}
	sess := SessionOf(ctx)
	name := ""
	if sess != nil {
		name = sess.Name()
	}
	for {
		px, err := m.pick(ctx, name)
		m.gauge()
		if err != nil {
			de := &DownloadError{Name: NameCancelled, URL: req.URL, Err: fmt.Errorf("waiting for a proxy of %s: %w", types.ProxyList, err)}
			countException(m.stats, de)
			return nil, de
		}
		try := &proxyTry{}
		if s := px.URL.Scheme; s == "socks5" || s == "socks5h" {
			try.socksAddr = proxyAddr(px.URL)
		}
		// The pool's proxies take the credentials of their URLs, never the spider's header.
		resp, err := withoutProxyAuth(context.WithValue(ctx, proxyKey{}, proxyChoice{u: px.URL, try: try}), req, next)
		if !try.used.Load() {
			return resp, err // served without the proxy (the HTTP cache)
		}
		if cause := proxyFault(ctx, try, resp, err); cause != nil {
			m.fault(px, cause)
			m.stats.Inc(statProxyRetry, 1)
			continue
		}
		if resp != nil {
			m.pool.Succeeded(px)
			m.stats.Inc(proxyStat(px, "response_count"), 1)
			if sess != nil {
				sess.UsedProxy(px.String())
			}
		}
		return resp, err
	}
}

// pick returns the pool's proxy for a download of session, waiting while all are benched.
func (m *HTTPProxyMiddleware) pick(ctx context.Context, session string) (*proxypool.Proxy, error) {
	for {
		changed := m.pool.Changed()
		px, until := m.pool.Next(session)
		if px != nil {
			return px, nil
		}
		if err := proxypool.Wait(ctx, stoppingCh(ctx), changed, time.Until(until)); err != nil {
			return nil, err
		}
	}
}

// fault counts a failure of px and benches it.
func (m *HTTPProxyMiddleware) fault(px *proxypool.Proxy, cause error) {
	m.stats.Inc(proxyStat(px, "error_count"), 1)
	benched, until := m.pool.Failed(px)
	if !benched {
		return
	}
	m.gauge()
	m.stats.Inc(statProxyBenched, 1)
	m.stats.Inc(proxyStat(px, "benched_count"), 1)
	m.logger.Info(fmt.Sprintf("Benched proxy %s until %s: %s", px, until.Format("15:04:05"), types.MaskURLsIn(cause.Error())))
}

// httpURL reports whether rawURL is http or https, the schemes that go through a proxy.
func httpURL(rawURL string) bool {
	scheme, _, ok := strings.Cut(rawURL, ":")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}

// proxyAddr returns the host:port the Transport dials for proxy u (its port, else the
// scheme's: 1080 for SOCKS5).
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "socks5", "socks5h":
			port = "1080"
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// parseProxy parses a meta.proxy URL as PROXY_LIST's entries are parsed
// (proxypool.ParseURL: a bare "host:port" is an HTTP proxy), its errors naming meta.proxy.
func parseProxy(s string) (*url.URL, error) {
	u, err := proxypool.ParseURL(s)
	if err != nil {
		return nil, fmt.Errorf("meta.%w", err)
	}
	return u, nil
}

// redactProxy returns u without its credentials, for messages (types.MaskURL).
func redactProxy(u *url.URL) string { return types.MaskURL(u.String()) }

// Interface guards
var _ DownloaderMiddleware = (*HTTPProxyMiddleware)(nil)

// ForgetSession implements SessionForgetter: a retired session's proxy assignment
// (PROXY_ROTATION=per_session) goes with it, so the next session draws a proxy afresh.
func (m *HTTPProxyMiddleware) ForgetSession(name string) {
	if m.pool != nil {
		m.pool.Forget(name)
	}
}

var _ SessionForgetter = (*HTTPProxyMiddleware)(nil)
