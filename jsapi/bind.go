package jsapi

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/runtime"
)

// The Go↔JS binding shape. Each JS-visible class has a Go type (responseClass,
// headersClass, linksClass...) whose exported methods are the functions the preludes call;
// bindClass turns one into a JS object once per VM, naming each method through the
// runtime's field-name mapper (Css → css, HeaderGet → headerGet), as k6's html module
// exposes its Selection. A method has one of these signatures, all called by goja without
// reflection (goja.FunctionCall is its fast form, 4-7 times faster than a typed one):
//
//	func(goja.FunctionCall) (goja.Value, error)              // the error is thrown as a JS exception
//	func(*respHandle, goja.FunctionCall) (goja.Value, error) // the same, on the response handle that is argument 0
//	func(*jsSelector, goja.FunctionCall) (goja.Value, error) // the same, on this (a Selector method)
//	func(*jsList, goja.FunctionCall) (goja.Value, error)     // the same, on this (a SelectorList method)
//	func(*jsHeaders, goja.FunctionCall) (goja.Value, error)  // the same, on this (a Headers method)
//	func(*jsResponse, goja.FunctionCall) (goja.Value, error) // the same, on this (a Response method)
//	func(*jsPage, goja.FunctionCall) (goja.Value, error)     // the same, on this (a Page method)
//	func(*jsCheerio, goja.FunctionCall) (goja.Value, error)  // the same, on this (a Cheerio method)
//	func(goja.FunctionCall) goja.Value                       // raw: throws itself (throwJS)
//
// Other arguments are read with c.Argument(i) and small decoders that return an error
// (stringList, strs, patterns...), which the method returns. The preludes take their
// natives by destructuring at the top of the file (const { css } = n.response): the object
// bindClass makes throws on a name it does not have, so a misspelling fails when the VM is
// set up, not when the JS happens to run.

// jsError is an error thrown to JS as an exception of the named class (TypeError,
// SyntaxError, Error...), with err's message.
type jsError struct {
	name string
	err  error
}

// Error returns err's message.
func (e *jsError) Error() string { return e.err.Error() }

// Unwrap returns err.
func (e *jsError) Unwrap() error { return e.err }

// typeError makes an error thrown to JS as a TypeError.
func typeError(format string, args ...any) error {
	return &jsError{"TypeError", fmt.Errorf(format, args...)}
}

// asTypeError makes err thrown to JS as a TypeError (nil stays nil).
func asTypeError(err error) error {
	if err == nil {
		return nil
	}
	return &jsError{"TypeError", err}
}

// throwErr throws err to JS: a JS exception it carries as it is, a *jsError as its class,
// anything else as an Error. On the loop; it does not return.
func throwErr(rt *goja.Runtime, err error) {
	if errors.Is(err, selector.ErrMatchTimeout) {
		// A backtracking re() or re:test() cut by its match timeout: a runaway.
		throwJS(rt, "TimeoutError", fmt.Errorf("%s (JS_CALLBACK_TIMEOUT)", matchTimeoutMessage(err)))
	}
	var je *jsError
	if errors.As(err, &je) {
		throwJS(rt, je.name, err)
	}
	throwJS(rt, "Error", err)
}

// typed adapts a typed method to goja's fast form: a returned error becomes a JS exception.
func typed(rt *goja.Runtime, f func(goja.FunctionCall) (goja.Value, error)) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		v, err := f(c)
		if err != nil {
			throwErr(rt, err)
		}
		return v
	}
}

// bindClass makes the JS object of a class's Go natives (see bindMethods). Reading a
// property the object does not have throws a TypeError. On the loop, once per VM.
func bindClass[T any](rt *goja.Runtime, class string, v T) *goja.Object {
	obj := rt.NewObject()
	bindMethods(rt, obj, v, nil)
	proxy := rt.NewProxy(obj, &goja.ProxyTrapConfig{
		Get: func(target *goja.Object, property string, _ goja.Value) goja.Value {
			v := target.Get(property)
			if v == nil {
				panic(rt.NewTypeError("jscrawl: %s has no native %q", class, property))
			}
			return v
		},
	})
	return rt.ToValue(proxy).(*goja.Object)
}

// bindOptions shapes how bindMethods exposes some methods.
type bindOptions struct {
	aliases  map[string][]string // more names for a method (by its JS name)
	getters  map[string]bool     // methods bound as accessor properties (by JS name)
	iterator string              // the method (by JS name) that is also [Symbol.iterator]
	// visible binds the methods as a plain object's: enumerable. Without it they are bound
	// as a JS class's prototype methods: not enumerable (Object.keys and for-in skip them).
	visible bool
}

