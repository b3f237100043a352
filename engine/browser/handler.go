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
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// browserNames are the executables looked up on PATH when BROWSER_EXECUTABLE is empty.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome"}

// disabledFeatures are the Chromium features a crawl's browser runs without
// (--disable-features, which replaces chromedp's default list: its Translate and
// BlinkGenPropertyTrees come first). The others make Chromium send requests of its own,
// which a crawl's browser must not: from the incognito context of each tab they go
// through the request's proxy, and all go to Google. Chromium's net log names each
// request's traffic annotation; those seen with Chromium 148:
//   - PreconnectToSearch and SearchEnginePreconnect2: the SearchEnginePreconnector keeps a
//     connection to the default search engine (CONNECT www.google.com:443) open in every
//     profile, opened again whenever it fails or closes;
//   - AimEnabled: the omnibox's AI Mode eligibility service fetches
//     https://www.google.com/async/folae when a profile starts, each tab's incognito
//     context included (aim_eligibility_fetch);
//   - NetworkTimeServiceQuerying: the network time tracker asks clients2.google.com for
//     the time (network_time_component);
//   - OptimizationHints: the optimization guide fetches its models from
//     optimizationguide-pa.googleapis.com.
var disabledFeatures = []string{
	"Translate", "BlinkGenPropertyTrees",
	"PreconnectToSearch", "SearchEnginePreconnect2",
	"AimEnabled",
	"NetworkTimeServiceQuerying",
	"OptimizationHints",
}

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

// browserProc is one running Chromium.
type browserProc struct {
	ctx     context.Context // chromedp's browser context; done when Chromium is gone
	cancel  context.CancelFunc
	closing atomic.Bool // closed on purpose: its end is no crash
	exited  chan struct{}
}

// lost reports whether Chromium is gone: its context ended, its connection dropped, or its
// process exited. The tab's call can fail with the connection before the watcher of the
// browser's context has seen it end, so the connection is looked at too.
func (p *browserProc) lost() bool {
	if p.ctx.Err() != nil {
		return true
	}
	if c := chromedp.FromContext(p.ctx); c != nil && c.Browser != nil {
		select {
		case <-c.Browser.LostConnection:
			return true
		default:
		}
	}
	return false
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

// Find returns the path of the Chromium that browser requests start: executable
// (BROWSER_EXECUTABLE) looked up on PATH, or without it the first of chromium,
// chromium-browser and google-chrome found there.
func Find(setting string) (string, error) {
	if setting != "" {
		p, err := exec.LookPath(setting)
		if err != nil {
			return "", fmt.Errorf("%s %q: %w (install Chromium with apt-get install chromium, or name another binary)", types.BrowserExecutable, setting, err)
		}
		return p, nil
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found on PATH (looked for %s): install one with apt-get install chromium, or set %s",
		strings.Join(browserNames, ", "), types.BrowserExecutable)
}

// browser returns the running Chromium, starting it when there is none or it died.
func (h *Handler) browser(req *types.Request) (*browserProc, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &engine.DownloadError{Name: engine.NameCancelled, URL: req.URL, Err: errors.New("the browser is closed")}
	}
	if h.proc != nil && h.proc.ctx.Err() == nil {
		return h.proc, nil
	}
	path, err := Find(h.executable)
	if err != nil {
		return nil, &engine.DownloadError{Name: engine.NameBrowserNotFound, URL: req.URL, Err: err}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.Flag("disable-features", strings.Join(disabledFeatures, ",")))
	if os.Geteuid() == 0 {
		h.rootOnce.Do(func() {
			h.env.Logger().Warn("Running Chromium without its sandbox (--no-sandbox): jscrawl runs as root")
		})
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		allocCancel()
		return nil, &engine.DownloadError{Name: engine.NameBrowserNotFound, URL: req.URL, Err: fmt.Errorf("start %s: %w", path, err)}
	}
	p := &browserProc{ctx: bctx, exited: make(chan struct{})}
	p.cancel = func() {
		bcancel()
		allocCancel()
	}
	pid := 0
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		pid = c.Browser.Process().Pid
	}
	h.env.Logger().Info(fmt.Sprintf("Started Chromium (%s, pid %d) for browser requests", path, pid))
	go func() {
		<-bctx.Done()
		if !p.closing.Load() {
			h.env.Stats().Inc("browser/crash_count", 1)
			h.env.Logger().Warn(fmt.Sprintf("Chromium (pid %d) exited unexpectedly: the next browser request starts it again", pid))
		}
		p.cancel()
		close(p.exited)
	}()
	h.proc = p
	return p, nil
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

