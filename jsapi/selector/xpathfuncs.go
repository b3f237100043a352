package selector

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
)

// The EXSLT namespaces parsel binds by default (prefixes "re" and "set"), whose functions
// every XPath expression may call.
const (
	exsltRegexNS = "http://exslt.org/regular-expressions"
	exsltSetsNS  = "http://exslt.org/sets"
)

// xpathFuncs are the extension functions parsel registers: has-class() (parsel's own) and
// the EXSLT regular expression and set functions lxml provides. They are called through
// jscrawl's patch of antchfx/xpath (third_party/antchfx-xpath).
var xpathFuncs = map[string]xpath.Function{
	"has-class":                          hasClass,
	"{" + exsltRegexNS + "}test":         reTest,
	"{" + exsltRegexNS + "}match":        reMatch,
	"{" + exsltRegexNS + "}replace":      reReplace,
	"{" + exsltSetsNS + "}difference":    setDifference,
	"{" + exsltSetsNS + "}intersection":  setIntersection,
	"{" + exsltSetsNS + "}distinct":      setDistinct,
	"{" + exsltSetsNS + "}has-same-node": setHasSameNode,
}

// hasClass is parsel's has-class(class, ...): whether the context element's class
// attribute holds every class given (classes split on HTML whitespace).
func hasClass(ctx xpath.NodeNavigator, args []any) (any, error) {
	if len(args) == 0 {
		return nil, errors.New("has-class must have at least 1 argument")
	}
	for _, a := range args {
		if _, ok := a.(string); !ok {
			return nil, errors.New("has-class arguments must be strings")
		}
	}
	n, ok := ctx.(*navigator)
	if !ok || n.attr >= 0 || n.curr.Type != html.ElementNode {
		return false, nil
	}
	var class string
	found := false
	for _, a := range n.curr.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, "class") {
			class, found = a.Val, true
			break
		}
	}
	if !found {
		return false, nil
	}
	have := strings.FieldsFunc(class, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	})
	for _, a := range args {
		want := a.(string)
		hit := false
		for _, h := range have {
			if h == want {
				hit = true
				break
			}
		}
		if !hit {
			return false, nil
		}
	}
	return true, nil
}

// xpathString is XPath's string() of an argument: a node-set's first node's value.
func xpathString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []xpath.NodeNavigator:
		if len(x) == 0 {
			return ""
		}
		return x[0].Value()
	}
	return ""
}

// regexArgs reads (string, pattern, flags) of an EXSLT regular expression function, as
// lxml's: the pattern is Python's re, flags "i" ignores case and "g" is returned apart.
func regexArgs(ctx xpath.NodeNavigator, name string, args []any, min int) (string, *Regex, bool, error) {
	if len(args) < min || len(args) > min+1 {
		return "", nil, false, fmt.Errorf("re:%s takes %d or %d arguments, got %d", name, min, min+1, len(args))
	}
	flags := ""
	if len(args) > min {
		flags = xpathString(args[min])
	}
	rflags := ""
	if strings.Contains(flags, "i") {
		rflags = "i"
	}
	re, err := CompileRegex(xpathString(args[1]), rflags)
	if err != nil {
		return "", nil, false, err
	}
	if n, ok := ctx.(*navigator); ok {
		re = re.Within(n.within)
	}
	return xpathString(args[0]), re, strings.Contains(flags, "g"), nil
}

// reTest is EXSLT re:test(string, pattern, flags?).
func reTest(ctx xpath.NodeNavigator, args []any) (any, error) {
	s, re, _, err := regexArgs(ctx, "test", args, 2)
	if err != nil {
		return nil, err
	}
	m, err := re.re.FindStringMatch(s)
	return m != nil, re.matchError(err)
}

