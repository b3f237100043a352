package xpath1

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// xmlModel is a test-only XML document model over html.Node trees: elements keep their
// qualified names in Data, processing instructions are RawNodes, namespace declarations
// are not attribute nodes, attributes named id or xml:id are IDs. (The selector's own
// XML model lives in jsapi/selector's xml.go.)
type xmlModel struct {
	names map[*html.Node]QName       // element or PI → {uri, local}
	pis   map[*html.Node]bool        // processing instructions
	scope map[*html.Node][]Namespace // element → in-scope namespaces (xml first)
	attrs map[*html.Node][]xmlAttr   // element → attribute names
}

type xmlAttr struct {
	prefix, local, uri string
	decl               bool
}

func (m *xmlModel) Kind(n *html.Node) Kind {
	if n.Type == html.RawNode && m.pis[n] {
		return KindPI
	}
	return NodeKind(n)
}

func (m *xmlModel) Name(n *html.Node) (prefix, local, uri string) {
	q := m.names[n]
	if i := strings.IndexByte(n.Data, ':'); i >= 0 && n.Type == html.ElementNode {
		prefix = n.Data[:i]
	}
	return prefix, q.Local, q.Space
}

func (m *xmlModel) Attr(n *html.Node, i int) (prefix, local, uri string, ok bool) {
	a := m.attrs[n][i]
	return a.prefix, a.local, a.uri, !a.decl
}

func (m *xmlModel) Namespaces(n *html.Node) []Namespace { return m.scope[n] }

func (m *xmlModel) IsID(n *html.Node, i int) bool {
	a := m.attrs[n][i]
	return !a.decl && a.local == "id" && (a.uri == "" || a.uri == XMLNamespace)
}

// parseXMLDoc parses src into a tree and its model: whitespace outside the root element
// is dropped, adjacent character data (text and CDATA) is one text node, the XML
// declaration and the doctype are not nodes.
func parseXMLDoc(src string) (*html.Node, *xmlModel, error) {
	m := &xmlModel{names: map[*html.Node]QName{}, pis: map[*html.Node]bool{}, scope: map[*html.Node][]Namespace{}, attrs: map[*html.Node][]xmlAttr{}}
	top := &html.Node{Type: html.DocumentNode}
	dec := xml.NewDecoder(strings.NewReader(src))
	dec.Strict = true
	type frame struct {
		n  *html.Node
		ns []Namespace
	}
	stack := []frame{{top, []Namespace{{"xml", XMLNamespace}}}}
	lookup := func(ns []Namespace, p string) (string, bool) {
		for i := len(ns) - 1; i >= 0; i-- {
			if ns[i].Prefix == p {
				return ns[i].URI, true
			}
		}
		return "", p == ""
	}
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return top, m, nil
		}
		if err != nil {
			return nil, nil, err
		}
		cur := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			// In scope: the parent's bindings, redeclared ones replaced where they were.
			ns := append([]Namespace(nil), cur.ns...)
			for _, a := range t.Attr {
				p, decl := "", false
				switch {
				case a.Name.Space == "xmlns":
					p, decl = a.Name.Local, true
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					decl = true
				}
				if !decl {
					continue
				}
				replaced := false
				for i := range ns {
					if ns[i].Prefix == p {
						ns[i].URI, replaced = a.Value, true
					}
				}
				if !replaced {
					ns = append(ns, Namespace{p, a.Value})
				}
			}
			var visible []Namespace
			for _, b := range ns {
				if b.URI != "" {
					visible = append(visible, b)
				}
			}
			el := &html.Node{Type: html.ElementNode, Data: qname(t.Name)}
			uri, ok := lookup(visible, t.Name.Space)
			if !ok {
				return nil, nil, fmt.Errorf("undefined prefix %q", t.Name.Space)
			}
			m.names[el] = QName{uri, t.Name.Local}
			m.scope[el] = visible
			for _, a := range t.Attr {
				el.Attr = append(el.Attr, html.Attribute{Key: qname(a.Name), Val: a.Value})
				xa := xmlAttr{prefix: a.Name.Space, local: a.Name.Local}
				switch {
				case a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns":
					xa.decl = true
				case a.Name.Space != "":
					xa.uri, _ = lookup(visible, a.Name.Space)
				}
				m.attrs[el] = append(m.attrs[el], xa)
			}
			cur.n.AppendChild(el)
			stack = append(stack, frame{el, ns})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if cur.n == top {
				continue
			}
			if l := cur.n.LastChild; l != nil && l.Type == html.TextNode {
				l.Data += string(t)
			} else {
				cur.n.AppendChild(&html.Node{Type: html.TextNode, Data: string(t)})
			}
		case xml.Comment:
			cur.n.AppendChild(&html.Node{Type: html.CommentNode, Data: string(t)})
		case xml.ProcInst:
			if t.Target == "xml" {
				continue
			}
			pi := &html.Node{Type: html.RawNode, Data: string(t.Inst)}
			m.pis[pi] = true
			m.names[pi] = QName{"", t.Target}
			cur.n.AppendChild(pi)
		}
	}
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// rootElement returns the first element child of the document node.
func rootElement(doc *html.Node) *html.Node {
	for c := doc.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return doc
}

