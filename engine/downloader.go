package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
// first registered route that matches it (RegisterRoute: engine/browser takes the
// browser requests), else to the DownloadHandler of its URL scheme (download_handler.go:
// http and https go to net/http, file reads a local file and data decodes an RFC 2397
// URL; DOWNLOAD_HANDLERS changes the map, over the handlers of RegisterHandler), once the
// scheme is found in DOWNLOAD_SCHEMES.
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
	env      *HandlerEnv
	timeout  time.Duration
	maxSize  int64
	warnSize int64
	schemes  []string
	handlers map[string]DownloadHandler // by lower-case URL scheme
	missing  map[string]error           // schemes DOWNLOAD_HANDLERS leaves without a handler
	made     map[string]DownloadHandler // the handlers by name, as made (unwrapped)
	// routes take the requests they match whatever their scheme (RegisterRoute: the
	// browser handler's), wrapped for --warc and --replay like the others
	// (download_archive.go).
	routes []routeHandler
	// replaying: the downloads are served from an archive (WithReplay); prepare prepares
	// no route's handler for them (no Chromium starts).
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
	env := &HandlerEnv{
		stats:  stats,
		logger: orDiscard(nil),
		budget: newMemBudget(int64(settings.Int(types.DownloadMemoryBudget)), settings.Concurrency(), stats),
	}
	env.client = client
	d := &HTTPDownloader{
		env:      env,
		timeout:  settings.Duration(types.DownloadTimeout),
		maxSize:  int64(settings.Int(types.DownloadMaxSize)),
		warnSize: int64(settings.Int(types.DownloadWarnSize)),
		schemes:  settings.StringList(types.DownloadSchemes),
	}
	d.handlers, d.missing, d.made, d.routes = downloadHandlers(settings, env)
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
			d.env.stats.Inc("download/maxsize", 1)
		}
		countException(d.env.stats, err)
		return nil, err
	}
	return resp, nil
}

// prepare gets the handler of a routed request ready (Preparer: the browser handler
// starts Chromium) before the request's download slot times it (SlotPrepare). A replayed
// crawl prepares nothing: its archive may serve every request.
func (d *HTTPDownloader) prepare(req *types.Request) {
	if d.replaying {
		return
	}
	for i := range d.routes {
		if r := &d.routes[i]; r.match(req) {
			if p, ok := r.raw.(Preparer); ok {
				p.Prepare(req)
			}
			return
		}
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
	for i := range d.routes {
		if r := &d.routes[i]; r.match(req) {
			return r.h.Download(ctx, req, lim)
		}
	}
	if _, ok, err := req.Browser(); ok || err != nil {
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
			Err: errors.New("no download handler for browser requests (the browser handler is not registered)")}
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

// Close closes the download handlers that are io.Closers (the browser handler closes its
// Chromium and waits for it to exit), each once; their requests fail afterwards. It
// returns the first error.
func (d *HTTPDownloader) Close() error {
	var first error
	for _, name := range slices.Sorted(maps.Keys(d.made)) {
		if err := closeHandler(d.made[name]); err != nil && first == nil {
			first = err
		}
	}
	for _, r := range d.routes {
		if err := closeHandler(r.raw); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Handler returns the download handler DOWNLOAD_HANDLERS or a route names name, as
// made (not wrapped for --warc or --replay), or nil.
func (d *HTTPDownloader) Handler(name string) DownloadHandler {
	if h := d.made[name]; h != nil {
		return h
	}
	for _, r := range d.routes {
		if r.name == name {
			return r.raw
		}
	}
	return nil
}

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