// browserPage is one browser request's page, rendering in a tab it holds until Close. It
// implements types.Page for a callback that keeps it (includePage).
type browserPage struct {
	h       *Handler
	tab     *browserTab
	ctx     context.Context // the tab's chromedp context, with an end of its own: Close
	cancel  context.CancelFunc
	opts    types.BrowserOptions
	timeout time.Duration
	blocked map[network.ResourceType]bool
	broken  atomic.Bool // a call on the page failed: the tab is closed, not reused

	closeOnce sync.Once

	mu        sync.Mutex
	main      cdp.FrameID
	lifecycle map[cdp.LoaderID][]string // lifecycle events of the main frame's loaders
	docs      map[cdp.LoaderID]*network.Response
	changed   chan struct{}     // closed and replaced on each lifecycle event
	override  *types.Request    // the request whose method, body and headers the main document gets
	proxyUser *url.Userinfo     // meta.proxy's credentials
	req       *types.Request    // the request the page was opened for
	url       string            // the main frame's URL
	loaded    map[string]string // the cookies given to the page: name → value
	cookieURL string
	status    int
	headers   http.Header
	protocol  string
}

// openPage takes a tab for req (Handler.tab) and sets the page up: request
// interception (blocked resource types, the main request's method, body and headers) and
// the request's cookies. On failure the tab is closed; the page's place is the caller's.
func (h *Handler) openPage(ctx context.Context, proc *browserProc, req *types.Request, opts types.BrowserOptions, lim engine.DownloadLimits) (*browserPage, error) {
	var proxy *url.URL
	proxy, _ = engine.ProxyOf(ctx) // a pool's proxy: its failures are not told apart here
	tab, reused, err := h.tab(ctx, proc, proxy, lim, false)
	for tries := 1; err == nil && reused; tries++ {
		err = tab.wake(ctx, req.URL, lim)
		if err == nil {
			break
		}
		h.env.Logger().Debug(fmt.Sprintf("A browser tab could not be made ready for %s, closing it: %v", req.URL, err))
		h.discard(tab)
		tab, reused, err = h.tab(ctx, proc, proxy, lim, tries >= 3)
	}
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(tab.ctx)
	p := &browserPage{
		h: h, tab: tab, ctx: pctx, cancel: cancel, opts: opts, timeout: lim.Timeout,
		blocked:   map[network.ResourceType]bool{},
		lifecycle: map[cdp.LoaderID][]string{},
		docs:      map[cdp.LoaderID]*network.Response{},
		changed:   make(chan struct{}),
		override:  req,
		req:       req,
	}
	if proxy != nil && proxy.User != nil {
		p.proxyUser = proxy.User
	}
	for _, t := range opts.BlockResources {
		for _, rt := range []network.ResourceType{network.ResourceType(strings.ToUpper(t[:1]) + t[1:])} {
			p.blocked[rt] = true
		}
	}
	tab.attach(p)
	setupCtx, setupCancel := context.WithTimeout(pctx, max(lim.Timeout, time.Second))
	defer setupCancel()
	stop := context.AfterFunc(ctx, setupCancel)
	defer stop()
	if err := p.setCookies(setupCtx, req); err != nil {
		p.closeOnce.Do(func() {
			cancel()
			tab.mu.Lock()
			tab.page = nil
			tab.mu.Unlock()
			h.discard(tab)
		})
		return nil, err
	}
	return p, nil
}

