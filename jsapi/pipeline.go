package jsapi

// Pipeline: one entry of the spider module's pipelines export, run on the first VM.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

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

// Pipelines returns one engine.Pipeline per entry of the module's `pipelines` export, in
// order. They run on the first VM, so a pipeline has one instance whatever JS_VMS is.
func (s *Spider) Pipelines() []engine.Pipeline {
	ps := make([]engine.Pipeline, s.pipelines)
	for i := range ps {
		ps[i] = &Pipeline{s: s, index: i}
	}
	return ps
}

// Interface guards.
var (
	_ engine.Pipeline = (*Pipeline)(nil)
	_ engine.Opener   = (*Pipeline)(nil)
)
