package jsapi

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// countException counts spider_exceptions/<name> and spider_exceptions/count, as the
// engine does for an error a callback returns.
func (s *Spider) countException(err error) {
	if s.crawler != nil {
		s.crawler.Stats().Inc("spider_exceptions/count", 1)
		s.crawler.Stats().Inc("spider_exceptions/"+engine.ErrorName(err), 1)
	}
}

// run calls a callback on a VM from getVM (released when done), drives what it returns and
// emits every produced value; it returns when the callback finished (including what it
// awaited) or ctx ended. where names the callback for error messages and, with url (the
// response's), in Running. With lazy set (start()), the next value is pulled only while the
// crawler's backlog is below a high-water mark, so a huge or endless start() does not flood
// the scheduler.
//
// When another callback on the same VM exceeds JS_CALLBACK_TIMEOUT, the VM is discarded
// (goja cannot go on after the interrupt) and this callback's work with it: run then runs
// it once more from its start on a fresh VM, skipping the values the first run already
// emitted, so its items are neither lost nor duplicated (as long as the callback produces
// the same values in the same order; its inline downloads are made again).
func (s *Spider) run(ctx context.Context, getVM func() (*runtime.VM, func(), error), where, url string, emit engine.Emit, lazy bool,
	prepare func(st *vmState) (invocation, error)) error {
	skip := int64(0)
	var broken *runtime.VM
	for {
		if err := s.interruptedErr(where, url); err != nil {
			return err
		}
		vm, release, err := getVM()
		if err != nil {
			return err
		}
		if broken != nil && (vm == broken || vm.Broken()) {
			// No fresh VM to run it on (a spider without a pool).
			release()
			return s.lostTo(where, url)
		}
		emitted, err := s.runOnce(ctx, vm, where, url, emit, lazy, skip, prepare)
		release()
		if !errors.Is(err, errInnocent) {
			return err
		}
		if broken != nil {
			// Its second VM was lost too: give up.
			return s.lostTo(where, url)
		}
		broken, skip = vm, emitted
		if s.crawler != nil {
			s.crawler.Stats().Inc("spider/callback_rerun_count", 1)
		}
		cause := "another callback exceeded JS_CALLBACK_TIMEOUT on its VM"
		if _, perr, panicked := vm.Panicked(); panicked {
			cause = "other code on its VM made goja panic (" + perr.Name + ")"
		}
		s.logger.Warn(fmt.Sprintf("%s (%s): %s, which was discarded: running %s again on a fresh VM, skipping the %d values it had produced",
			where, url, cause, where, emitted))
	}
}

// errInnocent is runOnce's error for a callback whose VM was broken by another callback's
// runaway: run runs it again.
var errInnocent = errors.New("vm lost to another callback's runaway")

// lostTo is the error of a callback that lost its VM to another's runaway and could not be
// run again.
func (s *Spider) lostTo(where, url string) error {
	msg := fmt.Sprintf("callback %s (%s) was lost: another callback exceeded JS_CALLBACK_TIMEOUT (%s) on its VM", where, url, s.callbackTimeout())
	return runtime.InterruptError("TimeoutError", msg, nil)
}