// onEvent runs in the tab's message loop: it records and hands on, and never calls the
// browser itself.
func (p *browserPage) onEvent(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		go p.paused(ev)
	case *fetch.EventAuthRequired:
		go p.auth(ev)
	case *page.EventLifecycleEvent:
		p.mu.Lock()
		if p.main == "" || ev.FrameID == p.main {
			p.lifecycle[ev.LoaderID] = append(p.lifecycle[ev.LoaderID], ev.Name)
			close(p.changed)
			p.changed = make(chan struct{})
		}
		p.mu.Unlock()
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			p.mu.Lock()
			p.url = ev.Frame.URL
			p.mu.Unlock()
		}
	case *network.EventResponseReceived:
		if ev.Type == network.ResourceTypeDocument {
			p.mu.Lock()
			if p.main == "" || ev.FrameID == p.main {
				p.docs[ev.LoaderID] = ev.Response
			}
			p.mu.Unlock()
		}
	}
}

// paused answers an intercepted request: a blocked resource type fails, the main
// document's first request gets the request's method, body and headers.
func (p *browserPage) paused(ev *fetch.EventRequestPaused) {
	ctx := p.tab.ctx // answered even after the page is closed: a paused request waits
	if p.blocked[ev.ResourceType] {
		p.h.env.Stats().Inc("browser/blocked_resource_count", 1)
		_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	params := fetch.ContinueRequestParams{RequestID: ev.RequestID}
	p.mu.Lock()
	req := p.override
	if req != nil && ev.ResourceType == network.ResourceTypeDocument && ev.RedirectedRequestID == "" && (p.main == "" || ev.FrameID == p.main) {
		p.override = nil
	} else {
		req = nil
	}
	p.mu.Unlock()
	if req != nil {
		if m := req.HTTPMethod(); m != http.MethodGet {
			params.Method = m
		}
		if len(req.Body) > 0 {
			params.PostData = req.Body
		}
		if extra := requestHeaders(req); len(extra) > 0 {
			merged := map[string]string{}
			order := []string{}
			for k, v := range ev.Request.Headers {
				merged[http.CanonicalHeaderKey(k)] = fmt.Sprint(v)
				order = append(order, http.CanonicalHeaderKey(k))
			}
			for k, v := range extra {
				if _, ok := merged[k]; !ok {
					order = append(order, k)
				}
				merged[k] = v
			}
			for _, k := range order {
				params.Headers = append(params.Headers, &fetch.HeaderEntry{Name: k, Value: merged[k]})
			}
		}
	}
	_, _ = chromedp.Call(ctx, fetch.ContinueRequest, params)
}

// requestHeaders returns the headers of req the browser sends with the main document:
// all but Cookie (the page's cookies carry it) and those Chromium sets itself.
func requestHeaders(req *types.Request) map[string]string {
	out := map[string]string{}
	for k, vs := range req.Headers {
		k = http.CanonicalHeaderKey(k)
		switch k {
		case "Cookie", "Accept-Encoding", "Content-Length", "Host", "Connection", "Proxy-Authorization":
			continue
		}
		out[k] = strings.Join(vs, ", ")
	}
	return out
}

// auth answers a proxy's challenge with the credentials of meta.proxy.
func (p *browserPage) auth(ev *fetch.EventAuthRequired) {
	resp := &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}
	if p.proxyUser != nil && ev.AuthChallenge != nil && ev.AuthChallenge.Source == fetch.AuthChallengeSourceProxy {
		pass, _ := p.proxyUser.Password()
		resp = &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials,
			Username: p.proxyUser.Username(), Password: pass}
	}
	_, _ = chromedp.Call(p.tab.ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID, AuthChallengeResponse: resp})
}

// setCookies gives the page the cookies of the request's Cookie header (the cookie jar's,
// which CookiesMiddleware put there) for its URL.
func (p *browserPage) setCookies(ctx context.Context, req *types.Request) error {
	p.loaded = map[string]string{}
	p.cookieURL = req.URL
	header := req.Headers.Get("Cookie")
	if header == "" {
		return nil
	}
	hc, err := http.ParseCookie(header)
	if err != nil {
		return nil // an unparsable header is the server's business, not the page's
	}
	var params []*network.CookieParam
	for _, c := range hc {
		params = append(params, &network.CookieParam{Name: c.Name, Value: c.Value, URL: req.URL, Path: "/"})
		p.loaded[c.Name] = c.Value
	}
	_, err = chromedp.Call(ctx, network.SetCookies, network.SetCookiesParams{Cookies: params})
	return err
}

