package jsapi

import (
	"context"
	"errors"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// pageClass holds the natives of the JS Page (prelude.js): the browser page a response of
// a browser request with includePage keeps open (types.Page). Each takes the response's
// handle as argument 0; the asynchronous ones return [promise, cancel] as the inline
// download does, and run the call on a goroutine.
type pageClass struct{ st *vmState }

// HasPage(h) reports whether the response has an open page (response.page).
func (x pageClass) HasPage(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return x.st.rt.ToValue(h.resp.Page != nil), nil
}

// PageURL(h) is page.url().
func (x pageClass) PageURL(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return x.st.rt.ToValue(h.resp.Page.URL()), nil
}

// ClosePage(h) closes the page (the end of the scope that received it); it returns at
// once, the page closes on a goroutine the spider's Close waits for.
func (x pageClass) ClosePage(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	if p := h.resp.Page; p != nil {
		x.st.s.closing.Go(func() { _ = p.Close() })
	}
	return goja.Undefined(), nil
}

// PageClick(h, css) is page.click(css).
func (x pageClass) PageClick(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	css := c.Argument(1).String()
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Click(ctx, css) }), nil
}

// PageFill(h, css, text) is page.fill(css, text).
func (x pageClass) PageFill(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	css, text := c.Argument(1).String(), c.Argument(2).String()
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Fill(ctx, css, text) }), nil
}

// PageWaitForSelector(h, css, ms) is page.waitForSelector(css, { timeout: ms }).
func (x pageClass) PageWaitForSelector(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	css, timeout := c.Argument(1).String(), millis(c.Argument(2))
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) {
		return nil, p.WaitForSelector(ctx, css, timeout)
	}), nil
}

// PageScroll(h, times, delayMs) is page.scroll({ times, delay }).
func (x pageClass) PageScroll(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	times, delay := int(c.Argument(1).ToInteger()), millis(c.Argument(2))
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Scroll(ctx, times, delay) }), nil
}

// PageEvaluate(h, source, argsJSON) is page.evaluate(source, ...args): it resolves to the
// result's JSON text, which the prelude parses.
func (x pageClass) PageEvaluate(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	src, args := c.Argument(1).String(), []byte(c.Argument(2).String())
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) {
		out, err := p.Evaluate(ctx, src, args)
		return string(out), err
	}), nil
}

// PageContent(h) is page.content().
func (x pageClass) PageContent(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) { return p.Content(ctx) }), nil
}

// PageScreenshot(h) is page.screenshot(): a Uint8Array of a PNG.
func (x pageClass) PageScreenshot(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) {
		b, err := p.Screenshot(ctx)
		return pngBytes(b), err
	}), nil
}

// PageGoto(h, url) is page.goto(url).
func (x pageClass) PageGoto(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	u := c.Argument(1).String()
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Goto(ctx, u) }), nil
}

// PageResponse(h) is page.response(): a Response over the current DOM (without the page).
func (x pageClass) PageResponse(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return x.st.pageCall(h, func(ctx context.Context, p types.Page) (any, error) {
		r, err := p.Response(ctx)
		if err != nil {
			return nil, err
		}
		return &respHandle{resp: r}, nil
	}), nil
}

// pngBytes marks a result to become a Uint8Array.
type pngBytes []byte

// millis reads a number of milliseconds (undefined, null or <= 0: 0).
func millis(v goja.Value) time.Duration {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	f := v.ToFloat()
	if !(f > 0) {
		return 0
	}
	return time.Duration(f * float64(time.Millisecond))
}

// pageCall runs call on a goroutine and returns [promise, cancel]; on the loop. The
// promise resolves with call's result (nil: undefined; a *respHandle: a Response; pngBytes:
// a Uint8Array; else the value) or rejects with an Error named by the engine
// (TimeoutError, ...). cancel ends the call's context (a failing callback's scope).
func (st *vmState) pageCall(h *respHandle, call func(ctx context.Context, p types.Page) (any, error)) goja.Value {
	rt := st.rt
	p, resolve, reject := rt.NewPromise()
	page := h.resp.Page
	if page == nil {
		_ = reject(newJSError(rt, "Error", "the response has no page (request it with the browser option includePage)"))
		return rt.NewArray(p, func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	}
	enqueue := st.vm.Reserve()
	ctx, cancel := context.WithCancel(st.s.ctx)
	go func() {
		defer cancel()
		v, err := call(ctx, page)
		enqueue(func(rt *goja.Runtime) error {
			if err != nil {
				return reject(newJSError(rt, pageErrorName(err), err.Error()))
			}
			switch x := v.(type) {
			case nil:
				return resolve(goja.Undefined())
			case *respHandle:
				jr, err := st.responseToJS(x)
				if err != nil {
					return reject(err)
				}
				return resolve(jr)
			case pngBytes:
				a, err := uint8Array(rt, x)
				if err != nil {
					return reject(err)
				}
				return resolve(a)
			}
			return resolve(rt.ToValue(v))
		})
	}()
	return rt.NewArray(p, func(goja.FunctionCall) goja.Value { cancel(); return goja.Undefined() })
}

// pageErrorName names a page call's error: the engine's name (TimeoutError, ...), or
// Error.
func pageErrorName(err error) string {
	var de *engine.DownloadError
	if errors.As(err, &de) {
		return de.Name
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return engine.NameTimeout
	}
	return "Error"
}
