package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

// serviceClient is the downloader of ServiceDownload: an HTTPDownloader of its own, made
// on first use, counting in stats nobody reads (the crawl's stats get http_client/*).
type serviceClient struct {
	once  sync.Once
	mu    sync.Mutex
	d     *HTTPDownloader
	proxy *HTTPProxyMiddleware // meta.proxy only: no pool, no environment proxies
}

// ServiceDownload downloads req as a request to a service rather than a page of the crawl
// (this.crawler.http in JS, and fetch with dontCount): straight to the http(s) download
// handler, outside the downloader middlewares (no robots.txt, retries, redirects, cookies,
// cache, proxy pool or environment proxies: only meta.proxy), the download slots and CONCURRENT_REQUESTS, and outside the
// crawl's stats and CLOSESPIDER_PAGECOUNT. It counts http_client/request_count,
// http_client/response_count, http_client/response_status_count/<code> and
// http_client/exception_count/<Name> instead. The sandbox's rules still hold: only http
// and https URLs, DOWNLOAD_TIMEOUT and DOWNLOAD_MAXSIZE (and their meta overrides),
// HTTPPROXY_ENABLED. A 3xx is the response. Safe from any goroutine, before, during and
// after Run. Scrapy has no counterpart: its pipelines use their own clients.
func (e *Engine) ServiceDownload(ctx context.Context, req *types.Request) (*types.Response, error) {
	return e.dl.serviceDownload(ctx, req)
}

func (d *downloadSide) serviceDownload(ctx context.Context, req *types.Request) (*types.Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(d.stop.abortCtx, cancel)()
	u, err := req.ParsedURL()
	if err != nil {
		return nil, invalidURL(req, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
			Err: fmt.Errorf("URL scheme %q: a service request takes http and https URLs only", u.Scheme)}
	}
	if _, ok, _ := req.Browser(); ok {
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
			Err: errors.New("a service request cannot be a browser request")}
	}
	hd, proxy := d.serviceDownloader()
	d.stats.Inc("http_client/request_count", 1)
	resp, err := proxy.Fetch(ctx, req, hd)
	if err != nil {
		d.stats.Inc("http_client/exception_count/"+ErrorName(err), 1)
		return nil, err
	}
	d.stats.Inc("http_client/response_count", 1)
	d.stats.Inc("http_client/response_status_count/"+itoa(resp.Status), 1)
	return resp, nil
}

// serviceDownloader returns the downloader of service requests and the HTTPProxyMiddleware
// in front of it, making them the first time: the crawl's settings without environment
// proxies (its transport still takes meta.proxy from the middleware).
func (d *downloadSide) serviceDownloader() (*HTTPDownloader, *HTTPProxyMiddleware) {
	s := &d.service
	s.once.Do(func() {
		stats := NewStats()
		proxy := NewHTTPProxyMiddleware(d.settings, stats)
		settings := d.settings.Clone()
		_ = settings.Set(types.HTTPProxyEnabled, false, types.PriorityCmdline+1)
		hd := NewHTTPDownloader(settings, d.client, stats)
		hd.env.logger = d.logger
		s.mu.Lock()
		s.d, s.proxy = hd, proxy
		s.mu.Unlock()
	})
	return s.d, s.proxy
}

// closeService closes the downloader of service requests, if one was made.
func (d *downloadSide) closeService() {
	s := &d.service
	s.mu.Lock()
	hd := s.d
	s.mu.Unlock()
	if hd == nil {
		return
	}
	if err := hd.Close(); err != nil {
		d.logger.Debug(fmt.Sprintf("Closing the service client: %v", err))
	}
}
