package selector

import (
	"errors"
	"fmt"
	"strings"

	"github.com/andybalholm/cascadia"
	"github.com/jscrawl/jscrawl/jsapi/selector/memo"
)

// maxGroups bounds the comma-separated selectors of one query: a query evaluates all of them
// in a single tree walk and tracks them in a 64-bit mask.
const maxGroups = 64

// cacheLimit bounds the compiled-query cache; see Compile.
const cacheLimit = 2048

// SyntaxError reports a query that is not valid CSS, or that uses an unknown pseudo-element.
type SyntaxError struct {
	Query string // the query as given
	Err   error  // what is wrong with it
}

// Error implements error: `invalid CSS selector "div[": ...`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid CSS selector %q: %v", e.Query, e.Err)
}

// Unwrap returns the underlying parse error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Query is a compiled selector group, pseudo-elements included. It is immutable and safe
// for concurrent use; obtain one with Compile.
type Query struct {
	src    string
	groups []group

	// Masks over groups, bit i for groups[i].
	elem     uint64 // plain element selectors
	textOwn  uint64 // X::text
	textDeep uint64 // X ::text
	attrOwn  uint64 // X::attr(a)
	attrDeep uint64 // X ::attr(a)

	// siblings is set when a group uses "+" or "~": results may then lie in the following
	// siblings of the context element, and the scope must be checked explicitly.
	siblings bool
}

// group is one comma-separated selector: compound selectors joined by combinators.
type group struct {
	sels  []cascadia.Sel // left to right; nil means "any element"
	combs []byte         // combs[i] joins sels[i-1] and sels[i]: ' ', '>', '+' or '~'; combs[0] unused
	attr  string         // attribute name for ::attr(), lower case
}

// String returns the query as it was given to Compile.
func (q *Query) String() string { return q.src }

// cache is the process-wide compiled-query cache behind Compile: a query string to its
// *Query or its error.
var cache = memo.Cache[*Query]{Limit: cacheLimit}

// Compile parses query, or returns it from a process-wide cache, bounded and safe for
// concurrent use, so a hot callback never recompiles. Errors are *SyntaxError.
func Compile(query string) (*Query, error) {
	return cache.Get(query, func() (*Query, error) { return compile(query) })
}

// compile parses query without the cache.
func compile(query string) (*Query, error) {
	raw, err := split(query)
	if err != nil {
		return nil, &SyntaxError{Query: query, Err: err}
	}
	if len(raw) > maxGroups {
		return nil, &SyntaxError{Query: query, Err: fmt.Errorf("more than %d comma-separated selectors", maxGroups)}
	}
	q := &Query{src: query, groups: make([]group, len(raw))}
	for i, rg := range raw {
		g := &q.groups[i]
		bit := uint64(1) << i
		n := len(rg.compounds)
		kind, attr, err := parsePseudo(rg.pseudo)
		if err != nil {
			return nil, &SyntaxError{Query: query, Err: err}
		}
		deep := false
		if kind != KindElement && n > 1 && rg.combs[n-1] == ' ' && isUniversal(rg.compounds[n-1]) {
			// parsel: "X *::text" → X/descendant-or-self::*/text(): drop the bare last
			// compound and take the text of X and all its descendants.
			deep = true
			n--
		}
		g.sels = make([]cascadia.Sel, n)
		g.combs = rg.combs[:n]
		g.attr = attr
		for j, c := range rg.compounds[:n] {
			if isUniversal(c) {
				continue
			}
			s, err := cascadia.Parse(c)
			if err != nil {
				return nil, &SyntaxError{Query: query, Err: fmt.Errorf("in %q: %w", c, err)}
			}
			g.sels[j] = s
		}
		for _, c := range g.combs[1:] {
			if c == '+' || c == '~' {
				q.siblings = true
			}
		}
		switch {
		case kind == KindElement:
			q.elem |= bit
		case kind == KindText && deep:
			q.textDeep |= bit
		case kind == KindText:
			q.textOwn |= bit
		case deep:
			q.attrDeep |= bit
		default:
			q.attrOwn |= bit
		}
	}
	return q, nil
}

// isUniversal reports whether a compound selector matches any element: "" (a bare
// pseudo-element) or "*".
func isUniversal(c string) bool { return c == "" || c == "*" || c == "*|*" }

// parsePseudo interprets a pseudo-element suffix without its "::".
func parsePseudo(p string) (Kind, string, error) {
	if p == "" {
		return KindElement, "", nil
	}
	name, arg, hasArg := strings.Cut(p, "(")
	switch {
	case strings.EqualFold(name, "text") && !hasArg:
		return KindText, "", nil
	case strings.EqualFold(name, "attr") && hasArg:
		arg, ok := strings.CutSuffix(arg, ")")
		if !ok {
			return 0, "", errors.New("unclosed ::attr(")
		}
		arg = strings.TrimSpace(arg)
		quoted := len(arg) >= 2 && (arg[0] == '"' || arg[0] == '\'') && arg[len(arg)-1] == arg[0]
		if quoted {
			arg = arg[1 : len(arg)-1]
		}
		if arg == "" || strings.ContainsAny(arg, " \t\n\r\f\"'(),") || !quoted && !isIdent(arg) {
			return 0, "", fmt.Errorf("expected a single string or identifier in ::attr(), got %q", arg)
		}
		return KindAttr, strings.ToLower(arg), nil
	case hasArg:
		return 0, "", fmt.Errorf("the functional pseudo-element ::%s() is unknown", name)
	default:
		return 0, "", fmt.Errorf("the pseudo-element ::%s is unknown", name)
	}
}