// load navigates to req's URL, waits as the options say and reads the response.
func (p *browserPage) load(ctx context.Context, req *types.Request, lim engine.DownloadLimits) (*types.Response, error) {
	lctx, cancel := context.WithTimeout(p.ctx, lim.Timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	engine.SlotSent(ctx) // the navigation starts: the slot's delay counts from here
	if err := p.navigate(lctx, req.URL, p.opts.WaitUntil); err != nil {
		return nil, p.ctxErr(ctx, lctx, err)
	}
	if p.opts.WaitFor != "" {
		if err := p.waitForSelector(lctx, p.opts.WaitFor); err != nil {
			return nil, p.ctxErr(ctx, lctx, err)
		}
	}
	resp, err := p.response(lctx, req)
	if err != nil {
		return nil, p.ctxErr(ctx, lctx, err)
	}
	if p.opts.Screenshot {
		if resp.Screenshot, err = p.screenshot(lctx); err != nil {
			return nil, p.ctxErr(ctx, lctx, err)
		}
	}
	return resp, nil
}

// ctxErr returns the cause of err: the request's context's error, a deadline, or err.
func (p *browserPage) ctxErr(ctx, lctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(lctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", context.DeadlineExceeded, err)
	}
	return err
}

// navigate loads rawURL in the main frame and waits for the lifecycle event of
// waitUntil.
func (p *browserPage) navigate(ctx context.Context, rawURL, waitUntil string) error {
	want := map[string]string{types.WaitLoad: "load", types.WaitDOMContentLoaded: "DOMContentLoaded", types.WaitNetworkIdle: "networkIdle"}[waitUntil]
	if want == "" {
		want = "load"
	}
	res, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: rawURL})
	if err != nil {
		return err
	}
	if res.IsDownload {
		return &engine.DownloadError{Name: engine.NameNotSupported, URL: rawURL, Err: errors.New("the page is a file download, which browser requests refuse")}
	}
	if res.ErrorText != "" {
		return navigationError(rawURL, res.ErrorText)
	}
	p.mu.Lock()
	p.main = res.FrameID
	p.mu.Unlock()
	if res.LoaderID == "" { // a same-document navigation
		return nil
	}
	for {
		p.mu.Lock()
		done := slices.Contains(p.lifecycle[res.LoaderID], want)
		if doc := p.docs[res.LoaderID]; doc != nil {
			p.status, p.protocol = int(doc.Status), httpProtocol(doc.Protocol)
			p.headers = responseHeaders(doc.Headers)
		}
		changed := p.changed
		p.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// navigationError maps Chromium's net error text to an error name.
func navigationError(rawURL, text string) error {
	name := engine.NameError
	switch {
	case strings.Contains(text, "ERR_NAME_NOT_RESOLVED"):
		name = engine.NameDNSLookup
	case strings.Contains(text, "ERR_CONNECTION_REFUSED"):
		name = engine.NameConnectionRefused
	case strings.Contains(text, "ERR_CONNECTION_RESET"):
		name = engine.NameConnectionReset
	case strings.Contains(text, "ERR_CONNECTION_CLOSED"), strings.Contains(text, "ERR_EMPTY_RESPONSE"):
		name = engine.NameConnectionLost
	case strings.Contains(text, "ERR_TIMED_OUT"), strings.Contains(text, "ERR_CONNECTION_TIMED_OUT"):
		name = engine.NameTimeout
	case strings.Contains(text, "ERR_CERT"), strings.Contains(text, "ERR_SSL"):
		name = engine.NameSSL
	case strings.Contains(text, "ERR_TOO_MANY_REDIRECTS"):
		name = engine.NameMaxRedirects
	}
	return &engine.DownloadError{Name: name, URL: rawURL, Err: fmt.Errorf("chromium: %s", text)}
}

func httpProtocol(p string) string {
	switch strings.ToLower(p) {
	case "http/1.1":
		return "HTTP/1.1"
	case "http/1.0":
		return "HTTP/1.0"
	case "h2":
		return "HTTP/2.0"
	case "h3", "http/3":
		return "HTTP/3.0"
	}
	return ""
}

// responseHeaders converts the main document's headers; those that describe the bytes
// on the wire (Content-Length, Content-Encoding) are dropped, as the body is the DOM.
func responseHeaders(h network.Headers) http.Header {
	out := http.Header{}
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		switch ck {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Set-Cookie":
			continue
		}
		for _, line := range strings.Split(fmt.Sprint(v), "\n") {
			out.Add(ck, line)
		}
	}
	return out
}

