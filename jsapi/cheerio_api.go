package jsapi

// The static side of cheerio's $ ($.html(), $.text(), $.root(), $.load()), the built-in
// "cheerio" module and response.$.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// installCheerio makes the prototypes of Cheerio objects and of $ functions, and the
// "cheerio" module's exports. On the loop, once per VM.
func (st *vmState) installCheerio() {
	rt := st.rt
	st.cheerioKey = goja.NewSymbol("cheerio document")
	st.cheerioProto = rt.NewObject()
	bindMethods(rt, st.cheerioProto, cheerioMethods{st}, nil)
	values := rt.Get("Array").ToObject(rt).Get("prototype").ToObject(rt).Get("values")
	_ = st.cheerioProto.DefineDataPropertySymbol(goja.SymIterator, values, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = st.cheerioProto.DefineDataProperty("cheerio", rt.ToValue("[cheerio object]"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	st.cheerioStatic = rt.NewObject()
	_ = st.cheerioStatic.SetPrototype(rt.Get("Function").ToObject(rt).Get("prototype").ToObject(rt))
	bindMethods(rt, st.cheerioStatic, cheerioStatics{st}, nil)
	_ = st.cheerioStatic.Set("fn", st.cheerioProto)
	mod := rt.NewObject()
	statics := cheerioStatics{st}
	_ = mod.Set("load", namedFunc(rt, "load", typed(rt, statics.Load)))
	_ = mod.Set("contains", namedFunc(rt, "contains", typed(rt, statics.Contains)))
	_ = mod.Set("merge", namedFunc(rt, "merge", typed(rt, statics.Merge)))
	st.cheerioModule = mod
}

// cheerioStatics are the methods of a $ function (cheerio's static.ts), on this: the
// document is the one of the $ they are called on.
type cheerioStatics struct{ st *vmState }

// docOf returns the document of the $ that is this.
func (x cheerioStatics) docOf(c goja.FunctionCall) (*cheerioDoc, error) {
	if o, ok := c.This.(*goja.Object); ok {
		if v := o.GetSymbol(x.st.cheerioKey); v != nil {
			if d, ok := v.Export().(*cheerioDoc); ok {
				return d, nil
			}
		}
	}
	return nil, typeError("not a cheerio $ function")
}

// Html is the whole document's HTML, or the outer HTML of the elements a selector
// matches (or of given nodes).
func (x cheerioStatics) Html(c goja.FunctionCall) (goja.Value, error) {
	d, err := x.docOf(c)
	if err != nil {
		return nil, err
	}
	nodes := []*html.Node{d.root}
	if a := c.Argument(0); !isNil(a) {
		if goja.IsString(a) {
			if nodes, err = d.selectIn(a.String(), []*html.Node{d.root}); err != nil {
				return nil, err
			}
		} else {
			nodes = nodesOf(a)
		}
	}
	var b strings.Builder
	for _, n := range nodes {
		render(&b, n, d.scripting)
	}
	return x.st.rt.ToValue(b.String()), nil
}

// Text is the text of the whole document (or of the given nodes).
func (x cheerioStatics) Text(c goja.FunctionCall) (goja.Value, error) {
	d, err := x.docOf(c)
	if err != nil {
		return nil, err
	}
	nodes := []*html.Node{d.root}
	if a := c.Argument(0); !isNil(a) {
		nodes = nodesOf(a)
	}
	return x.st.rt.ToValue(textOf(nodes)), nil
}

// Root is the Cheerio object of the document itself.
func (x cheerioStatics) Root(c goja.FunctionCall) (goja.Value, error) {
	d, err := x.docOf(c)
	if err != nil {
		return nil, err
	}
	if d.rootSel == nil {
		d.rootSel = d.make([]*html.Node{d.root}, goja.Undefined())
	}
	return d.rootSel, nil
}

// Contains reports whether the second node is inside the first.
func (x cheerioStatics) Contains(c goja.FunctionCall) (goja.Value, error) {
	a, b := nodeOf(c.Argument(0)), nodeOf(c.Argument(1))
	return x.st.rt.ToValue(a != nil && b != nil && a != b && contains(a, b)), nil
}

// Merge appends the items of the second array-like to the first and returns it.
func (x cheerioStatics) Merge(c goja.FunctionCall) (goja.Value, error) {
	a, ok1 := c.Argument(0).(*goja.Object)
	b, ok2 := c.Argument(1).(*goja.Object)
	if !ok1 || !ok2 {
		return goja.Undefined(), nil
	}
	n := a.Get("length").ToInteger()
	m := b.Get("length").ToInteger()
	for i := int64(0); i < m; i++ {
		if err := a.Set(strconv.FormatInt(n+i, 10), b.Get(strconv.FormatInt(i, 10))); err != nil {
			return nil, err
		}
	}
	_ = a.Set("length", n+m)
	return a, nil
}

// Load parses HTML into a new document and returns its $ (cheerio.load(html, options,
// isDocument)). Options: baseURI (what prop("href") resolves against), scriptingEnabled
// (default true, as parse5: <noscript> holds raw text). isDocument false parses a
// fragment: no <html>, <head> or <body> added.
func (x cheerioStatics) Load(c goja.FunctionCall) (goja.Value, error) {
	st := x.st
	src := c.Argument(0)
	if isNil(src) {
		src = st.rt.ToValue("")
	}
	base, scripting := "", true
	if o, ok := c.Argument(1).(*goja.Object); ok {
		if v := o.Get("baseURI"); !isNil(v) {
			base = v.String()
		}
		if v := o.Get("scriptingEnabled"); v != nil && !goja.IsUndefined(v) {
			scripting = v.ToBoolean()
		}
		for _, k := range []string{"xml", "xmlMode"} {
			if v := o.Get(k); v != nil && v.ToBoolean() {
				return nil, typeError("cheerio.load(): the xml option is not supported (use response.xpath or new Selector({ text, type: \"xml\" }))")
			}
		}
	}
	isDoc := true
	if v := c.Argument(2); v != nil && !goja.IsUndefined(v) {
		isDoc = v.ToBoolean()
	}
	root, err := parseCheerio(src.String(), isDoc, scripting)
	if err != nil {
		return nil, err
	}
	return st.newDoc(root, base, nil, scripting).api, nil
}

// parseCheerio parses text as cheerio.load does with parse5: a whole document (the
// implied <html>, <head>, <body> and <tbody> added), or a fragment in a <template>.
func parseCheerio(text string, isDoc, scripting bool) (*html.Node, error) {
	opt := html.ParseOptionEnableScripting(scripting)
	if isDoc {
		n, err := html.ParseWithOptions(strings.NewReader(text), opt)
		if err != nil && tooDeepHTML(err) {
			// Nested past x/net/html's 512 open elements: parsed as responses are, with the
			// elements past the limit flattened (selector.ParseText).
			doc, derr := selector.ParseText(text)
			if derr == nil {
				return doc.Node(), nil
			}
		}
		if err != nil {
			return nil, typeError("cheerio.load(): %v", err)
		}
		restoreAttrOrder(n, text)
		return n, nil
	}
	ctx := &html.Node{Type: html.ElementNode, Data: "template", DataAtom: atom.Template}
	nodes, err := html.ParseFragmentWithOptions(strings.NewReader(text), ctx, opt)
	if err != nil {
		return nil, typeError("cheerio.load(): %v", err)
	}
	root := &html.Node{Type: html.DocumentNode}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	restoreAttrOrder(root, text)
	return root, nil
}

// cheerioOf returns response.$: the $ of the response's parsed document, made on first
// use; prop("href") resolves against the response URL (cheerio's baseURI).
func (st *vmState) cheerioOf(r *jsResponse) (goja.Value, error) {
	if r.cheerio == nil {
		doc, err := st.document(r.h)
		if err != nil {
			return nil, err
		}
		r.cheerio = st.newDoc(doc.Node(), r.h.resp.URL, r.h, false).api
	}
	return r.cheerio, nil
}

// tooDeepHTML reports whether err is x/net/html's refusal of a page nested too deeply.
func tooDeepHTML(err error) bool {
	return strings.Contains(err.Error(), "open stack of elements exceeds")
}

// formattingTags are the elements x/net/html's parser sorts the attributes of (its
// Noah's Ark search over active formatting elements sorts them in place).
var formattingTags = map[string]bool{
	"a": true, "b": true, "big": true, "code": true, "em": true, "font": true, "i": true,
	"nobr": true, "s": true, "small": true, "strike": true, "strong": true, "tt": true, "u": true,
}

// restoreAttrOrder gives the formatting elements of a tree parsed from text their
// attributes in source order, as parse5 keeps them (attr(), data() and html() list them in
// that order): the source is tokenized again, only when such an element has two attributes
// or more, and each element takes the order of the first start tag with the same name and
// attributes.
func restoreAttrOrder(root *html.Node, text string) {
	var els []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				if c.Namespace == "" && len(c.Attr) > 1 && formattingTags[c.Data] {
					els = append(els, c)
				}
				walk(c)
			}
		}
	}
	walk(root)
	if len(els) == 0 {
		return
	}
	key := func(tag string, attrs []html.Attribute) string {
		var b strings.Builder
		b.WriteString(tag)
		for _, a := range attrs {
			b.WriteString("\x00" + a.Key + "\x01" + a.Val)
		}
		return b.String()
	}
	orders := map[string][]html.Attribute{}
	z := html.NewTokenizer(strings.NewReader(text))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if len(tok.Attr) < 2 || !formattingTags[tok.Data] {
			continue
		}
		sorted := slices.Clone(tok.Attr)
		slices.SortFunc(sorted, func(a, b html.Attribute) int {
			return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Val, b.Val))
		})
		if k := key(tok.Data, sorted); orders[k] == nil {
			orders[k] = tok.Attr
		}
	}
	for _, el := range els {
		if o := orders[key(el.Data, el.Attr)]; o != nil {
			el.Attr = slices.Clone(o)
		}
	}
}
