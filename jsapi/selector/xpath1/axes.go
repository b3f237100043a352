package xpath1

// This file walks the 13 axes (§2.2) and applies node tests to the nodes they yield.

import (
	"golang.org/x/net/html"
)

// match reports whether node n of kind k passes test t on an axis whose principal node
// type is principal.
func (ev *evaluator) match(n Node, k Kind, t *nodeTest, principal Kind) bool {
	switch t.kind {
	case testNode:
		return true
	case testText:
		return k == KindText
	case testComment:
		return k == KindComment
	case testPI:
		if k != KindPI {
			return false
		}
		if t.local == "" {
			return true
		}
		_, local, _ := ev.m.Name(n.N)
		return local == t.local
	}
	if k != principal {
		return false
	}
	if t.kind == testAny {
		return true
	}
	var local, uri string
	switch k {
	case KindElement:
		_, local, uri = ev.m.Name(n.N)
	case KindAttribute:
		_, local, uri, _ = ev.m.Attr(n.N, int(n.A))
	case KindNamespace:
		ns := ev.m.Namespaces(n.N)
		local = ns[n.nsIndex()].Prefix
	}
	if t.kind == testNSAny {
		return uri == t.uri
	}
	return local == t.local && uri == t.uri
}

// add appends n to out if it passes the test.
func (ev *evaluator) add(out []Node, n Node, k Kind, t *nodeTest, principal Kind) []Node {
	if ev.match(n, k, t, principal) {
		out = append(out, n)
	}
	return out
}

// axis appends the nodes of axis a from c that pass test t, in axis order (reverse axes
// nearest first).
func (ev *evaluator) axis(out []Node, c Node, a axis, t *nodeTest) []Node {
	m := ev.m
	tree := c.A == -1
	switch a {
	case axSelf:
		return ev.add(out, c, ev.kind(c), t, KindElement)
	case axChild:
		if !tree {
			return out
		}
		n := 0
		for ch := c.N.FirstChild; ch != nil; ch = ch.NextSibling {
			n++
			if k := m.Kind(ch); k != KindNone {
				out = ev.add(out, NodeOf(ch), k, t, KindElement)
			}
		}
		ev.tick(n)
	case axDescendantOrSelf, axDescendant:
		if a == axDescendantOrSelf {
			out = ev.add(out, c, ev.kind(c), t, KindElement)
		}
		if !tree {
			return out
		}
		return ev.descendants(out, c.N, t)
	case axParent:
		if !tree {
			return ev.add(out, NodeOf(c.N), KindElement, t, KindElement)
		}
		if p := c.N.Parent; p != nil {
			return ev.add(out, NodeOf(p), m.Kind(p), t, KindElement)
		}
	case axAncestorOrSelf, axAncestor:
		if a == axAncestorOrSelf {
			out = ev.add(out, c, ev.kind(c), t, KindElement)
		}
		p := c.N
		if tree {
			p = p.Parent
		}
		for ; p != nil; p = p.Parent {
			out = ev.add(out, NodeOf(p), m.Kind(p), t, KindElement)
		}
	case axFollowingSibling, axPrecedingSibling:
		if !tree {
			return out
		}
		n := 0
		for s := sibling(c.N, a == axFollowingSibling); s != nil; s = sibling(s, a == axFollowingSibling) {
			n++
			if k := m.Kind(s); k != KindNone {
				out = ev.add(out, NodeOf(s), k, t, KindElement)
			}
		}
		ev.tick(n)
	case axFollowing:
		x := c.N
		if !tree {
			// After an attribute or namespace node come its element's descendants.
			out = ev.descendants(out, x, t)
		}
		for ; x != nil; x = x.Parent {
			for s := x.NextSibling; s != nil; s = s.NextSibling {
				if k := m.Kind(s); k != KindNone {
					out = ev.add(out, NodeOf(s), k, t, KindElement)
					out = ev.descendants(out, s, t)
				}
			}
		}
	case axPreceding:
		for x := c.N; x != nil; x = x.Parent {
			for s := x.PrevSibling; s != nil; s = s.PrevSibling {
				if k := m.Kind(s); k != KindNone {
					out = ev.reverseSubtree(out, s, k, t)
				}
			}
		}
	case axAttribute:
		if !tree || m.Kind(c.N) != KindElement {
			return out
		}
		for i := range c.N.Attr {
			if _, _, _, ok := m.Attr(c.N, i); ok {
				out = ev.add(out, AttrOf(c.N, i), KindAttribute, t, KindAttribute)
			}
		}
	case axDescendantAttr:
		if !tree {
			return out
		}
		steps := 0
		for n := c.N; n != nil; n = nextVisible(m, n, c.N) {
			steps++
			if m.Kind(n) != KindElement {
				continue
			}
			for i := range n.Attr {
				if _, _, _, ok := m.Attr(n, i); ok {
					out = ev.add(out, AttrOf(n, i), KindAttribute, t, KindAttribute)
				}
			}
		}
		ev.tick(steps)
	case axNamespace:
		if !tree || m.Kind(c.N) != KindElement {
			return out
		}
		for i := range m.Namespaces(c.N) {
			out = ev.add(out, Node{N: c.N, A: int32(-2 - i)}, KindNamespace, t, KindNamespace)
		}
	}
	return out
}

func sibling(n *html.Node, next bool) *html.Node {
	if next {
		return n.NextSibling
	}
	return n.PrevSibling
}

// descendants appends the visible descendants of n that pass t, in document order, with
// no recursion (the tree's parent links lead back).
func (ev *evaluator) descendants(out []Node, n *html.Node, t *nodeTest) []Node {
	m := ev.m
	steps := 0
	c := n.FirstChild
	for c != nil {
		steps++
		k := m.Kind(c)
		if k != KindNone {
			if ev.match(NodeOf(c), k, t, KindElement) {
				out = append(out, NodeOf(c))
			}
			if c.FirstChild != nil {
				c = c.FirstChild
				continue
			}
		}
		for c.NextSibling == nil {
			c = c.Parent
			if c == n {
				ev.tick(steps)
				return out
			}
		}
		c = c.NextSibling
	}
	ev.tick(steps)
	return out
}

// reverseSubtree appends the nodes of the subtree of s (kind k) that pass t, in reverse
// document order: the last descendant first, s last.
func (ev *evaluator) reverseSubtree(out []Node, s *html.Node, k Kind, t *nodeTest) []Node {
	ev.tick(1)
	for c := s.LastChild; c != nil; c = c.PrevSibling {
		if ck := ev.m.Kind(c); ck != KindNone {
			out = ev.reverseSubtree(out, c, ck, t)
		}
	}
	return ev.add(out, NodeOf(s), k, t, KindElement)
}
