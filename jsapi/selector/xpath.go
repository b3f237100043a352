package selector

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/jsapi/selector/memo"
	"github.com/jscrawl/jscrawl/jsapi/selector/xpath1"
	"golang.org/x/net/html"
)

// XPathError reports an XPath expression that does not compile or cannot be evaluated
// (parsel raises ValueError("XPath error: ... in <query>")).
type XPathError struct {
	Expr string // the expression as given
	Err  error  // what is wrong with it
}

// Error implements error: "XPath error: <reason> in <expr>", as parsel's message.
func (e *XPathError) Error() string { return fmt.Sprintf("XPath error: %v in %s", e.Err, e.Expr) }

// Unwrap returns the underlying error.
func (e *XPathError) Unwrap() error { return e.Err }

// XPathQuery is a compiled XPath 1.0 expression (jscrawl's engine, xpath1) with its
// namespace bindings and parsel's extension functions. It is immutable and safe for
// concurrent use. Obtain one with CompileXPath.
type XPathQuery struct {
	src string
	ns  map[string]string
	x   *xpath1.Expr
}

// String returns the expression as it was given.
func (q *XPathQuery) String() string { return q.src }

// xpathCompiles counts compilations of XPath expressions, for tests of the cache.
var xpathCompiles atomic.Int64

// xpathCache maps an expression plus namespace bindings to its *XPathQuery or error, with
// the same bound as the CSS cache.
var xpathCache = memo.Cache[*XPathQuery]{Limit: cacheLimit}

// CompileXPath compiles expr, or returns it from a process-wide cache (bounded, safe for
// concurrent use), so a hot callback never recompiles it. namespaces binds the prefixes
// the expression may use (prefix → URI); "xml" is always bound. A prefix without a
// binding is an error, as in lxml. Errors are *XPathError.
func CompileXPath(expr string, namespaces map[string]string) (*XPathQuery, error) {
	key := expr
	if len(namespaces) > 0 {
		prefixes := make([]string, 0, len(namespaces))
		for p := range namespaces {
			prefixes = append(prefixes, p)
		}
		slices.Sort(prefixes)
		var b strings.Builder
		b.WriteString(expr)
		for _, p := range prefixes {
			b.WriteByte(0)
			b.WriteString(p)
			b.WriteByte('=')
			b.WriteString(namespaces[p])
		}
		key = b.String()
	}
	return xpathCache.Get(key, func() (*XPathQuery, error) {
		ns := map[string]string{"xml": xmlNamespace, "re": exsltRegexNS, "set": exsltSetsNS}
		for p, u := range namespaces {
			ns[p] = u
		}
		q := &XPathQuery{src: expr, ns: ns}
		if err := q.compile(); err != nil {
			return nil, err
		}
		return q, nil
	})
}

func (q *XPathQuery) compile() error {
	xpathCompiles.Add(1)
	if strings.TrimSpace(q.src) == "" {
		return &XPathError{Expr: q.src, Err: xpath1.ErrInvalidExpression}
	}
	x, err := xpath1.Compile(q.src, &xpath1.Options{Namespaces: q.ns, Functions: xpathFuncs})
	if err != nil {
		return wrapXPathError(q.src, err)
	}
	q.x = x
	return nil
}

// wrapXPathError turns an xpath1 error into an *XPathError with its reason.
func wrapXPathError(src string, err error) error {
	var xe *xpath1.Error
	if errors.As(err, &xe) {
		err = xe.Err
	}
	return &XPathError{Expr: src, Err: err}
}

// XPath runs expr on each element of in and concatenates the results (Scrapy:
// SelectorList.xpath). Text and attribute results in in are skipped, as parsel returns
// nothing for xpath() on a string. The expression is compiled through CompileXPath's cache.
func XPath(in []Result, expr string, namespaces map[string]string) ([]Result, error) {
	q, err := CompileXPath(expr, namespaces)
	if err != nil {
		return nil, err
	}
	return q.Select(in...)
}

// XPath runs expr from the document's root element, as response.xpath(expr) does. For
// prefixes and namespaces use the package-level XPath or CompileXPath.
func (d *Document) XPath(expr string) ([]Result, error) {
	return XPath([]Result{d.Root()}, expr, nil)
}