// isIdent reports whether s is a CSS identifier (as cssselect reads ::attr()'s argument:
// "12", "34test" and "@href" are not): an optional "-", then a letter, "_" or a non-ASCII
// character, then letters, digits, "-", "_" and non-ASCII characters (a ":" is allowed for
// a namespaced name such as xlink:href).
func isIdent(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 0x80 || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && ('0' <= r && r <= '9' || r == '-' || r == ':' || r == '\\'):
		default:
			return false
		}
	}
	return true
}

// rawGroup is one comma-separated selector cut into compound-selector source texts.
type rawGroup struct {
	compounds []string
	combs     []byte // combs[i] joins compounds[i-1] and compounds[i]; combs[0] = 0
	pseudo    string // pseudo-element of the last compound without "::", "" if none
}

// scanner cuts a query at its top-level commas, combinators and pseudo-elements, skipping
// over strings, escapes, brackets and parentheses. The compounds themselves are parsed by
// cascadia.
type scanner struct {
	s string
	i int
}

func split(s string) ([]rawGroup, error) {
	sc := scanner{s: s}
	var groups []rawGroup
	for {
		g, err := sc.group()
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
		if sc.i >= len(s) {
			return groups, nil
		}
		sc.i++ // ','
	}
}

// group scans one selector up to a top-level ',' or the end.
func (sc *scanner) group() (rawGroup, error) {
	var g rawGroup
	sc.space()
	comb := byte(0)
	for {
		start := sc.i
		pseudoAt, err := sc.compound()
		if err != nil {
			return g, err
		}
		c := sc.s[start:sc.i]
		if c == "" {
			if sc.i >= len(sc.s) {
				return g, errors.New("expected selector, found end of query")
			}
			return g, fmt.Errorf("expected selector, found %q", sc.s[sc.i])
		}
		if pseudoAt >= 0 {
			g.pseudo = c[pseudoAt-start+2:]
			c = c[:pseudoAt-start]
		}
		g.compounds = append(g.compounds, c)
		g.combs = append(g.combs, comb)
		ws := sc.space()
		if sc.i >= len(sc.s) || sc.s[sc.i] == ',' {
			return g, nil
		}
		switch sc.s[sc.i] {
		case '>', '+', '~':
			comb = sc.s[sc.i]
			sc.i++
			sc.space()
		default:
			if !ws {
				return g, fmt.Errorf("unexpected %q", sc.s[sc.i])
			}
			comb = ' '
		}
		if g.pseudo != "" {
			return g, fmt.Errorf("pseudo-element ::%s is not at the end of a selector", g.pseudo)
		}
	}
}

// compound advances over one compound selector and returns the offset of its top-level
// "::" (a pseudo-element), or -1.
func (sc *scanner) compound() (int, error) {
	s := sc.s
	pseudoAt := -1
	var stack []byte // open brackets: '[' or '('
	for sc.i < len(s) {
		c := s[sc.i]
		switch c {
		case '\\':
			sc.escape()
			continue
		case '"', '\'':
			if err := sc.str(); err != nil {
				return -1, err
			}
			continue
		case '[', '(':
			stack = append(stack, c)
		case ']', ')':
			open := byte('[')
			if c == ')' {
				open = '('
			}
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return -1, fmt.Errorf("unexpected %q at offset %d", c, sc.i)
			}
			stack = stack[:len(stack)-1]
		case ':':
			if len(stack) == 0 && pseudoAt < 0 && sc.i+1 < len(s) && s[sc.i+1] == ':' {
				pseudoAt = sc.i
				sc.i += 2
				continue
			}
		default:
			if len(stack) == 0 && (c == ',' || c == '>' || c == '+' || c == '~' || isSpace(c) ||
				(c == '/' && strings.HasPrefix(s[sc.i:], "/*"))) {
				return pseudoAt, nil
			}
		}
		sc.i++
	}
	if len(stack) > 0 {
		return -1, fmt.Errorf("unclosed %q", stack[len(stack)-1])
	}
	return pseudoAt, nil
}

// escape advances over a backslash escape: "\" plus one character, or up to six hex digits
// and one optional whitespace.
func (sc *scanner) escape() {
	s := sc.s
	sc.i++ // '\'
	if sc.i >= len(s) {
		return
	}
	if !isHex(s[sc.i]) {
		sc.i++
		return
	}
	for j := 0; j < 6 && sc.i < len(s) && isHex(s[sc.i]); j++ {
		sc.i++
	}
	if sc.i < len(s) && isSpace(s[sc.i]) {
		if s[sc.i] == '\r' && sc.i+1 < len(s) && s[sc.i+1] == '\n' {
			sc.i++
		}
		sc.i++
	}
}

// str advances over a quoted string.
func (sc *scanner) str() error {
	s := sc.s
	quote := s[sc.i]
	for sc.i++; sc.i < len(s); sc.i++ {
		switch s[sc.i] {
		case '\\':
			sc.i++
		case quote:
			sc.i++
			return nil
		}
	}
	return errors.New("unclosed string")
}

// space advances over whitespace and comments and reports whether there was any.
func (sc *scanner) space() bool {
	start := sc.i
	for sc.i < len(sc.s) {
		switch {
		case isSpace(sc.s[sc.i]):
			sc.i++
		case strings.HasPrefix(sc.s[sc.i:], "/*"):
			end := strings.Index(sc.s[sc.i+2:], "*/")
			if end < 0 {
				sc.i = len(sc.s)
			} else {
				sc.i += 2 + end + 2
			}
		default:
			return sc.i > start
		}
	}
	return sc.i > start
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
