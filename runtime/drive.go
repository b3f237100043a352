package runtime

// Driving a callback's result from Go: Drive, Call and the runs the prelude reports to
// (hostValue, hostDone).

import (
	"github.com/dop251/goja"
)

// Drive must run on the loop: it consumes a callback's result (async or sync generator,
// promise, array, value), calling onValue for each produced value and onDone exactly once.
// onValue returns nil to go on, or a promise: the next value is pulled only once it settles
// (backpressure; a rejection is thrown into the generator).
func (vm *VM) Drive(result goja.Value, onValue func(goja.Value) goja.Value, onDone func(err error)) {
	id := vm.startRun(onValue, onDone)
	_, err := vm.drive(goja.Undefined(), vm.rt.ToValue(id), result)
	vm.endRunOnError(id, err)
}

// Call must run on the loop: it calls fn with this and args and drives the result as Drive
// does, in a scope: downloads and other cancellable work the callback starts while its code
// runs (its synchronous start and each step of a generator) are cancelled when it fails.
// Work registers with the scope through the hidden global __jscrawlScope().
// wrap, when not nil, is a JS function applied to the result before it is driven.
func (vm *VM) Call(fn, this goja.Value, args []goja.Value, wrap goja.Value, onValue func(goja.Value) goja.Value, onDone func(err error)) {
	vm.CallTagged(0, fn, this, args, wrap, onValue, onDone)
}

// CallTagged is Call with a scope tagged tag: __jscrawlScope().tag is tag while the
// callback's code runs, so the host can tell which callback started a piece of work (the
// control endpoint's "callback awaiting this download"). 0 means untagged.
func (vm *VM) CallTagged(tag uint64, fn, this goja.Value, args []goja.Value, wrap goja.Value, onValue func(goja.Value) goja.Value, onDone func(err error)) {
	if wrap == nil {
		wrap = goja.Undefined()
	}
	id := vm.startRun(onValue, onDone)
	// The prelude's call(id, tag, wrap, fn, self, n, a0, a1): up to two arguments one by
	// one, more in an array.
	var a0, a1 goja.Value = goja.Undefined(), goja.Undefined()
	switch len(args) {
	case 0:
	case 1:
		a0 = args[0]
	case 2:
		a0, a1 = args[0], args[1]
	default:
		a0 = vm.rt.NewArray(toAny(args)...)
	}
	_, err := vm.call(goja.Undefined(), vm.rt.ToValue(id), vm.rt.ToValue(tag), wrap, fn, this, vm.rt.ToValue(len(args)), a0, a1)
	vm.endRunOnError(id, err)
}

func toAny(vs []goja.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// run is the host side of a callback Drive or Call drives: where its produced values and
// its end go. The prelude names it by an id (hostValue, hostDone) instead of a pair of
// native functions made per callback, which cost goja about 18 allocations.
//
// A run whose JS never ends (a callback awaiting a promise that never settles) stays in
// vm.runs until the VM is closed; its caller has stopped waiting by then (its context
// ended), as the engine does only when the crawl stops.
type run struct {
	onValue func(goja.Value) goja.Value
	onDone  func(err error)
}

// startRun registers a run and returns its id. On the loop.
func (vm *VM) startRun(onValue func(goja.Value) goja.Value, onDone func(err error)) int64 {
	vm.lastRun++
	vm.runs[vm.lastRun] = run{onValue: onValue, onDone: onDone}
	return vm.lastRun
}

// endRunOnError ends run id with err when the prelude's call or drive threw (an
// interrupt) and the run has not ended yet. On the loop.
func (vm *VM) endRunOnError(id int64, err error) {
	if err == nil {
		return
	}
	if r, ok := vm.runs[id]; ok {
		delete(vm.runs, id)
		r.onDone(ToScriptError(err))
	}
}

// hostValue is the prelude's hostValue(id, v): v goes to run id's onValue, whose promise
// (pause) it returns.
func (vm *VM) hostValue(c goja.FunctionCall) goja.Value {
	if r, ok := vm.runs[c.Argument(0).ToInteger()]; ok {
		if p := r.onValue(c.Argument(1)); p != nil {
			return p
		}
	}
	return goja.Undefined()
}

// hostDone is the prelude's hostDone(id, e): run id ended, with the error e (undefined:
// success).
func (vm *VM) hostDone(c goja.FunctionCall) goja.Value {
	id := c.Argument(0).ToInteger()
	r, ok := vm.runs[id]
	if !ok {
		return goja.Undefined()
	}
	delete(vm.runs, id)
	if e := c.Argument(1); !goja.IsUndefined(e) {
		r.onDone(FromValue(e, nil))
	} else {
		r.onDone(nil)
	}
	return goja.Undefined()
}
