package xpath1

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token (XPath 1.0 §3.7, ExprToken).
type tokKind uint8

const (
	tEOF      tokKind = iota
	tNumber           // 12, 1.5, .5
	tLiteral          // "…" or '…'
	tVar              // $name, $p:name (val holds the name)
	tName             // a name test: NCName, QName or prefix:* (prefix, val)
	tStar             // * as a name test
	tFunc             // a function name before "(" (prefix, val)
	tNodeType         // node, text, comment, processing-instruction before "("
	tAxis             // an axis name before "::"
	tOp               // an operator or punctuation (val)
	tErr              // a lexical error (err); the last token
)

type token struct {
	kind   tokKind
	val    string
	prefix string
	num    float64
	pos    int   // byte offset in the expression
	err    error // tErr: why
}

// lexer turns an expression into tokens, resolving the REC's lexical ambiguities (§3.7):
// after a token that is not @, ::, (, [, , or an operator, * is the multiply operator and
// a name is an operator name (and, or, mod, div).
type lexer struct {
	src  string
	pos  int
	toks []token
}

func isNameStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
}

func isNameChar(r rune) bool {
	return isNameStart(r) || r == '-' || r == '.' || unicode.IsDigit(r) ||
		unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Lm, r) || r == 0xB7
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// operatorContext reports whether the previous token lets the next * or name be an
// operator.
func (l *lexer) operatorContext() bool {
	if len(l.toks) == 0 {
		return false
	}
	p := l.toks[len(l.toks)-1]
	switch p.kind {
	case tAxis, tFunc, tNodeType:
		return false
	case tOp:
		switch p.val {
		case ")", "]", ".", "..":
			return true
		}
		return false
	}
	return true
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
		l.pos++
	}
}

func (l *lexer) scanNCName() string {
	start := l.pos
	for l.pos < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.pos:])
		if l.pos == start && !isNameStart(r) || l.pos > start && !isNameChar(r) {
			break
		}
		l.pos += n
	}
	return l.src[start:l.pos]
}

func (l *lexer) startsName(at int) bool {
	if at >= len(l.src) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(l.src[at:])
	return isNameStart(r)
}

// peekNonSpace returns the offset of the next non-space byte at or after i.
func (l *lexer) peekNonSpace(i int) int {
	for i < len(l.src) && isSpace(l.src[i]) {
		i++
	}
	return i
}

// lex splits src into tokens. A lexical error ends the list with a tErr token, which the
// parser reports only if it gets that far: as libxml2, "[@a="x"y"]" is an invalid
// predicate before it is an unfinished literal.
func lex(src string) []token {
	l := &lexer{src: src}
	for {
		l.skipSpace()
		if l.pos >= len(src) {
			l.toks = append(l.toks, token{kind: tEOF, pos: l.pos})
			return l.toks
		}
		start := l.pos
		c := src[l.pos]
		switch {
		case c == '"' || c == '\'':
			end := strings.IndexByte(src[l.pos+1:], c)
			if end < 0 {
				return append(l.toks, token{kind: tErr, pos: start, err: ErrUnfinishedLiteral})
			}
			l.toks = append(l.toks, token{kind: tLiteral, val: src[l.pos+1 : l.pos+1+end], pos: start})
			l.pos += end + 2
		case c >= '0' && c <= '9' || c == '.' && l.pos+1 < len(src) && src[l.pos+1] >= '0' && src[l.pos+1] <= '9':
			for l.pos < len(src) && src[l.pos] >= '0' && src[l.pos] <= '9' {
				l.pos++
			}
			if l.pos < len(src) && src[l.pos] == '.' {
				l.pos++
				for l.pos < len(src) && src[l.pos] >= '0' && src[l.pos] <= '9' {
					l.pos++
				}
			}
			l.pos += exponentLen(src[l.pos:])
			l.toks = append(l.toks, token{kind: tNumber, val: src[start:l.pos], num: parseNumber(src[start:l.pos]), pos: start})
		case c == '$':
			l.pos++
			name := l.scanNCName()
			if name == "" {
				return append(l.toks, token{kind: tErr, pos: start, err: ErrInvalidExpression})
			}
			t := token{kind: tVar, val: name, pos: start}
			if l.pos+1 < len(src) && src[l.pos] == ':' && l.startsName(l.pos+1) {
				l.pos++
				t.prefix, t.val = name, l.scanNCName()
			}
			l.toks = append(l.toks, t)
		case c == '*':
			l.pos++
			if l.operatorContext() {
				l.toks = append(l.toks, token{kind: tOp, val: "*", pos: start})
			} else {
				l.toks = append(l.toks, token{kind: tStar, pos: start})
			}
		case l.startsName(l.pos):
			name := l.scanNCName()
			if l.operatorContext() {
				switch name {
				case "and", "or", "mod", "div":
					l.toks = append(l.toks, token{kind: tOp, val: name, pos: start})
					continue
				}
				// Not an operator where one must be: a name the parser rejects in place.
			}
			t := token{kind: tName, val: name, pos: start}
			if l.pos+1 < len(src) && src[l.pos] == ':' && src[l.pos+1] != ':' {
				switch {
				case src[l.pos+1] == '*':
					l.pos += 2
					t.kind, t.prefix, t.val = tName, name, "*"
					l.toks = append(l.toks, t)
					continue
				case l.startsName(l.pos + 1):
					l.pos++
					t.prefix, t.val = name, l.scanNCName()
				default:
					return append(l.toks, token{kind: tErr, pos: l.pos, err: ErrInvalidExpression})
				}
			}
			next := l.peekNonSpace(l.pos)
			switch {
			case t.prefix == "" && strings.HasPrefix(src[next:], "::"):
				t.kind = tAxis
			case next < len(src) && src[next] == '(':
				t.kind = tFunc
				if t.prefix == "" {
					switch name {
					case "node", "text", "comment", "processing-instruction":
						t.kind = tNodeType
					}
				}
			}
			l.toks = append(l.toks, t)
		default:
			op := ""
			for _, o := range [...]string{"//", "::", "..", "!=", "<=", ">=", "/", "(", ")", "[", "]", ".", "@", ",", "|", "+", "-", "=", "<", ">"} {
				if strings.HasPrefix(src[l.pos:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return append(l.toks, token{kind: tErr, pos: start, err: ErrInvalidExpression})
			}
			l.pos += len(op)
			l.toks = append(l.toks, token{kind: tOp, val: op, pos: start})
		}
	}
}

// exponentLen returns the length of the exponent ("e3", "E-5", "e+2") that s starts with,
// or 0. Exponents are not XPath 1.0 but libxml2 (so lxml, so parsel) reads them, in
// number literals and in number().
func exponentLen(s string) int {
	if len(s) < 2 || s[0] != 'e' && s[0] != 'E' {
		return 0
	}
	i := 1
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0
	}
	return j
}
