package jsapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// DownloaderMiddlewares runs a group of the module's `downloaderMiddlewares` that are
// adjacent in the engine's chain as one engine.DownloaderMiddleware, with the semantics of
// Scrapy's DownloaderMiddlewareManager: processRequest in chain order, where the first
// Response skips the download and the first Request replaces it (rescheduled); then
// processException (on an error) and processResponse in reverse order, where a Request
// reschedules and a Response replaces the one passed on. A Response from processRequest or
// processException still passes through every processResponse of the group. It applies to
// scheduled and inline downloads alike and runs on the spider's first VM. Called
// concurrently from download goroutines.
type DownloaderMiddlewares struct {
	s   *Spider
	idx []int // the middlewares of this group, by index in the export, in order
	n   int
}

// MiddlewareOrders returns the order numbers of the module's downloader middlewares and of
// its spider middlewares with processSpiderOutput or processSpiderException: their `order`
// property, default 543 (Scrapy's; lower runs nearer the engine), in the order exported
// (engine.OwnMiddlewares). The engine places them among the built-ins.
func (s *Spider) MiddlewareOrders() (downloader, spiderOutput []int) {
	return slices.Clone(s.dlmwOrders), slices.Clone(s.outOrders)
}

// DownloaderMiddlewares returns the downloader middlewares idx of the export (adjacent in
// the engine's chain, nearest the engine first) as one group (engine.OwnMiddlewares).
func (s *Spider) DownloaderMiddlewares(idx []int) engine.DownloaderMiddleware {
	return &DownloaderMiddlewares{s: s, idx: slices.Clone(idx), n: len(idx)}
}

// outcome is what one hook returned.
type outcome struct {
	req  *types.Request  // a Request: reschedule it
	resp *types.Response // a Response
}

