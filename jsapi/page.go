package jsapi

import (
	"context"
	"errors"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// pageClass holds the natives prelude.js needs for the JS Page (a Go-backed object: the
// browser page a response of a browser request with includePage keeps open, types.Page).
type pageClass struct{ st *vmState }

// ClosePage(h) closes the page (the end of the scope that received it); it returns at
// once, the page closes on a goroutine the spider's Close waits for.
func (x pageClass) ClosePage(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	if p := h.resp.Page; p != nil {
		x.st.s.closing.Go(func() { _ = p.Close() })
	}
	return goja.Undefined(), nil
}

// PageProto() is the Page prototype, made in Go (installPage).
func (x pageClass) PageProto(goja.FunctionCall) (goja.Value, error) {
	return x.st.pageProto, nil
}

// jsPage is a JS Page: a Go-backed object (no own properties) whose methods live on the
// shared prototype pageProto, over the page of its response handle.
type jsPage struct{ h *respHandle }

func (*jsPage) Get(string) goja.Value       { return nil }
func (*jsPage) Set(string, goja.Value) bool { return false }
func (*jsPage) Has(string) bool             { return false }
func (*jsPage) Delete(string) bool          { return true }
func (*jsPage) Keys() []string              { return nil }

// newPage makes the Page of the response handle h (response.page).
func (st *vmState) newPage(h *respHandle) goja.Value {
	o := st.rt.NewDynamicObject(&jsPage{h: h})
	_ = o.SetPrototype(st.pageProto)
	return o
}

// installPage makes the Page prototype with native methods.
func (st *vmState) installPage() {
	st.pageProto = st.rt.NewObject()
	bindMethods(st.rt, st.pageProto, pageMethods{st}, nil)
}

// pageMethods are the methods of a JS Page (the prototype of response.page), on this. The
// asynchronous ones run on a goroutine (pageCall) and are tied to the running callback's
// scope (the prelude's pageScoped): a failing callback cancels them.
//
// A browser page kept open for the callback (the browser option `includePage`). It is
// closed when the callback ends, also when it fails. Times are in milliseconds.
//
//jscrawl:class interface Page
type pageMethods struct{ st *vmState }

// scoped ties pair, [promise, cancel] from pageCall, to the running callback's scope; with
// parse, the promise resolves to its JSON text parsed.
func (m pageMethods) scoped(pair goja.Value, parse bool) (goja.Value, error) {
	if m.st.pageScoped == nil {
		m.st.pageScoped, _ = goja.AssertFunction(m.st.helper("pageScoped"))
	}
	return m.st.pageScoped(goja.Undefined(), pair, m.st.rt.ToValue(parse))
}

// call is scoped(pageCall(p's page, f)).
func (m pageMethods) call(p *jsPage, f func(ctx context.Context, p types.Page) (any, error)) (goja.Value, error) {
	return m.scoped(m.st.pageCall(p.h, f), false)
}

// Url is the page's current URL.
//
//jscrawl:ts url(): string;
func (m pageMethods) Url(p *jsPage, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(p.h.resp.Page.URL()), nil
}

// Click clicks the first element the CSS selector matches.
//
//jscrawl:ts click(selector: string): Promise<void>;
func (m pageMethods) Click(p *jsPage, c goja.FunctionCall) (goja.Value, error) {
	css := c.Argument(0).String()
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Click(ctx, css) })
}

// Fill types text into the first field the selector matches, replacing its value.
//
//jscrawl:ts fill(selector: string, text: string): Promise<void>;
func (m pageMethods) Fill(p *jsPage, c goja.FunctionCall) (goja.Value, error) {
	css, text := c.Argument(0).String(), c.Argument(1).String()
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Fill(ctx, css, text) })
}

// WaitForSelector waits until the selector matches (default timeout: the request's).
//
//jscrawl:ts waitForSelector(selector: string, options?: { timeout?: number }): Promise<void>;
func (m pageMethods) WaitForSelector(p *jsPage, c goja.FunctionCall) (goja.Value, error) {
	css, timeout := c.Argument(0).String(), millis(option(c.Argument(1), "timeout"))
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) { return nil, p.WaitForSelector(ctx, css, timeout) })
}

