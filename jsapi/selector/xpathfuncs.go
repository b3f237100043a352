package selector

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/jsapi/selector/xpath1"
	"golang.org/x/net/html"
)

// The EXSLT namespaces parsel binds by default (prefixes "re" and "set"), whose functions
// every XPath expression may call.
const (
	exsltRegexNS = "http://exslt.org/regular-expressions"
	exsltSetsNS  = "http://exslt.org/sets"
)

// xpathFuncs are the extension functions parsel registers: has-class() (parsel's own) and
// the EXSLT regular expression and set functions lxml provides, on xpath1's registry.
var xpathFuncs = map[xpath1.QName]xpath1.Function{
	{Local: "has-class"}:                      {Call: hasClass, Result: xpath1.TypeBoolean},
	{Space: exsltRegexNS, Local: "test"}:      {Call: reTest, Result: xpath1.TypeBoolean},
	{Space: exsltRegexNS, Local: "match"}:     {Call: reMatch, Result: xpath1.TypeNodeSet},
	{Space: exsltRegexNS, Local: "replace"}:   {Call: reReplace, Result: xpath1.TypeString},
	{Space: exsltSetsNS, Local: "difference"}: {Call: setDifference, Result: xpath1.TypeNodeSet},
	{Space: exsltSetsNS, Local: "intersection"}: {Call: setIntersection,
		Result: xpath1.TypeNodeSet},
	{Space: exsltSetsNS, Local: "distinct"}:      {Call: setDistinct, Result: xpath1.TypeNodeSet},
	{Space: exsltSetsNS, Local: "has-same-node"}: {Call: setHasSameNode, Result: xpath1.TypeBoolean},
	{Space: exsltSetsNS, Local: "leading"}:       {Call: setLeading, Result: xpath1.TypeNodeSet},
	{Space: exsltSetsNS, Local: "trailing"}:      {Call: setTrailing, Result: xpath1.TypeNodeSet},
}

// hasClass is parsel's has-class(class, ...): whether the context element's class
// attribute holds every class given (classes split on HTML whitespace).
func hasClass(ctx *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	if len(args) == 0 {
		return xpath1.Value{}, errors.New("has-class must have at least 1 argument")
	}
	for _, a := range args {
		if a.Type != xpath1.TypeString {
			return xpath1.Value{}, errors.New("has-class arguments must be strings")
		}
	}
	n := ctx.Node
	if n.IsAttr() || n.IsNamespace() || n.N.Type != html.ElementNode {
		return xpath1.BooleanValue(false), nil
	}
	var class string
	found := false
	for _, a := range n.N.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, "class") {
			class, found = a.Val, true
			break
		}
	}
	if !found {
		return xpath1.BooleanValue(false), nil
	}
	have := strings.FieldsFunc(class, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	})
	for _, a := range args {
		if !slices.Contains(have, a.Str) {
			return xpath1.BooleanValue(false), nil
		}
	}
	return xpath1.BooleanValue(true), nil
}

// regexArgs reads (string, pattern, flags) of an EXSLT regular expression function, as
// lxml's: the pattern is Python's re, flags "i" ignores case and "g" is returned apart.
// The regular expression is bounded by the evaluation's Env.Data (SelectWithin).
func regexArgs(ctx *xpath1.Context, name string, args []xpath1.Value, min int) (string, *Regex, bool, error) {
	if len(args) < min || len(args) > min+1 {
		return "", nil, false, fmt.Errorf("re:%s takes %d or %d arguments, got %d", name, min, min+1, len(args))
	}
	flags := ""
	if len(args) > min {
		flags = ctx.String(args[min])
	}
	rflags := ""
	if strings.Contains(flags, "i") {
		rflags = "i"
	}
	re, err := CompileRegex(ctx.String(args[1]), rflags)
	if err != nil {
		return "", nil, false, err
	}
	if within, ok := ctx.Data.(time.Duration); ok {
		re = re.Within(within)
	}
	return ctx.String(args[0]), re, strings.Contains(flags, "g"), nil
}

// reTest is EXSLT re:test(string, pattern, flags?).
func reTest(ctx *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	s, re, _, err := regexArgs(ctx, "test", args, 2)
	if err != nil {
		return xpath1.Value{}, err
	}
	m, err := re.re.FindStringMatch(s)
	if err = re.matchError(err); err != nil {
		return xpath1.Value{}, err
	}
	return xpath1.BooleanValue(m != nil), nil
}

// reMatch is EXSLT re:match(string, pattern, flags?) as lxml implements it: a node-set of
// <match> elements, for the first match its whole text then each group's (empty when the
// group did not take part), or with flag "g" one per match (the first group's text when
// the pattern has groups).
func reMatch(ctx *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	s, re, global, err := regexArgs(ctx, "match", args, 2)
	if err != nil {
		return xpath1.Value{}, err
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
		return xpath1.Value{}, re.matchError(err)
	}
	// The matches are a tree of their own, under a document node, in document order.
	top := &html.Node{Type: html.DocumentNode}
	parent := &html.Node{Type: html.ElementNode, Data: "matches"}
	top.AppendChild(parent)
	out := make([]xpath1.Node, len(texts))
	for i, t := range texts {
		e := &html.Node{Type: html.ElementNode, Data: "match"}
		e.AppendChild(&html.Node{Type: html.TextNode, Data: t}) // lxml's text "" is a text node too
		parent.AppendChild(e)
		out[i] = xpath1.NodeOf(e)
	}
	return xpath1.NodeSetValue(out), nil
}

