package links

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is jscrawl's own glob matcher with the semantics of minimatch 10 (the glob
// library Crawlee's enqueueLinks uses, as new Minimatch(glob, { nocase: true }) in
// packages/core/src/enqueue_links/shared.ts), so a Crawlee spider's globs select the same
// links. It is written from minimatch's documented behaviour and its test suite
// (glob_minimatch_test.go), not translated from its code.
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

// charClass is a bracket expression.
type charClass struct {
	negate bool
	ranges [][2]rune
	is     []func(rune) bool // POSIX classes matched positively
	isNot  []func(rune) bool // POSIX classes matched as their complement ([:graph:])
}

func (c *charClass) has(r rune) bool {
	for _, rg := range c.ranges {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	for _, f := range c.is {
		if f(r) {
			return true
		}
	}
	for _, f := range c.isNot {
		if !f(r) {
			return true
		}
	}
	return false
}

func (c *charClass) match(r rune, noCase bool) bool {
	hit := c.has(r)
	if !hit && noCase {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if c.has(f) {
				hit = true
				break
			}
		}
	}
	return hit != c.negate
}

func inTable(ts ...*unicode.RangeTable) func(rune) bool {
	return func(r rune) bool { return unicode.IsOneOf(ts, r) }
}

func anyOf(fs ...func(rune) bool) func(rune) bool {
	return func(r rune) bool {
		for _, f := range fs {
			if f(r) {
				return true
			}
		}
		return false
	}
}

func runeIn(s string) func(rune) bool { return func(r rune) bool { return strings.ContainsRune(s, r) } }

// posixClasses are minimatch's bracket classes; graph is matched as a complement.
var posixClasses = []struct {
	name string
	f    func(rune) bool
	not  bool
}{
	{"[:alnum:]", inTable(unicode.L, unicode.Nl, unicode.Nd), false},
	{"[:alpha:]", inTable(unicode.L, unicode.Nl), false},
	{"[:ascii:]", func(r rune) bool { return r <= 0x7f }, false},
	{"[:blank:]", anyOf(inTable(unicode.Zs), runeIn("\t")), false},
	{"[:cntrl:]", inTable(unicode.Cc), false},
	{"[:digit:]", inTable(unicode.Nd), false},
	{"[:graph:]", inTable(unicode.Z, unicode.C), true},
	{"[:lower:]", inTable(unicode.Ll), false},
	{"[:print:]", inTable(unicode.C), false}, // sic: minimatch 10 matches \p{C}
	{"[:punct:]", inTable(unicode.P), false},
	{"[:space:]", anyOf(inTable(unicode.Z), runeIn("\t\r\n\v\f")), false},
	{"[:upper:]", inTable(unicode.Lu), false},
	{"[:word:]", inTable(unicode.L, unicode.Nl, unicode.Nd, unicode.Pc), false},
	{"[:xdigit:]", runeIn("ABCDEFabcdef0123456789"), false},
}

// parseClass parses the bracket expression at rs[pos] == '['. ok is false when it is not
// closed (the "[" is then literal). A class of one plain character is a literal; a class
// that can match nothing is nNever.
func parseClass(rs []rune, pos int) (gnode, int, bool) {
	cls := &charClass{}
	i := pos + 1
	sawStart, escaping := false, false
	var rangeStart rune
	hasRangeStart := false
	end := -1
	never := false
loop:
	for i < len(rs) {
		c := rs[i]
		if (c == '!' || c == '^') && i == pos+1 {
			cls.negate = true
			i++
			continue
		}
		if c == ']' && sawStart && !escaping {
			end = i + 1
			break
		}
		sawStart = true
		if c == '\\' && !escaping {
			escaping = true
			i++
			continue
		}
		if c == '[' && !escaping {
			for _, pc := range posixClasses {
				if strings.HasPrefix(string(rs[i:min(len(rs), i+len(pc.name))]), pc.name) {
					if hasRangeStart {
						never = true
						break loop
					}
					i += len(pc.name)
					if pc.not {
						cls.isNot = append(cls.isNot, pc.f)
					} else {
						cls.is = append(cls.is, pc.f)
					}
					continue loop
				}
			}
		}
		escaping = false
		if hasRangeStart {
			if c >= rangeStart {
				cls.ranges = append(cls.ranges, [2]rune{rangeStart, c})
			}
			hasRangeStart = false
			i++
			continue
		}
		if i+1 < len(rs) && rs[i+1] == '-' {
			if i+2 < len(rs) && rs[i+2] == ']' {
				cls.ranges = append(cls.ranges, [2]rune{c, c}, [2]rune{'-', '-'})
				i += 2
				continue
			}
			rangeStart, hasRangeStart = c, true
			i += 2
			continue
		}
		cls.ranges = append(cls.ranges, [2]rune{c, c})
		i++
	}
	if never {
		return gnode{kind: nNever}, len(rs), true
	}
	if end < 0 {
		return gnode{}, 0, false
	}
	if len(cls.ranges) == 0 && len(cls.is) == 0 && len(cls.isNot) == 0 {
		return gnode{kind: nNever}, end, true
	}
	if !cls.negate && len(cls.is) == 0 && len(cls.isNot) == 0 && len(cls.ranges) == 1 && cls.ranges[0][0] == cls.ranges[0][1] {
		return gnode{kind: nLit, r: cls.ranges[0][0]}, end, true
	}
	return gnode{kind: nClass, class: cls}, end, true
}

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

