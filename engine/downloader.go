package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// HTTPDownloader is the Downloader at the end of the chain (Scrapy: the downloader's
// DownloadHandlers plus the DownloaderStats middleware). It hands each request to the
// DownloadHandler of its URL scheme (download_handler.go: http and https go to net/http,
// file reads a local file and data decodes an RFC 2397 URL; DOWNLOAD_HANDLERS changes
// the map), once the scheme is found in DOWNLOAD_SCHEMES.
//
// It enforces DOWNLOAD_TIMEOUT over the whole download, DOWNLOAD_MAXSIZE on both the raw
// and the decoded byte counts (so a compression bomb is cut off early) and warns once per
// response past DOWNLOAD_WARNSIZE; meta.downloadTimeout, meta.downloadMaxsize and
// meta.downloadWarnsize override the three per request. Bodies are held at their exact
// size (readBodyExact) and, while being received, within DOWNLOAD_MEMORY_BUDGET: a
// download waits for room rather than exhaust memory (memBudget). It counts the
// downloader/* stats of each attempt, and download/maxsize for bodies over the limit.
// Safe for concurrent use.
type HTTPDownloader struct {
	*downloadEnv
	timeout  time.Duration
	maxSize  int64
	warnSize int64
	schemes  []string
	handlers map[string]DownloadHandler // by lower-case URL scheme
	missing  map[string]error           // schemes DOWNLOAD_HANDLERS leaves without a handler
	browser  *browserHandler            // requests with meta.browser (download_browser.go)
	// rendered is the handler of browser requests: browser, wrapped for --warc and
	// --replay like the others (download_archive.go).
	rendered DownloadHandler
	// replaying: browser requests are served from an archive (WithReplay); prepare starts
	// no Chromium for them.
	replaying bool
}

// NewHTTPDownloader returns an HTTPDownloader configured from settings, with the download
// handlers DOWNLOAD_HANDLERS names. client is the http(s) handler's (see newHTTPHandler):
// nil for one with a keep-alive Transport sized to CONCURRENT_REQUESTS; the client is
// copied and its CheckRedirect replaced by one that never follows. An *http.Transport of
// client is cloned to honour meta.proxy (see HTTPProxyMiddleware) and, with
// DOWNLOAD_VERIFY_TLS false, to skip certificate verification.
func NewHTTPDownloader(settings *types.Settings, client *http.Client, stats *Stats) *HTTPDownloader {
	if stats == nil {
		stats = NewStats()
	}
	env := &downloadEnv{
		stats:  stats,
		logger: orDiscard(nil),
		budget: newMemBudget(int64(settings.Int(types.DownloadMemoryBudget)), settings.Int(types.ConcurrentRequests), stats),
	}
	d := &HTTPDownloader{
		downloadEnv: env,
		timeout:     settings.Duration(types.DownloadTimeout),
		maxSize:     int64(settings.Int(types.DownloadMaxSize)),
		warnSize:    int64(settings.Int(types.DownloadWarnSize)),
		schemes:     settings.StringList(types.DownloadSchemes),
	}
	d.handlers, d.missing = downloadHandlers(settings, client, env)
	d.browser = newBrowserHandler(settings, env)
	d.rendered = d.browser
	return d
}

func (d *HTTPDownloader) schemeAllowed(s string) bool {
	return slices.ContainsFunc(d.schemes, func(a string) bool { return strings.EqualFold(a, s) })
}

// Fetch implements Downloader. A response of any status is returned as a Response; errors
// are *DownloadError naming the URL.
func (d *HTTPDownloader) Fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	resp, err := d.fetch(ctx, req)
	if err != nil {
		name := ErrorName(err)
		if name == NameMaxSize {
			d.stats.Inc("download/maxsize", 1)
		}
		countException(d.stats, err)
		return nil, err
	}
	return resp, nil
}

// prepare starts Chromium for a browser request, if it is not running, before the
// request's download slot times it (SlotPrepare). An error is left for the download to
// report. A replayed crawl starts no Chromium here: its archive may serve every page.
func (d *HTTPDownloader) prepare(req *types.Request) {
	if d.replaying {
		return
	}
	if _, ok, err := req.Browser(); ok && err == nil {
		_, _ = d.browser.browser(req)
	}
}

