package jsapi

// cheerio's $ over a parsed document (response.$ and the built-in "cheerio" module's
// load()): a JS function made in Go whose Cheerio objects are Go-backed arrays of
// *html.Node, so traversal, text() and attr() run in Go and no JS object is made for an
// element until a script reads one (an index, get(), toArray(), a callback's el). The
// methods are cheerio 1.x's (cheerio's src/api/traversing.ts and attributes.ts), on the
// goquery tree the selector layer parsed.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/andybalholm/cascadia"
	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/jsapi/selector/memo"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// CheerioModuleName is the name spiders import the cheerio-compatible API from
// (`import { load } from "cheerio"`), a native module as ModuleName.
const CheerioModuleName = "cheerio"

// NativeModules lists the modules served by the VM, not bundled: what every bundle of a
// spider must leave external (runtime.BundleOptions.External).
var NativeModules = []string{ModuleName, CheerioModuleName, CrawleeModule, CrawleeCheerioModule}

// cheerioDoc is one document as cheerio's $ sees it: its root (a DocumentNode), the URL
// prop("href") resolves against, and the JS objects of its nodes, made on first use and
// kept so the same node is always the same object. It lives as long as its $ function.
type cheerioDoc struct {
	st   *vmState
	root *html.Node
	base string      // cheerio's baseURI option ("" : prop("href") is the attribute)
	h    *respHandle // the response, for its URL encoding; nil for load()
	// scripting: parsed with scripting enabled (load(), as parse5 by default), so
	// <noscript> holds raw text; responses are parsed with it disabled.
	scripting bool
	handles   map[*html.Node]goja.Value
	api       *goja.Object // the $ function
	rootSel   goja.Value   // $.root(), made on first use
}

// jsCheerio is a Cheerio object: a Go-backed, read-only array of nodes, or of any values
// (map()'s results that are not all nodes), with cheerio's methods on st.cheerioProto.
type jsCheerio struct {
	d     *cheerioDoc
	nodes []*html.Node
	vals  []goja.Value // non-nil: the object holds these values instead of nodes
	prev  goja.Value   // prevObject: the object this one was made from (end())
}

func (c *jsCheerio) Len() int {
	if c.vals != nil {
		return len(c.vals)
	}
	return len(c.nodes)
}

func (c *jsCheerio) Get(i int) goja.Value {
	if i < 0 || i >= c.Len() {
		return nil
	}
	if c.vals != nil {
		return c.vals[i]
	}
	return c.d.handle(c.nodes[i])
}

func (c *jsCheerio) Set(int, goja.Value) bool { return false }
func (c *jsCheerio) SetLen(int) bool          { return false }

