package xpath1_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/antchfx/xpath"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"golang.org/x/net/html"
)

// antchfxSelect evaluates src with the upstream, unmodified github.com/antchfx/xpath (a
// test-only dependency, for the differential test and the benchmark) from context node
// ctx of an HTML tree, and converts the result as jsapi/selector did when it used that
// library: node-sets as Results, sorted into document order without duplicates only when
// the expression has a union or a reverse axis; numbers, strings and booleans as one
// KindText result ("1"/"0" for booleans).
func antchfxSelect(ctx *html.Node, src string) ([]selector.Result, error) {
	e, err := xpath.Compile(src)
	if err != nil {
		return nil, err
	}
	return antchfxEval(e, ctx, strings.Contains(src, "|") || strings.Contains(src, "ancestor") || strings.Contains(src, "preceding"))
}

func antchfxEval(e *xpath.Expr, ctx *html.Node, reorder bool) (out []selector.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("antchfx panicked: %v", r)
		}
	}()
	switch v := e.Evaluate(&htmlNav{curr: ctx, attr: -1}).(type) {
	case *xpath.NodeIterator:
		for v.MoveNext() {
			n := v.Current().(*htmlNav)
			out = append(out, n.result())
		}
		if reorder {
			out = inDocOrder(out)
		}
	case string:
		out = append(out, selector.Result{Value: v, Kind: selector.KindText})
	case float64:
		out = append(out, selector.Result{Value: strconv.FormatFloat(v, 'g', -1, 64), Kind: selector.KindText})
	case bool:
		s := "0"
		if v {
			s = "1"
		}
		out = append(out, selector.Result{Value: s, Kind: selector.KindText})
	default:
		return nil, fmt.Errorf("unexpected result of type %T", v)
	}
	return out, nil
}

// inDocOrder sorts results into document order (an element's attributes after it, in
// their order) and drops duplicates.
func inDocOrder(rs []selector.Result) []selector.Result {
	if len(rs) < 2 {
		return rs
	}
	root := rs[0].Node
	for root.Parent != nil {
		root = root.Parent
	}
	order := map[*html.Node]int{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		order[n] = len(order)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	attrIndex := func(r selector.Result) int {
		if r.Kind != selector.KindAttr {
			return -1
		}
		for i, a := range r.Node.Attr {
			if a.Val == r.Value {
				return i
			}
		}
		return math.MaxInt
	}
	type keyed struct {
		r       selector.Result
		pos, at int
	}
	ks := make([]keyed, len(rs))
	for i, r := range rs {
		ks[i] = keyed{r, order[r.Node], attrIndex(r)}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return a.at - b.at
	})
	out := rs[:0]
	for i, k := range ks {
		if i > 0 && k.pos == ks[i-1].pos && k.at == ks[i-1].at {
			continue
		}
		out = append(out, k.r)
	}
	return out
}

// htmlNav is an xpath.NodeNavigator over an HTML html.Node tree: elements, text and
// comments are visible, doctypes are not, attributes are their own nodes.
type htmlNav struct {
	curr *html.Node
	attr int // index in curr.Attr, or -1 when on curr itself
}

func (n *htmlNav) result() selector.Result {
	switch {
	case n.attr >= 0:
		return selector.Result{Node: n.curr, Value: n.curr.Attr[n.attr].Val, Kind: selector.KindAttr}
	case n.curr.Type == html.TextNode:
		return selector.Result{Node: n.curr, Value: n.curr.Data, Kind: selector.KindText}
	}
	return selector.Result{Node: n.curr, Kind: selector.KindElement}
}

func navVisible(n *html.Node) bool {
	switch n.Type {
	case html.ElementNode, html.TextNode, html.CommentNode:
		return true
	}
	return false
}

func (n *htmlNav) NodeType() xpath.NodeType {
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

func (n *htmlNav) LocalName() string {
	if n.attr >= 0 {
		return n.curr.Attr[n.attr].Key
	}
	if n.curr.Type != html.ElementNode {
		return ""
	}
	return n.curr.Data
}

func (n *htmlNav) Prefix() string {
	if n.attr >= 0 {
		return n.curr.Attr[n.attr].Namespace
	}
	return ""
}

func (n *htmlNav) Value() string {
	if n.attr >= 0 {
		return n.curr.Attr[n.attr].Val
	}
	switch n.curr.Type {
	case html.TextNode, html.CommentNode:
		return n.curr.Data
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		for d := c.FirstChild; d != nil; d = d.NextSibling {
			if d.Type == html.ElementNode || d.Type == html.TextNode {
				walk(d)
			}
		}
	}
	walk(n.curr)
	return b.String()
}

func (n *htmlNav) Copy() xpath.NodeNavigator {
	c := *n
	return &c
}

func (n *htmlNav) MoveToRoot() {
	n.attr = -1
	for n.curr.Parent != nil {
		n.curr = n.curr.Parent
	}
}

func (n *htmlNav) MoveToParent() bool {
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

func (n *htmlNav) MoveToNextAttribute() bool {
	if n.curr.Type != html.ElementNode || n.attr+1 >= len(n.curr.Attr) {
		return false
	}
	n.attr++
	return true
}

func (n *htmlNav) MoveToChild() bool {
	if n.attr >= 0 {
		return false
	}
	for c := n.curr.FirstChild; c != nil; c = c.NextSibling {
		if navVisible(c) {
			n.curr = c
			return true
		}
	}
	return false
}

func (n *htmlNav) MoveToFirst() bool {
	if n.attr >= 0 {
		return false
	}
	var first *html.Node
	for s := n.curr.PrevSibling; s != nil; s = s.PrevSibling {
		if navVisible(s) {
			first = s
		}
	}
	if first == nil {
		return false
	}
	n.curr = first
	return true
}

func (n *htmlNav) MoveToNext() bool {
	if n.attr >= 0 {
		return false
	}
	for s := n.curr.NextSibling; s != nil; s = s.NextSibling {
		if navVisible(s) {
			n.curr = s
			return true
		}
	}
	return false
}

func (n *htmlNav) MoveToPrevious() bool {
	if n.attr >= 0 {
		return false
	}
	for s := n.curr.PrevSibling; s != nil; s = s.PrevSibling {
		if navVisible(s) {
			n.curr = s
			return true
		}
	}
	return false
}

func (n *htmlNav) MoveTo(other xpath.NodeNavigator) bool {
	o, ok := other.(*htmlNav)
	if !ok {
		return false
	}
	*n = *o
	return true
}

// Interface guards
var _ xpath.NodeNavigator = (*htmlNav)(nil)
