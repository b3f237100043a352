package jsapi

// Selector and SelectorList as Go-backed JS objects: their types, how they are made and
// queried, and the natives behind the JS Selector functions (selectorClass).

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

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

// selectAll compiles q (cached) and runs it on in; invalid CSS is a TypeError naming q.
func (st *vmState) selectAll(q string, in ...selector.Result) (goja.Value, error) {
	return st.selectAllNS(q, nil, in...)
}

// selectAllNS is selectAll whose results know the namespaces ns.
func (st *vmState) selectAllNS(q string, ns map[string]string, in ...selector.Result) (goja.Value, error) {
	query, err := selector.Compile(q)
	if err != nil {
		return nil, asTypeError(err)
	}
	return st.newListNS(query.Select(in...), ns), nil
}

// xpathAll compiles expr (cached) with the namespaces ns plus the optional object extra
// and runs it on in; an invalid expression is a TypeError with parsel's message
// ("XPath error: ... in <expr>").
func (st *vmState) xpathAll(expr goja.Value, extra goja.Value, vars goja.Value, ns map[string]string, in ...selector.Result) (goja.Value, error) {
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
		return nil, asTypeError(err)
	}
	var bound map[string]any
	if o, ok := vars.(*goja.Object); ok {
		bound = map[string]any{}
		for _, k := range o.Keys() {
			switch v := o.Get(k).Export().(type) {
			case bool, float64, int64:
				bound[k] = v
			default:
				bound[k] = o.Get(k).String()
			}
		}
	}
	rs, err := q.SelectVars(st.matchBudget(), bound, in...)
	if err != nil {
		return nil, asTypeError(err)
	}
	return st.newListNS(rs, ns), nil
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
type jsRegex struct {
	re *selector.Regex
	st *vmState
}

// regex compiles a re() pattern: a string in Python's re syntax, or a RegExp whose
// source is read the same way with its i, m and s flags. An invalid pattern is a
// SyntaxError.
func (st *vmState) regex(p goja.Value) (jsRegex, error) {
	src, flags := p.String(), ""
	if o, ok := p.(*goja.Object); ok && o.ClassName() == "RegExp" {
		src, flags = o.Get("source").String(), o.Get("flags").String()
	}
	re, err := selector.CompileRegex(src, flags)
	if err != nil {
		return jsRegex{}, &jsError{"SyntaxError", err}
	}
	return jsRegex{re, st}, nil
}

// matchBudget bounds a regular expression's match (re(), re:test()) by the time left to the
// running callback (JS_CALLBACK_TIMEOUT) less matchMargin, so that it fails with a
// TimeoutError naming the pattern before the watchdog must break the VM and the other
// callbacks on it; 0 (no bound but the match timeout) outside a watched callback.
func (st *vmState) matchBudget() time.Duration {
	if st == nil || st.vm == nil {
		return 0
	}
	left, ok := st.vm.Budget()
	if !ok {
		return 0
	}
	return max(left-matchMargin, time.Millisecond)
}

// matchMargin is how much sooner than the watchdog a match is cut: regexp2 looks at its
// clock every 100 ms or so.
const matchMargin = 200 * time.Millisecond

// extract runs the pattern on text as parsel's extract_regex; replaceEntities false (and
// only false) keeps the character references.
func (r jsRegex) extract(text string, replaceEntities goja.Value, first bool) ([]string, error) {
	keep := replaceEntities != nil && !goja.IsUndefined(replaceEntities) && !replaceEntities.ToBoolean()
	return r.re.Within(r.st.matchBudget()).Extract(text, !keep, first)
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
	bindMethods(rt, st.selProto, selectorMethods{st}, &bindOptions{
		// parsel's old names: Selector.extract() is get(); extract_first() is not parsel's
		// on a Selector but spiders call it, so it is get() too.
		aliases: map[string][]string{"get": {"extract", "extractFirst", "extract_first", "toString"}, "reFirst": {"re_first"}},
		getters: map[string]bool{"attrib": true},
	})
	bindMethods(rt, st.listProto, listMethods{st}, &bindOptions{
		// parsel's old names, which most Scrapy spiders use: extract() is getall(),
		// extract_first() is get().
		aliases: map[string][]string{"getall": {"extract"}, "get": {"extractFirst", "extract_first"}, "reFirst": {"re_first"}},
		getters: map[string]bool{"attrib": true},
	})
}

// selectorClass holds the natives behind the JS Selector and SelectorList functions
// (prelude.js) and response.follow(selector).
type selectorClass struct{ st *vmState }

// SelectorProto() is Selector.prototype, made in Go (installSelectors).
func (x selectorClass) SelectorProto(goja.FunctionCall) (goja.Value, error) {
	return x.st.selProto, nil
}

// ListProto() is SelectorList.prototype, made in Go (installSelectors).
func (x selectorClass) ListProto(goja.FunctionCall) (goja.Value, error) {
	return x.st.listProto, nil
}

// ListFrom(array) makes a SelectorList of an array of Selectors, or gives undefined.
func (x selectorClass) ListFrom(c goja.FunctionCall) (goja.Value, error) {
	if o, ok := c.Argument(0).(*goja.Object); ok {
		if l := x.st.listFrom(o); l != nil {
			return l, nil
		}
	}
	return goja.Undefined(), nil
}

// ParseSelector(text, type) backs new Selector({ text, type }).
func (x selectorClass) ParseSelector(c goja.FunctionCall) (goja.Value, error) {
	text := c.Argument(0).String()
	var doc *selector.Document
	var err error
	typ := c.Argument(1).String()
	switch {
	case typ == "text" || (typ == "json" || typ == "html" || typ == "xml") && json.Valid([]byte(text)):
		// parsel: a text that is JSON makes a "json" selector whatever the type asked
		// (except "text"); jmespath() queries it, css() and xpath() throw.
		if typ != "text" {
			typ = "json"
		}
		return x.st.newDataSelector(text, typ), nil
	case typ == "json":
		return x.st.newDataSelector(text, typ), nil // not JSON: jmespath() finds nothing
	}
	switch typ {
	case "xml":
		doc, _ = selector.ParseXML([]byte(text), "text/xml; charset=utf-8")
	case "html":
		doc, err = selector.ParseText(text)
	default:
		return nil, typeError("new Selector(): type must be \"html\", \"xml\", \"json\" or \"text\", got %q", typ)
	}
	if err != nil {
		return nil, fmt.Errorf("new Selector(): %w", err)
	}
	return x.st.newSelector(doc.Root()), nil
}

// SelectorHref(selector, lenient) is the URL a Selector points to: its text or
// attribute value, or the element's href, else src. An element with neither throws a
// TypeError, or gives null when lenient (followAll skips it, as Scrapy's follow_all).
func (x selectorClass) SelectorHref(c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	s, ok := c.Argument(0).Export().(*jsSelector)
	if !ok {
		return goja.Undefined(), nil
	}
	if s.r.Kind != selector.KindElement {
		return rt.ToValue(s.r.Get()), nil
	}
	for _, a := range s.r.Attrib() {
		if a.Key == "href" {
			return rt.ToValue(a.Val), nil
		}
	}
	for _, a := range s.r.Attrib() {
		if a.Key == "src" {
			return rt.ToValue(a.Val), nil
		}
	}
	el := "element"
	if s.r.Node != nil {
		el = "<" + s.r.Node.Data + "> element"
	}
	if c.Argument(1).ToBoolean() {
		x.st.s.logger.Debug("followAll(): skipped an " + el + " without href or src")
		return goja.Null(), nil
	}
	return nil, typeError("response.follow(): the selected %s has no href or src attribute", el)
}
