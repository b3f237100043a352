package selector

import (
	"strings"

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
	for _, r := range in {
		if r.Kind != KindElement || r.Node == nil {
			continue
		}
		out = q.appendFrom(out, r.Node, r.doc)
	}
	return out
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
