package xpath1

import (
	"math"
	"strings"
	"unicode/utf8"
)

// builtin is a function of the core library (§4). It gets its arguments unevaluated, so
// position() and count() cost no conversion.
type builtin struct {
	min, max int // arity (max -1: any number)
	ret      Type
	call     func(ev *evaluator, f focus, args []expr) Value
}

var builtins map[string]*builtin

func init() {
	builtins = map[string]*builtin{
		// §4.1 Node set functions
		"last":          {0, 0, TypeNumber, func(_ *evaluator, f focus, _ []expr) Value { return NumberValue(float64(f.size)) }},
		"position":      {0, 0, TypeNumber, func(_ *evaluator, f focus, _ []expr) Value { return NumberValue(float64(f.pos)) }},
		"count":         {1, 1, TypeNumber, fnCount},
		"id":            {1, 1, TypeNodeSet, fnID},
		"local-name":    {0, 1, TypeString, fnLocalName},
		"namespace-uri": {0, 1, TypeString, fnNamespaceURI},
		"name":          {0, 1, TypeString, fnName},
		// §4.2 String functions
		"string":           {0, 1, TypeString, fnString},
		"concat":           {2, -1, TypeString, fnConcat},
		"starts-with":      {2, 2, TypeBoolean, fnStartsWith},
		"contains":         {2, 2, TypeBoolean, fnContains},
		"substring-before": {2, 2, TypeString, fnSubstringBefore},
		"substring-after":  {2, 2, TypeString, fnSubstringAfter},
		"substring":        {2, 3, TypeString, fnSubstring},
		"string-length":    {0, 1, TypeNumber, fnStringLength},
		"normalize-space":  {0, 1, TypeString, fnNormalizeSpace},
		"translate":        {3, 3, TypeString, fnTranslate},
		// §4.3 Boolean functions
		"boolean": {1, 1, TypeBoolean, func(ev *evaluator, f focus, a []expr) Value { return BooleanValue(toBoolean(a[0].eval(ev, f))) }},
		"not":     {1, 1, TypeBoolean, func(ev *evaluator, f focus, a []expr) Value { return BooleanValue(!toBoolean(a[0].eval(ev, f))) }},
		"true":    {0, 0, TypeBoolean, func(*evaluator, focus, []expr) Value { return BooleanValue(true) }},
		"false":   {0, 0, TypeBoolean, func(*evaluator, focus, []expr) Value { return BooleanValue(false) }},
		"lang":    {1, 1, TypeBoolean, fnLang},
		// §4.4 Number functions
		"number":  {0, 1, TypeNumber, fnNumber},
		"sum":     {1, 1, TypeNumber, fnSum},
		"floor":   {1, 1, TypeNumber, func(ev *evaluator, f focus, a []expr) Value { return NumberValue(math.Floor(ev.num(f, a[0]))) }},
		"ceiling": {1, 1, TypeNumber, func(ev *evaluator, f focus, a []expr) Value { return NumberValue(math.Ceil(ev.num(f, a[0]))) }},
		"round":   {1, 1, TypeNumber, func(ev *evaluator, f focus, a []expr) Value { return NumberValue(Round(ev.num(f, a[0]))) }},
	}
}

func (ev *evaluator) str(f focus, e expr) string  { return ev.toString(e.eval(ev, f)) }
func (ev *evaluator) num(f focus, e expr) float64 { return ev.toNumber(e.eval(ev, f)) }
func (ev *evaluator) nodes(f focus, e expr) []Node {
	v := e.eval(ev, f)
	if v.Type != TypeNodeSet {
		ev.fail(ErrInvalidType)
	}
	return v.Nodes
}

// argString is the string of the optional argument, or the context node's string-value.
func (ev *evaluator) argString(f focus, args []expr) string {
	if len(args) == 0 {
		return ev.stringOf(f.node)
	}
	return ev.str(f, args[0])
}

// argNode is the first node of the optional node-set argument, or the context node.
func (ev *evaluator) argNode(f focus, args []expr) (Node, bool) {
	if len(args) == 0 {
		return f.node, true
	}
	ns := ev.nodes(f, args[0])
	if len(ns) == 0 {
		return Node{}, false
	}
	return ns[0], true
}

// Round is XPath's round() (§4.4): the closest integer, halves toward positive infinity;
// NaN, infinities and zeros unchanged, and -0.5 ≤ x < 0 gives -0.
func Round(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	if r == 0 && x < 0 {
		return math.Copysign(0, -1)
	}
	return r
}

func fnCount(ev *evaluator, f focus, a []expr) Value {
	return NumberValue(float64(len(ev.nodes(f, a[0]))))
}

