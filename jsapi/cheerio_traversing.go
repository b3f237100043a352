package jsapi

// The traversal methods of a Cheerio object (cheerio's src/api/traversing.ts), in Go.

import (
	"slices"
	"strconv"

	"github.com/dop251/goja"
	"golang.org/x/net/html"
)

// cheerioMethods are the methods of a Cheerio object (its prototype), on this. The
// traversal methods are here, the attribute and rendering ones in cheerio_attrs.go.
type cheerioMethods struct{ st *vmState }

// filterFunc is what cheerio's AcceptedFilters become: a test of a node at an index.
type filterFunc func(n *html.Node, i int) (bool, error)

// filterOf makes the test of a filter argument: a selector (elements that match), a
// function (i, el) called with this = el (truthy keeps), an element or a Cheerio object
// (those nodes). cheerio's getFilterFn and filterArray.
func (d *cheerioDoc) filterOf(v goja.Value) (filterFunc, error) {
	if goja.IsString(v) {
		m, err := matcher(v.String())
		if err != nil {
			return nil, err
		}
		return func(n *html.Node, _ int) (bool, error) { return isElem(n) && m.Match(n), nil }, nil
	}
	if fn, ok := goja.AssertFunction(v); ok {
		return func(n *html.Node, i int) (bool, error) {
			h := d.handle(n)
			r, err := fn(h, d.st.rt.ToValue(i), h)
			if err != nil {
				return false, err
			}
			return r.ToBoolean(), nil
		}, nil
	}
	set := nodesOf(v)
	return func(n *html.Node, _ int) (bool, error) { return slices.Contains(set, n), nil }, nil
}

// filterNodes keeps the nodes f accepts (keep) or those it rejects (!keep).
func filterNodes(nodes []*html.Node, f filterFunc, keep bool) ([]*html.Node, error) {
	var out []*html.Node
	for i, n := range nodes {
		ok, err := f(n, i)
		if err != nil {
			return nil, err
		}
		if ok == keep {
			out = append(out, n)
		}
	}
	return out, nil
}

// derive makes the Cheerio object of nodes derived from this one.
func derive(c *jsCheerio, call goja.FunctionCall, nodes []*html.Node) goja.Value {
	return c.d.make(nodes, call.This)
}

// matched is cheerio's _getMatcher: the nodes fn gives for each node of c, filtered by the
// optional selector arg, then post-processed (post) when c holds more than one node.
func matched(c *jsCheerio, call goja.FunctionCall, arg goja.Value, fn func(n *html.Node, out []*html.Node) []*html.Node, post func([]*html.Node) []*html.Node) (goja.Value, error) {
	nodes := c.nodeList()
	var out []*html.Node
	for _, n := range nodes {
		out = fn(n, out)
	}
	if !isNil(arg) {
		f, err := c.d.filterOf(arg)
		if err != nil {
			return nil, err
		}
		if out, err = filterNodes(out, f, true); err != nil {
			return nil, err
		}
	}
	if post != nil && len(nodes) > 1 && len(out) > 1 {
		out = post(out)
	}
	return derive(c, call, out), nil
}

// reverseSorted is uniqueSort then reversed (parents(): closest ancestors last in
// document order become first).
func reverseSorted(nodes []*html.Node) []*html.Node {
	nodes = uniqueSort(nodes)
	slices.Reverse(nodes)
	return nodes
}

// parentElem is n's parent unless that is the document (cheerio's parent()).
func parentElem(n *html.Node) *html.Node {
	if p := n.Parent; p != nil && p.Type != html.DocumentNode {
		return p
	}
	return nil
}

func nextElem(n *html.Node) *html.Node {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if isElem(s) {
			return s
		}
	}
	return nil
}

func prevElem(n *html.Node) *html.Node {
	for s := n.PrevSibling; s != nil; s = s.PrevSibling {
		if isElem(s) {
			return s
		}
	}
	return nil
}

// Find selects the descendants matching a selector, or keeps the given elements that are
// descendants.
func (m cheerioMethods) Find(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	arg := call.Argument(0)
	if isNil(arg) || (goja.IsString(arg) && arg.String() == "") {
		return derive(c, call, nil), nil
	}
	if !goja.IsString(arg) {
		ctx := c.nodeList()
		var out []*html.Node
		for _, n := range nodesOf(arg) {
			for _, x := range ctx {
				if contains(x, n) {
					out = append(out, n)
					break
				}
			}
		}
		return derive(c, call, out), nil
	}
	nodes, err := c.d.selectIn(arg.String(), c.nodeList())
	if err != nil {
		return nil, err
	}
	return derive(c, call, nodes), nil
}