// Scroll scrolls to the bottom up to `times` times (10), waiting `delay` ms (500) between;
// stops when the page stops growing.
//
//jscrawl:ts scroll(options?: { times?: number; delay?: number }): Promise<void>;
func (m pageMethods) Scroll(p *jsPage, c goja.FunctionCall) (goja.Value, error) {
	times, delay := 10, 500*time.Millisecond
	if v := option(c.Argument(0), "times"); !goja.IsUndefined(v) {
		times = int(v.ToInteger())
	}
	if v := option(c.Argument(0), "delay"); !goja.IsUndefined(v) {
		delay = millis(m.st.rt.ToValue(v.ToFloat()))
	}
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Scroll(ctx, times, delay) })
}

// Evaluate runs a function in the page (its source text) with JSON arguments; resolves to
// its JSON result.
//
//jscrawl:ts evaluate<T = any>(fn: string | ((...args: any[]) => any), ...args: JSONValue[]): Promise<T>;
func (m pageMethods) Evaluate(p *jsPage, c goja.FunctionCall) (goja.Value, error) {
	fn := c.Argument(0)
	if _, isFn := goja.AssertFunction(fn); !isFn && !goja.IsString(fn) {
		return nil, typeError("page.evaluate() needs a function or its source text")
	}
	rt := m.st.rt
	args := make([]any, 0, len(c.Arguments))
	for _, a := range c.Arguments[1:] {
		args = append(args, a)
	}
	stringify, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
	json, err := stringify(goja.Undefined(), rt.NewArray(args...))
	if err != nil {
		return nil, err
	}
	src, argsJSON := fn.String(), []byte(json.String())
	return m.scoped(m.st.pageCall(p.h, func(ctx context.Context, p types.Page) (any, error) {
		out, err := p.Evaluate(ctx, src, argsJSON)
		return string(out), err
	}), true)
}

// Content resolves to the current DOM as HTML.
//
//jscrawl:ts content(): Promise<string>;
func (m pageMethods) Content(p *jsPage, _ goja.FunctionCall) (goja.Value, error) {
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) { return p.Content(ctx) })
}

// Screenshot resolves to a PNG of the viewport.
//
//jscrawl:ts screenshot(): Promise<Uint8Array>;
func (m pageMethods) Screenshot(p *jsPage, _ goja.FunctionCall) (goja.Value, error) {
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) {
		b, err := p.Screenshot(ctx)
		return pngBytes(b), err
	})
}

// Goto loads another URL in the page, waiting as the request's `waitUntil` says.
//
//jscrawl:ts goto(url: string): Promise<void>;
func (m pageMethods) Goto(p *jsPage, c goja.FunctionCall) (goja.Value, error) {
	u, err := m.st.urls.CheckURL(goja.FunctionCall{Arguments: []goja.Value{m.st.rt.ToValue(c.Argument(0).String()), m.st.rt.ToValue("page.goto")}})
	if err != nil {
		return nil, err
	}
	url := u.String()
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) { return nil, p.Goto(ctx, url) })
}

// Response resolves to a fresh Response over the current DOM (without the page).
//
//jscrawl:ts response(): Promise<Response>;
func (m pageMethods) Response(p *jsPage, _ goja.FunctionCall) (goja.Value, error) {
	return m.call(p, func(ctx context.Context, p types.Page) (any, error) {
		r, err := p.Response(ctx)
		if err != nil {
			return nil, err
		}
		return &respHandle{resp: r}, nil
	})
}

// ToString returns "<Page url>".
//
//jscrawl:ts toString(): string;
func (m pageMethods) ToString(p *jsPage, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue("<Page " + p.h.resp.Page.URL() + ">"), nil
}

// option is o[key] when o is an object, else undefined (JS's `o && o.key` for options).
func option(o goja.Value, key string) goja.Value {
	if obj, ok := o.(*goja.Object); ok {
		if v := obj.Get(key); v != nil {
			return v
		}
	}
	return goja.Undefined()
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

// Interface guards.
var _ goja.DynamicObject = (*jsPage)(nil)
