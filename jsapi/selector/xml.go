package selector

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// xmlNamespace is the URI bound to the reserved prefix xml.
const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

// ErrNoRoot is wrapped by ParseXML's error when the input holds no element at all.
var ErrNoRoot = errors.New("no root element")

// ErrTooDeep is wrapped by ParseXML's error when elements nest deeper than MaxXMLDepth.
var ErrTooDeep = errors.New("excessive depth in document")

// MaxXMLDepth is how many elements ParseXML nests at most: libxml2's limit with
// XML_PARSE_HUGE, which parsel sets (its huge_tree argument, true by default; without it
// the limit is 256). As libxml2 halts there, the first element deeper ends the parse: the
// document keeps what came before it, and the error wraps ErrTooDeep. The limit also
// bounds the cost of get() on every element of a deep page (each one writes its subtree).
const MaxXMLDepth = 2048

// xmlInfo is what an XML document keeps beyond its html.Node tree.
//
// XML documents use the same tree as HTML ones, so css() keeps working on them unchanged:
// an element's Data and an attribute's Key are the qualified name as written
// ("atom:link") in lower case, as the HTML parser gives them, and an element's Namespace
// is its namespace URI. XPath and serialisation need the names as written: names records
// them where lower-casing changed them, and the URI of every prefixed attribute.
//
// A processing instruction is a RawNode whose Data is its data (what follows the target
// and the whitespace after it, up to "?>": its XPath string-value); pis records its
// target. The other RawNodes are undefined entity references ("&xxe;"). Neither is an
// element or a text node, so css(), ::text, Text() and the string-value of an element
// skip both, as XPath 1.0 (§5.2: only text descendants count) and lxml do.
type xmlInfo struct {
	names map[nameKey]xmlName
	pis   map[*html.Node]piName // processing instructions, nil without any
	noNS  atomic.Bool           // RemoveNamespaces was called
}

// piName is the target of a processing instruction. spaced records that whitespace
// followed the target of one without data: lxml writes "<?t ?>" back with the space,
// "<?t?>" without.
type piName struct {
	target string
	spaced bool
}

// nameKey names an element (attr -1) or its attribute number attr.
type nameKey struct {
	n    *html.Node
	attr int
}

type xmlName struct{ prefix, local, uri string }

// ParseXML parses body as an XML document (Scrapy: XmlResponse; parsel: type "xml"), for
// XPath with namespaces. The encoding comes from the charset of contentType (as Fetch
// extracts it, like DecodeText), else the XML declaration, else UTF-8.
//
// Like lxml's recover mode, which parsel uses, it is lenient: an entity neither XML nor
// HTML defines (&xxe;) stays a reference, written back as is by Get and invisible to
// text() (lxml's entity node; never resolved, so no external entity is read), end tags
// close up to the matching open element (or are ignored), and on a syntax
// error the document keeps what parsed before it. The error is then returned too, but the
// document is never nil and always usable; an input without any element gives an error
// wrapping ErrNoRoot, elements nested deeper than MaxXMLDepth one wrapping ErrTooDeep.
//
// Comments and processing instructions are nodes, in document order, inside the root
// element and around it ("<?xml-stylesheet ...?>" before it); the XML declaration at
// the very start is not one (a later "<?xml ...?>" is a processing instruction, as in
// lxml's recover mode). Whitespace around the root element is dropped, as by libxml2.
func ParseXML(body []byte, contentType string) (*Document, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var in io.Reader = bytes.NewReader(body)
	reader := charset.NewReaderLabel
	// raw is the text the decoder reads while its offsets index body: not after a
	// Content-Type charset conversion, nor once the declaration switched the encoding.
	raw := body
	if enc, name := headerCharset(contentType); enc != nil && name != "utf-8" {
		raw = nil
		in = enc.NewDecoder().Reader(in)
		// The text is UTF-8 now, whatever the XML declaration says.
		reader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	}
	dec := xml.NewDecoder(in)
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	if undefined := undefinedEntities(body); len(undefined) > 0 {
		// Undefined entities become references kept as they are (lxml's recover mode
		// with resolve_entities off, as parsel parses): a sentinel in the text, turned
		// into a RawNode below, so get() writes "&xxe;" and text() does not see it.
		m := make(map[string]string, len(xml.HTMLEntity)+len(undefined))
		for k, v := range xml.HTMLEntity {
			m[k] = v
		}
		for _, name := range undefined {
			m[name] = entityOpen + name + entityClose
		}
		dec.Entity = m
	}
	dec.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		raw = nil
		return reader(label, r)
	}

	x := &xmlInfo{names: map[nameKey]xmlName{}}
	top := &html.Node{Type: html.DocumentNode}
	d := &Document{gq: goquery.NewDocumentFromNode(top), node: top, root: top, xml: x}
	type frame struct {
		n     *html.Node
		ns    map[string]string // prefix → URI in scope ("" is the default namespace)
		qname string
	}
	stack := []frame{{n: top, ns: map[string]string{"xml": xmlNamespace}}}
	var perr error
