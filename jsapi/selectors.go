package jsapi

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

// selectorMethods are the methods of a JS Selector (Selector.prototype), on this. The
// paragraphs after this one, the //jscrawl:ts lines (the aliases installSelectors binds),
// its methods and their doc comments are jscrawl_gen.d.ts.
//
// One match of a CSS or XPath query (parsel: Selector): an element, a text node, an
// attribute value, or a string, number or boolean computed by an XPath expression.
//
//jscrawl:doc `get()` (parsel's old name).
//jscrawl:ts extract(): string;
//jscrawl:doc `get()` (for spiders written against parsel's SelectorList).
//jscrawl:ts extractFirst(): string;
//jscrawl:doc `get()`, parsel's spelling.
//jscrawl:ts extract_first(): string;
//jscrawl:doc `reFirst()`, parsel's spelling.
//jscrawl:ts re_first(pattern: Pattern): string | null;
//jscrawl:ts re_first<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
//jscrawl:class interface Selector
type selectorMethods struct{ st *vmState }

// noDoc refuses what to a Selector over text that is not a document.
func noDoc(s *jsSelector, what string) error {
	if s.data != "" {
		return typeError("cannot use %s on a Selector of type %q", what, s.data)
	}
	return nil
}

// Css selects inside this element (parsel: `::text`, `*::text`, `::attr(name)`).
//
//jscrawl:ts css(query: string): SelectorList;
func (m selectorMethods) Css(s *jsSelector, c goja.FunctionCall) (goja.Value, error) {
	if err := noDoc(s, "css"); err != nil {
		return nil, err
	}
	return m.st.selectAllNS(c.Argument(0).String(), s.ns, s.r)
}

// Xpath evaluates an XPath 1.0 expression from this element (relative: `./a/@href`;
// absolute: `//a`). Text nodes and attributes come back as selectors whose `get()` is their
// string; numbers and booleans as parsel writes them (`"2.0"`, `"1"`/`"0"`).
// `namespaces` adds prefixes for this call only; `variables` binds `$name`
// (`sel.xpath("//a[@id=$id]", null, { id: "top" })`, parsel's `xpath(q, id="top")`).
// Throws a TypeError (`XPath error: ... in <expr>`) when the expression is invalid or
// uses a variable not given.
//
//jscrawl:ts xpath(expr: string, namespaces?: Namespaces | null, variables?: XPathVariables): SelectorList;
func (m selectorMethods) Xpath(s *jsSelector, c goja.FunctionCall) (goja.Value, error) {
	if err := noDoc(s, "xpath"); err != nil {
		return nil, err
	}
	return m.st.xpathAll(c.Argument(0), c.Argument(1), c.Argument(2), s.ns, s.r)
}

// RegisterNamespace binds `prefix` for this selector's `xpath()` and the selectors it
// produces from now on.
//
//jscrawl:ts registerNamespace(prefix: string, uri: string): void;
func (m selectorMethods) RegisterNamespace(s *jsSelector, c goja.FunctionCall) (goja.Value, error) {
	ns := make(map[string]string, len(s.ns)+1)
	for k, v := range s.ns {
		ns[k] = v
	}
	ns[c.Argument(0).String()] = c.Argument(1).String()
	s.ns = ns
	return goja.Undefined(), nil
}

// RemoveNamespaces drops every namespace of the whole XML document, so `//loc` matches a
// sitemap's `<loc>`.
//
//jscrawl:ts removeNamespaces(): void;
func (m selectorMethods) RemoveNamespaces(s *jsSelector, _ goja.FunctionCall) (goja.Value, error) {
	if d := s.r.Document(); d != nil {
		d.RemoveNamespaces()
	}
	return goja.Undefined(), nil
}

// Jmespath runs a JMESPath expression on the JSON this selector holds (a JSON text given
// to `new Selector`, a `<script>` block's text or a text/attribute value) and returns the
// JSON value; `null` when it holds no JSON or nothing matches.
//
//jscrawl:ts jmespath(expr: string): any;
func (m selectorMethods) Jmespath(s *jsSelector, c goja.FunctionCall) (goja.Value, error) {
	return m.st.jmesSearch("selector.jmespath()", c.Argument(0).String(), selectorJSON(s.r))
}

