package jsapi

// The attribute, text and HTML methods of a Cheerio object (cheerio's
// src/api/attributes.ts and manipulation.ts's html()), and HTML written as cheerio writes
// it (parse5's serializer).

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dop251/goja"
	"golang.org/x/net/html"
)

// first is the first node, or nil.
func (c *jsCheerio) first() *html.Node {
	if ns := c.nodeList(); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

// textContent appends the text of n and its descendants to b, comments left out
// (domutils' textContent).
func textContent(b *strings.Builder, n *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.WriteString(n.Data)
	case html.ElementNode, html.DocumentNode:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			textContent(b, c)
		}
	}
}

// textOf is the text of nodes, concatenated (cheerio's static text()).
func textOf(nodes []*html.Node) string {
	if len(nodes) == 1 && nodes[0].Type == html.ElementNode {
		// The common case: an element with one text child.
		if c := nodes[0].FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
			return c.Data
		}
	}
	var b strings.Builder
	for _, n := range nodes {
		textContent(&b, n)
	}
	return b.String()
}

// Text is the text of every node and its descendants, concatenated (comments left out;
// script and style text kept, as cheerio).
func (m cheerioMethods) Text(c *jsCheerio, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(textOf(c.nodeList())), nil
}

// Html is the inner HTML of the first node, as cheerio writes it; null when there is no
// node or it cannot have children.
func (m cheerioMethods) Html(c *jsCheerio, _ goja.FunctionCall) (goja.Value, error) {
	n := c.first()
	if n == nil || !hasChildren(n) {
		return goja.Null(), nil
	}
	var b strings.Builder
	renderChildren(&b, n, c.d.scripting)
	return m.st.rt.ToValue(b.String()), nil
}

// ToString is the outer HTML of every node.
func (m cheerioMethods) ToString(c *jsCheerio, _ goja.FunctionCall) (goja.Value, error) {
	var b strings.Builder
	for _, n := range c.nodeList() {
		render(&b, n, c.d.scripting)
	}
	return m.st.rt.ToValue(b.String()), nil
}

// booleanAttrs are the attributes cheerio reads as booleans (its rboolean), lower case.
var booleanAttrs = map[string]bool{
	"autofocus": true, "autoplay": true, "async": true, "checked": true, "controls": true,
	"defer": true, "disabled": true, "hidden": true, "loop": true, "multiple": true, "open": true,
	"readonly": true, "required": true, "scoped": true, "selected": true,
}

// isBooleanAttr reports whether cheerio reads the attribute name as a boolean (any case).
func isBooleanAttr(name string) bool {
	if len(name) < 4 || len(name) > 9 {
		return false
	}
	return booleanAttrs[strings.ToLower(name)]
}

// attrValue is cheerio's getAttr of one attribute: a boolean attribute's name, an
// <option>'s text for "value", "on" for a checkbox's or radio's value.
func attrValue(n *html.Node, name string) (string, bool) {
	if !isElem(n) {
		return "", false
	}
	if v, ok := getAttr(n, name); ok {
		if isBooleanAttr(name) {
			return name, true
		}
		return v, true
	}
	if name == "value" {
		if n.Data == "option" {
			return textOf(childList(n)), true
		}
		if t, _ := getAttr(n, "type"); n.Data == "input" && (t == "radio" || t == "checkbox") {
			return "on", true
		}
	}
	return "", false
}

// childList is n's children.
func childList(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, c)
	}
	return out
}

// Attr is an attribute of the first element (undefined when absent), or all of them as an
// object when no name is given. Setting attributes is not supported: the document is
// read-only.
func (m cheerioMethods) Attr(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	if len(call.Arguments) > 1 || (len(call.Arguments) == 1 && !goja.IsString(call.Arguments[0]) && !isNil(call.Arguments[0])) {
		return nil, typeError("attr(): setting attributes is not supported (the document is read-only)")
	}
	n := c.first()
	if !isElem(n) {
		return goja.Undefined(), nil
	}
	name := call.Argument(0)
	if isNil(name) || name.String() == "" {
		return c.d.handle(n).(*goja.Object).Get("attribs"), nil
	}
	if v, ok := attrValue(n, name.String()); ok {
		return m.st.rt.ToValue(v), nil
	}
	return goja.Undefined(), nil
}