parse:
	for first := true; ; first = false {
		tok, err := dec.RawToken()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				perr = err
			}
			break
		}
		cur := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) > MaxXMLDepth { // stack[0] is the document
				perr = fmt.Errorf("%w: more than %d nested elements", ErrTooDeep, MaxXMLDepth)
				break parse
			}
			// xmlns:xml binds a prefix that is always bound: libxml2 keeps no declaration
			// for it, so lxml neither shows nor writes it.
			t.Attr = slices.DeleteFunc(t.Attr, func(a xml.Attr) bool { return a.Name.Space == "xmlns" && a.Name.Local == "xml" })
			ns := cur.ns
			copied := false
			for _, a := range t.Attr {
				prefix, ok := declaredPrefix(a.Name)
				if !ok {
					continue
				}
				if !copied {
					ns = make(map[string]string, len(cur.ns)+1)
					for k, v := range cur.ns {
						ns[k] = v
					}
					copied = true
				}
				ns[prefix] = a.Value
			}
			qname := qualified(t.Name)
			el := &html.Node{Type: html.ElementNode, Data: strings.ToLower(qname), Namespace: ns[t.Name.Space]}
			if el.Data != qname {
				x.names[nameKey{el, -1}] = xmlName{prefix: t.Name.Space, local: t.Name.Local}
			}
			if len(t.Attr) > 0 {
				el.Attr = make([]html.Attribute, len(t.Attr))
			}
			for i, a := range t.Attr {
				q := qualified(a.Name)
				el.Attr[i] = html.Attribute{Key: strings.ToLower(q), Val: restoreEntities(a.Value)}
				uri := ""
				if _, decl := declaredPrefix(a.Name); !decl && a.Name.Space != "" {
					uri = ns[a.Name.Space]
				}
				if uri != "" || el.Attr[i].Key != q {
					x.names[nameKey{el, i}] = xmlName{prefix: a.Name.Space, local: a.Name.Local, uri: uri}
				}
			}
			cur.n.AppendChild(el)
			if d.root == top {
				d.root = el
			}
			stack = append(stack, frame{n: el, ns: ns, qname: qname})
		case xml.EndElement:
			q := qualified(t.Name)
			matched := false
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].qname == q {
					stack = stack[:i]
					matched = true
					break
				}
			}
			if top := stack[len(stack)-1]; !matched && len(stack) > 1 && localPart(top.qname) == t.Name.Local {
				// An end tag that differs from the current element's only by its prefix
				// closes it, as libxml2 recovers (parsel's test_namespaces_simple:
				// <somens:a>take this</a>); other unmatched end tags are ignored.
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if cur.n == top {
				continue // whitespace around the root element
			}
			appendCharData(cur.n, string(t))
		case xml.Comment:
			cur.n.AppendChild(&html.Node{Type: html.CommentNode, Data: string(t)})
		case xml.ProcInst:
			if first && t.Target == "xml" {
				continue // the XML declaration
			}
			// encoding/xml gives the data without the whitespace after the target.
			pi := &html.Node{Type: html.RawNode, Data: string(t.Inst)}
			name := piName{target: t.Target}
			if off := dec.InputOffset(); len(t.Inst) == 0 && raw != nil && off >= 3 && off <= int64(len(raw)) {
				name.spaced = isXMLSpace(raw[off-3]) // "<?t ?>": the byte before "?>"
			}
			if x.pis == nil {
				x.pis = map[*html.Node]piName{}
			}
			x.pis[pi] = name
			cur.n.AppendChild(pi)
		}
	}
	if perr != nil {
		return d, fmt.Errorf("parse xml: %w", perr)
	}
	if d.root == top {
		return d, fmt.Errorf("parse xml: %w", ErrNoRoot)
	}
	return d, nil
}

