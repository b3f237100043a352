package runtime

import (
	"fmt"
	"reflect"
	goruntime "runtime"
	"strings"

	"github.com/dop251/goja"
)

// nativePanic is the value a guarded native panics with again when the Go function it calls
// panicked with a Go value (a runtime error, not a JS throw): the panic r, the native's JS
// name and the JS call stack at the panic, the spider's frames included. guard and Do
// recover it and report the panic with that stack.
type nativePanic struct {
	r       any
	builtin string
	stack   []goja.StackFrame
}

// gojaPkg is the package path of goja's types: a panic with one of them (a thrown value, an
// *Exception, an interrupt, its internal typeError) is a JS throw that goja handles.
var gojaPkg = reflect.TypeFor[goja.Value]().PkgPath()

// isGojaThrow reports whether the panic value r is one goja itself raises and handles (a JS
// exception or an interrupt) rather than a Go panic that escapes it.
func isGojaThrow(r any) bool {
	t := reflect.TypeOf(r)
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == gojaPkg
}

// GuardNative returns f, a Go function exposed to JS as name ("String.prototype.repeat";
// "" for a function that calls the function it is given, whose panics are that function's),
// with a deferred recover that records where the JS code called it when f panics with a Go
// value (see nativePanic): goja unwinds its call stack before the recover of the job that
// ran the JS, so only a recover inside the native itself still sees the spider's frames.
// JS throws pass through unchanged. The cost is one Go call and a deferred call (a few ns).
// It is not inlined, so that the wrapper's Go name is guardFrame wherever it is made.
//
//go:noinline
func GuardNative(rt *goja.Runtime, f func(goja.FunctionCall) goja.Value, name string) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		defer notePanic(rt, name)
		return f(c)
	}
}

// notePanic is GuardNative's deferred function: it panics again with what it recovered, a Go
// panic wrapped in a nativePanic with the JS stack (the innermost guarded native's: one that
// is already a nativePanic passes through). It names the native only when the panic was
// raised in its own Go code: one raised under JS that it called (a callback of
// Array.prototype.map, a function that Function.prototype.call calls) reached it through
// goja, which dropped the frames of that JS, so the stack is this native's caller's, the
// nearest known position, and the built-in is the one on the Go stack, if any.
func notePanic(rt *goja.Runtime, name string) {
	r := recover()
	if r == nil {
		return
	}
	if _, ok := r.(*nativePanic); ok || isGojaThrow(r) {
		panic(r)
	}
	np := &nativePanic{r: r, builtin: name, stack: rt.CaptureCallStack(0, nil)}
	if name == "" || !raisedHere() {
		np.builtin = panickedBuiltin()
	}
	panic(np)
}

// raisedHere reports whether the Go panic notePanic recovers was raised under the guarded
// native's Go code without passing through goja's run loop (which recovers and panics again,
// unwinding the JS frames it ran). It must be called from notePanic.
func raisedHere() bool {
	pcs := make([]uintptr, 256)
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		switch f.Function {
		case guardFrame:
			return true
		case gojaPkg + ".(*vm).runTryInner", gojaPkg + ".(*vm).try":
			return false
		}
		if !more {
			return false
		}
	}
}

// guardFrame is the Go name of GuardNative's wrapper, as the Go stack shows it.
var guardFrame = reflect.TypeFor[nativePanic]().PkgPath() + ".GuardNative.func1"

// unwrapPanic returns the panic value a guarded native recorded, its built-in's name and its
// JS stack, or r as it is, the built-in found on the Go stack (see panickedBuiltin) and no
// stack. It must be called from the deferred function that recovered r.
func unwrapPanic(r any) (value any, builtin string, stack []goja.StackFrame) {
	if np, ok := r.(*nativePanic); ok {
		return np.r, np.builtin, np.stack
	}
	return r, panickedBuiltin(), nil
}

