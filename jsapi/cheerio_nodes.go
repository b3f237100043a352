package jsapi

// The element handles of cheerio's $: a Go-backed JS object per node, shaped as
// domhandler's nodes (cheerio's parse5 adapter): type, name, attribs, children, parent,
// next, prev, data and the DOM-like getters.

import (
	"github.com/dop251/goja"
	"golang.org/x/net/html"
)

// jsNode is the JS object of one node: its properties are read from the node when asked
// (attribs and children made once and kept), and what a script sets on it is kept aside.
type jsNode struct {
	d        *cheerioDoc
	n        *html.Node
	attribs  goja.Value
	children goja.Value
	extra    map[string]goja.Value
	keys     []string // extra's keys, in the order they were set
}

// handle returns the JS object of n, the same one every time.
func (d *cheerioDoc) handle(n *html.Node) goja.Value {
	if o, ok := d.handles[n]; ok {
		return o
	}
	o := d.st.rt.NewDynamicObject(&jsNode{d: d, n: n})
	d.handles[n] = o
	return o
}

// handleOrNull is handle(n), null for nil.
func (d *cheerioDoc) handleOrNull(n *html.Node) goja.Value {
	if n == nil {
		return goja.Null()
	}
	return d.handle(n)
}

// nodeType is domhandler's type of n: "tag", "script", "style", "text", "comment",
// "directive" (a doctype) or "root".
func nodeType(n *html.Node) string {
	switch n.Type {
	case html.ElementNode:
		switch n.Data {
		case "script":
			return "script"
		case "style":
			return "style"
		}
		return "tag"
	case html.TextNode:
		return "text"
	case html.CommentNode:
		return "comment"
	case html.DoctypeNode:
		return "directive"
	case html.DocumentNode:
		return "root"
	}
	return "text"
}

// domNodeType is the DOM nodeType domhandler gives n.
func domNodeType(n *html.Node) int {
	switch n.Type {
	case html.TextNode:
		return 3
	case html.CommentNode:
		return 8
	case html.DocumentNode:
		return 9
	}
	return 1 // elements, and domhandler's ProcessingInstruction for a doctype
}

// hasChildren reports whether n is a node with a children array (domhandler's
// NodeWithChildren: elements and the root).
func hasChildren(n *html.Node) bool {
	return n.Type == html.ElementNode || n.Type == html.DocumentNode
}

// attrName is the attribute's name as parse5 serializes it ("xlink:href" for a namespaced
// one); domhandler's attribs key it by its local name (a.Key).
func attrName(a html.Attribute) string {
	if a.Namespace == "" || (a.Namespace == "xmlns" && a.Key == "xmlns") {
		return a.Key
	}
	return a.Namespace + ":" + a.Key
}

// getAttr returns n's attribute name.
func getAttr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func (h *jsNode) Get(k string) goja.Value {
	n, d := h.n, h.d
	rt := d.st.rt
	switch k {
	case "type":
		return rt.ToValue(nodeType(n))
	case "nodeType":
		return rt.ToValue(domNodeType(n))
	case "parent", "parentNode":
		if n.Parent == nil {
			return goja.Null()
		}
		return d.handle(n.Parent)
	case "next", "nextSibling":
		return d.handleOrNull(n.NextSibling)
	case "prev", "previousSibling":
		return d.handleOrNull(n.PrevSibling)
	}
	switch n.Type {
	case html.ElementNode:
		switch k {
		case "name", "tagName", "nodeName":
			return rt.ToValue(n.Data)
		case "attribs":
			if h.attribs == nil {
				o := rt.NewObject() // with no prototype, as domhandler's
				_ = o.SetPrototype(nil)
				for _, a := range n.Attr {
					_ = o.Set(a.Key, a.Val)
				}
				h.attribs = o
			}
			return h.attribs
		case "namespace":
			return rt.ToValue(namespaceURI(n))
		}
	case html.TextNode, html.CommentNode:
		switch k {
		case "data", "nodeValue":
			return rt.ToValue(n.Data)
		}
	case html.DoctypeNode:
		switch k {
		case "name":
			return rt.ToValue("!doctype")
		case "data":
			return rt.ToValue("!DOCTYPE " + n.Data)
		}
	}
	if hasChildren(n) {
		switch k {
		case "children", "childNodes":
			if h.children == nil {
				var out []any
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					out = append(out, d.handle(c))
				}
				h.children = rt.NewArray(out...)
			}
			return h.children
		case "firstChild":
			return d.handleOrNull(n.FirstChild)
		case "lastChild":
			return d.handleOrNull(n.LastChild)
		}
	}
	if k == "startIndex" || k == "endIndex" {
		if _, ok := h.extra[k]; !ok {
			return goja.Null()
		}
	}
	return h.extra[k]
}

// namespaceURI is the namespace parse5 gives an element.
func namespaceURI(n *html.Node) string {
	switch n.Namespace {
	case "svg":
		return "http://www.w3.org/2000/svg"
	case "math":
		return "http://www.w3.org/1998/Math/MathML"
	}
	return "http://www.w3.org/1999/xhtml"
}

func (h *jsNode) Set(k string, v goja.Value) bool {
	if h.extra == nil {
		h.extra = map[string]goja.Value{}
	}
	if _, ok := h.extra[k]; !ok {
		h.keys = append(h.keys, k)
	}
	h.extra[k] = v
	return true
}

func (h *jsNode) Has(k string) bool {
	if _, ok := h.extra[k]; ok {
		return true
	}
	for _, x := range h.own() {
		if x == k {
			return true
		}
	}
	switch k {
	case "nodeType", "parentNode", "nextSibling", "previousSibling":
		return true
	case "tagName", "nodeName":
		return h.n.Type == html.ElementNode
	case "childNodes", "firstChild", "lastChild":
		return hasChildren(h.n)
	case "nodeValue":
		return h.n.Type == html.TextNode || h.n.Type == html.CommentNode
	}
	return false
}

func (h *jsNode) Delete(k string) bool {
	if _, ok := h.extra[k]; ok {
		delete(h.extra, k)
		for i, x := range h.keys {
			if x == k {
				h.keys = append(h.keys[:i:i], h.keys[i+1:]...)
				break
			}
		}
	}
	return true
}

// own is domhandler's own properties of the node (Object.keys(el) in cheerio).
func (h *jsNode) own() []string {
	base := []string{"parent", "prev", "next", "startIndex", "endIndex"}
	switch h.n.Type {
	case html.ElementNode:
		return append(base, "children", "name", "attribs", "type", "namespace")
	case html.TextNode, html.CommentNode:
		return append(base, "data", "type")
	case html.DoctypeNode:
		return append(base, "data", "name", "type")
	}
	return append(base, "children", "type")
}

func (h *jsNode) Keys() []string {
	out := h.own()
	for _, k := range h.keys {
		dup := false
		for _, x := range out {
			dup = dup || x == k
		}
		if !dup {
			out = append(out, k)
		}
	}
	return out
}

// Interface guards.
var (
	_ goja.DynamicObject = (*jsNode)(nil)
	_ goja.DynamicArray  = (*jsCheerio)(nil)
)