// hrefTags and srcTags are the elements whose href or src prop() resolves.
var (
	hrefTags = map[string]bool{"a": true, "link": true}
	srcTags  = map[string]bool{"img": true, "iframe": true, "audio": true, "video": true, "source": true}
)

// Prop is a property of the first node: href and src resolved against the document's URL
// (on a, link; img, iframe, audio, video, source), tagName and nodeName in upper case,
// innerHTML, outerHTML, textContent, innerText, a node property (children, attribs...),
// a boolean attribute as true or false, else the attribute.
func (m cheerioMethods) Prop(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	if len(call.Arguments) > 1 || (len(call.Arguments) == 1 && !goja.IsString(call.Arguments[0])) {
		return nil, typeError("prop(): setting properties is not supported (the document is read-only)")
	}
	rt := m.st.rt
	n := c.first()
	if n == nil {
		return goja.Undefined(), nil
	}
	name := call.Argument(0).String()
	switch name {
	case "tagName", "nodeName":
		if !isElem(n) {
			return goja.Undefined(), nil
		}
		return rt.ToValue(strings.ToUpper(n.Data)), nil
	case "href", "src":
		if !isElem(n) {
			return goja.Undefined(), nil
		}
		v, ok := getAttr(n, name)
		if !ok {
			return goja.Undefined(), nil
		}
		tags := hrefTags
		if name == "src" {
			tags = srcTags
		}
		if tags[n.Data] && c.d.base != "" {
			return m.st.urls.urljoin(c.d.base, v, c.d.h)
		}
		return rt.ToValue(v), nil
	case "innerText", "textContent":
		if name == "innerText" && n.Type != html.ElementNode && n.Type != html.DocumentNode && n.Type != html.TextNode {
			return rt.ToValue(""), nil
		}
		return rt.ToValue(textOf([]*html.Node{n})), nil
	case "outerHTML":
		if n.Type == html.DocumentNode {
			return m.Html(c, call)
		}
		var b strings.Builder
		render(&b, n, c.d.scripting)
		return rt.ToValue(b.String()), nil
	case "innerHTML":
		return m.Html(c, call)
	}
	if !isElem(n) {
		return goja.Undefined(), nil
	}
	h := c.d.handle(n).(*goja.Object)
	if h.Export().(*jsNode).Has(name) {
		return h.Get(name), nil
	}
	if isBooleanAttr(name) {
		_, ok := attrValue(n, name)
		return rt.ToValue(ok), nil
	}
	if v, ok := attrValue(n, name); ok {
		return rt.ToValue(v), nil
	}
	return goja.Undefined(), nil
}

