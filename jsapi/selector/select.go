package selector

import (
	"slices"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Select runs query on each element of in and concatenates the results (Scrapy:
// SelectorList.css). Text and attribute results in in are skipped, as parsel returns an empty
// list for css() on a string result. The query is compiled through Compile's cache; an
// invalid query returns a *SyntaxError.
func Select(in []Result, query string) ([]Result, error) {
	q, err := Compile(query)
	if err != nil {
		return nil, err
	}
	return q.Select(in...), nil
}

// Select runs q on each element of in and concatenates the results; see the package
// documentation for the semantics. It is safe for concurrent use.
func (q *Query) Select(in ...Result) []Result {
	var out []Result
	elemOnly := q.textOwn|q.textDeep|q.attrOwn|q.attrDeep == 0
	for _, r := range in {
		if r.Kind != KindElement || r.Node == nil {
			continue
		}
		if elemOnly {
			out = q.appendElements(out, r.Node, r.doc)
		} else {
			out = q.appendFrom(out, r.Node, r.doc)
		}
	}
	return out
}

// appendElements is appendFrom for a query without pseudo-elements: its results are
// elements, found through goquery (Selection.FindMatcher with q, compiled once, as the
// Matcher), so they are the very nodes of the goquery Document. Queries with ::text or
// ::attr() take appendFrom's walk, as a goquery Selection holds nodes, not attribute values.
func (q *Query) appendElements(out []Result, ctx *html.Node, doc *Document) []Result {
	buf := scratchPool.Get().(*[]*html.Node)
	defer scratchPool.Put(buf)
	m := scopedMatcher{q: q, scratch: buf}
	var sel *goquery.Selection
	var self, sibs []*html.Node
	if ctx.Type == html.DocumentNode {
		if doc != nil && doc.node == ctx {
			sel = doc.gq.Selection
		} else {
			sel = &goquery.Selection{Nodes: []*html.Node{ctx}}
		}
	} else {
		m.scope, m.check = ctx, q.siblings
		// parsel's css() is descendant-or-self (descendant-or-self::X): the context
		// element itself comes first; FindMatcher looks below it.
		self = m.collect(ctx, self, false)
		sel = &goquery.Selection{Nodes: []*html.Node{ctx}}
		if q.siblings {
			// "X + Y" with X = ctx selects ctx's following siblings (see appendFrom).
			for s := ctx.NextSibling; s != nil; s = s.NextSibling {
				sibs = m.collect(s, sibs, true)
			}
		}
	}
	found := sel.FindMatcher(m).Nodes
	out = slices.Grow(out, len(self)+len(found)+len(sibs))
	for _, ns := range [3][]*html.Node{self, found, sibs} {
		for _, n := range ns {
			out = append(out, Result{Node: n, Kind: KindElement, doc: doc})
		}
	}
	return out
}

// Matcher returns q's element results as a goquery.Matcher, for Selection.FindMatcher,
// Filter, Is and the like on Document.Goquery's Selections. Its scope is the whole document
// (the standard CSS meaning, as cascadia's); pseudo-element groups match nothing. It wraps
// the compiled q, so it costs nothing to make.
func (q *Query) Matcher() goquery.Matcher { return scopedMatcher{q: q} }

// scopedMatcher is a compiled Query as a goquery.Matcher for its element results, scoped
// as parsel scopes a query run from an element (see matchAt). It is two words, made per
// call around the cached Query: nothing is recompiled.
type scopedMatcher struct {
	q     *Query
	scope *html.Node // context element; nil for the document
	check bool       // whether a match must verify that its leftmost node is within scope

	// scratch, when set, holds MatchAll's result, valid only until the next call:
	// FindMatcher copies each result at once. Matcher leaves it nil.
	scratch *[]*html.Node
}

// scratchPool recycles the buffers of scopedMatcher.scratch.
var scratchPool = sync.Pool{New: func() any { return new([]*html.Node) }}

func (m scopedMatcher) eval() evaluation {
	return evaluation{q: m.q, scope: m.scope, check: m.check}
}

// Match implements goquery.Matcher: whether element n is an element result of the query.
func (m scopedMatcher) Match(n *html.Node) bool {
	e := m.eval()
	return n.Type == html.ElementNode && e.match(n)&m.q.elem != 0
}

// MatchAll implements goquery.Matcher: the element results in n's subtree, n included, in
// document order.
func (m scopedMatcher) MatchAll(n *html.Node) []*html.Node {
	if m.scratch == nil {
		return m.collect(n, nil, true)
	}
	*m.scratch = m.collect(n, (*m.scratch)[:0], true)
	return *m.scratch
}

// Filter implements goquery.Matcher: the nodes of ns that Match.
func (m scopedMatcher) Filter(ns []*html.Node) []*html.Node {
	var out []*html.Node
	for _, n := range ns {
		if m.Match(n) {
			out = append(out, n)
		}
	}
	return out
}

// collect appends n, if it is an element result, and, when deep, the element results
// below it, in document order.
func (m scopedMatcher) collect(n *html.Node, dst []*html.Node, deep bool) []*html.Node {
	e := m.eval()
	return e.collect(n, dst, deep)
}

func (e *evaluation) collect(n *html.Node, dst []*html.Node, deep bool) []*html.Node {
	if n.Type != html.ElementNode {
		return dst
	}
	if e.match(n)&e.q.elem != 0 {
		dst = append(dst, n)
	}
	if deep {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			dst = e.collect(c, dst, true)
		}
	}
	return dst
}

// evaluation is the state of one walk of the tree below one context node.
type evaluation struct {
	q     *Query
	scope *html.Node // context element; nil when the context is the document node
	check bool       // whether a match must verify that its leftmost node is within scope
	out   []Result
	deep  uint64    // q.textDeep | q.attrDeep
	doc   *Document // recorded in every result
}

// appendFrom appends the results of q from the context node ctx to out, in document order
// and without duplicates. It visits each candidate node once and tests every comma group on
// it, so a union needs no sorting.
func (q *Query) appendFrom(out []Result, ctx *html.Node, doc *Document) []Result {
	e := evaluation{q: q, out: out, deep: q.textDeep | q.attrDeep, doc: doc}
	if ctx.Type == html.DocumentNode {
		for c := ctx.FirstChild; c != nil; c = c.NextSibling {
			e.visit(c, 0, 0)
		}
		return e.out
	}
	e.scope = ctx
	// Without sibling combinators the walk never leaves ctx's subtree and a match never
	// climbs above ctx, so its leftmost node is within scope by construction.
	e.check = q.siblings
	e.visit(ctx, 0, 0)
	if q.siblings {
		// "X + Y" with X = ctx selects ctx's following siblings (and "X + Y Z" their
		// descendants), as parsel's descendant-or-self::X/following-sibling::Y does.
		for s := ctx.NextSibling; s != nil; s = s.NextSibling {
			e.visit(s, 0, 0)
		}
	}
	return e.out
}

// visit handles n and its subtree. parent is the set of groups matched by n's parent
// element; above is the set of deep (" ::text", " ::attr()") groups matched by any
// ancestor element of n within the walk.
func (e *evaluation) visit(n *html.Node, parent, above uint64) {
	q := e.q
	switch n.Type {
	case html.TextNode:
		if parent&q.textOwn != 0 || above&q.textDeep != 0 {
			e.out = append(e.out, Result{Node: n, Value: n.Data, Kind: KindText, doc: e.doc})
		}
	case html.ElementNode:
		m := e.match(n)
		if m&q.elem != 0 {
			e.out = append(e.out, Result{Node: n, Kind: KindElement, doc: e.doc})
		}
		self := above | m&e.deep
		if attrs := m&q.attrOwn | self&q.attrDeep; attrs != 0 && len(n.Attr) > 0 {
			e.appendAttrs(n, attrs)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			e.visit(c, m, self)
		}
	}
}

// appendAttrs appends, in document order, the attributes of n named by the groups in mask.
func (e *evaluation) appendAttrs(n *html.Node, mask uint64) {
	gs := e.q.groups
	for _, a := range n.Attr {
		for i := range gs {
			if mask&(1<<i) == 0 {
				continue
			}
			if attrNamed(a, gs[i].attr) {
				e.out = append(e.out, Result{Node: n, Value: a.Val, Kind: KindAttr, doc: e.doc})
				break
			}
		}
	}
}

// attrNamed reports whether a is the attribute name (lower case): names compare ASCII
// case-insensitively, as lxml lower-cases them all (SVG's viewBox included), and a
// namespaced attribute such as xlink:href is named with its prefix.
func attrNamed(a html.Attribute, name string) bool {
	if a.Namespace == "" {
		return len(a.Key) == len(name) && (a.Key == name || strings.EqualFold(a.Key, name))
	}
	ns := a.Namespace
	return len(name) == len(ns)+1+len(a.Key) && name[len(ns)] == ':' &&
		strings.EqualFold(name[:len(ns)], ns) && strings.EqualFold(name[len(ns)+1:], a.Key)
}

// match returns the set of groups whose selector matches element n.
func (e *evaluation) match(n *html.Node) uint64 {
	var m uint64
	for i := range e.q.groups {
		g := &e.q.groups[i]
		if e.matchAt(g, n, len(g.sels)-1) {
			m |= 1 << i
		}
	}
	return m
}

// matchAt reports whether element n matches g.sels[i] and, through the combinators to its
// left, g.sels[:i], with the leftmost node in descendant-or-self of e.scope. It never climbs
// above the scope nor steps to its siblings: parsel's XPath cannot reach them.
func (e *evaluation) matchAt(g *group, n *html.Node, i int) bool {
	if s := g.sels[i]; s != nil && !s.Match(n) {
		return false
	}
	if i == 0 {
		return !e.check || within(n, e.scope)
	}
	if n == e.scope {
		return false
	}
	switch g.combs[i] {
	case ' ':
		for p := n.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
			if e.matchAt(g, p, i-1) {
				return true
			}
			if p == e.scope {
				break
			}
		}
	case '>':
		if p := n.Parent; p != nil && p.Type == html.ElementNode {
			return e.matchAt(g, p, i-1)
		}
	case '+':
		if p := prevElement(n); p != nil {
			return e.matchAt(g, p, i-1)
		}
	case '~':
		for p := prevElement(n); p != nil; p = prevElement(p) {
			if e.matchAt(g, p, i-1) {
				return true
			}
		}
	}
	return false
}

// within reports whether n is scope or one of its descendants.
func within(n, scope *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == scope {
			return true
		}
	}
	return false
}

func prevElement(n *html.Node) *html.Node {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode {
			return p
		}
	}
	return nil
}
