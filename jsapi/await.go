package jsapi

// Waiting from Go for a JS call's (possibly async) result: vmState.await and settle.

import (
	"context"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

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