// braceExpand expands braces as brace-expansion (minimatch's dependency) does. Escaped
// characters stay escaped, for the glob parser.
func braceExpand(p string) []string {
	if !hasBracePair(p) {
		return []string{p}
	}
	out := expandBraces(p)
	if len(out) > maxBraceExpansions {
		out = out[:maxBraceExpansions]
	}
	return out
}

// hasBracePair reports whether p has a "{" later closed by a "}" with no "{" between
// (minimatch's test before expanding).
func hasBracePair(p string) bool {
	open := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{':
			open = true
		case '}':
			if open {
				return true
			}
		}
	}
	return false
}

// balanced finds the outermost balanced, unescaped "{...}" that closes first.
func balanced(p string) (start, end int, ok bool) {
	var stack []int
	best := -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) == 0 {
				continue
			}
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return s, i, true
			}
			if best < 0 || s < start {
				start, end, best = s, i, 0
			}
		}
	}
	return start, end, best == 0
}

// commaParts splits a brace body at its top-level, unescaped commas.
func commaParts(body string) []string {
	var parts []string
	depth, last := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, body[last:i])
				last = i + 1
			}
		}
	}
	return append(parts, body[last:])
}

func expandBraces(p string) []string {
	s, e, ok := balanced(p)
	if !ok {
		return []string{p}
	}
	pre, body, post := p[:s], p[s+1:e], p[e+1:]
	posts := []string{""}
	if post != "" {
		posts = expandBraces(post)
	}
	if strings.HasSuffix(pre, "$") {
		out := make([]string, 0, len(posts))
		for _, q := range posts {
			out = append(out, pre+"{"+body+"}"+q)
		}
		return out
	}
	var alts []string
	if seq, ok := braceSequence(body); ok {
		alts = seq
	} else {
		parts := commaParts(body)
		if len(parts) < 2 {
			// Not an option list. As brace-expansion: "{a},b}" is "{a\\},b}".
			if closesLater(post) {
				return expandBraces(pre + "{" + body + "\\}" + post)
			}
			// Otherwise this "{" is literal; expand what follows it.
			rest := expandBraces(p[s+1:])
			out := make([]string, 0, len(rest))
			for _, q := range rest {
				out = append(out, pre+"{"+q)
			}
			return out
		}
		for _, part := range parts {
			alts = append(alts, expandBraces(part)...)
			if len(alts) > maxBraceExpansions {
				break
			}
		}
	}
	out := make([]string, 0, len(alts)*len(posts))
	for _, a := range alts {
		for _, q := range posts {
			out = append(out, pre+a+q)
			if len(out) > maxBraceExpansions {
				return out
			}
		}
	}
	return out
}

// closesLater reports whether post has a "," (not followed by another) and then a "}".
func closesLater(post string) bool {
	for i := 0; i < len(post); i++ {
		if post[i] == ',' && (i+1 == len(post) || post[i+1] != ',') && strings.Contains(post[i+1:], "}") {
			return true
		}
	}
	return false
}

// braceSequence expands "1..5", "05..1..2", "a..e" and "a..z..3".
func braceSequence(body string) ([]string, bool) {
	f := strings.Split(body, "..")
	if len(f) != 2 && len(f) != 3 {
		return nil, false
	}
	step := 1
	if len(f) == 3 {
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, false
		}
		step = max(n, -n, 1)
	}
	x, errX := strconv.Atoi(f[0])
	y, errY := strconv.Atoi(f[1])
	var out []string
	if errX == nil && errY == nil {
		width := 0
		if padded(f[0]) || padded(f[1]) {
			width = max(len(f[0]), len(f[1]))
		}
		for v := x; ; {
			out = append(out, pad(v, width))
			if v == y || len(out) > maxBraceExpansions {
				return out, true
			}
			if x < y {
				if v += step; v > y {
					return out, true
				}
			} else if v -= step; v < y {
				return out, true
			}
		}
	}
	a, na := utf8.DecodeRuneInString(f[0])
	b, nb := utf8.DecodeRuneInString(f[1])
	if na != len(f[0]) || nb != len(f[1]) || !isASCIILetter(a) || !isASCIILetter(b) {
		return nil, false
	}
	for v := a; ; {
		if v != '\\' {
			out = append(out, string(v))
		}
		if v == b {
			return out, true
		}
		if a < b {
			if v += rune(step); v > b {
				return out, true
			}
		} else if v -= rune(step); v < b {
			return out, true
		}
	}
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func padded(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

func pad(v, width int) string {
	s := strconv.Itoa(max(v, -v))
	if n := width - len(s); n > 0 && v < 0 {
		s = strings.Repeat("0", n-1) + s
	} else if n > 0 {
		s = strings.Repeat("0", n) + s
	}
	if v < 0 {
		return "-" + s
	}
	return s
}

// Interface guards
var _ Matcher = (*Glob)(nil)
