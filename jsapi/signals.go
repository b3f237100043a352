package jsapi

import (
	"context"
	"errors"
	"slices"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
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
		s.crawler.Connect(sig, func(ctx context.Context, args ...any) error { return s.dispatch(ctx, sig, args) })
	}
}

// dispatch runs sig's JS handlers on every VM and waits for the promises they return.
func (s *Spider) dispatch(ctx context.Context, sig engine.Signal, args []any) error {
	var vms []*runtime.VM
	if s.pool != nil {
		vms = s.pool.All()
	} else {
		vms = []*runtime.VM{s.first}
	}
	var errs []error
	for _, vm := range vms {
		if st := s.state(vm); st != nil {
			errs = append(errs, st.dispatch(ctx, sig, args))
		}
	}
	return errors.Join(errs...)
}

func (st *vmState) dispatch(ctx context.Context, sig engine.Signal, args []any) error {
	id := st.s.running.addCallback("signal "+string(sig), "", st.vm)
	defer st.s.running.removeCallback(id)
	err := st.await(ctx, func(rt *goja.Runtime) (goja.Value, error) {
		ev, err := st.signalEvent(args)
		if err != nil {
			return nil, err
		}
		fn, _ := goja.AssertFunction(st.helper("dispatchSignal"))
		res, err := fn(goja.Undefined(), rt.ToValue(string(sig)), ev)
		if err == nil && goja.IsUndefined(res) {
			return nil, nil // no handler on this VM
		}
		return res, err
	}, func(goja.Value) error { return nil })
	if errors.Is(err, runtime.ErrClosed) {
		return nil // the VM is gone: nothing listens there any more
	}
	return err
}

// signalEvent builds the one object a handler gets: { spider, item, response, request,
// reason, error } as the signal has them. On the loop.
func (st *vmState) signalEvent(args []any) (goja.Value, error) {
	rt := st.rt
	ev := rt.NewObject()
	_ = ev.Set("spider", st.spider)
	for _, a := range args {
		switch v := a.(type) {
		case types.Item:
			_ = ev.Set("item", toJS(rt, v))
		case *types.Response:
			if v != nil {
				jr, err := st.responseToJS(&respHandle{resp: v})
				if err != nil {
					return nil, err
				}
				_ = ev.Set("response", jr)
			}
		case *types.Request:
			if v != nil {
				jr, err := st.requestToJS(v)
				if err != nil {
					return nil, err
				}
				_ = ev.Set("request", jr)
			}
		case error:
			e := rt.NewObject()
			_ = e.Set("name", engine.ErrorName(v))
			msg := v.Error()
			var se *runtime.ScriptError
			if errors.As(v, &se) {
				msg = se.Message
			}
			_ = e.Set("message", msg)
			_ = ev.Set("error", e)
		case string:
			_ = ev.Set("reason", v)
		}
	}
	return ev, nil
}
