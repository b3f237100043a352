package selector

import (
	"strings"

	"golang.org/x/net/html"
)

// Kind says what a Result holds.
type Kind uint8

// The kinds of Result.
const (
	KindElement Kind = iota // an element node (parsel: a Selector over an lxml element)
	KindText                // a text node, from ::text
	KindAttr                // an attribute value, from ::attr(name)
)

// String returns "element", "text" or "attr".
func (k Kind) String() string {
	switch k {
	case KindElement:
		return "element"
	case KindText:
		return "text"
	case KindAttr:
		return "attr"
	default:
		return "unknown"
	}
}

// Result is one selection result (Scrapy: one parsel.Selector in a SelectorList). It points
// into the shared document, which must not be modified.
//   - KindElement: Node is the element; Value is "".
//   - KindText: Node is the text node; Value is its text.
//   - KindAttr: Node is the element carrying the attribute; Value is the attribute value.
//
// An XPath expression whose value is a string, number or boolean gives a KindText result
// with a nil Node and the value as parsel writes it (see XPath). Results remember their
// Document, so XPath and serialisation know an XML document from an HTML one; a Result
// made by hand counts as HTML.
type Result struct {
	Node  *html.Node
	Value string
	Kind  Kind
	doc   *Document
}

// Get returns what parsel's get() returns: the outer HTML of an element, serialised as
// lxml writes HTML (void elements without a slash: <img src="a.jpg">; "&", "<", ">" and
// quotes in text and attribute values escaped as html.EscapeString does), or the string of
// a text or attribute result.
func (r Result) Get() string {
	if r.Kind != KindElement {
		return r.Value
	}
	if r.Node == nil {
		return ""
	}
	var b strings.Builder
	if r.doc != nil && r.doc.xml != nil {
		r.doc.xml.render(&b, r.Node)
		return b.String()
	}
	renderHTML(&b, r.Node)
	return b.String()
}

// rawTextElements hold text that is written as is, without escaping (x/net/html's and
// lxml's list; <noscript> is not one, as documents are parsed with scripting off).
var rawTextElements = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "plaintext": true, "script": true,
	"style": true, "xmp": true,
}

// writeEscaped writes s escaped as html.EscapeString does, without allocating.
func writeEscaped(b *strings.Builder, s string) {
	const escapedChars = "&'<>\"\r"
	for i := strings.IndexAny(s, escapedChars); i >= 0; i = strings.IndexAny(s, escapedChars) {
		b.WriteString(s[:i])
		switch s[i] {
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\r':
			b.WriteString("&#13;")
		}
		s = s[i+1:]
	}
	b.WriteString(s)
}

// renderHTML writes n as lxml's HTML serialiser does: as html.Render, except that void
// elements have no slash ("<br>", as HTML writes them).
func renderHTML(b *strings.Builder, n *html.Node) {
	switch n.Type {
	case html.ElementNode:
	case html.TextNode:
		writeEscaped(b, n.Data)
		return
	default:
		// Comments, doctypes and documents. Render fails only on an ErrorNode, which the
		// parser never produces, or on a write error, which strings.Builder never returns.
		_ = html.Render(b, n)
		return
	}
	b.WriteByte('<')
	b.WriteString(n.Data)
	for _, a := range n.Attr {
		b.WriteByte(' ')
		if a.Namespace != "" {
			b.WriteString(a.Namespace)
			b.WriteByte(':')
		}
		b.WriteString(a.Key)
		b.WriteString(`="`)
		writeEscaped(b, a.Val)
		b.WriteByte('"')
	}
	b.WriteByte('>')
	if n.Namespace == "" && voidElements[n.Data] {
		return
	}
	if c := n.FirstChild; c != nil && c.Type == html.TextNode && strings.HasPrefix(c.Data, "\n") {
		switch n.Data {
		case "pre", "listing", "textarea":
			b.WriteByte('\n') // the parser drops a first newline there
		}
	}
	literal := n.Namespace == "" && rawTextElements[n.Data]
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if literal && c.Type == html.TextNode {
			b.WriteString(c.Data)
		} else {
			renderHTML(b, c)
		}
	}
	b.WriteString("</")
	b.WriteString(n.Data)
	b.WriteByte('>')
}

// GetAll returns Get of each result (Scrapy: SelectorList.getall()).
func GetAll(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Get()
	}
	return out
}

// Attrib returns the attributes of an element result in document order (Scrapy:
// Selector.attrib, which is a dict), and nil for text and attribute results. The slice is
// the document's own: callers must not modify it.
func (r Result) Attrib() []html.Attribute {
	if r.Kind != KindElement || r.Node == nil || r.Node.Type != html.ElementNode {
		return nil
	}
	return r.Node.Attr
}

// Text returns the concatenated text of all text nodes below an element result (including
// <script> and <style> contents, excluding comments), or the string of a text or attribute
// result. parsel has no such method; it saves a "::text" query and a join.
func (r Result) Text() string {
	if r.Kind != KindElement {
		return r.Value
	}
	if r.Node == nil {
		return ""
	}
	if c := r.Node.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
		return c.Data // common case: no copy
	}
	var b strings.Builder
	appendText(&b, r.Node)
	return b.String()
}

func appendText(b *strings.Builder, n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.WriteString(c.Data)
		case html.ElementNode:
			appendText(b, c)
		}
	}
}

// EachAttr calls fn with the name and value of each attribute of an element result, in
// document order, as parsel's attrib holds them. In an XML document names are as written,
// prefix included ("xml:lang"; lxml would show "{uri}lang"), and namespace declarations are
// left out. Text and attribute results have none.
func (r Result) EachAttr(fn func(name, value string)) {
	attrs := r.Attrib()
	if r.doc == nil || r.doc.xml == nil {
		for _, a := range attrs {
			fn(a.Key, a.Val)
		}
		return
	}
	for i, a := range attrs {
		if !isDeclaration(a.Key) {
			fn(r.doc.xml.attrQName(r.Node, i), a.Val)
		}
	}
}

// Document returns the document the result belongs to, or nil for a Result made by hand.
func (r Result) Document() *Document { return r.doc }