// Data reads data-* attributes of the first element as cheerio's data(): "true", "false",
// "null", numbers and JSON objects or arrays parsed, names camel-cased; values set with
// data(name, value) are kept on the element (not in its attributes).
func (m cheerioMethods) Data(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	rt := m.st.rt
	n := c.first()
	if !isElem(n) {
		if len(call.Arguments) > 1 || (len(call.Arguments) == 1 && !goja.IsString(call.Arguments[0])) {
			return call.This, nil
		}
		return goja.Undefined(), nil
	}
	cache := func(n *html.Node) *goja.Object {
		h := c.d.handle(n).(*goja.Object)
		if o, ok := h.Get("data").(*goja.Object); ok {
			return o
		}
		o := rt.NewObject()
		_ = h.Set("data", o)
		return o
	}
	name := call.Argument(0)
	switch {
	case len(call.Arguments) > 1 || (len(call.Arguments) == 1 && !goja.IsString(name)):
		// data(name, value) or data({...}): on every element.
		for _, e := range c.nodeList() {
			if !isElem(e) {
				continue
			}
			data := cache(e)
			if o, ok := name.(*goja.Object); ok {
				for _, k := range o.Keys() {
					_ = data.Set(k, o.Get(k))
				}
			} else if v := call.Argument(1); !goja.IsUndefined(v) {
				_ = data.Set(name.String(), v)
			}
		}
		return call.This, nil
	case isNil(name):
		data := cache(n)
		for _, a := range n.Attr {
			k := a.Key
			if !strings.HasPrefix(k, "data-") {
				continue
			}
			js := camelCase(k[len("data-"):])
			if !hasOwn(data, js) {
				_ = data.Set(js, parseDataValue(rt, a.Val))
			}
		}
		return data, nil
	}
	data := cache(n)
	key := name.String()
	if hasOwn(data, key) {
		return data.Get(key), nil
	}
	if v, ok := getAttr(n, "data-"+cssCase(key)); ok {
		pv := parseDataValue(rt, v)
		_ = data.Set(key, pv)
		return pv, nil
	}
	return goja.Undefined(), nil
}

// hasOwn is Object.hasOwn(o, k) for o's enumerable keys.
func hasOwn(o *goja.Object, k string) bool { return slices.Contains(o.Keys(), k) }