// isXMLSpace reports whether c is XML whitespace (the S production).
func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// declaredPrefix reports whether an attribute name is a namespace declaration (xmlns or
// xmlns:p), and the prefix it declares ("" for the default namespace).
func declaredPrefix(n xml.Name) (string, bool) {
	switch {
	case n.Space == "xmlns":
		return n.Local, true
	case n.Space == "" && n.Local == "xmlns":
		return "", true
	}
	return "", false
}

// The sentinels that mark an undefined entity reference in decoded text (private-use
// characters).
const (
	entityOpen  = "\ue000"
	entityClose = "\ue001"
)

// undefinedEntities returns the names of the entity references in body that neither XML
// nor HTML defines (&xxe;), each once.
func undefinedEntities(body []byte) []string {
	var out []string
	for i := bytes.IndexByte(body, '&'); i >= 0; {
		rest := body[i+1:]
		end := bytes.IndexByte(rest, ';')
		if end > 0 && end <= 64 && isEntityName(rest[:end]) {
			name := string(rest[:end])
			switch name {
			case "lt", "gt", "amp", "apos", "quot":
			default:
				if _, ok := xml.HTMLEntity[name]; !ok && !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
		j := bytes.IndexByte(rest, '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return out
}

func isEntityName(b []byte) bool {
	for i, c := range b {
		switch {
		case c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80:
		case i > 0 && (c == '-' || c == '.' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return len(b) > 0
}

// appendCharData appends text to n, turning the undefined-entity sentinels into RawNodes
// that keep the reference ("&xxe;"): invisible to XPath and text, written as is.
func appendCharData(n *html.Node, text string) {
	for text != "" {
		before, after, found := strings.Cut(text, entityOpen)
		if before != "" {
			if last := n.LastChild; last != nil && last.Type == html.TextNode {
				last.Data += before
			} else {
				n.AppendChild(&html.Node{Type: html.TextNode, Data: before})
			}
		}
		if !found {
			return
		}
		name, rest, ok := strings.Cut(after, entityClose)
		if !ok {
			n.AppendChild(&html.Node{Type: html.TextNode, Data: after})
			return
		}
		n.AppendChild(&html.Node{Type: html.RawNode, Data: "&" + name + ";"})
		text = rest
	}
}

// restoreEntities writes undefined entity references in an attribute value back as
// they were written.
func restoreEntities(v string) string {
	if !strings.Contains(v, entityOpen) {
		return v
	}
	return strings.NewReplacer(entityOpen, "&", entityClose, ";").Replace(v)
}

// localPart returns a qualified name without its prefix.
func localPart(qname string) string {
	if i := strings.LastIndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// isDeclaration reports whether a lower-cased attribute key is a namespace declaration.
func isDeclaration(key string) bool { return key == "xmlns" || strings.HasPrefix(key, "xmlns:") }

// RemoveNamespaces makes the document namespace-less for XPath and serialisation, as
// parsel's Selector.remove_namespaces(): "//loc" then matches a sitemap's <loc> although it
// is in the sitemap namespace, prefixes are dropped ("atom:link" is "link") and namespace
// declarations are neither attributes nor serialised. It affects every selector of the
// document, and does nothing on an HTML document (which has no namespaces). Safe for
// concurrent use, but queries running at the same time may see either state.
func (d *Document) RemoveNamespaces() {
	if d.xml != nil {
		d.xml.noNS.Store(true)
	}
}

// elemName returns the prefix and local name of element n as written.
func (x *xmlInfo) elemName(n *html.Node) (prefix, local string) {
	if nm, ok := x.names[nameKey{n, -1}]; ok {
		prefix, local = nm.prefix, nm.local
	} else if i := strings.IndexByte(n.Data, ':'); i >= 0 {
		prefix, local = n.Data[:i], n.Data[i+1:]
	} else {
		local = n.Data
	}
	if x.noNS.Load() {
		prefix = ""
	}
	return prefix, local
}

// attrName returns the prefix, local name and namespace URI of attribute i of n.
func (x *xmlInfo) attrName(n *html.Node, i int) (prefix, local, uri string) {
	if nm, ok := x.names[nameKey{n, i}]; ok {
		prefix, local, uri = nm.prefix, nm.local, nm.uri
	} else if k := n.Attr[i].Key; strings.IndexByte(k, ':') >= 0 {
		prefix, local, _ = strings.Cut(k, ":")
	} else {
		local = k
	}
	if x.noNS.Load() {
		prefix, uri = "", ""
	}
	return prefix, local, uri
}

// attrQName returns the qualified name of attribute i of n as parsel's attrib shows it
// (lxml shows "{uri}local"; jscrawl keeps the prefix: "xml:lang").
func (x *xmlInfo) attrQName(n *html.Node, i int) string {
	p, l, _ := x.attrName(n, i)
	if p == "" {
		return l
	}
	return p + ":" + l
}

var (
	xmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	xmlAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;")
)

// render writes n as XML, as lxml's tostring(method="xml"): childless elements are
// self-closing, and an element taken out of its document carries the namespace
// declarations of its ancestors.
func (x *xmlInfo) render(b *strings.Builder, n *html.Node) {
	if n.Type == html.ElementNode && !x.noNS.Load() {
		// Declarations in scope from the ancestors, nearest first, unless n redeclares them.
		seen := map[string]bool{}
		for _, a := range n.Attr {
			if isDeclaration(a.Key) {
				seen[a.Key] = true
			}
		}
		var inherited []html.Attribute
		for p := n.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
			for i, a := range p.Attr {
				if isDeclaration(a.Key) && !seen[a.Key] {
					seen[a.Key] = true
					inherited = append(inherited, html.Attribute{Key: x.attrQName(p, i), Val: a.Val})
				}
			}
		}
		x.renderNode(b, n, inherited)
		return
	}
	x.renderNode(b, n, nil)
}

func (x *xmlInfo) renderNode(b *strings.Builder, n *html.Node, extra []html.Attribute) {
	switch n.Type {
	case html.DocumentNode:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			x.renderNode(b, c, nil)
		}
	case html.TextNode:
		_, _ = xmlTextEscaper.WriteString(b, n.Data)
	case html.RawNode:
		if pi, ok := x.pis[n]; ok {
			// As lxml: the target, one space and the data as written, unescaped.
			b.WriteString("<?")
			b.WriteString(pi.target)
			if n.Data != "" || pi.spaced {
				b.WriteByte(' ')
				b.WriteString(n.Data)
			}
			b.WriteString("?>")
			return
		}
		b.WriteString(n.Data) // an undefined entity reference
	case html.CommentNode:
		b.WriteString("<!--")
		b.WriteString(n.Data)
		b.WriteString("-->")
	case html.ElementNode:
		prefix, local := x.elemName(n)
		name := local
		if prefix != "" {
			name = prefix + ":" + local
		}
		noNS := x.noNS.Load()
		b.WriteByte('<')
		b.WriteString(name)
		attr := func(k, v string) {
			b.WriteByte(' ')
			b.WriteString(k)
			b.WriteString(`="`)
			_, _ = xmlAttrEscaper.WriteString(b, v)
			b.WriteByte('"')
		}
		if !noNS {
			for i, a := range n.Attr {
				if isDeclaration(a.Key) {
					attr(x.attrQName(n, i), a.Val)
				}
			}
			for _, a := range extra {
				attr(a.Key, a.Val)
			}
		}
		for i, a := range n.Attr {
			if !isDeclaration(a.Key) {
				attr(x.attrQName(n, i), a.Val)
			}
		}
		if n.FirstChild == nil {
			b.WriteString("/>")
			return
		}
		b.WriteByte('>')
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			x.renderNode(b, c, nil)
		}
		b.WriteString("</")
		b.WriteString(name)
		b.WriteByte('>')
	}
}
