package selector

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
)

// XPathError reports an XPath expression that does not compile or cannot be evaluated
// (parsel raises ValueError("XPath error: ... in <query>")).
type XPathError struct {
	Expr string // the expression as given
	Err  error  // what is wrong with it
}

// Error implements error: "XPath error: <reason> in <expr>", as parsel's message.
func (e *XPathError) Error() string { return fmt.Sprintf("XPath error: %v in %s", e.Err, e.Expr) }

// Unwrap returns the underlying error.
func (e *XPathError) Unwrap() error { return e.Err }

// maxFreeExprs bounds the idle compiled copies an XPathQuery keeps.
const maxFreeExprs = 16

// XPathQuery is a compiled XPath 1.0 expression (github.com/antchfx/xpath) with its
// namespace bindings. It is safe for concurrent use: the library keeps evaluation state
// in a compiled expression, so the query hands each evaluation a copy of its own from a
// free list and compiles a new one only when all are busy. Obtain one with CompileXPath.
type XPathQuery struct {
	src     string
	reorder bool // the expression may give nodes out of document order (unions, reverse axes)
	ns      map[string]string
	mu      sync.Mutex
	free    []*xpath.Expr
}

// String returns the expression as it was given.
func (q *XPathQuery) String() string { return q.src }

// xpathCompiles counts compilations of XPath expressions, for tests of the cache.
var xpathCompiles atomic.Int64

// xpathCache maps an expression plus namespace bindings to its *XPathQuery or error, with
// the same bound and reset policy as the CSS cache.
var xpathCache struct {
	m sync.Map // string → xpathEntry
	n atomic.Int64
}

type xpathEntry struct {
	q   *XPathQuery
	err error
}

// CompileXPath compiles expr, or returns it from a process-wide cache (bounded, safe for
// concurrent use), so a hot callback never recompiles it. namespaces binds the prefixes
// the expression may use (prefix → URI); "xml" is always bound. A prefix without a
// binding is an error, as in lxml. Errors are *XPathError.
func CompileXPath(expr string, namespaces map[string]string) (*XPathQuery, error) {
	key := expr
	if len(namespaces) > 0 {
		prefixes := make([]string, 0, len(namespaces))
		for p := range namespaces {
			prefixes = append(prefixes, p)
		}
		slices.Sort(prefixes)
		var b strings.Builder
		b.WriteString(expr)
		for _, p := range prefixes {
			b.WriteByte(0)
			b.WriteString(p)
			b.WriteByte('=')
			b.WriteString(namespaces[p])
		}
		key = b.String()
	}
	if v, ok := xpathCache.m.Load(key); ok {
		e, _ := v.(xpathEntry) // only xpathEntry values are stored
		return e.q, e.err
	}
	ns := map[string]string{"xml": xmlNamespace, "re": exsltRegexNS, "set": exsltSetsNS}
	for p, u := range namespaces {
		ns[p] = u
	}
	q := &XPathQuery{src: expr, ns: ns,
		reorder: strings.Contains(expr, "|") || strings.Contains(expr, "ancestor") || strings.Contains(expr, "preceding")}
	e, err := q.compile()
	if err != nil {
		q = nil
	} else {
		q.free = append(q.free, e)
	}
	if xpathCache.n.Add(1) > cacheLimit {
		xpathCache.m.Clear()
		xpathCache.n.Store(1)
	}
	xpathCache.m.Store(key, xpathEntry{q, err})
	return q, err
}

func (q *XPathQuery) compile() (e *xpath.Expr, err error) {
	xpathCompiles.Add(1)
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error) // an extension function's error keeps its chain (ErrMatchTimeout)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = &XPathError{Expr: q.src, Err: e}
		}
	}()
	if strings.TrimSpace(q.src) == "" {
		return nil, &XPathError{Expr: q.src, Err: fmt.Errorf("empty expression")}
	}
	e, err = xpath.CompileWithFunctions(q.src, q.ns, xpathFuncs)
	if err != nil {
		return nil, &XPathError{Expr: q.src, Err: err}
	}
	return e, nil
}

func (q *XPathQuery) get() *xpath.Expr {
	q.mu.Lock()
	if n := len(q.free); n > 0 {
		e := q.free[n-1]
		q.free = q.free[:n-1]
		q.mu.Unlock()
		return e
	}
	q.mu.Unlock()
	e, _ := q.compile() // compiled once without error already
	return e
}

func (q *XPathQuery) put(e *xpath.Expr) {
	q.mu.Lock()
	if len(q.free) < maxFreeExprs {
		q.free = append(q.free, e)
	}
	q.mu.Unlock()
}

// XPath runs expr on each element of in and concatenates the results (Scrapy:
// SelectorList.xpath). Text and attribute results in in are skipped, as parsel returns
// nothing for xpath() on a string. The expression is compiled through CompileXPath's cache.
func XPath(in []Result, expr string, namespaces map[string]string) ([]Result, error) {
	q, err := CompileXPath(expr, namespaces)
	if err != nil {
		return nil, err
	}
	return q.Select(in...)
}

