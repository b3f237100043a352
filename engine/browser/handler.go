// Package browser is the download handler of browser requests (new Request(url,
// {browser: ...}), docs/rendering.md): it renders them in headless Chromium over the
// DevTools protocol with chromedp (Scrapy: scrapy-playwright's download handler). It is a
// plug-in: the engine does not import it; a binary calls Register to route browser
// requests to it.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// Handler renders the requests whose meta.browser is set (the request option
// browser) in headless Chromium, driven over the DevTools protocol by chromedp. It sits
// where the http(s) handler does, below the downloader middlewares and the download
// slots, so robots.txt, offsite, delays, AutoThrottle, retries, the HTTP cache, proxies
// and the cookie jar apply as to any request.
//
// One Chromium process serves the crawl. It starts on the first browser request and is
// started again, counted in browser/crash_count, when it dies. At most
// BROWSER_CONCURRENCY pages are open at once, each in a tab of its own incognito browser
// context (with the request's proxy), which later pages reuse, cleared (browserTab); a
// page kept for the callback (includePage) holds its place until it is closed. The
// response is the rendered DOM with the main document's status and headers. The
// request's Cookie header enters the page's cookies, and the cookies the page has when it
// is read come back as Set-Cookie headers, for the cookie jar. Downloads a page starts
// are refused; dialogs are answered (browserTab.answerDialog).
type Handler struct {
	env         *engine.HandlerEnv
	executable  string // BROWSER_EXECUTABLE
	timeout     time.Duration
	concurrency int
	reuse       int           // BROWSER_PAGE_REUSE
	idleTimeout time.Duration // how long an idle tab waits for a page before it is closed
	pages       chan struct{} // one token per open page

	mu       sync.Mutex
	proc     *browserProc
	closed   bool
	idle     []*browserTab  // tabs between pages, the least recently used first
	open     int            // tabs open, rendering or idle: at most BROWSER_CONCURRENCY
	clearing sync.WaitGroup // tabs being cleared (release); Close waits for them

	rootOnce sync.Once
	secMu    sync.Mutex
	seconds  float64
}

// Name is the name of the route of browser requests (engine.RegisterRoute,
// Engine.DownloadHandler).
const Name = "BrowserDownloadHandler"

var registerOnce sync.Once

// Register routes the browser requests of the engines made afterwards to a Handler
// (engine.RegisterRoute): the requests with the browser option, whatever DOWNLOAD_HANDLERS
// says. Without it they fail with NotSupported. A binary that renders pages calls it once
// at set-up; later calls do nothing. Safe for concurrent use.
func Register() {
	registerOnce.Do(func() {
		engine.RegisterRoute(Name, isBrowserRequest, func(settings *types.Settings, env *engine.HandlerEnv) (engine.DownloadHandler, error) {
			return New(settings, env), nil
		})
	})
}

// isBrowserRequest reports whether req has the browser option (or a malformed one, which
// its download reports).
func isBrowserRequest(req *types.Request) bool {
	_, ok, err := req.Browser()
	return ok || err != nil
}

// New returns the browser handler of one downloader, configured from settings
// (BROWSER_EXECUTABLE, BROWSER_TIMEOUT, BROWSER_CONCURRENCY, BROWSER_PAGE_REUSE). No
// Chromium starts until the first browser request (or Prepare).
func New(settings *types.Settings, env *engine.HandlerEnv) *Handler {
	n := max(settings.Int(types.BrowserConcurrency), 1)
	return &Handler{
		env:         env,
		executable:  settings.String(types.BrowserExecutable),
		timeout:     settings.Duration(types.BrowserTimeout),
		concurrency: n,
		reuse:       max(settings.Int(types.BrowserPageReuse), 1),
		idleTimeout: tabIdleTimeout,
		pages:       make(chan struct{}, n),
	}
}

// Prepare implements engine.Preparer: it starts Chromium, if it is not running, for a browser
// request. An error is left for the download to report.
func (h *Handler) Prepare(req *types.Request) {
	if _, ok, err := req.Browser(); ok && err == nil {
		_, _ = h.browser(req)
	}
}

// Close closes Chromium and waits for it to exit; browser requests fail afterwards.
func (h *Handler) Close() error {
	h.mu.Lock()
	p := h.proc
	h.closed = true
	h.proc = nil
	idle := h.idle
	h.idle = nil
	h.mu.Unlock()
	h.clearing.Wait()
	for _, t := range idle {
		h.discard(t)
	}
	if p == nil {
		return nil
	}
	p.closing.Store(true)
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Cancel(ctx); err != nil && !errors.Is(err, context.Canceled) {
		h.env.Logger().Debug(fmt.Sprintf("Closing Chromium: %v", err))
	}
	p.cancel()
	<-p.exited
	return nil
}

