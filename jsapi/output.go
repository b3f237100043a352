package jsapi

// What a callback produces, converted on the loop into the engine's types.Output.

import (
	"errors"
	"fmt"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// emitValue converts one value a callback produced and hands it to the engine; on the loop.
// undefined and null produce nothing (response.follow() of a skipped link is undefined), as
// Scrapy ignores a None output. A value that is neither a Request nor an item object is
// logged (naming the callback and the URL it processes) and counted, and the callback
// goes on.
func (st *vmState) emitValue(v goja.Value, where, url string, emit engine.Emit) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return
	}
	out, err := st.toOutput(v)
	if err != nil {
		st.s.countException(&runtime.ScriptError{Name: "TypeError"})
		if url != "" {
			where += " processing <" + url + ">"
		}
		st.s.logger.Error(fmt.Sprintf("TypeError: %s: %v", where, err))
		return
	}
	emit(out)
}

func (st *vmState) toOutput(v goja.Value) (types.Output, error) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return types.Output{}, fmt.Errorf("yielded %s: a callback yields Requests, item objects, arrays of those, or nothing",
			describe(v))
	}
	if _, isFn := goja.AssertFunction(v); isFn {
		return types.Output{}, errors.New("yielded a function: a callback yields Requests, item objects, arrays of those, or nothing")
	}
	if st.isRequestObject(obj) {
		req, err := requestFromJS(st.rt, obj)
		if err != nil {
			return types.Output{}, err
		}
		return types.Output{Request: req}, nil
	}
	switch obj.ClassName() {
	case "Array", "Promise", "Function", "RegExp":
		return types.Output{}, fmt.Errorf("yielded a %s: a callback yields Requests, item objects, arrays of those, or nothing", obj.ClassName())
	}
	if collectionOf(obj) == "Set" {
		return types.Output{}, errors.New("yielded a Set: a callback yields Requests, item objects (a Map is one), arrays of those, or nothing")
	}
	item, err := exportItem(st.rt, obj)
	if err != nil {
		return types.Output{}, err
	}
	return types.Output{Item: item}, nil
}

// isRequestObject reports whether obj is a Request (or a subclass's instance) by walking its
// prototype chain in Go, without a JS call.
func (st *vmState) isRequestObject(obj *goja.Object) bool {
	for p := obj.Prototype(); p != nil; p = p.Prototype() {
		if p == st.requestProto {
			return true
		}
	}
	return false
}