// XPath runs expr from the document's root element, as response.xpath(expr) does. For
// prefixes and namespaces use the package-level XPath or CompileXPath.
func (d *Document) XPath(expr string) ([]Result, error) {
	return XPath([]Result{d.Root()}, expr, nil)
}

// Select evaluates q from each element of in (text and attribute results are skipped) and
// concatenates the results, as parsel:
//   - a node-set gives its nodes in document order: elements (and comments) as
//     KindElement, text nodes as KindText, attributes as KindAttr whose Value is the
//     attribute's value;
//   - a string gives one KindText result with a nil Node;
//   - a number gives one such result written as Python's str(float): "1.0", "0.5", "nan",
//     "1e+16";
//   - a boolean gives "1" or "0".
//
// The context of a document's Root is its root element; "/" is the document node. In an
// XML document an unprefixed name test matches elements in no namespace only (XPath 1.0):
// bind a prefix to a default namespace, or call RemoveNamespaces. A consequence of the
// library's name matching: name() of an element in a default namespace is "*:local"
// (local-name() is right). An evaluation error is an *XPathError. Safe for concurrent use.
func (q *XPathQuery) Select(in ...Result) ([]Result, error) {
	return q.SelectWithin(0, in...)
}

// SelectWithin is Select whose EXSLT regular expressions (re:test, re:match, re:replace)
// are each bounded by within too (see Regex.Within; 0: by the match timeout only).
func (q *XPathQuery) SelectWithin(within time.Duration, in ...Result) ([]Result, error) {
	e := q.get()
	defer q.put(e)
	var out []Result
	for _, r := range in {
		if r.Kind != KindElement || r.Node == nil {
			continue
		}
		var err error
		if out, err = q.eval(e, out, r, within); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (q *XPathQuery) eval(e *xpath.Expr, out []Result, ctx Result, within time.Duration) (_ []Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error) // an extension function's error keeps its chain (ErrMatchTimeout)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = &XPathError{Expr: q.src, Err: e}
		}
	}()
	nav := &navigator{doc: ctx.doc, curr: ctx.Node, attr: -1, within: within}
	if ctx.doc != nil {
		nav.x = ctx.doc.xml
	}
	switch v := e.Evaluate(nav).(type) {
	case *xpath.NodeIterator:
		start := len(out)
		var attrs []int // attribute index of each result, when they may need sorting
		for v.MoveNext() {
			n, ok := v.Current().(*navigator)
			if !ok {
				if s, ok := v.Current().(*nsNavigator); ok {
					// A namespace node (namespace:: axis): its URI, as a string result.
					out = append(out, Result{Value: s.uri, Kind: KindText, doc: ctx.doc})
					if q.reorder {
						attrs = append(attrs, -1)
					}
				}
				continue
			}
			out = append(out, n.result())
			if q.reorder {
				attrs = append(attrs, n.attr)
			}
		}
		if q.reorder && ctx.doc != nil && len(out)-start > 1 {
			out = append(out[:start], ctx.doc.inOrder(out[start:], attrs)...)
		}
	case string:
		out = append(out, Result{Value: v, Kind: KindText, doc: ctx.doc})
	case float64:
		out = append(out, Result{Value: pyFloat(v), Kind: KindText, doc: ctx.doc})
	case bool:
		s := "0"
		if v {
			s = "1"
		}
		out = append(out, Result{Value: s, Kind: KindText, doc: ctx.doc})
	default:
		return nil, &XPathError{Expr: q.src, Err: fmt.Errorf("unexpected result of type %T", v)}
	}
	return out, nil
}

// pyFloat formats f as Python's str(float), which parsel uses for XPath numbers.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// repr switches to exponent notation below 1e-4 and from 1e16.
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64) // "1e+16", "1.5e-05", as Python
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// inOrder sorts node results into document order and drops duplicates, as lxml returns
// node-sets (antchfx/xpath gives a union in operand order).
// attrs holds the attribute index of each result (-1: not an attribute).
func (d *Document) inOrder(rs []Result, attrs []int) []Result {
	d.orderOnce.Do(func() {
		d.order = map[*html.Node]int{}
		i := 0
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			d.order[n] = i
			i++
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(d.node)
	})
	type keyed struct {
		r       Result
		pos, at int
	}
	ks := make([]keyed, len(rs))
	for i, r := range rs {
		ks[i] = keyed{r, d.order[r.Node], attrs[i]}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return a.at - b.at
	})
	out := rs[:0]
	for i, k := range ks {
		if i > 0 && k.pos == ks[i-1].pos && k.at == ks[i-1].at && k.r.Node != nil {
			continue
		}
		out = append(out, k.r)
	}
	return out
}

// defaultNSPrefix is what Prefix returns for an element in a default namespace, so that
// an unprefixed name test (which antchfx/xpath matches on an empty prefix) does not match
// it, as in XPath 1.0.
const defaultNSPrefix = "*"

// navigator is an xpath.NodeNavigator over the html.Node tree of a Document, HTML or XML.
// Doctype nodes are invisible; in XML documents so are namespace declarations.
type navigator struct {
	doc  *Document
	x    *xmlInfo // nil for HTML documents
	curr *html.Node
	attr int // index in curr.Attr, or -1 when on curr itself
	// within bounds the regular expressions of the EXSLT functions (SelectWithin).
	within time.Duration
}

