package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// A browser request's page (browserPage): opening it in a tab, intercepting its requests
// (blocked types; the main request's method, body, headers and proxy credentials),
// navigating and waiting.

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