// reMatch is EXSLT re:match(string, pattern, flags?) as lxml implements it: a node-set of
// <match> elements, for the first match its whole text then each group's (empty when the
// group did not take part), or with flag "g" one per match (the first group's text when
// the pattern has groups).
func reMatch(ctx xpath.NodeNavigator, args []any) (any, error) {
	s, re, global, err := regexArgs(ctx, "match", args, 2)
	if err != nil {
		return nil, err
	}
	var texts []string
	m, err := re.re.FindStringMatch(s)
	for err == nil && m != nil {
		gs := m.Groups()
		switch {
		case !global:
			for _, g := range gs {
				texts = append(texts, g.String())
			}
		case len(gs) > 1:
			texts = append(texts, gs[1].String())
		default:
			texts = append(texts, m.String())
		}
		if !global {
			break
		}
		m, err = re.re.FindNextMatch(m)
	}
	if err != nil {
		return nil, re.matchError(err)
	}
	var doc *Document
	if n, ok := ctx.(*navigator); ok {
		doc = n.doc
	}
	parent := &html.Node{Type: html.ElementNode, Data: "matches"}
	out := make([]xpath.NodeNavigator, len(texts))
	for i, t := range texts {
		e := &html.Node{Type: html.ElementNode, Data: "match"}
		e.AppendChild(&html.Node{Type: html.TextNode, Data: t}) // lxml's text "" is a text node too
		parent.AppendChild(e)
		out[i] = &navigator{doc: doc, curr: e, attr: -1}
	}
	return out, nil
}

// reReplace is EXSLT re:replace(string, pattern, flags, replacement): the first match
// (every match with flag "g") replaced; the replacement may refer to groups as Python's
// re.sub does (\1, \g<1>, \g<name>).
func reReplace(ctx xpath.NodeNavigator, args []any) (any, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("re:replace takes 4 arguments, got %d", len(args))
	}
	s, re, global, err := regexArgs(ctx, "replace", []any{args[0], args[1], args[2]}, 2)
	if err != nil {
		return nil, err
	}
	count := 1
	if global {
		count = -1
	}
	out, err := re.re.Replace(s, pythonReplacement(xpathString(args[3])), -1, count)
	if err != nil {
		return nil, re.matchError(err)
	}
	return out, nil
}

// pythonReplacement rewrites a Python re.sub replacement to the .NET syntax of regexp2:
// \N and \g<N> become ${N}, \g<name> becomes ${name}, a literal $ becomes $$, and
// Python's escapes \n, \t and \\ their characters.
func pythonReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(r):
			d := r[i+1]
			switch {
			case d >= '0' && d <= '9':
				j := i + 1
				for j < len(r) && j < i+3 && r[j] >= '0' && r[j] <= '9' {
					j++
				}
				b.WriteString("${" + r[i+1:j] + "}")
				i = j - 1
			case d == 'g' && i+2 < len(r) && r[i+2] == '<':
				end := strings.IndexByte(r[i:], '>')
				if end < 0 {
					b.WriteString(r[i:])
					return b.String()
				}
				b.WriteString("${" + r[i+3:i+end] + "}")
				i += end
			case d == 'n':
				b.WriteByte('\n')
				i++
			case d == 't':
				b.WriteByte('\t')
				i++
			case d == '\\':
				b.WriteByte('\\')
				i++
			default:
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// nodeSets reads the two node-set arguments of an EXSLT set function.
func nodeSets(name string, args []any) ([]xpath.NodeNavigator, []xpath.NodeNavigator, error) {
	if len(args) != 2 {
		return nil, nil, fmt.Errorf("set:%s takes 2 arguments, got %d", name, len(args))
	}
	a, ok1 := args[0].([]xpath.NodeNavigator)
	b, ok2 := args[1].([]xpath.NodeNavigator)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("set:%s arguments must be node-sets", name)
	}
	return a, b, nil
}

// nodeKey identifies a node of this package's navigator: its node and attribute.
type nodeKey struct {
	n    *html.Node
	attr int
}

func keyOf(v xpath.NodeNavigator) nodeKey {
	if n, ok := v.(*navigator); ok {
		return nodeKey{n.curr, n.attr}
	}
	return nodeKey{}
}

func keySet(ns []xpath.NodeNavigator) map[nodeKey]bool {
	m := make(map[nodeKey]bool, len(ns))
	for _, n := range ns {
		m[keyOf(n)] = true
	}
	return m
}

// setDifference is EXSLT set:difference(a, b): the nodes of a that are not in b.
func setDifference(_ xpath.NodeNavigator, args []any) (any, error) {
	a, b, err := nodeSets("difference", args)
	if err != nil {
		return nil, err
	}
	in := keySet(b)
	out := []xpath.NodeNavigator{}
	for _, n := range a {
		if !in[keyOf(n)] {
			out = append(out, n)
		}
	}
	return out, nil
}

