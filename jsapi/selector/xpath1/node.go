// Package xpath1 is jscrawl's XPath 1.0 engine (W3C XPath 1.0 Recommendation): a lexer and
// parser for the whole grammar, all 13 axes, the core function library and an extension
// function registry, evaluated over golang.org/x/net/html node trees, which both of the
// selector's document models (HTML, and XML as parsed by jsapi/selector) are built of.
//
// Compile an expression once (Compile), then evaluate it many times, from any number of
// goroutines (Expr.Evaluate). A Model tells the engine what each html.Node is and what it
// is called, so one tree type serves HTML (HTML, in this package) and namespaced XML.
// Scrapy's parsel runs XPath through lxml (libxml2); messages and results follow lxml
// where parsel's tests check them.
package xpath1

import (
	"strings"

	"golang.org/x/net/html"
)

// Kind is the XPath node type of a node (XPath 1.0 §5, the data model).
type Kind uint8

// The node kinds. KindNone marks an html.Node the engine must not see (a doctype, an
// unresolved entity reference): no axis returns it.
const (
	KindNone Kind = iota
	KindRoot
	KindElement
	KindAttribute
	KindText
	KindNamespace
	KindPI
	KindComment
)

var kindNames = [...]string{"none", "root", "element", "attribute", "text", "namespace", "processing-instruction", "comment"}

// String returns the kind's name as XPath spells it ("element", "processing-instruction").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Node is a handle to one XPath node: the html.Node N itself, one of its attributes, or one
// of its namespace nodes. It is a small comparable value, so node-sets are plain slices
// and two handles to the same node are ==.
type Node struct {
	// N is the tree node: the node itself, or the element that owns the attribute or
	// namespace node.
	N *html.Node
	// A selects the node: -1 for N itself, i >= 0 for attribute N.Attr[i], and -2-k for
	// namespace node k of N as Model.Namespaces lists them.
	A int32
}

// NodeOf returns the handle of tree node n itself.
func NodeOf(n *html.Node) Node { return Node{N: n, A: -1} }

// AttrOf returns the handle of attribute i of element n.
func AttrOf(n *html.Node, i int) Node { return Node{N: n, A: int32(i)} }

// IsAttr reports whether n is an attribute node.
func (n Node) IsAttr() bool { return n.A >= 0 }

// IsNamespace reports whether n is a namespace node.
func (n Node) IsNamespace() bool { return n.A <= -2 }

// nsIndex returns the index of a namespace node in Model.Namespaces.
func (n Node) nsIndex() int { return int(-2 - n.A) }

// Namespace is a namespace binding in scope of an element: a namespace node's name
// (Prefix, "" for the default namespace) and value (URI).
type Namespace struct {
	Prefix, URI string
}

// Model tells the engine what the html.Nodes of one document are. Implementations must be
// safe for concurrent use (evaluations of one document may run in parallel) and cheap: the
// engine calls Kind on every node an axis passes.
//
// The HTML model (HTML) is in this package; the XML model, whose names live in
// jsapi/selector's xmlInfo, implements Model there.
type Model interface {
	// Kind returns the node type of tree node n (never an attribute or namespace node);
	// KindNone hides n and its subtree from every axis. The string-value of a text,
	// comment or processing-instruction node is its Data (for a processing instruction
	// the data after the target, as XPath 1.0 §5.5 says).
	Kind(n *html.Node) Kind
	// Name returns the expanded name of element n (prefix as written, local name,
	// namespace URI), or for a processing instruction its target as local.
	Name(n *html.Node) (prefix, local, uri string)
	// Attr returns the name of attribute i of element n, and ok false for an attribute
	// that is not an XPath attribute node (a namespace declaration in XML).
	Attr(n *html.Node, i int) (prefix, local, uri string, ok bool)
	// Namespaces returns the namespace nodes of element n in a fixed order: the xml
	// namespace first, then the bindings in scope. The same n must give the same list.
	Namespaces(n *html.Node) []Namespace
	// IsID reports whether attribute i of element n is of type ID, for id().
	IsID(n *html.Node, i int) bool
}

// XMLNamespace is the URI bound to the reserved prefix xml.
const XMLNamespace = "http://www.w3.org/XML/1998/namespace"

// HTML is the model of an HTML document parsed by golang.org/x/net/html, as lxml's HTML
// parser presents it to XPath: elements and attributes have no namespace (an element's
// name is its lower-case tag name, SVG's and MathML's included), doctypes are invisible,
// the only namespace node is xml's, and id attributes are IDs. There are no processing
// instructions: x/net/html parses "<?php ... ?>" as a comment, as HTML5 does (lxml's HTML
// parser makes it a processing instruction).
var HTML Model = htmlModel{}

type htmlModel struct{}

func (htmlModel) Kind(n *html.Node) Kind { return NodeKind(n) }

// NodeKind returns the kind that n's html.NodeType alone gives it: an element, text, the
// root or a comment, and KindNone for any other node (a doctype, a raw node). Both of the
// selector's document models start from it; the XML model adds its processing
// instructions.
func NodeKind(n *html.Node) Kind {
	switch n.Type {
	case html.ElementNode:
		return KindElement
	case html.TextNode:
		return KindText
	case html.DocumentNode:
		return KindRoot
	case html.CommentNode:
		return KindComment
	}
	return KindNone
}

func (htmlModel) Name(n *html.Node) (prefix, local, uri string) { return "", n.Data, "" }

func (htmlModel) Attr(n *html.Node, i int) (prefix, local, uri string, ok bool) {
	a := &n.Attr[i]
	return a.Namespace, a.Key, "", true
}

var htmlNamespaces = []Namespace{{"xml", XMLNamespace}}

func (htmlModel) Namespaces(*html.Node) []Namespace { return htmlNamespaces }

func (htmlModel) IsID(n *html.Node, i int) bool {
	a := &n.Attr[i]
	return a.Namespace == "" && strings.EqualFold(a.Key, "id")
}

// Interface guards
var _ Model = htmlModel{}
