package selector

import (
	"strings"

	"github.com/jscrawl/jscrawl/jsapi/selector/xpath1"
	"golang.org/x/net/html"
)

// xmlModel is the xpath1.Model of an XML document parsed by ParseXML: names as written
// (xmlInfo), an element's namespace URI in its Namespace, namespace declarations hidden
// as attributes, and after RemoveNamespaces no prefixes, URIs or namespace nodes beyond
// xml's. Processing instructions (RawNodes in xmlInfo.pis) are KindPI nodes: name() and
// local-name() are the target, namespace-uri() is "", the string-value is the data. The
// other RawNodes, undefined entity references, are invisible.
type xmlModel struct{ x *xmlInfo }

func (m xmlModel) Kind(n *html.Node) xpath1.Kind {
	if n.Type == html.RawNode {
		if _, ok := m.x.pis[n]; ok {
			return xpath1.KindPI
		}
	}
	return xpath1.NodeKind(n)
}

func (m xmlModel) Name(n *html.Node) (prefix, local, uri string) {
	if n.Type == html.RawNode {
		return "", m.x.pis[n].target, ""
	}
	prefix, local = m.x.elemName(n)
	if !m.x.noNS.Load() {
		uri = n.Namespace
	}
	return prefix, local, uri
}

func (m xmlModel) Attr(n *html.Node, i int) (prefix, local, uri string, ok bool) {
	if isDeclaration(n.Attr[i].Key) {
		return "", "", "", false
	}
	prefix, local, uri = m.x.attrName(n, i)
	return prefix, local, uri, true
}

var xmlOnlyNamespaces = []xpath1.Namespace{{Prefix: "xml", URI: xmlNamespace}}

// Namespaces lists the namespace nodes of element n as lxml gives them: xml first, then
// every prefix (and the default namespace) declared on n or its ancestors, nearest
// declaration first and winning, in declaration order on each element.
func (m xmlModel) Namespaces(n *html.Node) []xpath1.Namespace {
	if m.x.noNS.Load() || n.Type != html.ElementNode {
		return xmlOnlyNamespaces
	}
	out := xmlOnlyNamespaces
	seen := map[string]bool{"xml": true}
	for e := n; e != nil && e.Type == html.ElementNode; e = e.Parent {
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
				if len(out) == 1 {
					out = []xpath1.Namespace{out[0]}
				}
				out = append(out, xpath1.Namespace{Prefix: prefix, URI: a.Val})
			}
		}
	}
	return out
}

// IsID reports whether attribute i of n is xml:id (lxml without a DTD knows no other IDs).
func (m xmlModel) IsID(n *html.Node, i int) bool {
	if isDeclaration(n.Attr[i].Key) {
		return false
	}
	_, local, uri := m.x.attrName(n, i)
	return local == "id" && uri == xmlNamespace
}

// Interface guards
var _ xpath1.Model = xmlModel{}