// runOnce is one run of a callback on vm: it skips the first skip values the callback
// produces and returns how many it produced in all. Its error wraps errInnocent when the
// VM was lost to another callback's runaway.
func (s *Spider) runOnce(ctx context.Context, vm *runtime.VM, where, url string, emit engine.Emit, lazy bool, skip int64,
	prepare func(st *vmState) (invocation, error)) (int64, error) {
	st := s.state(vm)
	id := s.running.addCallback(where, url, vm)
	defer s.running.removeCallback(id)
	done := make(chan error, 1)
	var produced atomic.Int64
	// CALLBACK_TIMEOUT: the whole callback, awaited time included; for start() (lazy), each
	// step from one value to the next, not counting its pauses for the backlog.
	budget := s.budget()
	var expired <-chan time.Time
	var clock *time.Timer
	if budget > 0 {
		clock = time.NewTimer(budget)
		defer clock.Stop()
		expired = clock.C
	}
	// abandoned is set once the callback is over its budget: what it produces later is
	// dropped.
	var abandoned atomic.Bool
	onValue := func(v goja.Value) goja.Value {
		if abandoned.Load() {
			return nil
		}
		if produced.Add(1) <= skip {
			return nil // emitted by the run this one repeats
		}
		st.emitValue(v, where, url, emit)
		if !lazy || s.crawler == nil {
			return nil
		}
		if ctx.Err() != nil {
			// The crawl is closing: leave start() suspended for good.
			p, _, _ := st.rt.NewPromise()
			return st.rt.ToValue(p)
		}
		if s.crawler.Backlog() >= s.startHighWater() {
			if clock != nil {
				clock.Stop()
			}
			return st.waitBacklog(ctx, func() {
				if clock != nil {
					clock.Reset(budget)
				}
			})
		}
		if clock != nil {
			clock.Reset(budget)
		}
		return nil
	}
	ok := st != nil && vm.Go(func(rt *goja.Runtime) {
		inv, err := prepare(st)
		if err != nil {
			done <- runtime.ToScriptError(err)
			return
		}
		if inv.fn == nil {
			vm.Drive(inv.result, onValue, func(err error) { done <- err })
			return
		}
		// In a scope: if the callback fails, the downloads it still awaits are cancelled.
		vm.CallTagged(id, inv.fn, inv.this, inv.args, inv.wrap, onValue, func(err error) { done <- err })
	})
	if !ok {
		_, ranAway := vm.Runaway()
		_, _, panicked := vm.Panicked()
		if ranAway || panicked {
			return 0, errInnocent // broken between getVM and now
		}
		return 0, fmt.Errorf("%s: %w", where, runtime.ErrClosed)
	}
	// failed names the error of a callback cut short by an interrupt.
	failed := func(err error) error {
		if err == nil || !vm.Broken() {
			return err
		}
		if ierr := s.interruptedErr(where, url); ierr != nil {
			return ierr
		}
		return s.namedTimeout(err, where, vm)
	}
	select {
	case err := <-done:
		return produced.Load(), failed(err)
	case <-vm.Done():
		select {
		case err := <-done:
			return produced.Load(), failed(err)
		default:
		}
		if err := s.interruptedErr(where, url); err != nil {
			return produced.Load(), err
		}
		if tag, ranAway := vm.Runaway(); ranAway {
			if tag == id {
				return produced.Load(), s.namedTimeout(runtime.InterruptError("TimeoutError", "interrupted", nil), where, vm)
			}
			return produced.Load(), errInnocent
		}
		if tag, perr, panicked := vm.Panicked(); panicked {
			if tag == id {
				return produced.Load(), panicError(perr, where)
			}
			return produced.Load(), errInnocent
		}
		if vm.Broken() {
			return produced.Load(), s.namedTimeout(runtime.InterruptError("TimeoutError", "interrupted", nil), where, vm)
		}
		return produced.Load(), &runtime.ScriptError{Name: "Error", Message: where + ": the VM was closed (shutdown)"}
	case <-expired:
		abandoned.Store(true)
		err := s.overBudget("callback "+where, url, id)
		s.running.cancelInline(id) // the downloads it awaits are of no use now
		return produced.Load(), err
	case <-ctx.Done():
		return produced.Load(), ctx.Err()
	}
}

// budget is CALLBACK_TIMEOUT, the wall-clock time a callback or a pipeline or middleware
// call may take, awaited time included (0: no limit, and without a crawler).
func (s *Spider) budget() time.Duration {
	if s.crawler == nil {
		return 0
	}
	return s.crawler.Settings().Duration(types.CallbackTimeout)
}

// overBudget is the error of callback id (where, processing url) still unsettled at the
// end of its CALLBACK_TIMEOUT: a TimeoutError naming the spider code that started the
// inline downloads it awaits, if any. The callback is left pending on its VM (nothing can
// cancel an await from Go); what it produces later is dropped.
func (s *Spider) overBudget(where, url string, id uint64) error {
	msg := fmt.Sprintf("%s did not settle within CALLBACK_TIMEOUT (%s)", where, s.budget())
	if url != "" {
		msg += " processing <" + url + ">"
	}
	if id != 0 {
		if at := s.running.awaitedBy(id); at != "" {
			msg += "; it awaits " + at
		}
	}
	return &runtime.ScriptError{Name: "TimeoutError", Message: msg, Stack: "TimeoutError: " + msg}
}