func (d *HTTPDownloader) limitsFor(req *types.Request) DownloadLimits {
	l := DownloadLimits{Timeout: d.timeout, MaxSize: d.maxSize, WarnSize: d.warnSize}
	if len(req.Meta) == 0 {
		return l
	}
	if f, ok := metaFloat(req, types.MetaDownloadTimeout); ok && f >= 0 {
		l.Timeout = time.Duration(f * float64(time.Second))
	}
	// DOWNLOAD_MAXSIZE is a ceiling the spider may only tighten (types.SpiderTightens):
	// meta.downloadMaxsize lowers it, and neither 0 nor a larger value lifts it.
	if f, ok := metaFloat(req, types.MetaDownloadMaxSize); ok && f > 0 && (l.MaxSize == 0 || int64(f) < l.MaxSize) {
		l.MaxSize = int64(f)
	}
	if f, ok := metaFloat(req, types.MetaDownloadWarnSize); ok && f >= 0 {
		l.WarnSize = int64(f)
	}
	return l
}

func (d *HTTPDownloader) fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	lim := d.limitsFor(req)
	if opts, ok, err := req.Browser(); ok || err != nil {
		// Rendered in Chromium: BROWSER_TIMEOUT (or the timeout option) is the page's
		// timeout, and it starts when the page has a place among BROWSER_CONCURRENCY.
		lim.Timeout = d.browser.timeout
		if opts.Timeout > 0 {
			lim.Timeout = time.Duration(opts.Timeout * float64(time.Second))
		}
		return d.rendered.Download(ctx, req, lim)
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	scheme, _, _ := strings.Cut(req.URL, ":")
	if !strings.EqualFold(scheme, "data") { // a data: URL need not parse as a URL
		u, err := url.Parse(req.URL)
		if err != nil {
			return nil, invalidURL(req, err)
		}
		scheme = u.Scheme
	}
	if !d.schemeAllowed(scheme) {
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
			Err: fmt.Errorf("URL scheme %q is not in %s", scheme, types.DownloadSchemes)}
	}
	scheme = strings.ToLower(scheme)
	if h := d.handlers[scheme]; h != nil {
		return h.Download(ctx, req, lim)
	}
	err := d.missing[scheme]
	if err == nil {
		err = fmt.Errorf("no download handler for URL scheme %q", scheme)
	}
	return nil, &DownloadError{Name: NameNotSupported, URL: req.URL, Err: err}
}

// CloseBrowser closes the Chromium that browser requests started, if any, and waits for
// it to exit. Browser requests fail afterwards.
func (d *HTTPDownloader) CloseBrowser() { d.browser.Close() }

// invalidURL is the error of a URL that does not parse.
func invalidURL(req *types.Request, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
}

// downloadFailure names a network error: lost is the name for a dropped connection and
// other the name for an error classify does not know (a malformed response, for the
// client's Do).
func downloadFailure(ctx context.Context, lim DownloadLimits, rawURL string, err error, lost, other string) error {
	var de *DownloadError
	if errors.As(err, &de) {
		return de
	}
	name := classify(err, lost)
	var te *TunnelError
	if errors.As(err, &te) {
		name = NameTunnel
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			name = NameTimeout
			err = fmt.Errorf("took longer than %s %s: %w", types.DownloadTimeout, lim.Timeout, err)
		} else {
			name = NameCancelled
		}
	}
	if name == NameError {
		name = other
	}
	return &DownloadError{Name: name, URL: rawURL, Err: err}
}

// itoa is strconv.Itoa with the common HTTP statuses precomputed.
func itoa(n int) string {
	switch n {
	case 200:
		return "200"
	case 404:
		return "404"
	case 301:
		return "301"
	case 302:
		return "302"
	case 500:
		return "500"
	}
	return strconv.Itoa(n)
}

// Interface guards
var _ Downloader = (*HTTPDownloader)(nil)