// Filter keeps the nodes that match.
func (m cheerioMethods) Filter(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	f, err := c.d.filterOf(call.Argument(0))
	if err != nil {
		return nil, err
	}
	out, err := filterNodes(c.nodeList(), f, true)
	if err != nil {
		return nil, err
	}
	return derive(c, call, out), nil
}

// Not drops the nodes that match.
func (m cheerioMethods) Not(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	f, err := c.d.filterOf(call.Argument(0))
	if err != nil {
		return nil, err
	}
	out, err := filterNodes(c.nodeList(), f, false)
	if err != nil {
		return nil, err
	}
	return derive(c, call, out), nil
}

// Is reports whether some node matches.
func (m cheerioMethods) Is(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	arg := call.Argument(0)
	if isNil(arg) {
		return m.st.rt.ToValue(false), nil
	}
	f, err := c.d.filterOf(arg)
	if err != nil {
		return nil, err
	}
	for i, n := range c.nodeList() {
		ok, err := f(n, i)
		if err != nil {
			return nil, err
		}
		if ok {
			return m.st.rt.ToValue(true), nil
		}
	}
	return m.st.rt.ToValue(false), nil
}

// Has keeps the elements with a descendant that matches (or that is the given element).
func (m cheerioMethods) Has(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	arg := call.Argument(0)
	var f filterFunc
	if goja.IsString(arg) {
		mt, err := matcher(arg.String())
		if err != nil {
			return nil, err
		}
		f = func(n *html.Node, _ int) (bool, error) {
			return isElem(n) && len(findAll(mt, n, nil)) > 0, nil
		}
	} else {
		set := nodesOf(arg)
		f = func(n *html.Node, _ int) (bool, error) {
			for _, x := range set {
				if contains(n, x) {
					return true, nil
				}
			}
			return false, nil
		}
	}
	out, err := filterNodes(c.nodeList(), f, true)
	if err != nil {
		return nil, err
	}
	return derive(c, call, out), nil
}

// Closest is, for each node, the first of itself and its ancestors that matches.
func (m cheerioMethods) Closest(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	arg := call.Argument(0)
	if isNil(arg) {
		return derive(c, call, nil), nil
	}
	f, err := c.d.filterOf(arg)
	if err != nil {
		return nil, err
	}
	var out []*html.Node
	for _, n := range c.nodeList() {
		if n.Type != html.ElementNode && n.Type != html.DocumentNode {
			n = n.Parent
		}
		for ; isElem(n); n = n.Parent {
			ok, err := f(n, 0)
			if err != nil {
				return nil, err
			}
			if ok {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
				break
			}
		}
	}
	return derive(c, call, out), nil
}

// Parent is each node's parent element.
func (m cheerioMethods) Parent(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		if p := parentElem(n); p != nil {
			out = append(out, p)
		}
		return out
	}, dedupe)
}

// Parents is each node's ancestor elements, closest first.
func (m cheerioMethods) Parents(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		for p := parentElem(n); p != nil; p = parentElem(p) {
			out = append(out, p)
		}
		return out
	}, reverseSorted)
}

// until is cheerio's _matchUntil: the nodes step gives from each node until one matches
// the first argument, filtered by the second.
func until(c *jsCheerio, call goja.FunctionCall, step func(*html.Node) *html.Node, post func([]*html.Node) []*html.Node) (goja.Value, error) {
	var stop filterFunc
	if a := call.Argument(0); !isNil(a) {
		var err error
		if stop, err = c.d.filterOf(a); err != nil {
			return nil, err
		}
	}
	var ferr error
	v, err := matched(c, call, call.Argument(1), func(n *html.Node, out []*html.Node) []*html.Node {
		i := 0
		for next := step(n); next != nil; next, i = step(next), i+1 {
			if stop != nil {
				ok, err := stop(next, i)
				if err != nil {
					ferr = err
					return out
				}
				if ok {
					break
				}
			}
			out = append(out, next)
		}
		return out
	}, post)
	if ferr != nil {
		return nil, ferr
	}
	return v, err
}

