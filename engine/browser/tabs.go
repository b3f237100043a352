package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
)

// browserTab is an open tab in its own incognito browser context, opened with one proxy
// (or none). Browser requests render in it one after another, up to BROWSER_PAGE_REUSE:
// opening a tab and its context costs Chromium a new renderer process, several times
// what rendering a small page does. Between two pages the tab is cleared: the old
// document is frozen, and the data of every origin the page contacted and the context's
// cookies and cache are deleted, so each page starts as in a new context.
type browserTab struct {
	h      *Handler
	proc   *browserProc
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc
	key    string // the proxy it was opened with, as a URL ("" for none)

	mu   sync.Mutex
	page *browserPage // the page rendering in it now; nil between pages
	// origins are the origins the pages contacted since the last clearing: true for those a
	// frame's document came from.
	origins map[string]bool
	lastURL string // the main frame's URL when the last page was released
	uses    int    // pages rendered in it
	idleGen int    // counts the times it went idle; guarded by the handler's mu
}

const (
	// clearTimeout bounds the clearing of a tab between two pages.
	clearTimeout = 5 * time.Second
	// tabIdleTimeout is how long an idle tab waits for the next page before it is closed,
	// so a crawl whose browser requests are over does not keep their renderers.
	tabIdleTimeout = 30 * time.Second
)

// tab returns a tab for a page opened with proxy: an idle one opened with the same proxy,
// unless fresh, or a new one. A new tab past BROWSER_CONCURRENCY tabs closes the idle tab
// used least recently. reused says whether the tab rendered a page before.
func (h *Handler) tab(ctx context.Context, proc *browserProc, proxy *url.URL, lim engine.DownloadLimits, fresh bool) (t *browserTab, reused bool, err error) {
	key := ""
	if proxy != nil {
		key = proxy.String()
	}
	var dead []*browserTab
	h.mu.Lock()
	live := h.idle[:0]
	for _, it := range h.idle {
		if it.proc != proc || it.ctx.Err() != nil {
			dead = append(dead, it)
			h.open--
			continue
		}
		live = append(live, it)
	}
	clear(h.idle[len(live):])
	h.idle = live
	for i := len(h.idle) - 1; i >= 0 && !fresh; i-- { // the most recently used first
		if h.idle[i].key == key {
			t = h.idle[i]
			h.idle = append(h.idle[:i], h.idle[i+1:]...)
			break
		}
	}
	if t == nil {
		if h.open >= h.concurrency && len(h.idle) > 0 {
			dead = append(dead, h.idle[0])
			h.idle = h.idle[1:]
			h.open--
		}
		h.open++
	}
	h.mu.Unlock()
	for _, d := range dead {
		d.cancel()
	}
	if t != nil {
		return t, true, nil
	}
	t, err = h.newTab(ctx, proc, proxy, key, lim)
	if err != nil {
		h.mu.Lock()
		h.open--
		h.mu.Unlock()
		return nil, false, err
	}
	return t, false, nil
}

// newTab opens a tab in a new incognito browser context with proxy, refusing downloads
// and intercepting every request (fetch.Enable), within the request's context.
func (h *Handler) newTab(ctx context.Context, proc *browserProc, proxy *url.URL, key string, lim engine.DownloadLimits) (*browserTab, error) {
	tabCtx, cancel := chromedp.NewContext(proc.ctx, chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
		if proxy != nil {
			p.ProxyServer = proxy.Scheme + "://" + proxy.Host
			p.ProxyBypassList = "<-loopback>" // Chromium bypasses proxies for loopback unless told
		}
	}))
	t := &browserTab{h: h, proc: proc, ctx: tabCtx, cancel: cancel, key: key, origins: map[string]bool{}}
	// The tab lives until it is discarded; opening it is bounded by the request's context.
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	setupCtx, setupCancel := context.WithTimeout(tabCtx, max(lim.Timeout, time.Second))
	defer setupCancel()
	if err := chromedp.Do(tabCtx); err != nil { // opens the tab, bound to tabCtx
		cancel()
		return nil, err
	}
	if err := chromedp.Listen(tabCtx, t.onEvent); err != nil {
		cancel()
		return nil, err
	}
	c := chromedp.FromContext(tabCtx)
	_, err := chromedp.CallBrowser(setupCtx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: c.BrowserContextID})
	if err == nil {
		var auth *bool
		if proxy != nil && proxy.User != nil {
			auth = new(true)
		}
		_, err = chromedp.Call(setupCtx, fetch.Enable, fetch.EnableParams{
			Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}, HandleAuthRequests: auth})
	}
	if err != nil {
		cancel()
		return nil, err
	}
	h.env.Stats().Inc("browser/tab_count", 1)
	return t, nil
}

