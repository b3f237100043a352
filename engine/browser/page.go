package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// The methods of a page a callback keeps (types.Page). Each runs within ctx and the
// page's life: on a closed page they fail.

// errPageClosed is the error of a call on a closed page.
var errPageClosed = errors.New("the page is closed (it lives as long as the callback that received it)")

// op returns a context that ends with ctx or with the page.
func (p *browserPage) op(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if p.ctx.Err() != nil {
		return nil, nil, errPageClosed
	}
	octx, cancel := context.WithCancel(p.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return octx, func() { stop(); cancel() }, nil
}

// opErr names the error of a page call. A page whose call failed is not trusted to leave
// its tab fit for the next page: the tab is closed with it.
func (p *browserPage) opErr(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	p.broken.Store(true)
	if ctx.Err() == nil && p.ctx.Err() != nil {
		return fmt.Errorf("page.%s: %w", what, errPageClosed)
	}
	return fmt.Errorf("page.%s: %w", what, err)
}

// URL implements types.Page.
func (p *browserPage) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Click implements types.Page.
func (p *browserPage) Click(ctx context.Context, css string) error {
	octx, done, err := p.op(ctx)
	if err != nil {
		return err
	}
	defer done()
	return p.opErr(ctx, "click", chromedp.Do(octx, chromedp.Click(chromedp.CSS(css))))
}

// Fill implements types.Page: it focuses the field, sets its value and sends input and
// change events, as Playwright's fill.
func (p *browserPage) Fill(ctx context.Context, css, text string) error {
	octx, done, err := p.op(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := p.waitForSelector(octx, css); err != nil {
		return p.opErr(ctx, "fill", err)
	}
	script := `((el, v) => { el.focus(); el.value = v; el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; })(document.querySelector(` +
		jsString(css) + `), ` + jsString(text) + `)`
	_, err = chromedp.Run(octx, chromedp.Evaluate[bool](script))
	return p.opErr(ctx, "fill", err)
}

// WaitForSelector implements types.Page.
func (p *browserPage) WaitForSelector(ctx context.Context, css string, timeout time.Duration) error {
	octx, done, err := p.op(ctx)
	if err != nil {
		return err
	}
	defer done()
	if timeout <= 0 {
		timeout = p.timeout
	}
	tctx, cancel := context.WithTimeout(octx, timeout)
	defer cancel()
	if err := p.waitForSelector(tctx, css); err != nil {
		if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			p.broken.Store(true)
			return &engine.DownloadError{Name: engine.NameTimeout, URL: p.URL(), Err: fmt.Errorf("page.waitForSelector(%q): nothing matched within %s", css, timeout)}
		}
		return p.opErr(ctx, "waitForSelector", err)
	}
	return nil
}

// Scroll implements types.Page: up to times times it scrolls to the bottom of the
// document (scrollToBottom), waits for the page to grow (waitGrowth, at most delay) and
// stops when it did not.
func (p *browserPage) Scroll(ctx context.Context, times int, delay time.Duration) error {
	octx, done, err := p.op(ctx)
	if err != nil {
		return err
	}
	defer done()
	for range times {
		before, err := scrollToBottom(octx)
		if err != nil {
			return p.opErr(ctx, "scroll", err)
		}
		grew, err := waitGrowth(octx, before, delay)
		if err != nil {
			return p.opErr(ctx, "scroll", err)
		}
		if !grew {
			break // the page stopped growing
		}
	}
	return nil
}

// Evaluate implements types.Page: source is a function's text, called with args (a JSON
// array); the result comes back as JSON (null for undefined).
func (p *browserPage) Evaluate(ctx context.Context, source string, args []byte) ([]byte, error) {
	octx, done, err := p.op(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if len(args) == 0 {
		args = []byte("[]")
	}
	expr := "(" + source + ")(..." + string(args) + ")"
	res, err := chromedp.Call(octx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: new(true), AwaitPromise: new(true)})
	if err != nil {
		return nil, p.opErr(ctx, "evaluate", err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		msg := ex.Text
		if ex.Exception != nil && ex.Exception.Description != "" {
			msg = ex.Exception.Description
		}
		return nil, fmt.Errorf("page.evaluate: the page threw: %s", msg)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return []byte("null"), nil
	}
	return []byte(res.Result.Value), nil
}

// Content implements types.Page.
func (p *browserPage) Content(ctx context.Context) (string, error) {
	octx, done, err := p.op(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	html, err := chromedp.Run(octx, chromedp.Evaluate[string](contentScript))
	return html, p.opErr(ctx, "content", err)
}

// Screenshot implements types.Page.
func (p *browserPage) Screenshot(ctx context.Context) ([]byte, error) {
	octx, done, err := p.op(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	png, err := p.screenshot(octx)
	return png, p.opErr(ctx, "screenshot", err)
}

// Goto implements types.Page: it loads rawURL as the request's waitUntil says, within
// its timeout.
func (p *browserPage) Goto(ctx context.Context, rawURL string) error {
	octx, done, err := p.op(ctx)
	if err != nil {
		return err
	}
	defer done()
	tctx, cancel := context.WithTimeout(octx, p.timeout)
	defer cancel()
	if err := p.navigate(tctx, rawURL, p.opts.WaitUntil); err != nil {
		p.broken.Store(true)
		var de *engine.DownloadError
		if errors.As(err, &de) {
			return de
		}
		if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return &engine.DownloadError{Name: engine.NameTimeout, URL: rawURL, Err: fmt.Errorf("page.goto: the page did not load within %s", p.timeout)}
		}
		return p.opErr(ctx, "goto", err)
	}
	return nil
}

// Response implements types.Page.
func (p *browserPage) Response(ctx context.Context) (*types.Response, error) {
	octx, done, err := p.op(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	resp, err := p.response(octx, p.req)
	if err != nil {
		return nil, p.opErr(ctx, "response", err)
	}
	return resp, nil
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
var _ types.Page = (*browserPage)(nil)