// Get is the element's outer HTML (or XML) as lxml writes it (`<img src="a.jpg">`), or
// the text, attribute value or computed string.
//
//jscrawl:ts get(): string;
func (m selectorMethods) Get(s *jsSelector, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(s.r.Get()), nil
}

// Getall is `[get()]` (parsel: a Selector's getall()).
//
//jscrawl:ts getall(): string[];
func (m selectorMethods) Getall(s *jsSelector, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.NewArray(s.r.Get()), nil
}

// Re returns the matches of `pattern` in `get()` with Python's `re` semantics, as parsel:
// `\w`, `\d`, `\s` and `\b` are Unicode-aware, `(?P<name>...)` names a group. Each whole
// match, or the values of its groups when it has some (an unmatched group gives `""`), or
// only the first match's group named `extract` when there is one. A RegExp's source is
// read the same way; flags other than i, m and s are ignored. Character references other
// than `&lt;` and `&amp;` are replaced unless `replaceEntities` is false.
//
//jscrawl:ts re(pattern: Pattern, replaceEntities?: boolean): string[];
func (m selectorMethods) Re(s *jsSelector, c goja.FunctionCall) (goja.Value, error) {
	re, err := m.st.regex(c.Argument(0))
	if err != nil {
		return nil, err
	}
	out, err := re.extract(s.r.Get(), c.Argument(1), false)
	if err != nil {
		return nil, err
	}
	return stringArray(m.st.rt, out), nil
}

// ReFirst returns the first string `re()` gives, or `def` (default `null`).
//
//jscrawl:ts reFirst(pattern: Pattern): string | null;
//jscrawl:ts reFirst<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
func (m selectorMethods) ReFirst(s *jsSelector, c goja.FunctionCall) (goja.Value, error) {
	re, err := m.st.regex(c.Argument(0))
	if err != nil {
		return nil, err
	}
	out, err := re.extract(s.r.Get(), c.Argument(2), true)
	if err != nil || len(out) > 0 {
		return firstOf(m.st.rt, out), err
	}
	return orNull(c.Argument(1)), nil
}

// Attrib is the element's attributes (empty for text and attributes; XML namespace
// declarations left out). A getter.
//
//jscrawl:ts readonly attrib: Record<string, string>;
func (m selectorMethods) Attrib(s *jsSelector, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.attribObject(s.r), nil
}

// firstOf returns out[0] as a JS string, or nil when out is empty.
func firstOf(rt *goja.Runtime, out []string) goja.Value {
	if len(out) == 0 {
		return nil
	}
	return rt.ToValue(out[0])
}

// listMethods are the methods of a JS SelectorList (SelectorList.prototype), on this.
// filter() and map() are in prelude.js, through ListFrom. The paragraphs after this one,
// the //jscrawl:ts lines (the aliases installSelectors binds, filter and map), its methods
// and their doc comments are jscrawl_gen.d.ts.
//
// The matches of a CSS or XPath query, in document order.
//
//jscrawl:doc `getall()` (parsel's old name).
//jscrawl:ts extract(): string[];
//jscrawl:doc `get()` (parsel's old name, as Scrapy spiders write it).
//jscrawl:ts extractFirst(): string | null;
//jscrawl:ts extractFirst<D>(def: D): string | D;
//jscrawl:doc `get()`, parsel's spelling.
//jscrawl:ts extract_first(): string | null;
//jscrawl:ts extract_first<D>(def: D): string | D;
//jscrawl:doc `reFirst()`, parsel's spelling.
//jscrawl:ts re_first(pattern: Pattern): string | null;
//jscrawl:ts re_first<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
//jscrawl:doc A SelectorList of the selectors `fn` keeps.
//jscrawl:ts filter(fn: (s: Selector, i: number, list: SelectorList) => unknown): SelectorList;
//jscrawl:doc A SelectorList when `fn` gives Selectors, else an array.
//jscrawl:ts map(fn: (s: Selector, i: number, list: SelectorList) => Selector): SelectorList;
//jscrawl:ts map<U>(fn: (s: Selector, i: number, list: SelectorList) => U): U[];
//jscrawl:class interface SelectorList extends Omit<ReadonlyArray<Selector>, "slice" | "filter" | "map">
type listMethods struct{ st *vmState }