// ParentsUntil is each node's ancestors up to the first that matches, not included.
func (m cheerioMethods) ParentsUntil(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return until(c, call, parentElem, reverseSorted)
}

// NextUntil is each node's following element siblings up to the first that matches.
func (m cheerioMethods) NextUntil(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return until(c, call, nextElem, dedupe)
}

// PrevUntil is each node's preceding element siblings up to the first that matches.
func (m cheerioMethods) PrevUntil(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return until(c, call, prevElem, dedupe)
}

// Children is each node's child elements.
func (m cheerioMethods) Children(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if isElem(k) {
				out = append(out, k)
			}
		}
		return out
	}, dedupe)
}

// Contents is each node's children, text and comments included.
func (m cheerioMethods) Contents(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	var out []*html.Node
	for _, n := range c.nodeList() {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			out = append(out, k)
		}
	}
	return derive(c, call, out), nil
}

// Next is each node's next element sibling.
func (m cheerioMethods) Next(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		if s := nextElem(n); s != nil {
			out = append(out, s)
		}
		return out
	}, nil)
}

// Prev is each node's previous element sibling.
func (m cheerioMethods) Prev(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		if s := prevElem(n); s != nil {
			out = append(out, s)
		}
		return out
	}, nil)
}

// NextAll is each node's following element siblings.
func (m cheerioMethods) NextAll(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		for s := nextElem(n); s != nil; s = nextElem(s) {
			out = append(out, s)
		}
		return out
	}, dedupe)
}

// PrevAll is each node's preceding element siblings, closest first.
func (m cheerioMethods) PrevAll(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		for s := prevElem(n); s != nil; s = prevElem(s) {
			out = append(out, s)
		}
		return out
	}, dedupe)
}

// Siblings is each node's other element siblings.
func (m cheerioMethods) Siblings(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	return matched(c, call, call.Argument(0), func(n *html.Node, out []*html.Node) []*html.Node {
		if n.Parent == nil {
			return out
		}
		for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
			if isElem(s) && s != n {
				out = append(out, s)
			}
		}
		return out
	}, uniqueSort)
}

// First is the first node (this object when it holds at most one).
func (m cheerioMethods) First(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	if c.Len() <= 1 {
		return call.This, nil
	}
	return m.slice(c, call, 0, 1), nil
}

// Last is the last node.
func (m cheerioMethods) Last(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	if c.Len() == 0 {
		return call.This, nil
	}
	return m.slice(c, call, c.Len()-1, c.Len()), nil
}

// Eq is the node at an index (negative: from the end).
func (m cheerioMethods) Eq(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	i := int(call.Argument(0).ToInteger())
	if i < 0 {
		i += c.Len()
	}
	if i < 0 || i >= c.Len() {
		return m.slice(c, call, 0, 0), nil
	}
	return m.slice(c, call, i, i+1), nil
}

// Slice is the nodes from start to end, as Array.prototype.slice.
func (m cheerioMethods) Slice(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	n := int64(c.Len())
	a := relIndex(call.Argument(0), n, 0)
	b := relIndex(call.Argument(1), n, n)
	if b < a {
		b = a
	}
	return m.slice(c, call, int(a), int(b)), nil
}

// slice makes the object of c's items from a to b.
func (m cheerioMethods) slice(c *jsCheerio, call goja.FunctionCall, a, b int) goja.Value {
	if c.vals != nil {
		o := m.st.rt.NewDynamicArray(&jsCheerio{d: c.d, vals: slices.Clone(c.vals[a:b]), prev: call.This})
		_ = o.SetPrototype(m.st.cheerioProto)
		return o
	}
	return derive(c, call, c.nodes[a:b:b])
}

// Each calls fn(i, el) with this = el for each node, stopping when it returns false.
func (m cheerioMethods) Each(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		return nil, typeError("each(): the argument is not a function")
	}
	for i := range c.Len() {
		el := c.Get(i)
		r, err := fn(el, m.st.rt.ToValue(i), el)
		if err != nil {
			return nil, err
		}
		if r.StrictEquals(m.st.rt.ToValue(false)) {
			break
		}
	}
	return call.This, nil
}