// dumpString is libxml2's xmlDebugDumpString (debugXML.c): at most 40 bytes, blanks as
// spaces, bytes from 0x80 as #XX, then "..." when longer.
func dumpString(s string) string {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		if i >= len(s) {
			return b.String()
		}
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(' ')
		case c >= 0x80:
			fmt.Fprintf(&b, "#%X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String() + "..."
}

// libxml2Dump writes v as the reduced form of libxml2's xmlXPathDebugDumpObject that
// libxml2Cases use.
func libxml2Dump(m Model, v Value) string {
	switch v.Type {
	case TypeBoolean:
		return "boolean " + strconv.FormatBool(v.Bool)
	case TypeNumber:
		return "number " + FormatNumber(v.Num)
	case TypeString:
		return "string " + v.Str
	}
	var parts []string
	for _, n := range v.Nodes {
		switch k := (&evaluator{m: m}).kind(n); k {
		case KindRoot:
			parts = append(parts, "/")
		case KindElement:
			parts = append(parts, "ELEMENT "+dumpString(n.N.Data))
		case KindAttribute:
			_, l, _, _ := m.Attr(n.N, int(n.A))
			parts = append(parts, "ATTRIBUTE "+l)
		case KindText:
			parts = append(parts, "TEXT "+dumpString(n.N.Data))
		case KindComment:
			parts = append(parts, "COMMENT "+dumpString(n.N.Data))
		case KindPI:
			_, l, _ := m.Name(n.N)
			parts = append(parts, "PI "+l+" "+dumpString(n.N.Data))
		case KindNamespace:
			ns := m.Namespaces(n.N)[n.nsIndex()]
			parts = append(parts, "namespace "+ns.Prefix+" href="+ns.URI)
		}
	}
	return "nodes " + strings.Join(parts, " | ")
}

// sameNumber compares a number as libxml2 prints it (six significant digits in
// "%g"-style output) with ours.
func sameNumber(want string, got float64) bool {
	switch want {
	case "NaN":
		return math.IsNaN(got)
	case "Infinity":
		return math.IsInf(got, 1)
	case "-Infinity":
		return math.IsInf(got, -1)
	}
	w, err := strconv.ParseFloat(want, 64)
	if err != nil {
		return false
	}
	return w == got || math.Abs(w-got) <= 1e-5*math.Abs(w)
}

func TestLibxml2(t *testing.T) {
	t.Parallel()
	type parsed struct {
		root *html.Node
		m    *xmlModel
	}
	docs := map[string]parsed{}
	for name, src := range libxml2Docs {
		root, m, err := parseXMLDoc(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs[name] = parsed{root, m}
	}
	empty, emptyModel, _ := parseXMLDoc("<doc/>")
	for _, tc := range libxml2Cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			root, m := empty, emptyModel
			if tc.doc != "" {
				root, m = docs[tc.doc].root, docs[tc.doc].m
			}
			got := "error"
			x, err := Compile(tc.expr, nil)
			var v Value
			if err == nil {
				v, err = x.Evaluate(m, NodeOf(rootElement(root)), nil)
			}
			if err == nil {
				got = libxml2Dump(m, v)
			}
			ok := got == tc.want
			if !ok && err == nil && v.Type == TypeNumber && strings.HasPrefix(tc.want, "number ") {
				ok = sameNumber(strings.TrimPrefix(tc.want, "number "), v.Num)
			}
			if !ok {
				t.Errorf("%s\n got %s (%v)\nwant %s", tc.expr, got, err, tc.want)
			}
		})
	}
}
