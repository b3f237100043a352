package xpath1

// This file evaluates location paths and filter expressions: steps over a node-set,
// predicates and the proximity positions they see.

import (
	"slices"

	"golang.org/x/net/html"
)

func (e *filterExpr) eval(ev *evaluator, f focus) Value {
	v := e.prim.eval(ev, f)
	if v.Type != TypeNodeSet {
		ev.fail(ErrInvalidType)
	}
	nodes := slices.Clone(v.Nodes)
	for _, p := range e.preds {
		nodes = ev.filter(nodes, p)
	}
	return NodeSetValue(nodes)
}

func (e *pathExpr) eval(ev *evaluator, f focus) Value {
	var nodes []Node
	switch {
	case e.start != nil:
		v := e.start.eval(ev, f)
		if v.Type != TypeNodeSet {
			ev.fail(ErrInvalidType)
		}
		nodes = v.Nodes
	case e.abs:
		r := f.node.N
		for r.Parent != nil {
			r = r.Parent
		}
		nodes = []Node{NodeOf(r)}
	default:
		var one [1]Node
		one[0] = f.node
		nodes = one[:]
	}
	for _, s := range e.steps {
		if len(nodes) == 0 {
			break
		}
		nodes = ev.step(nodes, s)
	}
	return NodeSetValue(nodes)
}

// step applies a location step to every node of in (in document order, unique) and
// returns the union of the results, in document order.
func (ev *evaluator) step(in []Node, s *step) []Node {
	if len(in) == 1 {
		return ev.stepFrom(nil, in[0], s)
	}
	skipNested := (s.axis == axDescendant || s.axis == axDescendantOrSelf || s.axis == axDescendantAttr) && !anyPositional(s.preds)
	var out []Node
	sorted := true
	var last *html.Node // the last context whose subtree was walked (skipNested)
	for _, c := range in {
		if skipNested && c.A == -1 && last != nil && isAncestor(last, c.N) {
			continue // its descendants are in last's already
		}
		n := len(out)
		out = ev.stepFrom(out, c, s)
		if c.A == -1 {
			last = c.N
		}
		if len(out) > n {
			if sorted && n > 0 && ev.compare(out[n-1], out[n]) >= 0 {
				sorted = false
			}
		}
	}
	if !sorted {
		out = ev.sortUnique(out)
	}
	return out
}

func isAncestor(a, n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// stepFrom appends to out the nodes of step s from context node c, in document order.
func (ev *evaluator) stepFrom(out []Node, c Node, s *step) []Node {
	start := len(out)
	out = ev.axis(out, c, s.axis, &s.test)
	if len(s.preds) > 0 {
		// Predicates see the nodes in axis order: reverse axes count from c backwards.
		sel := out[start:]
		for _, p := range s.preds {
			sel = ev.filter(sel, p)
		}
		out = out[:start+len(sel)]
	}
	if s.axis.reverse() {
		slices.Reverse(out[start:])
	}
	return out
}

// filter keeps the nodes of nodes (in the order that gives their proximity positions)
// for which p is true, in place.
func (ev *evaluator) filter(nodes []Node, p *predicate) []Node {
	if p.index > 0 {
		if p.index <= len(nodes) {
			nodes[0] = nodes[p.index-1]
			return nodes[:1]
		}
		return nodes[:0]
	}
	out := nodes[:0]
	size := len(nodes)
	for i, n := range nodes {
		v := p.e.eval(ev, focus{node: n, pos: i + 1, size: size})
		keep := false
		if v.Type == TypeNumber {
			keep = v.Num == float64(i+1)
		} else {
			keep = toBoolean(v)
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}

// nextVisible returns the node after n in document order within root's subtree,
// skipping the subtrees of hidden nodes, or nil.
func nextVisible(m Model, n, root *html.Node) *html.Node {
	if n.FirstChild != nil && (n == root || m.Kind(n) != KindNone) {
		return n.FirstChild
	}
	for n != root {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		n = n.Parent
	}
	return nil
}
