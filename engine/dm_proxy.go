package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// proxyKey carries the proxy HTTPProxyMiddleware chose for a download to the Transport.
type proxyKey struct{}

// proxyChoice is the proxy of one download; a nil URL means "no proxy".
type proxyChoice struct{ u *url.URL }

// proxyFunc is the Transport.Proxy of the downloader: the proxy chosen by
// HTTPProxyMiddleware when there is one, else fallback (the environment's) unless
// HTTPPROXY_ENABLED is false.
func proxyFunc(enabled bool, fallback func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(r *http.Request) (*url.URL, error) {
		if c, ok := r.Context().Value(proxyKey{}).(proxyChoice); ok {
			return c.u, nil
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
// or null sends the request directly. Without meta.proxy, the http_proxy, https_proxy and
// no_proxy environment variables apply (net/http's ProxyFromEnvironment). HTTPPROXY_ENABLED
// false turns both off. One Transport serves every proxy: it reads the choice from the
// request's context, and keeps connections per proxy. Safe for concurrent use.
type HTTPProxyMiddleware struct {
	enabled bool
	stats   *Stats
}

// NewHTTPProxyMiddleware returns an HTTPProxyMiddleware configured from settings. A bad
// meta.proxy fails the download with InvalidURLError, counted in stats.
func NewHTTPProxyMiddleware(settings *types.Settings, stats *Stats) *HTTPProxyMiddleware {
	if stats == nil {
		stats = NewStats()
	}
	return &HTTPProxyMiddleware{enabled: settings.Bool(types.HTTPProxyEnabled), stats: stats}
}

// Fetch implements DownloaderMiddleware.
func (m *HTTPProxyMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	v, ok := req.Meta.Get(types.MetaProxy)
	if !ok || !m.enabled {
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
	return next.Fetch(context.WithValue(ctx, proxyKey{}, choice), req)
}

// parseProxy parses a meta.proxy URL; a bare "host:port" is an HTTP proxy.
func parseProxy(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		// url.Parse's error quotes the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = &url.Error{Op: ue.Op, URL: types.MaskURL(ue.URL), Err: ue.Err}
		}
		return nil, fmt.Errorf("meta.proxy: %w", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("meta.proxy %q: scheme %q is not http, https, socks5 or socks5h", redactProxy(u), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("meta.proxy %q has no host", redactProxy(u))
	}
	return u, nil
}

// redactProxy returns u without its credentials, for messages (types.MaskURL).
func redactProxy(u *url.URL) string { return types.MaskURL(u.String()) }

// Interface guards
var _ DownloaderMiddleware = (*HTTPProxyMiddleware)(nil)