// onEvent runs in the tab's message loop: it answers dialogs and hands the other events to
// the page rendering in the tab. A request of a page already released is failed, so a
// frozen or leaving document reaches no server.
func (t *browserTab) onEvent(ev any) {
	if ev, ok := ev.(*page.EventJavascriptDialogOpening); ok {
		go t.answerDialog(ev)
		return
	}
	t.mu.Lock()
	p := t.page
	if p != nil {
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			if ev.Request != nil {
				if o := originOf(ev.Request.URL); o != "" && !t.origins[o] {
					t.origins[o] = false
				}
			}
		case *page.EventFrameNavigated:
			if ev.Frame != nil {
				if o := originOf(ev.Frame.URL); o != "" {
					t.origins[o] = true
				}
			}
		}
	}
	t.mu.Unlock()
	if p != nil {
		p.onEvent(ev)
		return
	}
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		go func() {
			_, _ = chromedp.Call(t.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
		}()
	case *fetch.EventAuthRequired:
		go func() {
			_, _ = chromedp.Call(t.ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID,
				AuthChallengeResponse: &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}})
		}()
	}
}

// answerDialog answers a dialog as Playwright does by default: a beforeunload prompt is
// accepted (the tab leaves the page), alert, confirm and prompt are dismissed. An open
// dialog stalls the page's script, and so its load, until it is answered.
func (t *browserTab) answerDialog(ev *page.EventJavascriptDialogOpening) {
	accept := ev.Type == page.DialogTypeBeforeunload
	t.h.env.Stats().Inc("browser/dialog_count", 1)
	t.h.env.Logger().Debug(fmt.Sprintf("%s a %s dialog of %s: %q", map[bool]string{true: "Accepted", false: "Dismissed"}[accept], ev.Type, ev.URL, ev.Message))
	_, _ = chromedp.Call(t.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
}

// originOf returns the origin of an http(s) URL ("" for any other).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// attach makes p the page rendering in t.
func (t *browserTab) attach(p *browserPage) {
	t.mu.Lock()
	t.page = p
	t.uses++
	t.mu.Unlock()
}

// wake makes a tab that rendered a page before ready for the next: its document is made
// active again (clear froze it) and its page visible (show), and when url is the last
// page's own, but for its fragment, the tab first goes to about:blank, so the load is a
// new document and not a jump within the old one.
func (t *browserTab) wake(ctx context.Context, next string, lim engine.DownloadLimits) error {
	ctx, cancel := wakeContext(ctx, t.ctx, lim)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateActive}); err != nil {
		return err
	}
	if err := t.show(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	last := t.lastURL
	t.mu.Unlock()
	if last != "" && withoutFragment(last) == withoutFragment(next) {
		if _, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
			return err
		}
	}
	return nil
}

// show makes the tab's page visible again after clear froze it. Freezing a page hides it
// too, and Chromium 148 leaves it hidden when it is made active again
// (document.visibilityState "hidden"): a hidden page draws no frames, so it runs no
// requestAnimationFrame callback, and the scroll events and IntersectionObserver
// callbacks of a frame's rendering steps never come (page.scroll found an infinite
// list that did not grow). A window minimized and restored shows its page again.
func (t *browserTab) show(ctx context.Context) error {
	win, err := chromedp.CallBrowser(ctx, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: chromedp.FromContext(t.ctx).Target.TargetID})
	if err != nil {
		return fmt.Errorf("show the page: %w", err)
	}
	for _, st := range []browser.WindowState{browser.WindowStateMinimized, browser.WindowStateNormal} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: win.WindowID, Bounds: &browser.Bounds{WindowState: st}}); err != nil {
			return fmt.Errorf("show the page: %w", err)
		}
	}
	return nil
}