func fnID(ev *evaluator, f focus, a []expr) Value {
	v := a[0].eval(ev, f)
	var ids []string
	if v.Type == TypeNodeSet {
		for _, n := range v.Nodes {
			ids = append(ids, strings.Fields(ev.stringOf(n))...)
		}
	} else {
		ids = strings.Fields(ev.toString(v))
	}
	if len(ids) == 0 {
		return NodeSetValue(nil)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	root := f.node.N
	for root.Parent != nil {
		root = root.Parent
	}
	var out []Node
	found := map[string]bool{}
	for c := root; c != nil; c = nextVisible(ev.m, c, root) {
		if ev.m.Kind(c) != KindElement {
			continue
		}
		for i := range c.Attr {
			if val := c.Attr[i].Val; want[val] && !found[val] && ev.m.IsID(c, i) {
				found[val] = true // the first element with an ID wins, as in XML
				out = append(out, NodeOf(c))
				break
			}
		}
	}
	ev.tick(len(out) + 1)
	return NodeSetValue(out)
}

// names returns the prefix, local name and namespace URI of n (empty for nodes without
// an expanded name).
func (ev *evaluator) names(n Node) (prefix, local, uri string) {
	switch ev.kind(n) {
	case KindElement:
		return ev.m.Name(n.N)
	case KindAttribute:
		prefix, local, uri, _ = ev.m.Attr(n.N, int(n.A))
		return prefix, local, uri
	case KindPI:
		_, local, _ = ev.m.Name(n.N)
		return "", local, ""
	case KindNamespace:
		if ns := ev.m.Namespaces(n.N); n.nsIndex() < len(ns) {
			return "", ns[n.nsIndex()].Prefix, ""
		}
	}
	return "", "", ""
}

// nameFunction returns local-name(), namespace-uri() or name(): pick builds the result
// from the names of the argument's first node (or the context node); no node gives "".
func nameFunction(pick func(prefix, local, uri string) string) func(*evaluator, focus, []expr) Value {
	return func(ev *evaluator, f focus, a []expr) Value {
		n, ok := ev.argNode(f, a)
		if !ok {
			return StringValue("")
		}
		return StringValue(pick(ev.names(n)))
	}
}

var (
	fnLocalName    = nameFunction(func(_, local, _ string) string { return local })
	fnNamespaceURI = nameFunction(func(_, _, uri string) string { return uri })
	fnName         = nameFunction(func(prefix, local, _ string) string {
		if prefix != "" {
			return prefix + ":" + local
		}
		return local
	})
)

func fnString(ev *evaluator, f focus, a []expr) Value { return StringValue(ev.argString(f, a)) }

func fnConcat(ev *evaluator, f focus, a []expr) Value {
	var b strings.Builder
	for _, e := range a {
		b.WriteString(ev.str(f, e))
	}
	return StringValue(b.String())
}

func fnStartsWith(ev *evaluator, f focus, a []expr) Value {
	return BooleanValue(strings.HasPrefix(ev.str(f, a[0]), ev.str(f, a[1])))
}

func fnContains(ev *evaluator, f focus, a []expr) Value {
	return BooleanValue(strings.Contains(ev.str(f, a[0]), ev.str(f, a[1])))
}

func fnSubstringBefore(ev *evaluator, f focus, a []expr) Value {
	s, t := ev.str(f, a[0]), ev.str(f, a[1])
	if i := strings.Index(s, t); i >= 0 {
		return StringValue(s[:i])
	}
	return StringValue("")
}

func fnSubstringAfter(ev *evaluator, f focus, a []expr) Value {
	s, t := ev.str(f, a[0]), ev.str(f, a[1])
	if i := strings.Index(s, t); i >= 0 {
		return StringValue(s[i+len(t):])
	}
	return StringValue("")
}

// fnSubstring keeps the characters whose position p satisfies
// round(start) <= p < round(start) + round(length) (§4.2), NaN and infinities included.
func fnSubstring(ev *evaluator, f focus, a []expr) Value {
	s := ev.str(f, a[0])
	start := Round(ev.num(f, a[1]))
	end := math.Inf(1)
	if len(a) == 3 {
		end = start + Round(ev.num(f, a[2]))
	}
	if math.IsNaN(start) || math.IsNaN(end) {
		return StringValue("")
	}
	// The kept characters are contiguous: find their byte range.
	from, to := -1, len(s)
	p := 0.0
	for i := range s {
		p++
		in := p >= start && p < end
		if in && from < 0 {
			from = i
		} else if !in && from >= 0 {
			to = i
			break
		}
	}
	if from < 0 {
		return StringValue("")
	}
	return StringValue(s[from:to])
}

func fnStringLength(ev *evaluator, f focus, a []expr) Value {
	return NumberValue(float64(utf8.RuneCountInString(ev.argString(f, a))))
}

func fnNormalizeSpace(ev *evaluator, f focus, a []expr) Value {
	return StringValue(strings.Join(strings.FieldsFunc(ev.argString(f, a), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}), " "))
}

func fnTranslate(ev *evaluator, f focus, a []expr) Value {
	s, from, to := ev.str(f, a[0]), []rune(ev.str(f, a[1])), []rune(ev.str(f, a[2]))
	var b strings.Builder
	for _, r := range s {
		i := -1
		for j, c := range from {
			if c == r {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(r)
		case i < len(to):
			b.WriteRune(to[i])
		}
	}
	return StringValue(b.String())
}

// fnLang is lang() (§4.3): whether the xml:lang of the context node (the nearest
// ancestor-or-self element's) is the language given or a sublanguage of it, ignoring case.
func fnLang(ev *evaluator, f focus, a []expr) Value {
	want := ev.str(f, a[0])
	for n := f.node.N; n != nil; n = n.Parent {
		if ev.m.Kind(n) != KindElement {
			continue
		}
		for i := range n.Attr {
			if _, local, uri, ok := ev.m.Attr(n, i); ok && local == "lang" && uri == XMLNamespace {
				v := n.Attr[i].Val
				ok := strings.EqualFold(v, want) ||
					len(v) > len(want) && v[len(want)] == '-' && strings.EqualFold(v[:len(want)], want)
				return BooleanValue(ok)
			}
		}
	}
	return BooleanValue(false)
}

func fnNumber(ev *evaluator, f focus, a []expr) Value {
	if len(a) == 0 {
		return NumberValue(parseNumber(ev.stringOf(f.node)))
	}
	return NumberValue(ev.num(f, a[0]))
}

func fnSum(ev *evaluator, f focus, a []expr) Value {
	sum := 0.0
	for _, n := range ev.nodes(f, a[0]) {
		sum += parseNumber(ev.stringOf(n))
	}
	return NumberValue(sum)
}