// Download implements engine.DownloadHandler. The page's timeout is BROWSER_TIMEOUT or the
// request's timeout option, not lim's DOWNLOAD_TIMEOUT; it starts when the page has its
// place among BROWSER_CONCURRENCY.
func (h *Handler) Download(ctx context.Context, req *types.Request, lim engine.DownloadLimits) (*types.Response, error) {
	opts, _, err := req.Browser()
	if err != nil {
		return nil, &engine.DownloadError{Name: engine.NameNotSupported, URL: req.URL, Err: err}
	}
	lim.Timeout = h.timeout
	if opts.Timeout > 0 {
		lim.Timeout = time.Duration(opts.Timeout * float64(time.Second))
	}
	u, err := req.ParsedURL()
	if err != nil {
		return nil, invalidURL(req, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &engine.DownloadError{Name: engine.NameNotSupported, URL: req.URL, Err: fmt.Errorf("a browser request needs an http or https URL, not %q", u.Scheme+":")}
	}
	select {
	case h.pages <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxFailure(ctx, req, fmt.Errorf("waiting for a page among %s (%d): %w", types.BrowserConcurrency, h.concurrency, ctx.Err()))
	}
	proc, err := h.browser(req)
	if err != nil {
		<-h.pages
		return nil, err
	}
	started := time.Now()
	p, err := h.openPage(ctx, proc, req, opts, lim)
	if err != nil {
		<-h.pages
		return nil, h.failure(ctx, proc, req, lim, err)
	}
	h.env.Stats().Inc("browser/page_count", 1)
	h.countBrowserRequest(req)
	resp, err := p.load(ctx, req, lim)
	h.addSeconds(time.Since(started))
	if err != nil {
		p.broken.Store(true)
		p.Close()
		return nil, h.failure(ctx, proc, req, lim, err)
	}
	h.env.CountResponse(resp.Status, len(resp.Body))
	if lim.MaxSize > 0 && int64(len(resp.Body)) > lim.MaxSize {
		// The rendered DOM is only known whole: it is measured, not cut, as an HTTP body is.
		p.Close()
		return nil, &engine.DownloadError{Name: engine.NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: rendered page size (%d) larger than %s (%d)", len(resp.Body), types.DownloadMaxSize, lim.MaxSize)}
	}
	if opts.IncludePage {
		resp.Page = p
	} else {
		p.Close()
	}
	return resp, nil
}

// countBrowserRequest counts the request in the downloader/request_* stats.
func (h *Handler) countBrowserRequest(req *types.Request) {
	n := len(req.HTTPMethod()) + len(req.URL) + 12 + len(req.Body)
	for k, vs := range req.Headers {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	h.env.CountRequest(req.HTTPMethod(), n)
}

func (h *Handler) addSeconds(d time.Duration) {
	h.secMu.Lock()
	h.seconds += d.Seconds()
	s := h.seconds
	h.secMu.Unlock()
	h.env.Stats().Set("browser/page_seconds", s)
}

// failure names the error of a page: a crashed browser is a lost connection (retried),
// a deadline a TimeoutError.
func (h *Handler) failure(ctx context.Context, proc *browserProc, req *types.Request, lim engine.DownloadLimits, err error) error {
	var de *engine.DownloadError
	if errors.As(err, &de) {
		return de
	}
	switch {
	case ctx.Err() != nil:
		return ctxFailure(ctx, req, err)
	case proc.lost() && !proc.closing.Load():
		return &engine.DownloadError{Name: engine.NameConnectionLost, URL: req.URL, Err: fmt.Errorf("chromium crashed: %w", err)}
	case errors.Is(err, context.DeadlineExceeded):
		return &engine.DownloadError{Name: engine.NameTimeout, URL: req.URL,
			Err: fmt.Errorf("the page did not load within %s (%s or the timeout option): %w", lim.Timeout, types.BrowserTimeout, err)}
	case errors.Is(err, context.Canceled):
		return &engine.DownloadError{Name: engine.NameCancelled, URL: req.URL, Err: err}
	}
	return &engine.DownloadError{Name: engine.NameError, URL: req.URL, Err: err}
}

// invalidURL is the error of a URL that does not parse.
func invalidURL(req *types.Request, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &engine.DownloadError{Name: engine.NameInvalidURL, URL: req.URL, Err: err}
}

// ctxFailure is the error of a browser request whose own context ended: a TimeoutError
// for a deadline (the caller's), else a CancelledError.
func ctxFailure(ctx context.Context, req *types.Request, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &engine.DownloadError{Name: engine.NameTimeout, URL: req.URL, Err: err}
	}
	return &engine.DownloadError{Name: engine.NameCancelled, URL: req.URL, Err: err}
}

// Interface guards
var (
	_ engine.DownloadHandler = (*Handler)(nil)
	_ engine.Preparer        = (*Handler)(nil)
	_ io.Closer              = (*Handler)(nil)
)