// wakeContext returns a context for calls on the tab (tabCtx) that ends with the
// request's context (ctx) or after its timeout.
func wakeContext(ctx, tabCtx context.Context, lim engine.DownloadLimits) (context.Context, context.CancelFunc) {
	wctx, cancel := context.WithTimeout(tabCtx, max(lim.Timeout, time.Second))
	stop := context.AfterFunc(ctx, cancel)
	return wctx, func() { stop(); cancel() }
}

func withoutFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// release ends p's hold on its tab: a tab that is still sound is cleared and kept for
// the next page, on a goroutine Close waits for; any other is closed. The page's place
// among BROWSER_CONCURRENCY is freed once the tab is idle or closed.
func (h *Handler) release(p *browserPage) {
	t := p.tab
	t.mu.Lock()
	t.page = nil
	origins := t.origins
	t.origins = map[string]bool{}
	t.lastURL = p.URL()
	uses := t.uses
	t.mu.Unlock()
	h.mu.Lock()
	keep := !p.broken.Load() && !h.closed && uses < h.reuse && t.ctx.Err() == nil
	if keep {
		h.clearing.Add(1)
	}
	h.mu.Unlock()
	if !keep {
		h.discard(t)
		<-h.pages
		return
	}
	go func() {
		defer h.clearing.Done()
		err := t.clear(origins)
		h.mu.Lock()
		if err == nil && !h.closed && t.ctx.Err() == nil {
			h.idle = append(h.idle, t)
			t.idleGen++
			gen := t.idleGen
			h.mu.Unlock()
			time.AfterFunc(h.idleTimeout, func() { h.reap(t, gen) })
		} else {
			h.mu.Unlock()
			if err != nil && t.ctx.Err() == nil {
				h.env.Logger().Debug(fmt.Sprintf("A browser tab could not be cleared for the next page, closing it: %v", err))
			}
			h.discard(t)
		}
		<-h.pages
	}()
}

// reap closes t if it is still idle since the time gen counted.
func (h *Handler) reap(t *browserTab, gen int) {
	h.mu.Lock()
	i := slices.Index(h.idle, t)
	if i < 0 || t.idleGen != gen {
		h.mu.Unlock()
		return
	}
	h.idle = slices.Delete(h.idle, i, i+1)
	h.mu.Unlock()
	h.discard(t)
}

// discard closes t and its browser context.
func (h *Handler) discard(t *browserTab) {
	h.mu.Lock()
	h.open--
	h.mu.Unlock()
	t.cancel()
}

// clear freezes the tab's document (its timers and requests stop) and deletes what the
// last page left in the browser context: all data of each origin it contacted
// (Storage.clearDataForOrigin: cookies, local storage, IndexedDB, cache storage, service
// workers, ...), the session storage of each origin a frame's document came from, the
// context's other cookies (a parent domain's) and its HTTP cache; then it has the renderer
// collect its garbage.
//
// Session storage belongs to the tab, not to the context, and Chromium 148's
// Storage.clearDataForOrigin leaves it; DOMStorage.clear reaches it through a frame of the
// origin. An origin whose frames are all gone (the page went on to another
// origin) fails the clearing: the tab is closed rather than left with it.
func (t *browserTab) clear(origins map[string]bool) error {
	ctx, cancel := context.WithTimeout(t.ctx, clearTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateFrozen}); err != nil {
		return fmt.Errorf("freeze the page: %w", err)
	}
	var errs []error
	for o, document := range origins {
		_, err := chromedp.Call(ctx, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"})
		errs = append(errs, err)
		if document {
			_, err = chromedp.Call(ctx, domstorage.Clear, domstorage.ClearParams{StorageID: &domstorage.StorageID{SecurityOrigin: o}})
			if err != nil {
				errs = append(errs, fmt.Errorf("clear the session storage of %s: %w", o, err))
			}
		}
	}
	_, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{})
	errs = append(errs, err)
	_, err = chromedp.Call(ctx, network.ClearBrowserCache, cdp.Empty{})
	errs = append(errs, err)
	// The renderer keeps the garbage of the pages before until V8 decides to collect it:
	// on the demo site's rendered catalogue, 100 pages in each of 4 tabs peaked 75 MiB
	// higher (PSS) without this, for no CPU it saves.
	_, _ = chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{})
	return errors.Join(errs...)
}
