package jsapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
)

// signalNames are the signals JS can connect to, by their Scrapy names.
var signalNames = map[string]engine.Signal{}

func init() {
	for _, s := range []engine.Signal{engine.EngineStarted, engine.SpiderOpened, engine.SpiderIdle,
		engine.SpiderClosed, engine.ItemScraped, engine.ItemDropped, engine.ItemError,
		engine.RequestScheduled, engine.RequestDropped, engine.ResponseReceived, engine.SpiderError} {
		signalNames[string(s)] = s
	}
}

func signalList() []string {
	var l []string
	for k := range signalNames {
		l = append(l, k)
	}
	slices.Sort(l)
	return l
}

// wantSignal records that a JS handler listens to sig and, once the crawler is bound,
// has the engine dispatch sig to the VMs.
func (s *Spider) wantSignal(sig engine.Signal) {
	s.mu.Lock()
	if s.signals == nil {
		s.signals = map[engine.Signal]bool{}
	}
	_, seen := s.signals[sig]
	if !seen {
		s.signals[sig] = false
	}
	s.mu.Unlock()
	if s.crawler != nil {
		s.connectSignal(sig)
	}
}

// connectSignal connects the engine's sig to dispatch, once.
func (s *Spider) connectSignal(sig engine.Signal) {
	s.mu.Lock()
	done := s.signals[sig]
	s.signals[sig] = true
	s.mu.Unlock()
	if !done {
		s.crawler.Connect(sig, s.dispatch)
	}
}