// bindMethods defines on obj every exported method of v as a function named by the
// runtime's field-name mapper: writable and configurable, and not enumerable unless
// opts.visible (then a getter is enumerable too). A method with a signature bind.go does
// not know is a programmer error found at set-up: it panics. On the loop, once per VM.
//
// The methods are taken as method expressions (reflect.Type.Method(i).Func, plain Go
// functions) and closed over v: a method value made by reflect (reflect.Value.Method)
// would go through reflect's call machinery, and allocate, at every call.
func bindMethods[T any](rt *goja.Runtime, obj *goja.Object, v T, opts *bindOptions) {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Interface {
		panic(fmt.Sprintf("jsapi: bindMethods needs a concrete type, got %s", t))
	}
	if opts == nil {
		opts = &bindOptions{}
	}
	// goja's DefineDataProperty takes configurable before enumerable.
	config, enum := goja.FLAG_TRUE, goja.FLAG_FALSE
	if opts.visible {
		enum = goja.FLAG_TRUE
	}
	for i := range t.NumMethod() {
		m := t.Method(i)
		name := runtime.FieldNameMapper.MethodName(t, m)
		fn := native(rt, v, m.Func.Interface())
		if fn == nil {
			panic(fmt.Sprintf("jsapi: %s.%s has the signature %s: see the signatures at the top of bind.go", t, m.Name, m.Type))
		}
		// A Go panic in it (a bug of ours) is reported with the spider's line that called it.
		fn = runtime.GuardNative(rt, fn, name)
		if opts.getters[name] {
			_ = obj.DefineAccessorProperty(name, namedFunc(rt, "get "+name, fn), nil, config, enum)
			continue
		}
		f := namedFunc(rt, name, fn)
		_ = obj.DefineDataProperty(name, f, goja.FLAG_TRUE, config, enum)
		if opts.iterator == name {
			_ = obj.DefineDataPropertySymbol(goja.SymIterator, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		for _, alias := range opts.aliases[name] {
			_ = obj.DefineDataProperty(alias, namedFunc(rt, alias, fn), goja.FLAG_TRUE, config, enum)
		}
	}
}

// native adapts the method expression m of a T with one of the signatures at the top of
// bind.go to goja's fast form on the receiver v, or returns nil.
func native[T any](rt *goja.Runtime, v T, m any) func(goja.FunctionCall) goja.Value {
	switch f := m.(type) {
	case func(T, goja.FunctionCall) (goja.Value, error):
		return typed(rt, func(c goja.FunctionCall) (goja.Value, error) { return f(v, c) })
	case func(T, *respHandle, goja.FunctionCall) (goja.Value, error):
		return typed(rt, func(c goja.FunctionCall) (goja.Value, error) {
			h, err := handleArg(c, 0)
			if err != nil {
				return nil, err
			}
			return f(v, h, c)
		})
	case func(T, *jsSelector, goja.FunctionCall) (goja.Value, error):
		return typed(rt, onThis(v, f, "Selector"))
	case func(T, *jsList, goja.FunctionCall) (goja.Value, error):
		return typed(rt, onThis(v, f, "SelectorList"))
	case func(T, *jsHeaders, goja.FunctionCall) (goja.Value, error):
		return typed(rt, onThis(v, f, "Headers"))
	case func(T, *jsResponse, goja.FunctionCall) (goja.Value, error):
		return typed(rt, onThis(v, f, "Response"))
	case func(T, *jsPage, goja.FunctionCall) (goja.Value, error):
		return typed(rt, onThis(v, f, "Page"))
	case func(T, *jsCheerio, goja.FunctionCall) (goja.Value, error):
		return typed(rt, onThis(v, f, "Cheerio"))
	case func(T, goja.FunctionCall) goja.Value:
		return func(c goja.FunctionCall) goja.Value { return f(v, c) }
	}
	return nil
}

// onThis calls f on the receiver v and this, which must be a Go-backed R (a prototype's
// method); else it is a TypeError "not a <class>".
func onThis[T, R any](v T, f func(T, R, goja.FunctionCall) (goja.Value, error), class string) func(goja.FunctionCall) (goja.Value, error) {
	return func(c goja.FunctionCall) (goja.Value, error) {
		r, ok := c.This.Export().(R)
		if !ok {
			return nil, typeError("not a %s", class)
		}
		return f(v, r, c)
	}
}

// namedFunc makes a JS function of fn named name: goja would name it by its Go symbol,
// which stack traces and fn.name show.
func namedFunc(rt *goja.Runtime, name string, fn func(goja.FunctionCall) goja.Value) *goja.Object {
	f := rt.ToValue(fn).(*goja.Object)
	_ = f.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return f
}

// handleArg returns the response handle that is c's argument i.
func handleArg(c goja.FunctionCall, i int) (*respHandle, error) {
	h, ok := c.Argument(i).Export().(*respHandle)
	if !ok {
		return nil, typeError("not a jscrawl Response")
	}
	return h, nil
}

// isNil reports whether v is missing, undefined or null.
func isNil(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }

// matchTimeoutMessage is the message of the selector's error in err wrapping
// ErrMatchTimeout, without the wrappers' prefixes ("xpath: ...").
func matchTimeoutMessage(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if next := errors.Unwrap(e); errors.Is(e, selector.ErrMatchTimeout) && next == selector.ErrMatchTimeout {
			return e.Error()
		}
	}
	return err.Error()
}
