package jsapi

import (
	"encoding/json"
	"errors"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// jsSelector is a JS Selector: a Go-backed object (no own properties) whose methods live on
// the shared prototype selProto. Creating one costs no JS constructor call. ns holds the
// namespaces registered for xpath(); it is never modified, only replaced
// (registerNamespace), so selectors derived from this one share it as parsel copies its
// dict.
type jsSelector struct {
	r  selector.Result
	ns map[string]string
}

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
	ns    map[string]string // namespaces of the selector the list came from
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
		l.elems[i] = l.st.newSelectorNS(l.res[i], l.ns)
	}
	return l.elems[i]
}

func (l *jsList) Set(int, goja.Value) bool { return false }
func (l *jsList) SetLen(int) bool          { return false }

// newSelector makes a Selector with no namespaces registered.
func (st *vmState) newSelector(r selector.Result) goja.Value { return st.newSelectorNS(r, nil) }

// newSelectorNS makes a Selector whose xpath() knows the namespaces ns (not copied).
func (st *vmState) newSelectorNS(r selector.Result, ns map[string]string) goja.Value {
	o := st.rt.NewDynamicObject(&jsSelector{r: r, ns: ns})
	_ = o.SetPrototype(st.selProto)
	return o
}

// newList makes a SelectorList with no namespaces registered.
func (st *vmState) newList(res []selector.Result) goja.Value { return st.newListNS(res, nil) }

// newListNS makes a SelectorList whose selectors know the namespaces ns (not copied).
func (st *vmState) newListNS(res []selector.Result, ns map[string]string) goja.Value {
	o := st.rt.NewDynamicArray(&jsList{st: st, res: res, ns: ns})
	_ = o.SetPrototype(st.listProto)
	return o
}

// selectAll compiles q (cached) and runs it on in; invalid CSS throws a TypeError naming q.
func (st *vmState) selectAll(q string, in ...selector.Result) goja.Value {
	return st.selectAllNS(q, nil, in...)
}

// selectAllNS is selectAll whose results know the namespaces ns.
func (st *vmState) selectAllNS(q string, ns map[string]string, in ...selector.Result) goja.Value {
	query, err := selector.Compile(q)
	if err != nil {
		throwJS(st.rt, "TypeError", err)
	}
	return st.newListNS(query.Select(in...), ns)
}

// xpathAll compiles expr (cached) with the namespaces ns plus the optional object extra
// and runs it on in; an invalid expression throws a TypeError with parsel's message
// ("XPath error: ... in <expr>").
func (st *vmState) xpathAll(expr goja.Value, extra goja.Value, ns map[string]string, in ...selector.Result) goja.Value {
	bindings := ns
	if o, ok := extra.(*goja.Object); ok {
		bindings = make(map[string]string, len(ns)+len(o.Keys()))
		for k, v := range ns {
			bindings[k] = v
		}
		for _, k := range o.Keys() {
			bindings[k] = o.Get(k).String()
		}
	}
	q, err := selector.CompileXPath(expr.String(), bindings)
	if err != nil {
		throwJS(st.rt, "TypeError", err)
	}
	rs, err := q.Select(in...)
	if err != nil {
		throwJS(st.rt, "TypeError", err)
	}
	return st.newListNS(rs, ns)
}

func (st *vmState) attribObject(r selector.Result) goja.Value {
	o := st.rt.NewObject()
	r.EachAttr(func(k, v string) { _ = o.Set(k, v) })
	return o
}

// selectorJSON returns what selector.jmespath() queries: the JSON in a text or attribute
// value, or in an element's text (a <script> block); nil when it is not JSON.
func selectorJSON(r selector.Result) any {
	var v any
	if err := json.Unmarshal([]byte(r.Text()), &v); err != nil {
		return nil
	}
	return v
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
			throwJS(rt, "TypeError", errors.New("not a Selector"))
		}
		return s
	}
	list := func(c goja.FunctionCall) *jsList {
		l, ok := c.This.Export().(*jsList)
		if !ok {
			throwJS(rt, "TypeError", errors.New("not a SelectorList"))
		}
		return l
	}
	// named makes a JS function of fn named name (goja would name it by its Go symbol).
	named := func(name string, fn func(goja.FunctionCall) goja.Value) goja.Value {
		f := rt.ToValue(fn).(*goja.Object)
		_ = f.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
		return f
	}
	method := func(o *goja.Object, name string, fn func(goja.FunctionCall) goja.Value) {
		_ = o.DefineDataProperty(name, named(name, fn), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	getter := func(o *goja.Object, name string, fn func(goja.FunctionCall) goja.Value) {
		_ = o.DefineAccessorProperty(name, named("get "+name, fn), nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	sp, lp := st.selProto, st.listProto
	method(sp, "css", func(c goja.FunctionCall) goja.Value {
		s := this(c)
		return st.selectAllNS(c.Argument(0).String(), s.ns, s.r)
	})
	method(sp, "xpath", func(c goja.FunctionCall) goja.Value {
		s := this(c)
		return st.xpathAll(c.Argument(0), c.Argument(1), s.ns, s.r)
	})
	method(sp, "registerNamespace", func(c goja.FunctionCall) goja.Value {
		s := this(c)
		ns := make(map[string]string, len(s.ns)+1)
		for k, v := range s.ns {
			ns[k] = v
		}
		ns[c.Argument(0).String()] = c.Argument(1).String()
		s.ns = ns
		return goja.Undefined()
	})
	method(sp, "removeNamespaces", func(c goja.FunctionCall) goja.Value {
		if d := this(c).r.Document(); d != nil {
			d.RemoveNamespaces()
		}
		return goja.Undefined()
	})
	method(sp, "jmespath", func(c goja.FunctionCall) goja.Value {
		return st.jmesSearch("selector.jmespath()", c.Argument(0).String(), selectorJSON(this(c).r))
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
		l := list(c)
		return st.selectAllNS(c.Argument(0).String(), l.ns, l.res...)
	})
	method(lp, "xpath", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		return st.xpathAll(c.Argument(0), c.Argument(1), l.ns, l.res...)
	})
	getter(lp, "attrib", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		if len(l.res) == 0 {
			return rt.NewObject()
		}
		return st.attribObject(l.res[0])
	})
}
