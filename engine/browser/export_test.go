package browser

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
)

// SetIdleTimeout sets how long an idle browser tab of e waits for a page before it
// is closed; before e's first browser request.
func SetIdleTimeout(e *engine.Engine, d time.Duration) {
	browserOf(e).idleTimeout = d
}

// IdleTabs waits until no tab of e's browser requests is being cleared and returns
// how many tabs are idle, kept for the next page.
func IdleTabs(e *engine.Engine) int {
	h := browserOf(e)
	h.clearing.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.idle)
}

// Tabs returns the pages (tabs) and the incognito browser contexts open in the
// Chromium of e's browser requests; -1, -1 when none runs.
func Tabs(ctx context.Context, e *engine.Engine) (pages, contexts int, err error) {
	h := browserOf(e)
	h.mu.Lock()
	p := h.proc
	h.mu.Unlock()
	if p == nil {
		return -1, -1, nil
	}
	infos, err := chromedp.Targets(p.ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, i := range infos {
		if i.Type == "page" {
			pages++
		}
	}
	res, err := chromedp.CallBrowser(p.ctx, target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		return 0, 0, err
	}
	return pages, len(res.BrowserContextIDs), nil
}

// browserOf returns e's browser handler.
func browserOf(e *engine.Engine) *Handler {
	h, _ := e.DownloadHandler(Name).(*Handler)
	return h
}
