package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// ErrPanicked is wrapped by the error of a callback whose code made goja panic (a Go panic
// in a built-in or a native function): check with errors.Is.
var ErrPanicked = errors.New("go panic in a js call")

// PanicError returns the JS error for the Go panic value r: a RangeError "Invalid array
// length" or "Invalid string length" for a length or size out of range (makeslice,
// growslice, strings.Repeat), else an InternalError. It wraps ErrPanicked.
func PanicError(r any) *ScriptError {
	text := fmt.Sprint(r)
	name, msg := "InternalError", "Go panic in a built-in or native function"
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "string") && (strings.Contains(lower, "length") || strings.Contains(lower, "overflow") || strings.Contains(lower, "count")):
		name, msg = "RangeError", "Invalid string length"
	case strings.Contains(lower, "out of range") && (strings.Contains(lower, "len") || strings.Contains(lower, "cap") || strings.Contains(lower, "size")),
		strings.Contains(lower, "makeslice"), strings.Contains(lower, "growslice"), strings.Contains(lower, "makemap"):
		name, msg = "RangeError", "Invalid array length"
	}
	msg += " (" + text + ")"
	var err error = ErrPanicked
	if e, ok := r.(error); ok {
		err = errors.Join(ErrPanicked, e)
	}
	return &ScriptError{Name: name, Message: msg, Stack: name + ": " + msg, err: err}
}

// guard runs fn, recovering a Go panic that escaped goja: it reports false then, with the
// VM broken. On the loop.
//
// goja turns only its own throws into JS exceptions; any other panic (a runtime error in a
// built-in, a nil map write in a native) unwinds through every JS frame, skipping the
// spider's catch and finally blocks, and leaves the Runtime's call stack and the prelude's
// state (cur.scope) as they were mid-call. That VM is in the state an interrupt leaves, so
// it follows the interrupt policy: it is broken and closed, the callback whose code
// panicked fails with PanicError's error, and the others in flight on it run again on a
// fresh VM (see Panicked).
func (vm *VM) guard(rt *goja.Runtime, fn func(rt *goja.Runtime)) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			_ = vm.recovered(r)
			ok = false
		}
	}()
	fn(rt)
	return true
}

// recovered breaks the VM after the panic r and returns its error. On the loop.
func (vm *VM) recovered(r any) *ScriptError {
	se := PanicError(r)
	if vm.panicked.CompareAndSwap(nil, se) {
		vm.panicTag.Store(vm.scopeTag())
		vm.broken.Store(true)
		vm.logger.Load().Debug("go panic on the js loop: the vm is discarded", "panic", fmt.Sprint(r))
		go vm.Close() // waiters see Done
	}
	return se
}
