package jsapi

// The methods of a JS SelectorList (listMethods), bound on SelectorList.prototype.

import (
	"github.com/dop251/goja"
)

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
