package engine

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// BudgetPeak returns the most DOWNLOAD_MEMORY_BUDGET room d's downloads held at once
// (0 without a budget).
func BudgetPeak(d *HTTPDownloader) int64 {
	if d.env.budget == nil {
		return 0
	}
	return d.env.budget.peakUsed()
}

// SetBrowserIdleTimeout sets how long an idle browser tab of e waits for a page before it
// is closed; before e's first browser request.
func SetBrowserIdleTimeout(e *Engine, d time.Duration) {
	browserOf(e).idleTimeout = d
}

// BrowserIdleTabs waits until no tab of e's browser requests is being cleared and returns
// how many tabs are idle, kept for the next page.
func BrowserIdleTabs(e *Engine) int {
	h := browserOf(e)
	h.clearing.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.idle)
}

// BrowserTabs returns the pages (tabs) and the incognito browser contexts open in the
// Chromium of e's browser requests; -1, -1 when none runs.
func BrowserTabs(ctx context.Context, e *Engine) (pages, contexts int, err error) {
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

// SetIdleRetry sets how long e waits before sending spider_idle again after
// ErrDontCloseSpider; before Run.
func SetIdleRetry(e *Engine, d time.Duration) { e.idleRetryEvery = d }

// browserOf returns e's browser handler.
func browserOf(e *Engine) *browserHandler {
	h, _ := e.DownloadHandler(BrowserDownloadHandler).(*browserHandler)
	return h
}
