package runtime

import (
	"bytes"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"

	"github.com/dop251/goja"
)

// ErrPanicked is wrapped by the error of a callback whose code made goja panic (a Go panic
// in a built-in or a native function): check with errors.Is.
var ErrPanicked = errors.New("go panic in a js call")

// PanicError returns the JS error for the Go panic value r: a RangeError "Invalid array
// length" or "Invalid string length" for a length or size out of range (makeslice,
// growslice, strings.Repeat), else an InternalError. It wraps ErrPanicked.
func PanicError(r any) *ScriptError { return panicError(r, "", nil) }

// panicError is PanicError for a panic raised in builtin ("String.prototype.repeat", ""
// when unknown), called from JS with the call stack stack (nil when unknown): a length
// panic there is a string's when builtin is a String method, and the error's Stack lists
// stack's frames as a JS exception's does (positions mapped to the spider's sources).
func panicError(r any, builtin string, stack []goja.StackFrame) *ScriptError {
	text := fmt.Sprint(r)
	name, msg := "InternalError", "Go panic in a built-in or native function"
	if builtin != "" {
		msg = "Go panic in " + builtin
	}
	lower := strings.ToLower(text)
	isString := strings.HasPrefix(builtin, "String.")
	switch {
	case (isString || strings.Contains(lower, "strings: ")) && isSizePanic(lower):
		name, msg = "RangeError", "Invalid string length"
	case isSizePanic(lower):
		name, msg = "RangeError", "Invalid array length"
	}
	if builtin != "" && name == "RangeError" {
		msg += " in " + builtin
	}
	msg += " (" + text + ")"
	var err error = ErrPanicked
	if e, ok := r.(error); ok {
		err = errors.Join(ErrPanicked, e)
	}
	return &ScriptError{Name: name, Message: msg, Stack: name + ": " + msg + formatStack(stack), err: err}
}

// formatStack returns stack's frames as the lines of a JS exception's stack, each after a
// newline ("\n\tat parse (spider.ts:12:5)"), without the frames of natives and of
// jscrawl's own JS (see cleanStack); "" for none.
func formatStack(stack []goja.StackFrame) string {
	var b bytes.Buffer
	for _, f := range stack {
		b.WriteString("\n\tat ")
		f.Write(&b)
	}
	return cleanStack(b.String())
}

// isSizePanic reports whether a panic's text (lower-cased) is Go refusing a length or size
// (makeslice: len out of range, growslice: len out of range, makemap: size out of range,
// strings: Repeat output length overflow), not an index out of range or another bug.
func isSizePanic(lower string) bool {
	for _, s := range []string{"len out of range", "cap out of range", "size out of range", "makeslice", "growslice", "makemap", "length overflow", "count overflow"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
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
// fresh VM (see Panicked). By the time this recover runs, goja has dropped the JS frames:
// the error's stack is the one a guarded native recorded on the way (see GuardNative).
func (vm *VM) guard(rt *goja.Runtime, fn func(rt *goja.Runtime)) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			_ = vm.recoveredIn(unwrapPanic(r))
			ok = false
		}
	}()
	fn(rt)
	return true
}

// panickedBuiltin names the goja built-in on the stack of the panic being recovered
// ("String.prototype.repeat"), or "". It must be called from the deferred function that
// recovers: goja recovers and panics again inside its own deferred functions, so the
// frames of the first panic are still on the stack then.
func panickedBuiltin() string {
	pcs := make([]uintptr, 64)
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if i := strings.Index(f.Function, "goja.(*Runtime)."); i >= 0 {
			fn := f.Function[i+len("goja.(*Runtime)."):]
			for prefix, name := range builtinPrefixes {
				if rest, ok := strings.CutPrefix(fn, prefix); ok && rest != "" {
					return name + rest
				}
			}
		}
		if !more {
			return ""
		}
	}
}

// builtinPrefixes maps goja's Go names of built-ins (stringproto_repeat) to JS names.
var builtinPrefixes = map[string]string{
	"stringproto_": "String.prototype.", "arrayproto_": "Array.prototype.",
	"typedArrayProto_": "TypedArray.prototype.", "arrayBufferProto_": "ArrayBuffer.prototype.",
	"builtin_new": "new ", "builtinJSON_": "JSON.", "regexpproto_": "RegExp.prototype.",
	"objectproto_": "Object.prototype.", "object_": "Object.", "array_": "Array.",
}

// isJSThrow reports whether the panic value r is a JS exception as goja's API raises them
// (a thrown value, an *Exception, an interrupt) rather than a Go runtime error.
func isJSThrow(r any) bool {
	switch r.(type) {
	case *goja.Exception, *goja.InterruptedError, goja.Value:
		return true
	}
	return false
}

// recoveredIn breaks the VM after the panic r, raised in builtin ("" when unknown) called
// with the JS stack stack (nil when unknown), and returns its error. On the loop.
func (vm *VM) recoveredIn(r any, builtin string, stack []goja.StackFrame) *ScriptError {
	se := panicError(r, builtin, stack)
	if vm.panicked.CompareAndSwap(nil, se) {
		vm.panicTag.Store(vm.scopeTag())
		vm.broken.Store(true)
		vm.logger.Load().Debug("go panic on the js loop: the vm is discarded", "panic", fmt.Sprint(r))
		go vm.Close() // waiters see Done
	}
	return se
}

// WithMessage returns a copy of e with message msg, wrapping what e wraps; its stack is
// "Name: msg" followed by the frames of e's stack.
func (e *ScriptError) WithMessage(msg string) *ScriptError {
	c := *e
	c.Message, c.Stack = msg, e.Name+": "+msg
	if frames, ok := strings.CutPrefix(e.Stack, e.Name+": "+e.Message); ok && strings.HasPrefix(frames, "\n") {
		c.Stack += frames
	}
	return &c
}
