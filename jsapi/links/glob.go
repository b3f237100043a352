package links

// This file is jscrawl's own glob matcher with the semantics of minimatch 10 (the glob
// library Crawlee's enqueueLinks uses, as new Minimatch(glob, { nocase: true }) in
// packages/core/src/enqueue_links/shared.ts), so a Crawlee spider's globs select the same
// links. It is written from minimatch's documented behaviour and its test suite
// (glob_minimatch_test.go), not translated from its code.
// It compiles a pattern into segments of nodes; braces are expanded first (globbrace.go),
// bracket expressions are parsed in globclass.go and globmatch.go matches URLs.
//
// The semantics, with minimatch's default options (dot, noext, nobrace, noglobstar,
// nocomment, nonegate and matchBase all false):
//   - a leading "#" makes a comment, which matches nothing; "" matches only "";
//   - leading "!"s negate the pattern (an odd number of them);
//   - braces expand first, as brace-expansion does: "{a,b}", nested, "{1..3}", "{a..c}",
//     "{01..10..2}"; a brace with neither a comma nor a sequence stays literal;
//   - the pattern and the URL are split at runs of "/" into segments; "**" alone in a
//     segment matches any number of segments (zero included, but at least one at the end
//     of a pattern), none of them starting with ".";
//   - within a segment "*" matches any run of characters (a segment of only stars at least
//     one), "?" one character, "[...]" a class (ranges, "!" or "^" negation, POSIX
//     "[:alpha:]" classes, a "]" first is literal, a reversed range is dropped and a class
//     left with nothing matches nothing), "\" escapes the next character;
//   - extglobs "?(a|b)", "*(a|b)", "+(a|b)", "@(a|b)" and "!(a|b)"; "!(a|b)" matches any
//     text after which no alternative followed by the rest of the pattern matches; an
//     unclosed extglob is literal text (its stars and question marks still glob);
//   - a wildcard never matches the "." that starts a segment, and the segments "." and ".."
//     are matched only by themselves;
//   - a URL ending in "/" matches as if the trailing "/" were absent, when the pattern
//     does not end in "/" itself;
//   - "x/.." in the pattern is removed (minimatch's default optimisation level 1).

import (
	"errors"
	"slices"
	"strings"
)

// maxGlobLen is minimatch's limit on the length of a pattern.
const maxGlobLen = 64 * 1024

// maxBraceExpansions bounds brace expansion (brace-expansion's default max).
const maxBraceExpansions = 10000

// Glob is a compiled minimatch-style glob. It is safe for concurrent use.
type Glob struct {
	negate  bool
	comment bool
	empty   bool
	noCase  bool
	sets    [][]globSeg
}

// globSeg is one "/"-separated part of an expanded pattern.
type globSeg struct {
	globstar bool
	// lit is the segment's text when it has no magic (pure), compared as a string.
	lit      string
	pure     bool
	nonEmpty bool // a segment of only stars matches at least one character
	flat     bool // no extglobs: matched by segMatch.flat
	nodes    []gnode
}

type gnodeKind uint8

const (
	nLit   gnodeKind = iota // one character
	nAny                    // ?
	nStar                   // *
	nClass                  // [...]
	nNever                  // a class that can match nothing
	nExt                    // ?( *( +( @( !(
)

type gnode struct {
	kind  gnodeKind
	r     rune
	class *charClass
	ext   rune
	alts  [][]gnode
	empty bool // an extglob whose alternatives are all empty
}

// compileGlob compiles glob with minimatch's semantics; noCase is minimatch's nocase option.
func compileGlob(glob string, noCase bool) (*Glob, error) {
	if len(glob) > maxGlobLen {
		return nil, errors.New("pattern is too long")
	}
	g := &Glob{noCase: noCase}
	if strings.HasPrefix(glob, "#") {
		g.comment = true
		return g, nil
	}
	if glob == "" {
		g.empty = true
		return g, nil
	}
	for strings.HasPrefix(glob, "!") {
		g.negate = !g.negate
		glob = glob[1:]
	}
	seen := map[string]bool{}
	for _, p := range braceExpand(glob) {
		if seen[p] {
			continue
		}
		seen[p] = true
		g.sets = append(g.sets, parseSegments(p))
	}
	return g, nil
}