// camelCase is cheerio's camelCase: "foo-bar" → "fooBar".
func camelCase(s string) string {
	var b strings.Builder
	up := false
	for i, r := range s {
		if r == '-' && i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z' || r == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			up = true
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cssCase is cheerio's cssCase: "fooBar" → "foo-bar".
func cssCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// parseDataValue is cheerio's: null, true, false, a number that prints back the same,
// a JSON object or array, else the string.
func parseDataValue(rt *goja.Runtime, v string) goja.Value {
	switch v {
	case "null":
		return goja.Null()
	case "true":
		return rt.ToValue(true)
	case "false":
		return rt.ToValue(false)
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && !math.IsInf(f, 0) {
		if rt.ToValue(f).String() == v {
			return rt.ToValue(f)
		}
	}
	if len(v) >= 2 && (v[0] == '{' && v[len(v)-1] == '}' || v[0] == '[' && v[len(v)-1] == ']') && json.Valid([]byte(v)) {
		if p, err := rt.RunString("(" + v + ")"); err == nil {
			return p
		}
	}
	return rt.ToValue(v)
}

// Val is the value of the first form element: an input's or option's value, a
// textarea's text, a select's selected option value (an array for a multiple select).
func (m cheerioMethods) Val(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	if len(call.Arguments) > 0 {
		return nil, typeError("val(): setting values is not supported (the document is read-only)")
	}
	rt := m.st.rt
	n := c.first()
	if !isElem(n) {
		return goja.Undefined(), nil
	}
	switch n.Data {
	case "textarea":
		return rt.ToValue(textOf([]*html.Node{n})), nil
	case "input", "option":
		if v, ok := attrValue(n, "value"); ok {
			return rt.ToValue(v), nil
		}
		return goja.Undefined(), nil
	case "select":
		var opts, sel []*html.Node
		collectOptions(n, &opts)
		for _, o := range opts {
			if _, ok := getAttr(o, "selected"); ok {
				sel = append(sel, o)
			}
		}
		_, multiple := getAttr(n, "multiple")
		if multiple {
			out := make([]any, len(sel))
			for i, o := range sel {
				out[i] = textOf(childList(o))
			}
			return rt.NewArray(out...), nil
		}
		if len(sel) == 0 && len(opts) > 0 {
			sel = opts[:1]
		}
		if len(sel) == 0 {
			return goja.Undefined(), nil
		}
		v, _ := attrValue(sel[0], "value")
		return rt.ToValue(v), nil
	}
	return goja.Undefined(), nil
}

// collectOptions appends the <option> descendants of n.
func collectOptions(n *html.Node, out *[]*html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if isElem(c) && c.Data == "option" {
			*out = append(*out, c)
		}
		collectOptions(c, out)
	}
}

// HasClass reports whether some element has the class (cheerio's: a whitespace-bounded
// substring of its class attribute).
func (m cheerioMethods) HasClass(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	name := call.Argument(0).String()
	for _, n := range c.nodeList() {
		if !isElem(n) || name == "" {
			continue
		}
		cls, ok := getAttr(n, "class")
		if !ok {
			continue
		}
		for i := strings.Index(cls, name); i >= 0; {
			end := i + len(name)
			if (i == 0 || isSpace(cls[i-1])) && (end == len(cls) || isSpace(cls[end])) {
				return m.st.rt.ToValue(true), nil
			}
			j := strings.Index(cls[i+1:], name)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return m.st.rt.ToValue(false), nil
}

// isSpace is JS's \s for the ASCII whitespace class attributes use.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// voidTags have no end tag in parse5's serializer.
var voidTags = map[string]bool{
	"area": true, "base": true, "basefont": true, "bgsound": true, "br": true, "col": true,
	"embed": true, "frame": true, "hr": true, "img": true, "input": true, "keygen": true,
	"link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// rawTextTags hold text parse5's serializer writes unescaped.
var rawTextTags = map[string]bool{
	"style": true, "script": true, "xmp": true, "iframe": true, "noembed": true,
	"noframes": true, "plaintext": true,
}

// render writes n as parse5 serializes it, in a document parsed with scripting on or off
// (a <noscript>'s content is raw text when on) (what cheerio's html() writes for an HTML
// document): text escapes &, <, > and U+00A0; attribute values escape &, " and U+00A0
// and are always quoted; void elements have no end tag.
func render(b *strings.Builder, n *html.Node, scripting bool) {
	switch n.Type {
	case html.DocumentNode:
		renderChildren(b, n, scripting)
	case html.DoctypeNode:
		b.WriteString("<!DOCTYPE ")
		b.WriteString(n.Data)
		b.WriteByte('>')
	case html.CommentNode:
		b.WriteString("<!--")
		b.WriteString(n.Data)
		b.WriteString("-->")
	case html.TextNode:
		if p := n.Parent; p != nil && p.Type == html.ElementNode && p.Namespace == "" && (rawTextTags[p.Data] || p.Data == "noscript" && scripting) {
			b.WriteString(n.Data)
			return
		}
		escapeTo(b, n.Data, false)
	case html.ElementNode:
		b.WriteByte('<')
		b.WriteString(n.Data)
		for _, a := range n.Attr {
			b.WriteByte(' ')
			b.WriteString(attrName(a))
			b.WriteString(`="`)
			escapeTo(b, a.Val, true)
			b.WriteByte('"')
		}
		b.WriteByte('>')
		if n.Namespace == "" && voidTags[n.Data] {
			return
		}
		renderChildren(b, n, scripting)
		b.WriteString("</")
		b.WriteString(n.Data)
		b.WriteByte('>')
	case html.RawNode:
		b.WriteString(n.Data)
	}
}

// renderChildren writes n's children.
func renderChildren(b *strings.Builder, n *html.Node, scripting bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		render(b, c, scripting)
	}
}

// escapeTo writes s escaped as parse5 escapes text (attr false) or attribute values.
func escapeTo(b *strings.Builder, s string, attr bool) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			if !attr {
				rep = "&lt;"
			}
		case '>':
			if !attr {
				rep = "&gt;"
			}
		case '"':
			if attr {
				rep = "&quot;"
			}
		case 0xC2:
			if i+1 < len(s) && s[i+1] == 0xA0 {
				b.WriteString(s[last:i])
				b.WriteString("&nbsp;")
				i++
				last = i + 1
			}
			continue
		}
		if rep != "" {
			b.WriteString(s[last:i])
			b.WriteString(rep)
			last = i + 1
		}
	}
	b.WriteString(s[last:])
}