// waitForSelector polls until css matches an element, or ctx ends.
func (p *browserPage) waitForSelector(ctx context.Context, css string) error {
	expr := "!!document.querySelector(" + jsString(css) + ")"
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			var ex *chromedp.ExceptionError
			if errors.As(err, &ex) {
				return fmt.Errorf("waitFor %q: %w", css, err)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("waiting for %q: %w", css, ctx.Err())
			}
		}
		if found {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %q: %w", css, ctx.Err())
		}
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

const contentScript = `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") + document.documentElement.outerHTML`

// response reads the current DOM as a Response to req, with the main document's status
// and headers and the page's cookies as Set-Cookie headers.
func (p *browserPage) response(ctx context.Context, req *types.Request) (*types.Response, error) {
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string](contentScript))
	if err != nil {
		return nil, err
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	status, protocol := p.status, p.protocol
	headers := p.headers.Clone()
	p.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	if headers == nil {
		headers = http.Header{}
	}
	headers.Set("Content-Type", "text/html; charset=utf-8")
	if err := p.cookiesBack(ctx, loc, headers); err != nil {
		return nil, err
	}
	return &types.Response{URL: loc, Status: status, Headers: headers, Body: []byte(html), Request: req, Protocol: protocol}, nil
}

// cookiesBack adds a Set-Cookie header for each cookie of the page's browser context that
// the page did not get from the request or whose value changed, for the cookie jar.
// Cookies of other hosts than the page's stay out (the jar takes a response's
// Set-Cookie for its own URL only).
func (p *browserPage) cookiesBack(ctx context.Context, loc string, headers http.Header) error {
	c := chromedp.FromContext(p.ctx)
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: c.BrowserContextID})
	if err != nil {
		return err
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil
	}
	host := u.Hostname()
	for _, ck := range res.Cookies {
		if v, ok := p.loaded[ck.Name]; ok && v == ck.Value {
			continue
		}
		hc := &http.Cookie{Name: ck.Name, Value: ck.Value, Path: ck.Path, Secure: ck.Secure, HttpOnly: ck.HTTPOnly}
		switch {
		case strings.HasPrefix(ck.Domain, "."):
			d := strings.TrimPrefix(ck.Domain, ".")
			if host != d && !strings.HasSuffix(host, "."+d) {
				continue
			}
			hc.Domain = d
		case ck.Domain != host:
			continue
		}
		if !ck.Session && ck.Expires > 0 {
			hc.Expires = time.Unix(int64(ck.Expires), 0)
		}
		headers.Add("Set-Cookie", hc.String())
	}
	return nil
}

// screenshot captures the viewport as a PNG.
func (p *browserPage) screenshot(ctx context.Context) ([]byte, error) {
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

// Close ends the page: calls on it fail from here on, its tab is cleared for the next
// page or closed (Handler.release), and its place among BROWSER_CONCURRENCY is
// freed. It may be called more than once.
func (p *browserPage) Close() error {
	p.closeOnce.Do(func() {
		p.cancel()
		p.h.release(p)
	})
	return nil
}

// Interface guards
var (
	_ engine.DownloadHandler = (*Handler)(nil)
	_ engine.Preparer        = (*Handler)(nil)
	_ io.Closer              = (*Handler)(nil)
)
