package jsapi

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/dop251/goja"
)

// throwJS is how Go code called from JS raises an error: it panics with a JS exception,
// which goja throws to the calling JS code. An error that carries a JS exception (from a
// call back into JS) is rethrown as it is; any other error becomes a JS error named name
// ("TypeError", "Error", or an engine error name such as "TimeoutError") with err's
// message. Never a GoError: its name and Go details mean nothing to a spider's author. On
// the loop.
func throwJS(rt *goja.Runtime, name string, err error) {
	var exc *goja.Exception
	if errors.As(err, &exc) {
		panic(exc)
	}
	panic(newJSError(rt, name, err.Error()))
}

// newJSError makes a JS error object named name with message msg: a real TypeError,
// RangeError or SyntaxError for those names, else an Error whose name is set. On the loop.
func newJSError(rt *goja.Runtime, name, msg string) *goja.Object {
	ctor := "Error"
	switch name {
	case "TypeError", "RangeError", "SyntaxError":
		ctor = name
	}
	c, _ := rt.Get(ctor).(*goja.Object)
	e, err := rt.New(c, rt.ToValue(msg))
	if err != nil {
		return rt.NewTypeError("%s", msg)
	}
	if ctor != name {
		_ = e.Set("name", name)
	}
	return e
}

// jsTypeName names the JS type of v as a spider's author knows it: "undefined", "null",
// "boolean", "number", "BigInt", "string", "Symbol", "function", or an object's class
// ("Array", "Map", "Object"...). Error messages use it instead of Go type names.
func jsTypeName(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	case goja.IsBigInt(v):
		return "BigInt"
	case goja.IsNumber(v):
		return "number"
	case goja.IsString(v):
		return "string"
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "Symbol"
	}
	if _, ok := goja.AssertFunction(v); ok {
		return "function"
	}
	if o, ok := v.(*goja.Object); ok {
		return o.ClassName()
	}
	if _, ok := v.Export().(bool); ok {
		return "boolean"
	}
	return "value"
}

// urlReason returns why url.Parse refused a URL without Go's `parse "..."` prefix (the
// callers name the URL themselves).
func urlReason(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// describe renders v for an error message: its type, and its value when that is short.
func describe(v goja.Value) string {
	t := jsTypeName(v)
	switch t {
	case "undefined", "null", "function":
		return t
	case "Symbol":
		return "a Symbol"
	case "string":
		return fmt.Sprintf("string %q", v.String())
	}
	if o, ok := v.(*goja.Object); ok && o.ClassName() != "Number" && o.ClassName() != "String" {
		return "an object (" + t + ")"
	}
	s := v.String()
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	if t == "BigInt" {
		s += "n"
	}
	return t + " " + s
}

// stringList converts an array (or another iterable) of strings, such as startUrls or a
// LinkExtractor's allowDomains; errors name what and the JS type at fault. On the loop.
func stringList(rt *goja.Runtime, v goja.Value, what string) ([]string, error) {
	obj, ok := v.(*goja.Object)
	if ok && obj.ClassName() != "Array" {
		// Another iterable (a Set...): Array.from makes it an array; a plain object is not one.
		if it := obj.GetSymbol(goja.SymIterator); it != nil && !goja.IsUndefined(it) {
			from, _ := goja.AssertFunction(rt.Get("Array").ToObject(rt).Get("from"))
			arr, err := from(goja.Undefined(), obj)
			if err != nil {
				return nil, err
			}
			obj = arr.ToObject(rt)
		} else {
			ok = false
		}
	}
	if !ok || isFunction(v) {
		return nil, fmt.Errorf("%s must be an array of strings, got %s", what, describe(v))
	}
	n := int(obj.Get("length").ToInteger())
	out := make([]string, n)
	for i := range n {
		e := obj.Get(strconv.Itoa(i))
		if !goja.IsString(e) {
			return nil, fmt.Errorf("%s[%d] must be a string, got %s", what, i, describe(e))
		}
		out[i] = e.String()
	}
	return out, nil
}