// panicError is the error of the callback (or pipeline call) where, whose code made goja
// panic: perr (a RangeError or an InternalError, see runtime.PanicError) naming where,
// with the same name, so it is counted in spider_exceptions/<name>.
func panicError(perr *runtime.ScriptError, where string) error {
	msg := perr.Message + " in " + where + ": goja panicked, so its VM was discarded (no catch or finally block ran)"
	return perr.WithMessage(msg)
}

// Interrupt stops the JS running on every VM and closes the VMs; the callbacks running
// fail with an InterruptedError naming reason, and no callback runs afterwards (pipelines
// still do, on a fresh VM). The engine calls it when MEMUSAGE_LIMIT_MB is exceeded
// (engine.Interrupter). Safe from any goroutine.
func (s *Spider) Interrupt(reason string) {
	if !s.interrupted.CompareAndSwap(nil, &reason) {
		return
	}
	vms := []*runtime.VM{s.first}
	if s.pool != nil {
		vms = s.pool.All()
	}
	for _, vm := range vms {
		if vm != nil {
			vm.Interrupt(reason)
			go vm.Close() // the callbacks waiting on it see Done
		}
	}
}

// interruptedErr is the error of a callback after Interrupt (nil before).
func (s *Spider) interruptedErr(where, url string) error {
	reason := s.interrupted.Load()
	if reason == nil {
		return nil
	}
	msg := fmt.Sprintf("callback %s (%s) interrupted: %s", where, url, *reason)
	return runtime.InterruptError("InterruptedError", msg, nil)
}

// callbackTimeout is JS_CALLBACK_TIMEOUT as text ("?" without a crawler).
func (s *Spider) callbackTimeout() string {
	if s.crawler == nil {
		return "?"
	}
	return s.crawler.Settings().Duration(types.JSCallbackTimeout).String()
}

// namedTimeout rewrites the error of a callback cut short by the watchdog so it names the
// callback: "callback parseBook exceeded JS_CALLBACK_TIMEOUT (2s)".
func (s *Spider) namedTimeout(err error, where string, vm *runtime.VM) error {
	var se *runtime.ScriptError
	if !errors.Is(err, runtime.ErrInterrupted) || !errors.As(err, &se) || !vm.Broken() {
		return err
	}
	msg := fmt.Sprintf("callback %s exceeded JS_CALLBACK_TIMEOUT (%s)", where, s.callbackTimeout())
	return runtime.InterruptError("TimeoutError", msg, se.Value)
}

// wrap returns the spider middlewares' wrapper for a callback's result (helper
// st.wrapStart or st.wrapOutput), or nil when no middleware has the hook.
func (st *vmState) wrap(fn goja.Callable, args ...goja.Value) goja.Value {
	w, err := fn(goja.Undefined(), args...)
	if err != nil || goja.IsUndefined(w) {
		return nil
	}
	return w
}

// wrapped adds the spider middlewares' processSpiderOutput chain for a callback of response
// (null for an errback without one) to inv.
func (st *vmState) wrapped(inv invocation, response goja.Value) invocation {
	inv.wrap = st.wrap(st.wrapOutput, response)
	return inv
}

// isFunction reports whether v is callable. Functions (and callable proxies) have the class
// "Function": they are told apart without goja.AssertFunction, which makes a closure.
func isFunction(v goja.Value) bool {
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Function" {
		return true
	}
	_, ok := goja.AssertFunction(v)
	return ok
}

// invocation is what run calls: fn with this and args, or, when fn is nil, a ready result.
type invocation struct {
	fn, this goja.Value
	args     []goja.Value
	wrap     goja.Value // nil, or a JS function applied to the result (spider middlewares)
	result   goja.Value
}

// startHighWater is the backlog at which start() pauses: enough queued requests to keep
// every download slot busy several times over.
func (s *Spider) startHighWater() int {
	return max(4*s.crawler.Settings().Int(types.ConcurrentRequests), 64)
}

// waitBacklog returns a promise that settles once the backlog is below half the high-water
// mark, and never when ctx ends first; on the loop. resumed is called (off the loop) just
// before it settles. The engine wakes the wait off the loop
// (Crawler.WaitBacklog).
func (st *vmState) waitBacklog(ctx context.Context, resumed func()) goja.Value {
	p, resolve, _ := st.rt.NewPromise()
	enqueue := st.vm.Reserve()
	low := st.s.startHighWater() / 2
	go func() {
		if st.s.crawler.WaitBacklog(ctx, low) != nil {
			// The crawl is closing: the promise stays pending, so start() stays
			// suspended instead of producing requests nobody schedules.
			enqueue(func(*goja.Runtime) error { return nil })
			return
		}
		resumed()
		enqueue(func(*goja.Runtime) error { return resolve(nil) })
	}()
	return st.rt.ToValue(p)
}

