package links

// This file matches a compiled Glob against a URL: segment by segment, with "**", and
// within a segment by backtracking over stars, classes and extglobs.

import (
	"strings"
	"unicode"
)

// MatchString reports whether s (a URL, or a path) matches the glob.
func (g *Glob) MatchString(s string) bool {
	if g.comment {
		return false
	}
	if g.empty {
		return s == ""
	}
	file := splitSlashes(s)
	for _, set := range g.sets {
		if g.matchSegs(file, set, 0, 0) {
			return !g.negate
		}
	}
	return g.negate
}

// dotty reports whether a segment cannot be matched by "**".
func dotty(f string) bool { return strings.HasPrefix(f, ".") }

func (g *Glob) matchSegs(file []string, pat []globSeg, fi, pi int) bool {
	for ; pi < len(pat); pi, fi = pi+1, fi+1 {
		if pat[pi].globstar {
			last := pi == len(pat)-1
			for j := fi; ; j++ {
				if (!last || j > fi) && g.matchSegs(file, pat, j, pi+1) {
					return true
				}
				if j == len(file) || dotty(file[j]) {
					return false
				}
			}
		}
		if fi == len(file) || !g.matchSeg(file[fi], &pat[pi]) {
			return false
		}
	}
	return fi == len(file) || fi == len(file)-1 && file[fi] == ""
}

func (g *Glob) matchSeg(f string, seg *globSeg) bool {
	if seg.pure {
		if g.noCase {
			return strings.EqualFold(f, seg.lit)
		}
		return f == seg.lit
	}
	if f == "." || f == ".." || seg.nonEmpty && f == "" {
		return false
	}
	// A segment that starts with a wildcard never matches one that starts with ".", even
	// when the wildcard matches nothing ("*.js" and ".js").
	if k := seg.nodes[0].kind; strings.HasPrefix(f, ".") && (k == nStar || k == nAny || k == nClass) {
		return false
	}
	m := &segMatch{s: []rune(f), noCase: g.noCase}
	if seg.flat {
		return m.flat(seg.nodes)
	}
	return m.seq(seg.nodes, 0, nil, m.atEnd)
}

// flat matches nodes without extglobs in O(len(nodes)·len(s)) steps (the classic
// backtrack-to-the-last-star walk), so "*a*a*a*a*b" on a long segment cannot hang a crawl.
// The leading-"." rule holds already: only a first node that is a wildcard could consume
// s[0], and matchSeg refuses a "." there.
func (m *segMatch) flat(ns []gnode) bool {
	i, p := 0, 0
	starP, starI := -1, 0
	for i < len(m.s) {
		switch {
		case p < len(ns) && ns[p].kind == nStar:
			starP, starI = p, i
			p++
		case p < len(ns) && m.one(&ns[p], i):
			i++
			p++
		case starP >= 0:
			starI++
			p, i = starP+1, starI
		default:
			return false
		}
	}
	for p < len(ns) && ns[p].kind == nStar {
		p++
	}
	return p == len(ns)
}

// one reports whether the one-character node n matches s[i].
func (m *segMatch) one(n *gnode, i int) bool {
	switch n.kind {
	case nLit:
		return m.eq(m.s[i], n.r)
	case nAny:
		return true
	case nClass:
		return n.class.match(m.s[i], m.noCase)
	}
	return false
}

// segMatch matches the nodes of one segment against one path segment by backtracking.
// Matching is continuation-passing: k is called with each position where the nodes
// matched so far can end.
type segMatch struct {
	s      []rune
	noCase bool
}

// frame is the pattern text that follows an extglob, as written (the "rest" that a
// negated extglob's alternatives are checked with).
type frame struct {
	ns   []gnode
	next *frame
}

func (m *segMatch) atEnd(i int) bool { return i == len(m.s) }

// end returns a continuation that matches the rest of fr and then the end of the segment.
func (m *segMatch) end(fr *frame) func(int) bool {
	if fr == nil {
		return m.atEnd
	}
	return func(j int) bool { return m.seq(fr.ns, j, fr.next, m.end(fr.next)) }
}

// wild reports whether a wildcard may consume the character at i (not a leading ".").
func (m *segMatch) wild(i int) bool { return i < len(m.s) && (i > 0 || m.s[0] != '.') }

func (m *segMatch) eq(a, b rune) bool {
	if a == b {
		return true
	}
	if !m.noCase {
		return false
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func (m *segMatch) seq(ns []gnode, i int, fr *frame, k func(int) bool) bool {
	if len(ns) == 0 {
		return k(i)
	}
	n, rest := &ns[0], ns[1:]
	switch n.kind {
	case nLit:
		return i < len(m.s) && m.eq(m.s[i], n.r) && m.seq(rest, i+1, fr, k)
	case nAny:
		return m.wild(i) && m.seq(rest, i+1, fr, k)
	case nClass:
		return m.wild(i) && n.class.match(m.s[i], m.noCase) && m.seq(rest, i+1, fr, k)
	case nStar:
		for j := i; ; j++ {
			if m.seq(rest, j, fr, k) {
				return true
			}
			if !m.wild(j) {
				return false
			}
		}
	case nExt:
		return m.ext(n, rest, i, fr, k)
	}
	return false // nNever
}

func (m *segMatch) ext(n *gnode, rest []gnode, i int, fr *frame, k func(int) bool) bool {
	child := &frame{rest, fr}
	after := func(j int) bool { return m.seq(rest, j, fr, k) }
	anyAlt := func(i int, k func(int) bool) bool {
		for _, alt := range n.alts {
			if m.seq(alt, i, child, k) {
				return true
			}
		}
		return false
	}
	// more matches zero or more further repetitions, each consuming something.
	var more func(i int) bool
	more = func(i int) bool {
		return after(i) || anyAlt(i, func(j int) bool { return j > i && more(j) })
	}
	switch n.ext {
	case '@':
		return anyAlt(i, after)
	case '?':
		return after(i) || anyAlt(i, after)
	case '*':
		return more(i)
	case '+':
		return anyAlt(i, more)
	}
	// '!': refuse where an alternative and the rest as written match; else any text.
	if n.empty {
		for j := i; m.wild(j); j++ {
			if after(j + 1) {
				return true
			}
		}
		return false
	}
	if anyAlt(i, m.end(child)) {
		return false
	}
	for j := i; ; j++ {
		if after(j) {
			return true
		}
		if !m.wild(j) {
			return false
		}
	}
}
