package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DocComment is a /** */ comment and the name of what it documents: a class member
// (method, field, accessor), an object literal's property or a function.
type DocComment struct {
	Name string // the member's name as written (a string key without its quotes)
	Text string // the comment between /** and */, with each line's leading "*" removed
	Line int    // 1-based line of the comment's start
}

// DocComments returns the documentation comments of src, JavaScript or TypeScript source,
// that document a named member or function, in source order. esbuild drops comments when
// it bundles, so the tools that read them (jscrawl check's contracts) read the source:
// this is a lexer that knows strings, template literals, regular expressions and comments,
// and skips what may stand between a comment and the name (decorators with their
// arguments, modifiers such as async, static, public, override, export, function, and the
// * of a generator).
func DocComments(src string) []DocComment {
	toks, docs := lexJS(src)
	var out []DocComment
	for _, d := range docs {
		if name, ok := documentedName(toks[d.next:]); ok {
			out = append(out, DocComment{Name: name, Text: cleanDoc(d.text), Line: d.line})
		}
	}
	return out
}

// modifiers may stand between a doc comment and the name it documents.
var modifiers = map[string]bool{
	"public": true, "private": true, "protected": true, "static": true, "override": true,
	"readonly": true, "async": true, "declare": true, "abstract": true, "accessor": true,
	"get": true, "set": true, "export": true, "default": true, "function": true,
	"const": true, "let": true, "var": true,
}

// documentedName reads the name at the start of toks, the tokens after a doc comment.
func documentedName(toks []token) (string, bool) {
	i := 0
	at := func(k int) token {
		if k < len(toks) {
			return toks[k]
		}
		return token{}
	}
	for i < len(toks) {
		t := toks[i]
		switch {
		case t.kind == tokPunct && t.text == "@": // a decorator: @name.path(args)
			i++
			for at(i).kind == tokIdent {
				i++
				if at(i).text != "." {
					break
				}
				i++
			}
			if at(i).text == "(" {
				i = skipBalanced(toks, i)
			}
		case t.kind == tokPunct && t.text == "*":
			i++
		case t.kind == tokIdent && modifiers[t.text] && !followsName(at(i+1)):
			i++
		case t.kind == tokIdent || t.kind == tokString:
			if followsName(at(i + 1)) {
				return t.text, true
			}
			return "", false
		default:
			return "", false
		}
	}
	return "", false
}

// followsName reports whether t can follow a member's name: its parameters, type
// parameters, an initializer, a type or property colon, or an optional mark.
func followsName(t token) bool {
	return t.kind == tokPunct && t.text != "" && strings.Contains("(<=:?;", t.text)
}

// skipBalanced returns the index after the bracket group opening at toks[i].
func skipBalanced(toks []token, i int) int {
	depth := 0
	for ; i < len(toks); i++ {
		switch toks[i].text {
		case "(", "[", "{":
			if toks[i].kind == tokPunct {
				depth++
			}
		case ")", "]", "}":
			if toks[i].kind == tokPunct {
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	return i
}

// cleanDoc removes the leading "*" of each line of a /** */ comment's body.
func cleanDoc(body string) string {
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "*")
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

type tokKind int

const (
	tokNone tokKind = iota
	tokIdent
	tokString // a quoted string; text is its content
	tokNumber
	tokPunct    // one character
	tokTemplate // a template literal or one of its parts
	tokRegexp
)

type token struct {
	kind tokKind
	text string
}

type docAt struct {
	text string
	line int
	next int // index of the token after the comment
}

// regexpAfter are the keywords after which a "/" starts a regular expression.
var regexpAfter = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true,
}

// lexJS splits src into tokens and collects its /** */ comments. Template literals nest
// through ${ }: braces are counted on a stack that marks where a template resumes.
func lexJS(src string) ([]token, []docAt) {
	var (
		toks  []token
		docs  []docAt
		line  = 1
		i     = 0
		stack []bool // one entry per open "{": true when it is a template's "${"
	)
	prevAllowsRegexp := func() bool {
		if len(toks) == 0 {
			return true
		}
		p := toks[len(toks)-1]
		switch p.kind {
		case tokIdent:
			return regexpAfter[p.text]
		case tokNumber, tokString, tokTemplate, tokRegexp:
			return false
		}
		return !strings.Contains(")]}", p.text)
	}
	// template scans a template literal's text from i (after "`" or "}") to its end or
	// to the next "${".
	template := func() {
		for i < len(src) {
			switch c := src[i]; {
			case c == '\\':
				i += 2
			case c == '`':
				i++
				toks = append(toks, token{kind: tokTemplate})
				return
			case c == '$' && i+1 < len(src) && src[i+1] == '{':
				i += 2
				stack = append(stack, true)
				toks = append(toks, token{kind: tokTemplate})
				return
			default:
				if c == '\n' {
					line++
				}
				i++
			}
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			body := src[i+2:]
			if end >= 0 {
				body = src[i+2 : i+2+end]
			}
			if strings.HasPrefix(body, "*") && body != "*" {
				docs = append(docs, docAt{text: body[1:], line: line, next: len(toks)})
			}
			line += strings.Count(body, "\n")
			i += 2 + len(body) + 2
		case c == '"' || c == '\'':
			j := i + 1
			var b strings.Builder
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) {
					if src[j+1] == '\n' {
						line++
					}
					b.WriteByte(src[j+1])
					j += 2
					continue
				}
				b.WriteByte(src[j])
				j++
			}
			toks = append(toks, token{kind: tokString, text: b.String()})
			i = j + 1
		case c == '`':
			i++
			template()
		case c == '/' && prevAllowsRegexp():
			j, inClass := i+1, false
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' {
					j += 2
					continue
				}
				if src[j] == '[' {
					inClass = true
				} else if src[j] == ']' {
					inClass = false
				} else if src[j] == '/' && !inClass {
					break
				}
				j++
			}
			j++
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tokRegexp, text: src[i:min(j, len(src))]})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isIdentByte(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tokNumber, text: src[i:j]})
			i = j
		case isIdentStart(src, i):
			j := i
			for j < len(src) && isIdentStart(src, j) || j < len(src) && src[j] >= '0' && src[j] <= '9' {
				_, n := utf8.DecodeRuneInString(src[j:])
				j += n
			}
			toks = append(toks, token{kind: tokIdent, text: src[i:j]})
			i = j
		case c == '{':
			stack = append(stack, false)
			toks = append(toks, token{kind: tokPunct, text: "{"})
			i++
		case c == '}':
			i++
			if n := len(stack); n > 0 {
				tmpl := stack[n-1]
				stack = stack[:n-1]
				if tmpl {
					template()
					continue
				}
			}
			toks = append(toks, token{kind: tokPunct, text: "}"})
		default:
			_, n := utf8.DecodeRuneInString(src[i:])
			toks = append(toks, token{kind: tokPunct, text: src[i : i+n]})
			i += n
		}
	}
	return toks, docs
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isIdentStart reports whether an identifier character (not a digit) starts at src[i].
func isIdentStart(src string, i int) bool {
	c := src[i]
	if c < utf8.RuneSelf {
		return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	r, _ := utf8.DecodeRuneInString(src[i:])
	return unicode.IsLetter(r)
}