// Get returns the first match as a string, or `def` (default `null`) when there is none.
//
//jscrawl:ts get(): string | null;
//jscrawl:ts get<D>(def: D): string | D;
func (m listMethods) Get(l *jsList, c goja.FunctionCall) (goja.Value, error) {
	if len(l.res) == 0 {
		return orNull(c.Argument(0)), nil
	}
	return m.st.rt.ToValue(l.res[0].Get()), nil
}

// Getall returns every selector's `get()`, in order.
//
//jscrawl:ts getall(): string[];
func (m listMethods) Getall(l *jsList, _ goja.FunctionCall) (goja.Value, error) {
	out := make([]any, len(l.res))
	for i := range l.res {
		out[i] = l.res[i].Get()
	}
	return m.st.rt.NewArray(out...), nil
}

// Re is `re()` of each selector, concatenated.
//
//jscrawl:ts re(pattern: Pattern, replaceEntities?: boolean): string[];
func (m listMethods) Re(l *jsList, c goja.FunctionCall) (goja.Value, error) {
	re, err := m.st.regex(c.Argument(0))
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range l.res {
		o, err := re.extract(l.res[i].Get(), c.Argument(1), false)
		if err != nil {
			return nil, err
		}
		out = append(out, o...)
	}
	return stringArray(m.st.rt, out), nil
}

// ReFirst returns the first string `re()` gives over the list, or `def` (default `null`).
//
//jscrawl:ts reFirst(pattern: Pattern): string | null;
//jscrawl:ts reFirst<D>(pattern: Pattern, def: D, replaceEntities?: boolean): string | D;
func (m listMethods) ReFirst(l *jsList, c goja.FunctionCall) (goja.Value, error) {
	re, err := m.st.regex(c.Argument(0))
	if err != nil {
		return nil, err
	}
	for i := range l.res {
		out, err := re.extract(l.res[i].Get(), c.Argument(2), true)
		if err != nil || len(out) > 0 {
			return firstOf(m.st.rt, out), err
		}
	}
	return orNull(c.Argument(1)), nil
}

// Slice returns a SelectorList of part of this one (parsel: `sel[1:]`).
//
//jscrawl:ts slice(start?: number, end?: number): SelectorList;
func (m listMethods) Slice(l *jsList, c goja.FunctionCall) (goja.Value, error) {
	n := int64(len(l.res))
	start, end := relIndex(c.Argument(0), n, 0), relIndex(c.Argument(1), n, n)
	if end < start {
		end = start
	}
	return m.st.newListNS(l.res[start:end:end], l.ns), nil
}

// Css is `css()` of each element, concatenated.
//
//jscrawl:ts css(query: string): SelectorList;
func (m listMethods) Css(l *jsList, c goja.FunctionCall) (goja.Value, error) {
	return m.st.selectAllNS(c.Argument(0).String(), l.ns, l.res...)
}

// Xpath is `xpath()` of each element, concatenated.
//
//jscrawl:ts xpath(expr: string, namespaces?: Namespaces | null, variables?: XPathVariables): SelectorList;
func (m listMethods) Xpath(l *jsList, c goja.FunctionCall) (goja.Value, error) {
	return m.st.xpathAll(c.Argument(0), c.Argument(1), c.Argument(2), l.ns, l.res...)
}

// Attrib is the first element's attributes, `{}` for an empty list. A getter.
//
//jscrawl:ts readonly attrib: Record<string, string>;
func (m listMethods) Attrib(l *jsList, _ goja.FunctionCall) (goja.Value, error) {
	if len(l.res) == 0 {
		return m.st.rt.NewObject(), nil
	}
	return m.st.attribObject(l.res[0]), nil
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