// Map calls fn(i, el) with this = el for each node and makes an object of the values
// it returns (null and undefined left out, arrays spread).
func (m cheerioMethods) Map(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		return nil, typeError("map(): the argument is not a function")
	}
	rt := m.st.rt
	var vals []goja.Value
	allNodes := true
	add := func(v goja.Value) {
		if nodeOf(v) == nil {
			allNodes = false
		}
		vals = append(vals, v)
	}
	for i := range c.Len() {
		el := c.Get(i)
		r, err := fn(el, rt.ToValue(i), el)
		if err != nil {
			return nil, err
		}
		if isNil(r) {
			continue
		}
		if o, ok := r.(*goja.Object); ok && o.ClassName() == "Array" {
			n := int(o.Get("length").ToInteger())
			for j := range n {
				add(o.Get(strconv.Itoa(j)))
			}
			continue
		}
		add(r)
	}
	if allNodes {
		nodes := make([]*html.Node, len(vals))
		for i, v := range vals {
			nodes[i] = nodeOf(v)
		}
		return derive(c, call, nodes), nil
	}
	o := rt.NewDynamicArray(&jsCheerio{d: c.d, vals: vals, prev: call.This})
	_ = o.SetPrototype(m.st.cheerioProto)
	return o, nil
}

// ToArray is the nodes as a JS array.
func (m cheerioMethods) ToArray(c *jsCheerio, _ goja.FunctionCall) (goja.Value, error) {
	out := make([]any, c.Len())
	for i := range out {
		out[i] = c.Get(i)
	}
	return m.st.rt.NewArray(out...), nil
}

// Get is the node at an index (negative: from the end), or all of them as an array.
func (m cheerioMethods) Get(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	a := call.Argument(0)
	if isNil(a) {
		return m.ToArray(c, call)
	}
	i := int(a.ToInteger())
	if i < 0 {
		i += c.Len()
	}
	if v := c.Get(i); v != nil {
		return v, nil
	}
	return goja.Undefined(), nil
}

// Add is this object's nodes and the others' (a selector, elements, a Cheerio object or
// HTML), in document order.
func (m cheerioMethods) Add(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	other, err := c.d.dollar(call)
	if err != nil {
		return nil, err
	}
	nodes := append(slices.Clone(c.nodeList()), other.Export().(*jsCheerio).nodes...)
	return derive(c, call, uniqueSort(nodes)), nil
}

// AddBack adds the object this one was made from (filtered by an optional selector).
func (m cheerioMethods) AddBack(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	var prev []*html.Node
	if p, ok := c.prev.Export().(*jsCheerio); ok && c.prev != nil {
		prev = p.nodeList()
	}
	if a := call.Argument(0); !isNil(a) {
		f, err := c.d.filterOf(a)
		if err != nil {
			return nil, err
		}
		if prev, err = filterNodes(prev, f, true); err != nil {
			return nil, err
		}
	}
	return derive(c, call, uniqueSort(append(slices.Clone(c.nodeList()), prev...))), nil
}

// End is the object this one was made from (an empty one when none).
func (m cheerioMethods) End(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	if c.prev != nil && !isNil(c.prev) {
		return c.prev, nil
	}
	return c.d.make(nil, goja.Undefined()), nil
}

// Index is the position of the first node among its element siblings, or, given a
// selector or element, the position of that in this object; -1 when not found.
func (m cheerioMethods) Index(c *jsCheerio, call goja.FunctionCall) (goja.Value, error) {
	nodes := c.nodeList()
	a := call.Argument(0)
	var target *html.Node
	var set []*html.Node
	switch {
	case isNil(a):
		if len(nodes) == 0 {
			return m.st.rt.ToValue(-1), nil
		}
		target = nodes[0]
		if nodes[0].Parent != nil {
			for s := nodes[0].Parent.FirstChild; s != nil; s = s.NextSibling {
				if isElem(s) || s == target {
					set = append(set, s)
				}
			}
		}
	case goja.IsString(a):
		found, err := c.d.selectIn(a.String(), []*html.Node{c.d.root})
		if err != nil {
			return nil, err
		}
		if len(nodes) == 0 {
			return m.st.rt.ToValue(-1), nil
		}
		target, set = nodes[0], found
	default:
		if ns := nodesOf(a); len(ns) > 0 {
			target = ns[0]
		}
		set = nodes
	}
	return m.st.rt.ToValue(slices.Index(set, target)), nil
}
