package jsapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

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
	// data is "json" or "text" for a selector over a string (new Selector({ text, type })
	// with JSON text or type "text"), which has no document: css() and xpath() throw.
	data string
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

// newDataSelector makes a Selector over text that is not a document (parsel's types
// "json" and "text"): get() is the text and jmespath() queries the JSON in it.
func (st *vmState) newDataSelector(text, typ string) goja.Value {
	o := st.rt.NewDynamicObject(&jsSelector{r: selector.Result{Value: text, Kind: selector.KindText}, data: typ})
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

// listFrom makes a SelectorList of the Selectors in arr, or returns nil when an element
// is not a Selector. The list keeps the namespaces of its first element.
func (st *vmState) listFrom(arr *goja.Object) goja.Value {
	n := int(arr.Get("length").ToInteger())
	res := make([]selector.Result, n)
	elems := make([]goja.Value, n)
	var ns map[string]string
	for i := range n {
		v := arr.Get(strconv.Itoa(i))
		s, ok := v.Export().(*jsSelector)
		if !ok {
			return nil
		}
		if i == 0 {
			ns = s.ns
		}
		res[i], elems[i] = s.r, v
	}
	o := st.rt.NewDynamicArray(&jsList{st: st, res: res, ns: ns, elems: elems})
	_ = o.SetPrototype(st.listProto)
	return o
}

// relIndex converts a slice() argument to an index in [0, n]: negative counts from the
// end, undefined is def (Array.prototype.slice's rules).
func relIndex(v goja.Value, n, def int64) int64 {
	if goja.IsUndefined(v) {
		return def
	}
	i := v.ToInteger()
	if i < 0 {
		i += n
	}
	return max(0, min(i, n))
}

// orNull returns d, or null when d is undefined (the default of get() and reFirst()).
func orNull(d goja.Value) goja.Value {
	if goja.IsUndefined(d) {
		return goja.Null()
	}
	return d
}

// jsRegex is a pattern given to re() or reFirst(), compiled.
type jsRegex struct{ re *selector.Regex }

// regex compiles a re() pattern: a string in Python's re syntax, or a RegExp whose
// source is read the same way with its i, m and s flags. An invalid pattern throws a
// SyntaxError.
func (st *vmState) regex(p goja.Value) jsRegex {
	src, flags := p.String(), ""
	if o, ok := p.(*goja.Object); ok && o.ClassName() == "RegExp" {
		src, flags = o.Get("source").String(), o.Get("flags").String()
	}
	re, err := selector.CompileRegex(src, flags)
	if err != nil {
		throwJS(st.rt, "SyntaxError", err)
	}
	return jsRegex{re}
}

// extract runs the pattern on text as parsel's extract_regex; replaceEntities false (and
// only false) keeps the character references.
func (r jsRegex) extract(st *vmState, text string, replaceEntities goja.Value, first bool) []string {
	keep := replaceEntities != nil && !goja.IsUndefined(replaceEntities) && !replaceEntities.ToBoolean()
	out, err := r.re.Extract(text, !keep, first)
	if err != nil {
		throwJS(st.rt, "Error", err)
	}
	return out
}

func (st *vmState) reArray(out []string) goja.Value {
	vs := make([]any, len(out))
	for i, s := range out {
		vs[i] = s
	}
	return st.rt.NewArray(vs...)
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
	noDoc := func(s *jsSelector, what string) {
		if s.data != "" {
			throwJS(rt, "TypeError", fmt.Errorf("cannot use %s on a Selector of type %q", what, s.data))
		}
	}
	method(sp, "css", func(c goja.FunctionCall) goja.Value {
		s := this(c)
		noDoc(s, "css")
		return st.selectAllNS(c.Argument(0).String(), s.ns, s.r)
	})
	method(sp, "xpath", func(c goja.FunctionCall) goja.Value {
		s := this(c)
		noDoc(s, "xpath")
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
	selGet := func(c goja.FunctionCall) goja.Value { return rt.ToValue(this(c).r.Get()) }
	method(sp, "get", selGet)
	method(sp, "getall", func(c goja.FunctionCall) goja.Value { return rt.NewArray(this(c).r.Get()) })
	// parsel's old names: Selector.extract() is get(); extract_first() is not parsel's on a
	// Selector but spiders call it, so it is get() too.
	method(sp, "extract", selGet)
	method(sp, "extractFirst", selGet)
	method(sp, "extract_first", selGet)
	selRe := func(c goja.FunctionCall) goja.Value {
		re := st.regex(c.Argument(0))
		return st.reArray(re.extract(st, this(c).r.Get(), c.Argument(1), false))
	}
	selReFirst := func(c goja.FunctionCall) goja.Value {
		re := st.regex(c.Argument(0))
		if out := re.extract(st, this(c).r.Get(), c.Argument(2), true); len(out) > 0 {
			return rt.ToValue(out[0])
		}
		return orNull(c.Argument(1))
	}
	method(sp, "re", selRe)
	method(sp, "reFirst", selReFirst)
	method(sp, "re_first", selReFirst)
	method(sp, "toString", func(c goja.FunctionCall) goja.Value { return rt.ToValue(this(c).r.Get()) })
	getter(sp, "attrib", func(c goja.FunctionCall) goja.Value { return st.attribObject(this(c).r) })

	listGet := func(c goja.FunctionCall) goja.Value {
		l := list(c)
		if len(l.res) == 0 {
			return orNull(c.Argument(0))
		}
		return rt.ToValue(l.res[0].Get())
	}
	listGetall := func(c goja.FunctionCall) goja.Value {
		l := list(c)
		out := make([]any, len(l.res))
		for i := range l.res {
			out[i] = l.res[i].Get()
		}
		return rt.NewArray(out...)
	}
	method(lp, "get", listGet)
	method(lp, "getall", listGetall)
	// parsel's old names, which most Scrapy spiders use: extract() is getall(),
	// extract_first() is get().
	method(lp, "extract", listGetall)
	method(lp, "extractFirst", listGet)
	method(lp, "extract_first", listGet)
	listReFirst := func(c goja.FunctionCall) goja.Value {
		l := list(c)
		re := st.regex(c.Argument(0))
		for i := range l.res {
			if out := re.extract(st, l.res[i].Get(), c.Argument(2), true); len(out) > 0 {
				return rt.ToValue(out[0])
			}
		}
		return orNull(c.Argument(1))
	}
	method(lp, "re", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		re := st.regex(c.Argument(0))
		var out []string
		for i := range l.res {
			out = append(out, re.extract(st, l.res[i].Get(), c.Argument(1), false)...)
		}
		return st.reArray(out)
	})
	method(lp, "reFirst", listReFirst)
	method(lp, "re_first", listReFirst)
	// slice() keeps a SelectorList (parsel: a slice of a SelectorList is one); filter()
	// and map() are in prelude.js, through listFrom.
	method(lp, "slice", func(c goja.FunctionCall) goja.Value {
		l := list(c)
		n := int64(len(l.res))
		start, end := relIndex(c.Argument(0), n, 0), relIndex(c.Argument(1), n, n)
		if end < start {
			end = start
		}
		return st.newListNS(l.res[start:end:end], l.ns)
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