// Fetch implements engine.DownloaderMiddleware.
func (m *DownloaderMiddlewares) Fetch(ctx context.Context, req *types.Request, next engine.Downloader) (*types.Response, error) {
	var resp *types.Response
	req, hidden := m.s.hideAuth(req) // HTTP_PASS is not the spider's to read
	// One JS Request for every hook of this download, as Scrapy passes one request object:
	// made on the first hook, it carries each processRequest's changes to the next.
	js := &jsRequest{}
	for i := 0; i < m.n && resp == nil; i++ {
		out, nreq, err := m.hook(ctx, js, i, "processRequest", req, nil, nil)
		if err != nil {
			return nil, err
		}
		req = nreq
		if out.req != nil {
			return nil, engine.Reschedule(out.req)
		}
		resp = out.resp
	}
	var err error
	if resp == nil {
		resp, err = next.Fetch(ctx, hidden.restore(req))
		resp = hidden.forget(resp)
	}
	var re *engine.RescheduleError
	if errors.As(err, &re) {
		return nil, err // a middleware below replaced the request (a redirect): not an exception
	}
	if err != nil {
		derr := err
		for i := m.n - 1; i >= 0; i-- {
			out, _, herr := m.hook(ctx, js, i, "processException", req, nil, derr)
			if herr != nil {
				return nil, herr
			}
			if out.req != nil {
				return nil, engine.Reschedule(out.req)
			}
			if out.resp != nil {
				resp, err = out.resp, nil
				break
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for i := m.n - 1; i >= 0; i-- {
		out, _, herr := m.hook(ctx, js, i, "processResponse", req, resp, nil)
		if herr != nil {
			return nil, herr
		}
		if out.req != nil {
			engine.ClosePage(resp)
			return nil, engine.Reschedule(out.req)
		}
		if out.resp != nil {
			if resp != nil && out.resp.Page != resp.Page { // a copy of the same response keeps the page
				engine.ClosePage(resp)
			}
			resp = out.resp
		}
	}
	return resp, nil
}

// hook calls method of middleware i, awaits it and classifies its result. For
// processRequest it also returns the request as the hook left it (changes to its headers,
// meta and so on are sent). A thrown error or a rejection is returned.
// jsRequest is the JS Request the hooks of one download share, with the VM state it belongs
// to (a VM replaced by the watchdog needs a new one).
type jsRequest struct {
	st *vmState
	v  goja.Value
}

func (m *DownloaderMiddlewares) hook(ctx context.Context, js *jsRequest, i int, method string, req *types.Request,
	resp *types.Response, failure error) (outcome, *types.Request, error) {
	out, updated, innocent, err := m.hookOnce(ctx, js, i, method, req, resp, failure)
	if innocent && ctx.Err() == nil && m.s.interrupted.Load() == nil {
		m.s.logger.Warn(fmt.Sprintf("downloaderMiddlewares[%d].%s (%s): other code on its VM made goja panic, which was discarded: calling it again on a fresh VM", m.idx[i], method, req.URL))
		out, updated, _, err = m.hookOnce(ctx, js, i, method, req, resp, failure)
	}
	return out, updated, err
}

// hookOnce is one call of hook; innocent reports that the VM was lost to a goja panic in
// other code, before this hook's own synchronous code started or after it returned (hook
// calls it again).
func (m *DownloaderMiddlewares) hookOnce(ctx context.Context, js *jsRequest, i int, method string, req *types.Request,
	resp *types.Response, failure error) (outcome, *types.Request, bool, error) {
	vm, err := m.s.vm0()
	if err != nil {
		return outcome{}, req, false, err
	}
	st := m.s.state(vm)
	where := fmt.Sprintf("downloaderMiddlewares[%d].%s", m.idx[i], method)
	id := m.s.running.addCallback(where, req.URL, vm)
	defer m.s.running.removeCallback(id)
	var out outcome
	updated := req
	var jsReq goja.Value
	var started, returned atomic.Bool // this hook's code started, returned (a panic: not)
	err = st.awaitWithin(ctx, where, req.URL, func(rt *goja.Runtime) (goja.Value, error) {
		started.Store(true)
		obj := st.dlmws[m.idx[i]]
		fn, ok := goja.AssertFunction(obj.Get(method))
		if !ok {
			return nil, nil
		}
		if js.st != st || js.v == nil {
			v, err := st.requestToJS(req)
			if err != nil {
				return nil, err
			}
			js.st, js.v = st, v
		}
		jsReq = js.v
		args := []goja.Value{jsReq}
		switch {
		case resp != nil:
			jr, err := st.responseToJS(&respHandle{resp: resp})
			if err != nil {
				return nil, err
			}
			args = append(args, jr)
		case failure != nil:
			args = append(args, st.jsError(failure, req))
		}
		v, err := fn(obj, append(args, st.spider)...)
		returned.Store(true) // not reached when goja panics
		return v, err
	}, func(v goja.Value) error {
		if method == "processRequest" && jsReq != nil {
			nr, err := requestFromJS(st.rt, jsReq.ToObject(st.rt))
			if err != nil {
				return err
			}
			nr.Depth, nr.Retries = req.Depth, req.Retries
			updated = nr
		}
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return nil
		}
		obj, ok := v.(*goja.Object)
		switch {
		case ok && st.isRequestObject(obj):
			nr, err := requestFromJS(st.rt, obj)
			if err != nil {
				return err
			}
			out.req = nr
		case ok:
			h, isResp := st.responseHandle(obj)
			if !isResp {
				return fmt.Errorf("%s of downloaderMiddlewares[%d] returned %s: return undefined, a Request or a Response", method, m.idx[i], st.vm.Inspect(v))
			}
			r := *h.resp
			if r.Request == nil {
				r.Request = updated // a substituted response keeps the request
			}
			if r.URL == "" {
				r.URL = r.Request.URL
			}
			out.resp = &r
		default:
			return fmt.Errorf("%s of downloaderMiddlewares[%d] returned %s: return undefined, a Request or a Response", method, m.idx[i], v.String())
		}
		return nil
	})
	if _, perr, panicked := vm.Panicked(); panicked && errors.Is(err, runtime.ErrClosed) {
		if !started.Load() || returned.Load() {
			return out, updated, true, err
		}
		// goja panicked in this hook's synchronous code.
		err = panicError(perr, fmt.Sprintf("downloaderMiddlewares[%d].%s", m.idx[i], method))
	}
	return out, updated, false, err
}

// responseHandle returns the Go side of a JS Response.
func (st *vmState) responseHandle(obj *goja.Object) (*respHandle, bool) {
	if r, ok := responseOf(obj); ok {
		return r.h, true
	}
	return nil, false
}

// Interface guards.
var (
	_ engine.DownloaderMiddleware = (*DownloaderMiddlewares)(nil)
	_ engine.OwnMiddlewares       = (*Spider)(nil)
)

// outputClass holds the native of the spider-output chain (prelude.js setOutputPlan): the
// engine's built-in spider output filters, run stage by stage of the engine's output plan.
type outputClass struct{ st *vmState }

// OutputFilters(stage, request, responseHandle|null) runs the built-in spider output
// filters of stage of the engine's output plan (spider side first) on a request a callback
// produced: the request as they changed it, or null when one dropped it.
func (x outputClass) OutputFilters(c goja.FunctionCall) (goja.Value, error) {
	st := x.st
	stage := int(c.Argument(0).ToInteger())
	if stage < 0 || stage >= len(st.s.outputPlan) {
		return nil, typeError("outputFilters: no stage %d", stage)
	}
	req, err := requestFromJS(st.rt, c.Argument(1).ToObject(st.rt))
	if err != nil {
		return nil, asTypeError(err)
	}
	var parent *types.Response
	if h, ok := c.Argument(2).Export().(*respHandle); ok {
		parent = h.resp
	}
	out := types.Output{Request: req}
	for _, f := range st.s.outputPlan[stage].Filters {
		var keep bool
		if out, keep = f.ProcessSpiderOutput(st.s.ctx, parent, out); !keep || out.Request == nil {
			return goja.Null(), nil
		}
	}
	v, err := st.requestToJS(out.Request)
	return v, asTypeError(err)
}
