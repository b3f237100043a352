package xpath1

// This file orders nodes by document order (§5) and removes duplicates from node-sets.

import (
	"slices"

	"golang.org/x/net/html"
)

// rank orders the nodes that share a tree node: the node, its namespace nodes, then
// its attributes (§5: namespace nodes precede attributes).
func rank(n Node) int {
	switch {
	case n.A == -1:
		return 0
	case n.A < -1:
		return int(-1 - n.A) // 1, 2, …
	}
	return 1<<30 + int(n.A)
}

// compare orders two nodes of one tree by document order.
func (ev *evaluator) compare(a, b Node) int {
	if a.N == b.N {
		return rank(a) - rank(b)
	}
	if ev.order != nil {
		return int(ev.order[a.N]) - int(ev.order[b.N])
	}
	return compareTree(a.N, b.N)
}

func depth(n *html.Node) int {
	d := 0
	for ; n.Parent != nil; n = n.Parent {
		d++
	}
	return d
}

// compareTree orders two distinct tree nodes by walking up to their common ancestor.
func compareTree(x, y *html.Node) int {
	dx, dy := depth(x), depth(y)
	for ; dx > dy; dx-- {
		x = x.Parent
		if x == y {
			return 1 // y is an ancestor of the original x
		}
	}
	for ; dy > dx; dy-- {
		y = y.Parent
		if y == x {
			return -1
		}
	}
	for x.Parent != y.Parent {
		x, y = x.Parent, y.Parent
	}
	if x.Parent == nil {
		return 0 // different trees: no order
	}
	// Scan both ways from x at once: y is found in as many steps as it is far.
	for f, p := x.NextSibling, x.PrevSibling; f != nil || p != nil; {
		if f != nil {
			if f == y {
				return -1
			}
			f = f.NextSibling
		}
		if p != nil {
			if p == y {
				return 1
			}
			p = p.PrevSibling
		}
	}
	return 1
}

// sortUnique sorts nodes into document order and drops duplicates, in place.
func (ev *evaluator) sortUnique(nodes []Node) []Node {
	if len(nodes) < 2 {
		return nodes
	}
	if ev.order == nil {
		root := nodes[0].N
		for root.Parent != nil {
			root = root.Parent
		}
		ev.order = make(map[*html.Node]int32)
		var i int32
		for c := root; c != nil; {
			ev.order[c] = i
			i++
			if c.FirstChild != nil {
				c = c.FirstChild
				continue
			}
			for c != nil && c.NextSibling == nil {
				c = c.Parent
			}
			if c != nil {
				c = c.NextSibling
			}
		}
	}
	slices.SortFunc(nodes, ev.compare)
	return slices.Compact(nodes)
}