// setIntersection is EXSLT set:intersection(a, b): the nodes of a that are also in b.
func setIntersection(_ xpath.NodeNavigator, args []any) (any, error) {
	a, b, err := nodeSets("intersection", args)
	if err != nil {
		return nil, err
	}
	in := keySet(b)
	out := []xpath.NodeNavigator{}
	for _, n := range a {
		if in[keyOf(n)] {
			out = append(out, n)
		}
	}
	return out, nil
}

// setHasSameNode is EXSLT set:has-same-node(a, b): whether a and b share a node.
func setHasSameNode(_ xpath.NodeNavigator, args []any) (any, error) {
	a, b, err := nodeSets("has-same-node", args)
	if err != nil {
		return nil, err
	}
	in := keySet(b)
	for _, n := range a {
		if in[keyOf(n)] {
			return true, nil
		}
	}
	return false, nil
}

// setDistinct is EXSLT set:distinct(a): the first node of a of each string value.
func setDistinct(_ xpath.NodeNavigator, args []any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("set:distinct takes 1 argument, got %d", len(args))
	}
	a, ok := args[0].([]xpath.NodeNavigator)
	if !ok {
		return nil, errors.New("set:distinct argument must be a node-set")
	}
	seen := map[string]bool{}
	out := []xpath.NodeNavigator{}
	for _, n := range a {
		if v := n.Value(); !seen[v] {
			seen[v] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// Namespaces returns the namespace nodes in scope of the current element, for the
// namespace:: axis (xpath.NamespaceNavigator), as lxml gives them: the xml namespace, and
// in an XML document every prefix (and the default namespace) declared on the element or
// its ancestors, the nearest declaration winning. After RemoveNamespaces only xml is
// left. Other nodes have none.
func (n *navigator) Namespaces() []xpath.NodeNavigator {
	if n.attr >= 0 || n.curr.Type != html.ElementNode {
		return nil
	}
	out := []xpath.NodeNavigator{&nsNavigator{parent: *n, prefix: "xml", uri: xmlNamespace}}
	if n.x == nil || n.x.noNS.Load() {
		return out
	}
	seen := map[string]bool{"xml": true}
	for e := n.curr; e != nil && e.Type == html.ElementNode; e = e.Parent {
		for _, a := range e.Attr {
			if !isDeclaration(a.Key) {
				continue
			}
			prefix, _ := strings.CutPrefix(a.Key, "xmlns")
			prefix = strings.TrimPrefix(prefix, ":")
			if seen[prefix] {
				continue
			}
			seen[prefix] = true
			if a.Val != "" { // xmlns="" undeclares the default namespace
				out = append(out, &nsNavigator{parent: *n, prefix: prefix, uri: a.Val})
			}
		}
	}
	return out
}

// nsNavigator is a namespace node: its name is the prefix, its value the URI. It has no
// children, attributes or siblings; its parent is the element it is in scope of.
type nsNavigator struct {
	parent      navigator
	prefix, uri string
}

func (s *nsNavigator) NodeType() xpath.NodeType { return xpath.AttributeNode }
func (s *nsNavigator) LocalName() string        { return s.prefix }
func (s *nsNavigator) Prefix() string           { return "" }
func (s *nsNavigator) Value() string            { return s.uri }
func (s *nsNavigator) Copy() xpath.NodeNavigator {
	c := *s
	return &c
}
func (s *nsNavigator) MoveToRoot()               {}
func (s *nsNavigator) MoveToParent() bool        { return false }
func (s *nsNavigator) MoveToNextAttribute() bool { return false }
func (s *nsNavigator) MoveToChild() bool         { return false }
func (s *nsNavigator) MoveToFirst() bool         { return false }
func (s *nsNavigator) MoveToNext() bool          { return false }
func (s *nsNavigator) MoveToPrevious() bool      { return false }
func (s *nsNavigator) MoveTo(other xpath.NodeNavigator) bool {
	o, ok := other.(*nsNavigator)
	if ok {
		*s = *o
	}
	return ok
}

// Interface guards
var (
	_ xpath.NamespaceNavigator = (*navigator)(nil)
	_ xpath.NodeNavigator      = (*nsNavigator)(nil)
)