// reReplace is EXSLT re:replace(string, pattern, flags, replacement): the first match
// (every match with flag "g") replaced; the replacement may refer to groups as Python's
// re.sub does (\1, \g<1>, \g<name>).
func reReplace(ctx *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	if len(args) != 4 {
		return xpath1.Value{}, fmt.Errorf("re:replace takes 4 arguments, got %d", len(args))
	}
	s, re, global, err := regexArgs(ctx, "replace", args[:3], 2)
	if err != nil {
		return xpath1.Value{}, err
	}
	count := 1
	if global {
		count = -1
	}
	out, err := re.re.Replace(s, pythonReplacement(ctx.String(args[3])), -1, count)
	if err != nil {
		return xpath1.Value{}, re.matchError(err)
	}
	return xpath1.StringValue(out), nil
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

// nodeSets reads the node-set arguments of an EXSLT set function.
func nodeSets(name string, args []xpath1.Value, n int) ([][]xpath1.Node, error) {
	if len(args) != n {
		if n == 1 {
			return nil, fmt.Errorf("set:%s takes 1 argument, got %d", name, len(args))
		}
		return nil, fmt.Errorf("set:%s takes %d arguments, got %d", name, n, len(args))
	}
	out := make([][]xpath1.Node, n)
	for i, a := range args {
		if a.Type != xpath1.TypeNodeSet {
			return nil, fmt.Errorf("set:%s arguments must be node-sets", name)
		}
		out[i] = a.Nodes
	}
	return out, nil
}

// filterIn returns the nodes of a (in its order) whose membership in b is keep.
func filterIn(a, b []xpath1.Node, keep bool) []xpath1.Node {
	in := make(map[xpath1.Node]bool, len(b))
	for _, n := range b {
		in[n] = true
	}
	out := []xpath1.Node{}
	for _, n := range a {
		if in[n] == keep {
			out = append(out, n)
		}
	}
	return out
}

// setDifference is EXSLT set:difference(a, b): the nodes of a that are not in b.
func setDifference(_ *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	s, err := nodeSets("difference", args, 2)
	if err != nil {
		return xpath1.Value{}, err
	}
	return xpath1.NodeSetValue(filterIn(s[0], s[1], false)), nil
}

// setIntersection is EXSLT set:intersection(a, b): the nodes of a that are also in b.
func setIntersection(_ *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	s, err := nodeSets("intersection", args, 2)
	if err != nil {
		return xpath1.Value{}, err
	}
	return xpath1.NodeSetValue(filterIn(s[0], s[1], true)), nil
}

// setHasSameNode is EXSLT set:has-same-node(a, b): whether a and b share a node.
func setHasSameNode(_ *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	s, err := nodeSets("has-same-node", args, 2)
	if err != nil {
		return xpath1.Value{}, err
	}
	return xpath1.BooleanValue(len(filterIn(s[0], s[1], true)) > 0), nil
}

// setDistinct is EXSLT set:distinct(a): the first node of a of each string value.
func setDistinct(ctx *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	s, err := nodeSets("distinct", args, 1)
	if err != nil {
		return xpath1.Value{}, err
	}
	seen := map[string]bool{}
	out := []xpath1.Node{}
	for _, n := range s[0] {
		if v := ctx.StringOf(n); !seen[v] {
			seen[v] = true
			out = append(out, n)
		}
	}
	return xpath1.NodeSetValue(out), nil
}

// setLeading is EXSLT set:leading(a, b): the nodes of a before the first node of b in
// document order; all of a when b is empty, none when b's first node is not in a.
func setLeading(_ *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	return splitAtFirst("leading", args, func(a []xpath1.Node, i int) []xpath1.Node { return a[:i] })
}

// setTrailing is EXSLT set:trailing(a, b): the nodes of a after the first node of b in
// document order; all of a when b is empty, none when b's first node is not in a.
func setTrailing(_ *xpath1.Context, args []xpath1.Value) (xpath1.Value, error) {
	return splitAtFirst("trailing", args, func(a []xpath1.Node, i int) []xpath1.Node { return a[i+1:] })
}

// splitAtFirst is set:leading or set:trailing (name): all of a when b is empty, none when
// b's first node is not in a, else part(a, i) where a[i] is that node.
func splitAtFirst(name string, args []xpath1.Value, part func(a []xpath1.Node, i int) []xpath1.Node) (xpath1.Value, error) {
	s, err := nodeSets(name, args, 2)
	if err != nil {
		return xpath1.Value{}, err
	}
	if len(s[1]) == 0 {
		return xpath1.NodeSetValue(s[0]), nil
	}
	if i := slices.Index(s[0], s[1][0]); i >= 0 {
		return xpath1.NodeSetValue(part(s[0], i)), nil
	}
	return xpath1.NodeSetValue([]xpath1.Node{}), nil
}