// guardedBuiltins are the native methods of goja's built-ins whose Go code sizes its work
// by the caller's arguments (lengths, counts, code points, patterns): the ones a spider or
// a page can drive into a Go panic. They are listed by the object that holds them and
// their names ("@match" is the method keyed by Symbol.match; a leading "!" marks a
// forwarder, guarded without a name: what panics under call or apply is the function it
// calls). Only these are guarded: each costs its materialisation (goja builds built-ins
// lazily) and a few ns a call. The methods goja recognises by identity for its fast paths
// (Array.prototype.values, Map.prototype.set, RegExp.prototype.exec, eval) must not be
// listed: replacing them would make goja take its slow paths.
var guardedBuiltins = []struct {
	holder string // a global's name, then ".prototype" for its prototype; "%TypedArray%" for the typed arrays' parent
	names  string
}{
	{"String.prototype", "repeat padStart padEnd concat replace replaceAll split normalize match matchAll search"},
	{"String", "fromCharCode fromCodePoint raw"},
	{"Array.prototype", "join fill concat push unshift splice flat flatMap toSpliced toSorted toReversed with"},
	{"Array", "from of"},
	{"%TypedArray%.prototype", "set slice subarray fill"},
	{"%TypedArray%", "from of"},
	{"ArrayBuffer.prototype", "slice resize"},
	{"JSON", "parse stringify"},
	{"RegExp.prototype", "@match @matchAll @replace @search @split"},
	{"BigInt", "asIntN asUintN"},
	{"Function.prototype", "!apply !call"},
	{"Reflect", "!apply !construct"},
}

// builtinSymbols are the symbols guardedBuiltins names with "@".
var builtinSymbols = map[string]*goja.Symbol{
	"match": goja.SymMatch, "matchAll": goja.SymMatchAll, "replace": goja.SymReplace,
	"search": goja.SymSearch, "split": goja.SymSplit,
}

// guardBuiltins replaces guardedBuiltins with GuardNative's wrappers, keeping their
// attributes (writable, configurable, not enumerable, as every built-in method), names and
// lengths. On the loop, first (limits.js, which runs next, keeps guarded originals).
func guardBuiltins(rt *goja.Runtime) error {
	done := map[*goja.Object]goja.Value{} // original → its guard, so aliases stay aliases
	for _, b := range guardedBuiltins {
		holder := builtinHolder(rt, b.holder)
		if holder == nil {
			continue // not in this goja
		}
		for _, name := range strings.Fields(b.names) {
			anonymous := strings.HasPrefix(name, "!")
			name = strings.TrimPrefix(name, "!")
			var sym *goja.Symbol
			var v goja.Value
			jsName := b.holder + "." + name
			if symName, ok := strings.CutPrefix(name, "@"); ok {
				sym = builtinSymbols[symName]
				v, jsName = holder.GetSymbol(sym), b.holder+"[Symbol."+symName+"]"
			} else {
				v = holder.Get(name)
			}
			orig, ok := v.(*goja.Object)
			if !ok {
				continue
			}
			if anonymous {
				jsName = ""
			}
			w, ok := done[orig]
			if !ok {
				if w = guardBuiltin(rt, orig, strings.ReplaceAll(jsName, "%", "")); w == nil {
					continue
				}
				done[orig] = w
			}
			var err error
			if sym != nil {
				err = holder.DefineDataPropertySymbol(sym, w, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			} else {
				err = holder.DefineDataProperty(name, w, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
			if err != nil {
				return fmt.Errorf("guard %s: %w", b.holder+"."+name, err)
			}
		}
	}
	return nil
}

// builtinHolder returns the object a guardedBuiltins holder names, or nil.
func builtinHolder(rt *goja.Runtime, path string) *goja.Object {
	name, proto := strings.CutSuffix(path, ".prototype")
	var o *goja.Object
	if name == "%TypedArray%" {
		if u, ok := rt.Get("Uint8Array").(*goja.Object); ok {
			o = u.Prototype()
		}
	} else if v, ok := rt.Get(name).(*goja.Object); ok {
		o = v
	}
	if o != nil && proto {
		o, _ = o.Get("prototype").(*goja.Object)
	}
	return o
}

// guardBuiltin returns a native that calls orig's Go function under GuardNative, with
// orig's name and length, or nil when orig is not a plain native (a constructor keeps its
// [[Construct]] only as itself).
func guardBuiltin(rt *goja.Runtime, orig *goja.Object, name string) goja.Value {
	if _, ok := goja.AssertConstructor(orig); ok {
		return nil
	}
	raw, ok := orig.Export().(func(goja.FunctionCall) goja.Value)
	if !ok {
		return nil
	}
	w := rt.ToValue(GuardNative(rt, raw, name)).(*goja.Object)
	for _, p := range []string{"name", "length"} {
		_ = w.DefineDataProperty(p, orig.Get(p), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return w
}
