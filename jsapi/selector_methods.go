package jsapi

// The methods of a JS Selector (selectorMethods), bound on Selector.prototype.

import (
	"github.com/dop251/goja"
)

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