// nodeList is the nodes the object holds; for an object of values, those that are nodes.
func (c *jsCheerio) nodeList() []*html.Node {
	if c.vals == nil {
		return c.nodes
	}
	var out []*html.Node
	for _, v := range c.vals {
		if n := nodeOf(v); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// newDoc makes the $ of the document whose root is root; base is cheerio's baseURI.
func (st *vmState) newDoc(root *html.Node, base string, h *respHandle, scripting bool) *cheerioDoc {
	d := &cheerioDoc{st: st, root: root, base: base, h: h, scripting: scripting, handles: map[*html.Node]goja.Value{}}
	f := st.rt.ToValue(func(c goja.FunctionCall) goja.Value {
		v, err := d.dollar(c)
		if err != nil {
			throwErr(st.rt, err)
		}
		return v
	}).(*goja.Object)
	_ = f.SetPrototype(st.cheerioStatic)
	_ = f.DefineDataPropertySymbol(st.cheerioKey, st.rt.ToValue(d), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	d.api = f
	return d
}

// make makes a Cheerio object of nodes, derived from prev (undefined: none).
func (d *cheerioDoc) make(nodes []*html.Node, prev goja.Value) goja.Value {
	o := d.st.rt.NewDynamicArray(&jsCheerio{d: d, nodes: nodes, prev: prev})
	_ = o.SetPrototype(d.st.cheerioProto)
	return o
}

// dollar is $(selector, context) and $(element | cheerio | array | html).
func (d *cheerioDoc) dollar(c goja.FunctionCall) (goja.Value, error) {
	sel := c.Argument(0)
	undef := goja.Undefined()
	if isNil(sel) {
		return d.make(nil, undef), nil
	}
	if goja.IsString(sel) {
		s := sel.String()
		if s == "" {
			return d.make(nil, undef), nil
		}
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && len(t) >= 3 {
			nodes, err := parseFragmentNodes(s)
			if err != nil {
				return nil, err
			}
			return d.make(nodes, undef), nil
		}
		ctx := []*html.Node{d.root}
		if cv := c.Argument(1); !isNil(cv) {
			var err error
			if goja.IsString(cv) {
				if ctx, err = d.selectIn(cv.String(), []*html.Node{d.root}); err != nil {
					return nil, err
				}
			} else {
				ctx = nodesOf(cv)
			}
		}
		nodes, err := d.selectIn(s, ctx)
		if err != nil {
			return nil, err
		}
		return d.make(nodes, undef), nil
	}
	if cc, ok := sel.Export().(*jsCheerio); ok {
		return d.make(slices.Clone(cc.nodeList()), undef), nil
	}
	return d.make(nodesOf(sel), undef), nil
}

// nodeOf returns the node of an element handle, or nil.
func nodeOf(v goja.Value) *html.Node {
	if isNil(v) {
		return nil
	}
	if h, ok := v.Export().(*jsNode); ok {
		return h.n
	}
	return nil
}

// nodesOf returns the nodes of an element handle, a Cheerio object or an array of
// handles (other values are skipped).
func nodesOf(v goja.Value) []*html.Node {
	if isNil(v) {
		return nil
	}
	switch x := v.Export().(type) {
	case *jsNode:
		return []*html.Node{x.n}
	case *jsCheerio:
		return x.nodeList()
	}
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" {
		return nil
	}
	var out []*html.Node
	for _, k := range o.Keys() {
		if n := nodeOf(o.Get(k)); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// parseFragmentNodes parses s as $("<p>html</p>") does: a fragment in a <body>.
func parseFragmentNodes(s string) ([]*html.Node, error) {
	root := &html.Node{Type: html.DocumentNode}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return nil, typeError("$(): %v", err)
	}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return nodes, nil
}

// matchers caches the compiled cheerio selectors by their text, process-wide.
var matchers = memo.Cache[cascadia.SelectorGroup]{Limit: 2048}

// matcher compiles a cheerio selector (cached); invalid CSS is a SyntaxError, as
// css-what's.
func matcher(sel string) (cascadia.SelectorGroup, error) {
	g, err := matchers.Get(sel, func() (cascadia.SelectorGroup, error) { return cascadia.ParseGroup(sel) })
	if err != nil {
		return nil, &jsError{"SyntaxError", err}
	}
	return g, nil
}

// selectIn returns the elements inside ctx (not ctx themselves) that match sel, in
// document order without duplicates: cheerio's find(), whose selector is scoped as
// css-select scopes it (":scope sel"): the leftmost compound may match a context element
// or an element inside it, never one above (`$("#b").find("div p")` counts #b as the div,
// `$("#b").find("#a p")` finds nothing when #a is above #b). That is parsel's scoping, so
// the selector layer's compiled queries (response.css's) run it. A selector that starts
// with a combinator (`> p`, `+ p`, `~ p`) is relative to the context elements, as
// cheerio's; its rest must then be one compound selector.
func (d *cheerioDoc) selectIn(sel string, ctx []*html.Node) ([]*html.Node, error) {
	if t := strings.TrimSpace(sel); t != "" && strings.ContainsRune(">+~", rune(t[0])) {
		return relativeSelect(t, ctx)
	}
	q, err := selector.Compile(sel)
	if err != nil {
		return nil, &jsError{"SyntaxError", err}
	}
	var out []*html.Node
	for _, c := range ctx {
		for _, r := range q.Select(selector.Result{Node: c, Kind: selector.KindElement}) {
			if r.Kind == selector.KindElement && r.Node != c && (c.Type == html.DocumentNode || contains(c, r.Node)) {
				out = append(out, r.Node)
			}
		}
	}
	if len(ctx) > 1 {
		out = uniqueSort(out)
	}
	return out, nil
}

// relativeSelect is selectIn for a selector that starts with a combinator.
func relativeSelect(sel string, ctx []*html.Node) ([]*html.Node, error) {
	comb, rest := sel[0], strings.TrimSpace(sel[1:])
	if rest == "" || strings.ContainsAny(rest, " >+~,") {
		return nil, &jsError{"SyntaxError", fmt.Errorf("find(%q): after a leading combinator jscrawl's $ takes one compound selector", sel)}
	}
	m, err := matcher(rest)
	if err != nil {
		return nil, err
	}
	var out []*html.Node
	for _, c := range ctx {
		switch comb {
		case '>':
			for k := c.FirstChild; k != nil; k = k.NextSibling {
				if isElem(k) && m.Match(k) {
					out = append(out, k)
				}
			}
		case '+':
			if s := nextElem(c); s != nil && m.Match(s) {
				out = append(out, s)
			}
		case '~':
			for s := nextElem(c); s != nil; s = nextElem(s) {
				if m.Match(s) {
					out = append(out, s)
				}
			}
		}
	}
	if len(ctx) > 1 {
		out = uniqueSort(out)
	}
	return out, nil
}

// findAll appends to out the descendants of n that m matches, in document order.
func findAll(m cascadia.Matcher, n *html.Node, out []*html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if m.Match(c) {
			out = append(out, c)
		}
		if c.FirstChild != nil {
			out = findAll(m, c, out)
		}
	}
	return out
}

// isElem reports whether n is an element (domhandler's isTag: script and style too).
func isElem(n *html.Node) bool { return n != nil && n.Type == html.ElementNode }

// contains reports whether b is a descendant of a (cheerio's contains: not a itself).
func contains(a, b *html.Node) bool {
	for p := b.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// dedupe removes repeated nodes, keeping the first (cheerio's _removeDuplicates).
func dedupe(nodes []*html.Node) []*html.Node {
	if len(nodes) < 2 {
		return nodes
	}
	seen := make(map[*html.Node]bool, len(nodes))
	out := nodes[:0:0]
	for _, n := range nodes {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// uniqueSort removes repeated nodes and sorts the rest in document order (domutils'
// uniqueSort).
func uniqueSort(nodes []*html.Node) []*html.Node {
	nodes = dedupe(nodes)
	if len(nodes) < 2 {
		return nodes
	}
	paths := make(map[*html.Node][]int, len(nodes))
	for _, n := range nodes {
		paths[n] = treePath(n)
	}
	slices.SortStableFunc(nodes, func(a, b *html.Node) int { return slices.Compare(paths[a], paths[b]) })
	return nodes
}

// treePath is the position of n in its tree: the index among its siblings of each of its
// ancestors, root first, and of n.
func treePath(n *html.Node) []int {
	var p []int
	for ; n != nil; n = n.Parent {
		i := 0
		for s := n.PrevSibling; s != nil; s = s.PrevSibling {
			i++
		}
		p = append(p, i)
	}
	slices.Reverse(p)
	return p
}
