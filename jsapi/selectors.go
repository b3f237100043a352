package jsapi

import (
	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// jsSelector is a JS Selector: a Go-backed object (no own properties) whose methods live on
// the shared prototype selProto. Creating one costs no JS constructor call.
type jsSelector struct{ r selector.Result }

func (*jsSelector) Get(string) goja.Value       { return nil }
func (*jsSelector) Set(string, goja.Value) bool { return false }
func (*jsSelector) Has(string) bool             { return false }
func (*jsSelector) Delete(string) bool          { return true }
func (*jsSelector) Keys() []string              { return nil }

// jsList is a JS SelectorList: a Go-backed, read-only array whose Selector elements are
// made only when indexed or iterated, so css(q).get() and getall() allocate no Selector.
type jsList struct {
	st    *vmState
	res   []selector.Result
	elems []goja.Value
}

func (l *jsList) Len() int { return len(l.res) }

func (l *jsList) Get(i int) goja.Value {
	if i < 0 || i >= len(l.res) {
		return nil
	}
	if l.elems == nil {
		l.elems = make([]goja.Value, len(l.res))
	}
	if l.elems[i] == nil {
		l.elems[i] = l.st.newSelector(l.res[i])
	}
	return l.elems[i]
}

func (l *jsList) Set(int, goja.Value) bool { return false }
func (l *jsList) SetLen(int) bool          { return false }

func (st *vmState) newSelector(r selector.Result) goja.Value {
	o := st.rt.NewDynamicObject(&jsSelector{r})
	_ = o.SetPrototype(st.selProto)
	return o
}

func (st *vmState) newList(res []selector.Result) goja.Value {
	o := st.rt.NewDynamicArray(&jsList{st: st, res: res})
	_ = o.SetPrototype(st.listProto)
	return o
}

// selectAll compiles q (cached) and runs it on in; invalid CSS throws a TypeError naming q.
func (st *vmState) selectAll(q string, in ...selector.Result) goja.Value {
	query, err := selector.Compile(q)
	if err != nil {
		panic(st.rt.NewTypeError(err.Error()))
	}
	return st.newList(query.Select(in...))
}

func (st *vmState) attribObject(r selector.Result) goja.Value {
	o := st.rt.NewObject()
	for _, a := range r.Attrib() {
		_ = o.Set(a.Key, a.Val)
	}
	return o
}

// installSelectors makes the Selector and SelectorList prototypes with native methods.
func (st *vmState) installSelectors() {
	rt := st.rt
	st.selProto = rt.NewObject()
	st.listProto = rt.NewObject()
	_ = st.listProto.SetPrototype(rt.Get("Array").ToObject(rt).Get("prototype").ToObject(rt))
	this := func(c goja.FunctionCall) *jsSelector {
		s, ok := c.This.Export().(*jsSelector)
		if !ok {
			panic(rt.NewTypeError("not a Selector"))
		}
		return s
	}
	list := func(c goja.FunctionCall) *jsList {
		l, ok := c.This.Export().(*jsList)
		if !ok {
			panic(rt.NewTypeError("not a SelectorList"))
		}
		return l
	}
	method := func(o *goja.Object, name string, fn func(goja.FunctionCall) goja.Value) {
		_ = o.DefineDataProperty(name, rt.ToValue(fn), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	getter := func(o *goja.Object, name string, fn func(goja.FunctionCall) goja.Value) {
		_ = o.DefineAccessorProperty(name, rt.ToValue(fn), nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	sp, lp := st.selProto, st.listProto
	method(sp, "css", func(c goja.FunctionCall) goja.Value {
		return st.selectAll(c.Argument(0).String(), this(c).r)
	})
	method(sp, "get", func(c goja.FunctionCall) goja.Value { return rt.ToValue(this(c).r.Get()) })
	method(sp, "getall", func(c goja.FunctionCall) goja.Value { return rt.NewArray(this(c).r.Get()) })
	method(sp, "toString", func(c goja.FunctionCall) goja.Value { return rt.ToValue(this(c).r.Get()) })
	getter(sp, "attrib", func(c goja.FunctionCall) goja.Value { return st.attribObject(this(c).r) })

	method(lp, "get", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		if len(l.res) == 0 {
			if d := c.Argument(0); !goja.IsUndefined(d) {
				return d
			}
			return goja.Null()
		}
		return rt.ToValue(l.res[0].Get())
	})
	method(lp, "getall", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		out := make([]any, len(l.res))
		for i := range l.res {
			out[i] = l.res[i].Get()
		}
		return rt.NewArray(out...)
	})
	method(lp, "css", func(c goja.FunctionCall) goja.Value {
		return st.selectAll(c.Argument(0).String(), list(c).res...)
	})
	getter(lp, "attrib", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		if len(l.res) == 0 {
			return rt.NewObject()
		}
		return st.attribObject(l.res[0])
	})
}