// dispatch runs ev's JS handlers on every VM. For a deferrable signal (spider_opened,
// item_scraped, ...: engine.Signal.Deferrable) it waits for the promises they return. The
// others are sent where waiting would stall the crawl: it queues the handlers on each VM's
// loop and returns, and what they throw or reject is logged there. For spider_idle it
// waits until they have returned (no callback runs when the spider is idle, so the loops
// are free), and holds the spider open (Crawler.HoldIdle) until the promises they return
// settle, without the engine goroutine waiting for them: an async handler that awaits and
// then crawls more keeps the spider open, and one that throws or rejects DontCloseSpider
// keeps it open as Scrapy's does.
func (s *Spider) dispatch(ctx context.Context, ev engine.SignalEvent) error {
	var vms []*runtime.VM
	if s.pool != nil {
		vms = s.pool.All()
	} else {
		vms = []*runtime.VM{s.first}
	}
	var errs []error
	called := map[*runtime.VM]<-chan struct{}{}
	for _, vm := range vms {
		st := s.state(vm)
		switch {
		case st == nil:
		case ev.Signal.Deferrable():
			errs = append(errs, st.dispatch(ctx, ev))
		case ev.Signal == engine.SpiderIdle && s.crawler != nil:
			called[vm] = st.fire(ev, s.crawler.HoldIdle())
		default:
			called[vm] = st.fire(ev, nil)
		}
	}
	if ev.Signal == engine.SpiderIdle {
		for vm, c := range called {
			select {
			case <-c:
			case <-vm.Done():
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return errors.Join(errs...)
}

// dispatch runs ev's handlers on this VM and waits for the promises they return.
func (st *vmState) dispatch(ctx context.Context, ev engine.SignalEvent) error {
	id := st.s.running.addCallback("signal "+string(ev.Signal), "", st.vm)
	defer st.s.running.removeCallback(id)
	err := st.await(ctx, func(*goja.Runtime) (goja.Value, error) { return st.callHandlers(ev) },
		func(goja.Value) error { return nil })
	if errors.Is(err, runtime.ErrClosed) {
		return nil // the VM is gone: nothing listens there any more
	}
	return err
}

// fire queues ev's handlers on this VM's loop without waiting for them; an error they
// throw or a promise they reject is logged as the engine logs a handler's error, except a
// DontCloseSpider. called is closed once the handlers have returned (or the VM is gone).
// done, when not nil, is called once the promises they returned have settled, with whether
// one was a DontCloseSpider (or at once when the VM is gone).
func (st *vmState) fire(ev engine.SignalEvent, done func(dontClose bool)) (called <-chan struct{}) {
	if done == nil {
		done = func(bool) {}
	}
	id := st.s.running.addCallback("signal "+string(ev.Signal), "", st.vm)
	ch := make(chan struct{})
	call := func(*goja.Runtime) (goja.Value, error) {
		defer close(ch)
		return st.callHandlers(ev)
	}
	started := st.start(call, func(_ goja.Value, err error) {
		st.s.running.removeCallback(id)
		dontClose := err != nil && engine.ErrorName(err) == "DontCloseSpider"
		if err != nil && !dontClose {
			st.s.logger.Error(fmt.Sprintf("Error caught on signal handler: %s\n%v", ev.Signal, err))
		}
		done(dontClose)
	})
	if !started {
		st.s.running.removeCallback(id)
		close(ch)
		done(false)
	}
	return ch
}

// callHandlers calls the prelude's dispatchSignal with ev: a promise of all the handlers'
// results, or nil when no handler listens on this VM; on the loop.
func (st *vmState) callHandlers(ev engine.SignalEvent) (goja.Value, error) {
	jev, err := st.signalEvent(ev)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(st.helper("dispatchSignal"))
	res, err := fn(goja.Undefined(), st.rt.ToValue(string(ev.Signal)), jev)
	if err == nil && goja.IsUndefined(res) {
		return nil, nil // no handler on this VM
	}
	return res, err
}

// signalEvent builds the one object a handler gets: { spider, item, response, request,
// reason, error } as the signal has them. On the loop.
func (st *vmState) signalEvent(ev engine.SignalEvent) (goja.Value, error) {
	rt := st.rt
	obj := rt.NewObject()
	_ = obj.Set("spider", st.spider)
	if ev.Item != nil {
		_ = obj.Set("item", toJS(rt, ev.Item))
	}
	if ev.Response != nil {
		jr, err := st.responseToJS(&respHandle{resp: ev.Response})
		if err != nil {
			return nil, err
		}
		_ = obj.Set("response", jr)
	}
	if ev.Request != nil {
		jr, err := st.requestToJS(ev.Request)
		if err != nil {
			return nil, err
		}
		_ = obj.Set("request", jr)
	}
	if ev.Err != nil {
		e := rt.NewObject()
		_ = e.Set("name", engine.ErrorName(ev.Err))
		msg := ev.Err.Error()
		var se *runtime.ScriptError
		if errors.As(ev.Err, &se) {
			msg = se.Message
		}
		_ = e.Set("message", msg)
		_ = obj.Set("error", e)
	}
	if ev.Reason != "" {
		_ = obj.Set("reason", ev.Reason)
	}
	return obj, nil
}

// signalsClass holds the natives behind this.crawler.signals (signalHub): the object,
// and the handlers the prelude's dispatchSignal calls.
type signalsClass struct {
	st  *vmState
	hub *signalHub
}

// Signals() is this.crawler.signals, made once per VM.
func (x signalsClass) Signals(goja.FunctionCall) (goja.Value, error) {
	if x.hub.obj == nil {
		x.hub.obj = visibleObject(x.st.rt, x.hub)
	}
	return x.hub.obj, nil
}

// Handlers(name) is a copy of the list of the signal name's handlers, in the order they
// were connected, or null when none listens.
func (x signalsClass) Handlers(c goja.FunctionCall) (goja.Value, error) {
	list := x.hub.handlers[c.Argument(0).String()]
	if len(list) == 0 {
		return goja.Null(), nil
	}
	out := make([]any, len(list))
	for i, h := range list {
		out[i] = h
	}
	return x.st.rt.NewArray(out...), nil
}

// signalHub is this.crawler.signals: the JS handlers of this VM, by signal name (Scrapy:
// crawler.signals). Its methods are the object's own enumerable properties, closed over
// the hub (a handler may call a detached connect). The paragraphs after this one, its
// methods and their doc comments are jscrawl_gen.d.ts.
//
// `this.crawler.signals`: handlers of the crawl's signals (Scrapy: crawler.signals), each
// called with one event object and `this` the spider.
//
//jscrawl:class interface Signals
type signalHub struct {
	st       *vmState
	obj      *goja.Object
	handlers map[string][]goja.Value
}

// Connect runs handler each time the signal is sent; an async handler's promise is awaited
// for engine_started, spider_opened, spider_closed and item_* only (Scrapy's deferrable
// signals). An unknown signal name is a TypeError naming the known ones.
//
//jscrawl:ts connect<N extends SignalName>(name: N, handler: (event: SignalEvents[N] & { spider: any }) => void | Promise<void>): void;
func (h *signalHub) Connect(c goja.FunctionCall) (goja.Value, error) {
	handler := c.Argument(1)
	if !isFunction(handler) {
		return nil, typeError("signals.connect(name, handler): the handler must be a function")
	}
	name := c.Argument(0).String()
	sig, ok := signalNames[name]
	if !ok {
		return nil, typeError("unknown signal %q: use one of %s", name, strings.Join(signalList(), ", "))
	}
	h.st.s.wantSignal(sig)
	if h.handlers == nil {
		h.handlers = map[string][]goja.Value{}
	}
	h.handlers[name] = append(h.handlers[name], handler)
	return goja.Undefined(), nil
}

// Disconnect removes handler from the signal's handlers (the first time it was connected).
//
//jscrawl:ts disconnect<N extends SignalName>(name: N, handler: (event: SignalEvents[N] & { spider: any }) => void | Promise<void>): void;
func (h *signalHub) Disconnect(c goja.FunctionCall) (goja.Value, error) {
	name := c.Argument(0).String()
	list := h.handlers[name]
	for i, x := range list {
		if x.StrictEquals(c.Argument(1)) {
			h.handlers[name] = slices.Delete(list, i, i+1)
			break
		}
	}
	return goja.Undefined(), nil
}
