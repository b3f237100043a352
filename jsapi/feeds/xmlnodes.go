package feeds

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// XMLNodes streams an XML document (RSS, Atom, any feed) and returns each element named
// itertag as a small golang.org/x/net/html tree, so the selector engine runs CSS on it
// (Scrapy: xmliter_lxml, as XMLFeedSpider's "iternodes" iterator uses). Elements outside the
// matches are never kept.
//
// itertag "item" matches elements whose local name is item, in any namespace; "atom:entry"
// matches local name entry in the namespace namespaces["atom"] names, or, when the prefix is
// not there, in the namespace the document binds to that prefix. In the trees, element and
// attribute names are lower case (as the HTML parser makes them, which CSS type selectors
// expect) and keep the document's prefix ("dc:creator", select it with "dc\\:creator");
// elements in a default namespace have their local name only; namespace declarations are
// dropped; CDATA is text. Broken XML returns the complete nodes read before the error, and the error.
func XMLNodes(body []byte, itertag string, namespaces map[string]string) ([]*html.Node, error) {
	dec := newDecoder(bufio.NewReaderSize(bytes.NewReader(body), 32<<10))
	prefix, local, hasPrefix := strings.Cut(itertag, ":")
	if !hasPrefix {
		local, prefix = itertag, ""
	}
	prefixes := map[string]string{} // namespace URI → the document's prefix
	var out []*html.Node
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		declare(prefixes, se)
		if se.Name.Local != local {
			continue
		}
		if hasPrefix {
			uri, ok := namespaces[prefix]
			if !ok {
				uri = uriOf(prefixes, prefix)
			}
			if se.Name.Space != uri {
				continue
			}
		}
		n, err := buildNode(dec, se, prefixes)
		if err != nil {
			// an element cut short is dropped
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return out, err
		}
		doc := &html.Node{Type: html.DocumentNode}
		doc.AppendChild(n)
		out = append(out, n)
	}
}

// declare records the xmlns:prefix declarations of se.
func declare(prefixes map[string]string, se xml.StartElement) {
	for _, a := range se.Attr {
		if a.Name.Space == "xmlns" {
			if _, ok := prefixes[a.Value]; !ok {
				prefixes[a.Value] = a.Name.Local
			}
		}
	}
}

func uriOf(prefixes map[string]string, prefix string) string {
	for uri, p := range prefixes {
		if p == prefix {
			return uri
		}
	}
	return prefix // undeclared: encoding/xml leaves the prefix as the space
}

// qname is the name of an element or attribute in the tree: prefix:local, lower case.
func qname(prefixes map[string]string, n xml.Name) string {
	name := n.Local
	if n.Space != "" {
		if p, ok := prefixes[n.Space]; ok {
			name = p + ":" + name
		} else if !strings.Contains(n.Space, "/") && !strings.Contains(n.Space, ":") {
			name = n.Space + ":" + name // an undeclared prefix
		} else if n.Space == "http://www.w3.org/XML/1998/namespace" {
			name = "xml:" + name
		}
	}
	return strings.ToLower(name)
}

// buildNode reads the element se (its start already read) up to its end into a tree.
func buildNode(dec *xml.Decoder, se xml.StartElement, prefixes map[string]string) (*html.Node, error) {
	root := element(se, prefixes)
	cur := root
	for {
		tok, err := dec.Token()
		if err != nil {
			return root, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			declare(prefixes, t)
			n := element(t, prefixes)
			cur.AppendChild(n)
			cur = n
		case xml.EndElement:
			if cur == root {
				return root, nil
			}
			cur = cur.Parent
		case xml.CharData:
			if last := cur.LastChild; last != nil && last.Type == html.TextNode {
				last.Data += string(t)
			} else {
				cur.AppendChild(&html.Node{Type: html.TextNode, Data: string(t)})
			}
		}
	}
}

func element(se xml.StartElement, prefixes map[string]string) *html.Node {
	n := &html.Node{Type: html.ElementNode, Data: qname(prefixes, se.Name)}
	for _, a := range se.Attr {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		n.Attr = append(n.Attr, html.Attribute{Key: qname(prefixes, a.Name), Val: a.Value})
	}
	return n
}