// emitValue converts one value a callback produced and hands it to the engine; on the loop.
// undefined and null produce nothing (response.follow() of a skipped link is undefined), as
// Scrapy ignores a None output. A value that is neither a Request nor an item object is
// logged (naming the callback and the URL it processes) and counted, and the callback
// goes on.
func (st *vmState) emitValue(v goja.Value, where, url string, emit engine.Emit) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return
	}
	out, err := st.toOutput(v)
	if err != nil {
		st.s.countException(&runtime.ScriptError{Name: "TypeError"})
		if url != "" {
			where += " processing <" + url + ">"
		}
		st.s.logger.Error(fmt.Sprintf("TypeError: %s: %v", where, err))
		return
	}
	emit(out)
}

func (st *vmState) toOutput(v goja.Value) (types.Output, error) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return types.Output{}, fmt.Errorf("yielded %s: a callback yields Requests, item objects, arrays of those, or nothing",
			describe(v))
	}
	if _, isFn := goja.AssertFunction(v); isFn {
		return types.Output{}, errors.New("yielded a function: a callback yields Requests, item objects, arrays of those, or nothing")
	}
	if st.isRequestObject(obj) {
		req, err := requestFromJS(st.rt, obj)
		if err != nil {
			return types.Output{}, err
		}
		return types.Output{Request: req}, nil
	}
	switch obj.ClassName() {
	case "Array", "Promise", "Function", "RegExp":
		return types.Output{}, fmt.Errorf("yielded a %s: a callback yields Requests, item objects, arrays of those, or nothing", obj.ClassName())
	}
	if collectionOf(obj) == "Set" {
		return types.Output{}, errors.New("yielded a Set: a callback yields Requests, item objects (a Map is one), arrays of those, or nothing")
	}
	item, err := exportItem(st.rt, obj)
	if err != nil {
		return types.Output{}, err
	}
	return types.Output{Item: item}, nil
}

// isRequestObject reports whether obj is a Request (or a subclass's instance) by walking its
// prototype chain in Go, without a JS call.
func (st *vmState) isRequestObject(obj *goja.Object) bool {
	for p := obj.Prototype(); p != nil; p = p.Prototype() {
		if p == st.requestProto {
			return true
		}
	}
	return false
}

// Start runs the spider's start() on the first VM, or yields startUrls to parse when it
// has none (engine.Spider).
func (s *Spider) Start(ctx context.Context, emit engine.Emit) error {
	return s.run(ctx, s.acquire0, "start", "", emit, true, func(st *vmState) (invocation, error) {
		wrap := st.wrap(st.wrapStart)
		if start := st.spider.Get("start"); isFunction(start) {
			return invocation{fn: start, this: st.spider, wrap: wrap}, nil
		}
		urls := st.spider.Get("startUrls")
		if urls == nil || goja.IsUndefined(urls) || goja.IsNull(urls) {
			s.logger.Warn("the spider has neither start() nor startUrls: nothing to crawl")
			return invocation{result: goja.Undefined()}, nil
		}
		list, err := stringList(st.rt, urls, "startUrls")
		if err != nil {
			return invocation{}, err
		}
		out := make([]any, 0, len(list))
		for _, u := range list {
			if err := s.checkURL(u); err != nil {
				return invocation{}, fmt.Errorf("startUrls: %w", err)
			}
			r, err := st.makeRequest(goja.Undefined(), st.rt.ToValue(u), goja.Undefined())
			if err != nil {
				return invocation{}, err
			}
			out = append(out, r)
		}
		reqs := st.rt.NewArray(out...)
		return invocation{fn: st.rt.ToValue(func(goja.FunctionCall) goja.Value { return reqs }), wrap: wrap}, nil
	})
}

// acquire0 is acquire for the first VM (start() and pipelines run there).
func (s *Spider) acquire0() (*runtime.VM, func(), error) {
	vm, err := s.vm0()
	return vm, func() {}, err
}