// parseSegments splits an expanded pattern into segments and removes "x/.." pairs and
// repeated "**".
func parseSegments(p string) []globSeg {
	var parts []string
	for _, s := range splitSlashes(p) {
		if n := len(parts); n > 0 {
			prev := parts[n-1]
			if s == "**" && prev == "**" {
				continue
			}
			if s == ".." && prev != ".." && prev != "." && prev != "**" {
				parts = parts[:n-1]
				continue
			}
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		parts = []string{""}
	}
	segs := make([]globSeg, len(parts))
	for i, s := range parts {
		segs[i] = parseSegment(s)
	}
	return segs
}

// splitSlashes splits s at runs of "/" (a leading "/" gives a leading "").
func splitSlashes(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = strings.TrimLeft(s[i:], "/")
	}
}

func parseSegment(s string) globSeg {
	if s == "**" {
		return globSeg{globstar: true}
	}
	rs := []rune(s)
	ps := &segParser{rs: rs}
	nodes := ps.seq(false, false)
	seg := globSeg{nodes: nodes, nonEmpty: strings.Trim(s, "*") == ""}
	// A segment that is one extglob with nothing inside ("+()") is literal text.
	if len(nodes) == 1 && nodes[0].kind == nExt && nodes[0].empty && nodes[0].ext != '!' {
		seg.nodes = literalNodes(rs)
	}
	if lit, ok := pureText(seg.nodes); ok {
		seg.pure, seg.lit = true, lit
	}
	seg.flat = !slices.ContainsFunc(seg.nodes, func(n gnode) bool { return n.kind == nExt })
	return seg
}

func literalNodes(rs []rune) []gnode {
	out := make([]gnode, len(rs))
	for i, r := range rs {
		out[i] = gnode{kind: nLit, r: r}
	}
	return out
}

func pureText(ns []gnode) (string, bool) {
	var b strings.Builder
	for _, n := range ns {
		if n.kind != nLit {
			return "", false
		}
		b.WriteRune(n.r)
	}
	return b.String(), true
}

// segParser parses one segment into nodes.
type segParser struct {
	rs []rune
	i  int
}

// seq parses until the end, or (inExt) until an unnested "|" or ")"; noExt parses the rest
// of an unclosed extglob, where parentheses are plain text.
func (p *segParser) seq(inExt, noExt bool) []gnode {
	var out []gnode
	for p.i < len(p.rs) {
		c := p.rs[p.i]
		if inExt && (c == '|' || c == ')') {
			return out
		}
		if !noExt && strings.ContainsRune("?*+@!", c) && p.i+1 < len(p.rs) && p.rs[p.i+1] == '(' {
			start := p.i
			if n, ok := p.ext(); ok {
				out = append(out, n)
				continue
			}
			// Unclosed: the rest of the segment is plain glob text.
			p.i = start
			return append(out, p.seq(inExt, true)...)
		}
		switch c {
		case '\\':
			if p.i+1 < len(p.rs) {
				p.i++
			}
			out = append(out, gnode{kind: nLit, r: p.rs[p.i]})
			p.i++
		case '*':
			for p.i < len(p.rs) && p.rs[p.i] == '*' {
				p.i++
			}
			out = append(out, gnode{kind: nStar})
		case '?':
			out = append(out, gnode{kind: nAny})
			p.i++
		case '[':
			if n, end, ok := parseClass(p.rs, p.i); ok {
				out = append(out, n)
				if n.kind == nNever {
					p.i = len(p.rs) // minimatch: the class swallows the segment
				} else {
					p.i = end
				}
				continue
			}
			out = append(out, gnode{kind: nLit, r: c})
			p.i++
		default:
			out = append(out, gnode{kind: nLit, r: c})
			p.i++
		}
	}
	return out
}

// ext parses an extglob at p.i ("X("); ok is false when it is not closed.
func (p *segParser) ext() (gnode, bool) {
	n := gnode{kind: nExt, ext: p.rs[p.i], empty: true}
	p.i += 2
	for {
		alt := p.seq(true, false)
		if len(alt) > 0 {
			n.empty = false
		}
		n.alts = append(n.alts, alt)
		if p.i >= len(p.rs) {
			return n, false
		}
		c := p.rs[p.i]
		p.i++
		if c == ')' {
			return n, true
		}
	}
}

// Interface guards
var _ Matcher = (*Glob)(nil)