func (n *navigator) result() Result {
	switch {
	case n.attr >= 0:
		return Result{Node: n.curr, Value: n.curr.Attr[n.attr].Val, Kind: KindAttr, doc: n.doc}
	case n.curr.Type == html.TextNode:
		return Result{Node: n.curr, Value: n.curr.Data, Kind: KindText, doc: n.doc}
	}
	return Result{Node: n.curr, Kind: KindElement, doc: n.doc}
}

func visible(n *html.Node) bool {
	switch n.Type {
	case html.ElementNode, html.TextNode, html.CommentNode:
		return true
	}
	return false
}

func (n *navigator) hiddenAttr(i int) bool { return n.x != nil && isDeclaration(n.curr.Attr[i].Key) }

func (n *navigator) NodeType() xpath.NodeType {
	if n.attr >= 0 {
		return xpath.AttributeNode
	}
	switch n.curr.Type {
	case html.DocumentNode:
		return xpath.RootNode
	case html.ElementNode:
		return xpath.ElementNode
	case html.TextNode:
		return xpath.TextNode
	}
	return xpath.CommentNode
}

func (n *navigator) LocalName() string {
	if n.attr >= 0 {
		if n.x != nil {
			_, l, _ := n.x.attrName(n.curr, n.attr)
			return l
		}
		return n.curr.Attr[n.attr].Key
	}
	if n.curr.Type != html.ElementNode {
		return ""
	}
	if n.x != nil {
		_, l := n.x.elemName(n.curr)
		return l
	}
	return n.curr.Data
}

func (n *navigator) Prefix() string {
	if n.attr >= 0 {
		if n.x != nil {
			p, _, _ := n.x.attrName(n.curr, n.attr)
			return p
		}
		return n.curr.Attr[n.attr].Namespace
	}
	if n.curr.Type != html.ElementNode || n.x == nil {
		return ""
	}
	p, _ := n.x.elemName(n.curr)
	if p == "" && n.curr.Namespace != "" && !n.x.noNS.Load() {
		return defaultNSPrefix
	}
	return p
}

// NamespaceURL returns the namespace URI of an XML element or attribute (antchfx/xpath
// uses it for prefixed name tests and namespace-uri()).
func (n *navigator) NamespaceURL() string {
	if n.x == nil || n.x.noNS.Load() {
		return ""
	}
	if n.attr >= 0 {
		_, _, u := n.x.attrName(n.curr, n.attr)
		return u
	}
	if n.curr.Type != html.ElementNode {
		return ""
	}
	return n.curr.Namespace
}

func (n *navigator) Value() string {
	if n.attr >= 0 {
		return n.curr.Attr[n.attr].Val
	}
	switch n.curr.Type {
	case html.TextNode, html.CommentNode:
		return n.curr.Data
	}
	return Result{Node: n.curr, Kind: KindElement}.Text()
}

func (n *navigator) Copy() xpath.NodeNavigator {
	c := *n
	return &c
}

func (n *navigator) MoveToRoot() {
	n.attr = -1
	for n.curr.Parent != nil {
		n.curr = n.curr.Parent
	}
}

func (n *navigator) MoveToParent() bool {
	if n.attr >= 0 {
		n.attr = -1
		return true
	}
	if p := n.curr.Parent; p != nil {
		n.curr = p
		return true
	}
	return false
}

func (n *navigator) MoveToNextAttribute() bool {
	if n.curr.Type != html.ElementNode {
		return false
	}
	for i := n.attr + 1; i < len(n.curr.Attr); i++ {
		if !n.hiddenAttr(i) {
			n.attr = i
			return true
		}
	}
	return false
}

func (n *navigator) MoveToChild() bool {
	if n.attr >= 0 {
		return false
	}
	for c := n.curr.FirstChild; c != nil; c = c.NextSibling {
		if visible(c) {
			n.curr = c
			return true
		}
	}
	return false
}

func (n *navigator) MoveToFirst() bool {
	if n.attr >= 0 {
		return false
	}
	var first *html.Node
	for s := n.curr.PrevSibling; s != nil; s = s.PrevSibling {
		if visible(s) {
			first = s
		}
	}
	if first == nil {
		return false
	}
	n.curr = first
	return true
}

func (n *navigator) MoveToNext() bool {
	if n.attr >= 0 {
		return false
	}
	for s := n.curr.NextSibling; s != nil; s = s.NextSibling {
		if visible(s) {
			n.curr = s
			return true
		}
	}
	return false
}

func (n *navigator) MoveToPrevious() bool {
	if n.attr >= 0 {
		return false
	}
	for s := n.curr.PrevSibling; s != nil; s = s.PrevSibling {
		if visible(s) {
			n.curr = s
			return true
		}
	}
	return false
}

func (n *navigator) MoveTo(other xpath.NodeNavigator) bool {
	o, ok := other.(*navigator)
	if !ok || o.doc != n.doc {
		return false
	}
	*n = *o
	return true
}

// Interface guards
var _ xpath.NodeNavigator = (*navigator)(nil)