func (s *Spider) vm0() (*runtime.VM, error) {
	if s.pool != nil {
		return s.pool.VM(0)
	}
	return s.first, nil
}

func (s *Spider) acquire() (*runtime.VM, func(), error) {
	if s.pool == nil {
		return s.first, func() {}, nil
	}
	return s.pool.Acquire()
}

// isHTML reports whether a body should be parsed as HTML ahead of the callback.
func isHTML(resp *types.Response) bool {
	ct := resp.Headers.Get("Content-Type")
	if ct == "" {
		b := strings.TrimLeft(string(resp.Body[:min(len(resp.Body), 64)]), " \t\r\n\ufeff")
		return strings.HasPrefix(b, "<")
	}
	mt := mediaType(ct)
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// mediaType is the media type of a Content-Type as mime.ParseMediaType gives it ("" when
// invalid), with the usual HTML values answered without parsing (a map and a lowercased
// copy per call).
func mediaType(ct string) string {
	switch ct {
	case "text/html", "text/html; charset=utf-8", "text/html; charset=UTF-8":
		return "text/html"
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// Parse runs the callback named by the request on a VM of the pool (engine.Spider). The
// HTML is parsed here, on the calling goroutine, so the JS loop only runs JS.
func (s *Spider) Parse(ctx context.Context, resp *types.Response, emit engine.Emit) error {
	h := &respHandle{resp: resp}
	if isHTML(resp) || isXML(resp) {
		h.doc, h.docErr = parseDocument(resp)
		if h.doc != nil {
			h.noted = true
			s.noteFlattened(resp.URL, h.doc)
		}
	}
	name := resp.Request.CallbackName()
	return s.run(ctx, s.acquire, name, resp.URL, emit, false, func(st *vmState) (invocation, error) {
		fn := st.spider.Get(name)
		if resp.Request.Callback == "" {
			// A base spider (CrawlSpider, XMLFeedSpider...) handles requests without a
			// callback in _parse, as Scrapy's Spider._parse.
			if d := st.spider.Get("_parse"); isFunction(d) {
				fn = d
			}
		}
		if !isFunction(fn) {
			return invocation{}, s.missingCallback("method", name, resp.URL)
		}
		jr, err := st.responseToJS(h)
		if err != nil {
			return invocation{}, err
		}
		return st.wrapped(invocation{fn: fn, this: st.spider, args: []goja.Value{jr, toJS(st.rt, kwargs(resp.Request.CbKwargs))}}, jr), nil
	})
}

func kwargs(it types.Item) types.Item {
	if it == nil {
		return types.Item{}
	}
	return it
}

// Errback runs the request's errback with a failure object
// { request, error: { name, message }, response } (engine.Spider).
func (s *Spider) Errback(ctx context.Context, f *types.Failure, emit engine.Emit) error {
	name := f.Request.Errback
	url := f.Request.URL
	if f.Response != nil {
		url = f.Response.URL
	}
	return s.run(ctx, s.acquire, name, url, emit, false, func(st *vmState) (invocation, error) {
		fn := st.spider.Get(name)
		if !isFunction(fn) {
			return invocation{}, s.missingCallback("errback method", name, "")
		}
		rt := st.rt
		fo := rt.NewObject()
		req, err := st.requestToJS(f.Request)
		if err != nil {
			return invocation{}, err
		}
		_ = fo.Set("request", req)
		eo := rt.NewObject()
		_ = eo.Set("name", f.Name)
		_ = eo.Set("message", f.Message)
		_ = fo.Set("error", eo)
		if f.Response != nil {
			jr, err := st.responseToJS(&respHandle{resp: f.Response})
			if err != nil {
				return invocation{}, err
			}
			_ = fo.Set("response", jr)
		} else {
			_ = fo.Set("response", goja.Null())
		}
		return st.wrapped(invocation{fn: fn, this: st.spider, args: []goja.Value{fo}}, fo.Get("response")), nil
	})
}

// Pipeline is one entry of the module's `pipelines` export (engine.Pipeline, Opener,
// io.Closer). It runs on the spider's first VM.
type Pipeline struct {
	s      *Spider
	index  int
	closed bool // guarded by s.mu
}

// await calls method on the pipeline object and waits for its (possibly async) result;
// onResult converts the settled value on the loop.
// A call that loses its VM to a callback's runaway (JS_CALLBACK_TIMEOUT) while it awaits is
// made once more on the fresh VM, so the item is not lost.
func (p *Pipeline) await(ctx context.Context, method string, args func(st *vmState) []goja.Value,
	onResult func(st *vmState, v goja.Value) error) error {
	for again := false; ; again = true {
		vm, err := p.s.vm0()
		if err != nil {
			return err
		}
		st := p.s.state(vm)
		// Listed by jscrawl ps while it runs, as a callback is.
		where := fmt.Sprintf("pipelines[%d].%s", p.index, method)
		id := p.s.running.addCallback(where, "", vm)
		var started, returned atomic.Bool // this call's code started, returned (a panic: not)
		err = st.awaitWithin(ctx, where, "", func(rt *goja.Runtime) (goja.Value, error) {
			started.Store(true)
			obj := st.pipelines[p.index]
			fn, isFn := goja.AssertFunction(obj.Get(method))
			if !isFn {
				return nil, nil
			}
			v, err := fn(obj, args(st)...)
			returned.Store(true) // not reached when goja panics
			return v, err
		}, func(v goja.Value) error { return onResult(st, v) })
		p.s.running.removeCallback(id)
		if _, perr, panicked := vm.Panicked(); panicked && errors.Is(err, runtime.ErrClosed) &&
			p.s.interrupted.Load() == nil && ctx.Err() == nil {
			if again || (started.Load() && !returned.Load()) || p.s.pool == nil {
				// goja panicked in this call's synchronous code (or twice).
				return panicError(perr, fmt.Sprintf("pipelines[%d].%s", p.index, method))
			}
			p.s.logger.Warn(fmt.Sprintf("pipelines[%d].%s: other code on its VM made goja panic, which was discarded: calling it again on a fresh VM", p.index, method))
			continue
		}
		if _, ranAway := vm.Runaway(); !again && ranAway && errors.Is(err, runtime.ErrClosed) &&
			p.s.interrupted.Load() == nil && ctx.Err() == nil && p.s.pool != nil {
			p.s.logger.Warn(fmt.Sprintf("pipelines[%d].%s: a callback exceeded JS_CALLBACK_TIMEOUT on its VM, which was discarded: calling it again on a fresh VM", p.index, method))
			continue
		}
		return err
	}
}

// await runs call on the VM's loop and waits until the value it returns has settled (a
// promise) and onResult has converted it, or the VM ends (runtime.ErrClosed), or ctx does.
// A nil value from call goes to onResult as nil without settling; a thrown error or a
// rejection is returned as a *runtime.ScriptError.
func (st *vmState) await(ctx context.Context, call func(rt *goja.Runtime) (goja.Value, error),
	onResult func(v goja.Value) error) error {
	return st.awaitWithin(ctx, "", "", call, onResult)
}

// awaitWithin is await under CALLBACK_TIMEOUT when where is not "": a call (where names it,
// processing url) still unsettled then fails with a TimeoutError, and its result, if it
// ever settles, is ignored.
func (st *vmState) awaitWithin(ctx context.Context, where, url string, call func(rt *goja.Runtime) (goja.Value, error),
	onResult func(v goja.Value) error) error {
	if st == nil {
		return runtime.ErrClosed // a broken VM, already forgotten
	}
	var expired <-chan time.Time
	if d := st.s.budget(); where != "" && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	var abandoned atomic.Bool
	done := make(chan error, 1)
	if !st.start(call, func(v goja.Value, err error) {
		if abandoned.Load() {
			return
		}
		if err == nil {
			err = onResult(v)
		}
		done <- err
	}) {
		return runtime.ErrClosed
	}
	select {
	case <-expired:
		abandoned.Store(true)
		return st.s.overBudget(where, url, 0)
	case err := <-done:
		return err
	case <-st.vm.Done():
		select {
		case err := <-done: // the call ended (interrupted, say) before the VM closed
			return err
		default:
		}
		return runtime.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// start queues call on the VM's loop and returns at once (false when the VM is closed);
// settled gets, on the loop, the value call returned once settled (nil for none) or the
// error it threw, returned or rejected with.
func (st *vmState) start(call func(rt *goja.Runtime) (goja.Value, error), settled func(v goja.Value, err error)) bool {
	return st.vm.Go(func(rt *goja.Runtime) {
		res, err := call(rt)
		switch {
		case err != nil:
			settled(nil, runtime.ToScriptError(err))
		case res == nil:
			settled(nil, nil)
		default:
			settle(rt, res, func(v, rejected goja.Value) {
				if rejected != nil {
					settled(nil, runtime.FromValue(rejected, nil))
					return
				}
				settled(v, nil)
			})
		}
	})
}

// promiseType is the Go type a JS promise exports to.
var promiseType = reflect.TypeFor[*goja.Promise]()

// settle calls cb once v (a value or a promise) has settled; on the loop.
func settle(rt *goja.Runtime, v goja.Value, cb func(value, rejected goja.Value)) {
	// ExportType first: Export of a plain object converts its whole tree to Go maps (a
	// processItem's item, recursive in Go however deep it is).
	if v.ExportType() != promiseType {
		cb(v, nil)
		return
	}
	if p, ok := v.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			cb(p.Result(), nil)
			return
		case goja.PromiseStateRejected:
			cb(nil, p.Result())
			return
		}
		then, _ := goja.AssertFunction(v.ToObject(rt).Get("then"))
		_, err := then(v,
			rt.ToValue(func(c goja.FunctionCall) goja.Value { cb(c.Argument(0), nil); return goja.Undefined() }),
			rt.ToValue(func(c goja.FunctionCall) goja.Value {
				r := c.Argument(0)
				if goja.IsUndefined(r) {
					r = rt.ToValue("undefined")
				}
				cb(nil, r)
				return goja.Undefined()
			}))
		if err != nil {
			cb(nil, rt.ToValue(err.Error()))
		}
		return
	}
	cb(v, nil)
}

// Open calls the pipeline's open(spider), awaiting it.
func (p *Pipeline) Open(ctx context.Context) error {
	err := p.await(ctx, "open", func(st *vmState) []goja.Value { return []goja.Value{st.spider} },
		func(*vmState, goja.Value) error { return nil })
	if err == nil {
		p.s.mu.Lock()
		if p.s.open == nil {
			p.s.open = map[*Pipeline]bool{}
		}
		p.s.open[p] = true
		p.s.mu.Unlock()
	}
	return err
}

// Close calls the pipeline's close(spider), awaiting it. It does so once: Spider.Close
// closes pipelines still open, and a later Close does nothing.
func (p *Pipeline) Close() error {
	p.s.mu.Lock()
	if p.closed {
		p.s.mu.Unlock()
		return nil
	}
	p.closed = true
	delete(p.s.open, p)
	p.s.mu.Unlock()
	return p.await(context.Background(), "close", func(st *vmState) []goja.Value { return []goja.Value{st.spider} },
		func(*vmState, goja.Value) error { return nil })
}

// ProcessItem calls processItem(item, spider). Its result replaces the item; undefined
// keeps the (possibly mutated) item; null or a thrown DropItem drops it.
func (p *Pipeline) ProcessItem(ctx context.Context, item types.Item) (types.Item, error) {
	var out types.Item
	var jsItem goja.Value
	err := p.await(ctx, "processItem", func(st *vmState) []goja.Value {
		jsItem = toJS(st.rt, item)
		return []goja.Value{jsItem, st.spider}
	}, func(st *vmState, v goja.Value) error {
		if v == nil {
			out = item // no processItem method
			return nil
		}
		if goja.IsNull(v) {
			return &dropError{reason: fmt.Sprintf("processItem of pipelines[%d] returned null", p.index)}
		}
		if goja.IsUndefined(v) {
			v = jsItem
		}
		obj, ok := v.(*goja.Object)
		if !ok {
			return fmt.Errorf("processItem of pipelines[%d] returned %s: return the item, null to drop it, or nothing", p.index, v.String())
		}
		var err error
		out, err = exportItem(st.rt, obj)
		return err
	})
	if err != nil {
		var se *runtime.ScriptError
		if errors.As(err, &se) && se.Name == "DropItem" {
			return nil, &dropError{reason: se.Message}
		}
		return nil, err
	}
	return out, nil
}

// Interface guards.
var (
	_ engine.Spider      = (*Spider)(nil)
	_ engine.Opener      = (*Spider)(nil)
	_ engine.Interrupter = (*Spider)(nil)
	_ engine.Pipeline    = (*Pipeline)(nil)
	_ engine.Opener      = (*Pipeline)(nil)
)