// Select evaluates q from each element of in (text and attribute results are skipped) and
// concatenates the results, as parsel:
//   - a node-set gives its nodes in document order: elements (and comments) as
//     KindElement, text nodes as KindText, attributes as KindAttr whose Value is the
//     attribute's value;
//   - a string gives one KindText result with a nil Node;
//   - a number gives one such result written as Python's str(float): "1.0", "0.5", "nan",
//     "1e+16";
//   - a boolean gives "1" or "0".
//
// The context of a document's Root is its root element; "/" is the document node. In an
// XML document an unprefixed name test matches elements in no namespace only (XPath 1.0):
// bind a prefix to a default namespace, or call RemoveNamespaces. A namespace node
// (namespace:: axis) gives its URI as a KindText result. An evaluation error is an
// *XPathError. Safe for concurrent use.
func (q *XPathQuery) Select(in ...Result) ([]Result, error) {
	return q.SelectWithin(0, in...)
}

// SelectWithin is Select whose EXSLT regular expressions (re:test, re:match, re:replace)
// are each bounded by within too (see Regex.Within; 0: by the match timeout only).
func (q *XPathQuery) SelectWithin(within time.Duration, in ...Result) ([]Result, error) {
	return q.SelectVars(within, nil, in...)
}

// SelectVars is SelectWithin with the XPath variables vars ($name, parsel's keyword
// arguments of xpath()): each a string, float64 or bool. A variable the expression uses
// and vars lacks is an *XPathError ("Undefined variable").
func (q *XPathQuery) SelectVars(within time.Duration, vars map[string]any, in ...Result) ([]Result, error) {
	var env map[string]xpath1.Value
	if len(vars) > 0 {
		env = make(map[string]xpath1.Value, len(vars))
		for k, v := range vars {
			switch v := v.(type) {
			case bool:
				env[k] = xpath1.BooleanValue(v)
			case float64:
				env[k] = xpath1.NumberValue(v)
			case int:
				env[k] = xpath1.NumberValue(float64(v))
			case int64:
				env[k] = xpath1.NumberValue(float64(v))
			default:
				env[k] = xpath1.StringValue(fmt.Sprint(v))
			}
		}
	}
	var out []Result
	for _, r := range in {
		if r.Kind != KindElement || r.Node == nil {
			continue
		}
		var err error
		if out, err = q.eval(out, r, within, env); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// modelOf returns the xpath1 model of the document r belongs to.
func modelOf(doc *Document) xpath1.Model {
	if doc != nil && doc.xml != nil {
		return xmlModel{doc.xml}
	}
	return xpath1.HTML
}

func (q *XPathQuery) eval(out []Result, ctx Result, within time.Duration, vars map[string]xpath1.Value) ([]Result, error) {
	m := modelOf(ctx.doc)
	v, err := q.x.Evaluate(m, xpath1.NodeOf(ctx.Node), &xpath1.Env{Data: within, Variables: vars})
	if err != nil {
		return nil, wrapXPathError(q.src, err)
	}
	switch v.Type {
	case xpath1.TypeNodeSet:
		// xpath1 gives node-sets in document order without duplicates, as lxml.
		for _, n := range v.Nodes {
			out = append(out, nodeResult(m, ctx.doc, n))
		}
	case xpath1.TypeString:
		out = append(out, Result{Value: v.Str, Kind: KindText, doc: ctx.doc})
	case xpath1.TypeNumber:
		out = append(out, Result{Value: pyFloat(v.Num), Kind: KindText, doc: ctx.doc})
	case xpath1.TypeBoolean:
		s := "0"
		if v.Bool {
			s = "1"
		}
		out = append(out, Result{Value: s, Kind: KindText, doc: ctx.doc})
	default:
		return nil, &XPathError{Expr: q.src, Err: fmt.Errorf("unexpected result of type %v", v.Type)}
	}
	return out, nil
}

// nodeResult converts one node of a node-set: an attribute to KindAttr with its value, a
// namespace node to its URI (as parsel shows it), a text node to KindText, anything else
// (elements, comments, the root) to KindElement.
func nodeResult(m xpath1.Model, doc *Document, n xpath1.Node) Result {
	switch {
	case n.IsAttr():
		return Result{Node: n.N, Value: n.N.Attr[n.A].Val, Kind: KindAttr, doc: doc}
	case n.IsNamespace():
		ns := m.Namespaces(n.N)
		uri := ""
		if k := int(-2 - n.A); k < len(ns) {
			uri = ns[k].URI
		}
		return Result{Value: uri, Kind: KindText, doc: doc}
	case n.N.Type == html.TextNode:
		return Result{Node: n.N, Value: n.N.Data, Kind: KindText, doc: doc}
	}
	return Result{Node: n.N, Kind: KindElement, doc: doc}
}

// pyFloat formats f as Python's str(float), which parsel uses for XPath numbers.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// repr switches to exponent notation below 1e-4 and from 1e16.
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64) // "1e+16", "1.5e-05", as Python
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
