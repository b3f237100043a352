package selector

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Document is a parsed HTML page. It is never modified after Parse, so any number of
// goroutines may select from it at once.
type Document struct {
	gq   *goquery.Document // the tree as goquery sees it; CSS queries run through its Selections
	node *html.Node        // the DocumentNode (gq's root)
	root *html.Node        // the <html> element (parsel's root), or node if there is none
	xml  *xmlInfo          // nil for HTML documents

	flattened int // elements closed early to parse a page nested too deeply (see flatten)

}

// Parse decodes body with DecodeText and parses it as HTML5 (scripting disabled, so
// <noscript> content is parsed as markup as lxml does). A body that DecodeText would return
// unchanged (UTF-8, valid, no byte order mark: most pages) is parsed from body itself,
// without the decoded copy.
func Parse(body []byte, contentType string) (*Document, error) {
	if plainUTF8(body, contentType) {
		return parse(body)
	}
	return ParseText(DecodeText(body, contentType))
}

// ParseText parses already decoded text, such as DecodeText's result when the caller also
// needs the text (response.text) and should not decode twice.
//
// x/net/html refuses pages nested deeper than 512 open elements, which browsers and lxml
// parse. Such a page is parsed again with the elements past the limit flattened, as WebKit
// does past its own limit (see flatten; Flattened says how many were): the rest of the page
// keeps its structure. Normal pages pay nothing for this.
func ParseText(text string) (*Document, error) { return parse(text) }

// parse is ParseText for text held as a string or as bytes (UTF-8 either way).
func parse[T string | []byte](text T) (*Document, error) {
	n, err := parseHTML(text)
	flattened := 0
	for limit := FlatDepth; err != nil && tooDeep(err) && limit >= 32; limit /= 2 {
		var flat string
		flat, flattened = flatten(string(text), limit)
		n, err = parseHTML(flat)
	}
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	d := &Document{gq: goquery.NewDocumentFromNode(n), node: n, root: n, flattened: flattened}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			d.root = c
			break
		}
	}
	dropImpliedHead(d.root, text)
	dropImpliedTbody(n, text)
	return d, nil
}

// dropImpliedHead removes the empty <head> the HTML5 parser adds to a page that has none,
// as libxml2 (lxml, parsel) adds none: Selector(text="<p>x</p>").get() is
// "<html><body><p>x</p></body></html>". A head with content or attributes, or one written
// in the source, stays.
func dropImpliedHead[T string | []byte](root *html.Node, text T) {
	if root == nil || root.Type != html.ElementNode || root.Data != "html" {
		return
	}
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.Data == "head" && c.FirstChild == nil && len(c.Attr) == 0 && !containsFold(text, "<head") {
			root.RemoveChild(c)
		}
		return
	}
}

// Flattened returns how many elements nested past x/net/html's limit of 512 open elements
// were closed early so the page could be parsed (their content follows them as siblings
// instead of children); 0 for a normal page.
func (d *Document) Flattened() int { return d.flattened }

func parseHTML[T string | []byte](text T) (*html.Node, error) {
	return html.ParseWithOptions(readerOf(text), html.ParseOptionEnableScripting(false))
}

// readerOf returns a reader of text, without copying it.
func readerOf[T string | []byte](text T) io.Reader {
	switch t := any(text).(type) {
	case string:
		return strings.NewReader(t)
	case []byte:
		return bytes.NewReader(t)
	}
	return nil // unreachable: T is string or []byte
}

// FlatDepth is the depth past which a page too deep for x/net/html (512 open elements) is
// flattened first: libxml2's (lxml's) default depth limit, which leaves room for the
// elements the parser adds implicitly. The parser's cost per tag grows with the depth of
// the open elements, so a lower depth also parses a huge deep page faster.
const FlatDepth = 256

// tooDeep reports whether err is x/net/html's refusal of a page nested too deeply (it
// returns the message of an internal panic, with no error value to match).
func tooDeep(err error) bool {
	return strings.Contains(err.Error(), "open stack of elements exceeds")
}

// flatten returns text with an end tag inserted before every start tag that would open an
// element deeper than limit, closing the deepest open element first, so the new element
// becomes its sibling (browsers flatten the same way past their depth limit). An end tag
// that later closes an element closed early this way is dropped. It also returns how many
// elements it closed early. Depth is counted on the tags alone (void elements and
// self-closing tags open nothing); the elements the parser adds or closes implicitly make
// the real depth differ, which ParseText makes up for by trying a lower limit.
func flatten(text string, limit int) (string, int) {
	var out strings.Builder
	out.Grow(len(text) + len(text)/8)
	z := html.NewTokenizer(strings.NewReader(text))
	var open []string         // names of the elements open
	early := map[string]int{} // elements closed early whose end tag is still to come
	closed := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		if tt == html.StartTagToken || tt == html.EndTagToken {
			raw = append([]byte(nil), raw...) // TagName lowercases the name in place
		}
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if tag == "noscript" {
				z.NextIsNotRawText() // as the parser does with scripting disabled
			}
			if voidElements[tag] {
				break
			}
			if len(open) >= limit {
				top := open[len(open)-1]
				open = open[:len(open)-1]
				early[top]++
				closed++
				out.WriteString("</" + top + ">")
			}
			open = append(open, tag)
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if early[tag] > 0 {
				early[tag]--
				continue
			}
			for i := len(open) - 1; i >= 0; i-- {
				if open[i] == tag {
					open = open[:i]
					break
				}
			}
		}
		out.Write(raw)
	}
	return out.String(), closed
}

// voidElements never have content or an end tag (HTML's void elements).
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "keygen": true, "link": true, "meta": true, "param": true, "source": true,
	"track": true, "wbr": true,
}

// Root returns the document's root element, <html>, as parsel's Selector(text=...) does: its
// Get is the whole page and selecting from it reaches every element.
func (d *Document) Root() Result { return Result{Node: d.root, Kind: KindElement, doc: d} }

// IsXML reports whether the document was parsed by ParseXML.
func (d *Document) IsXML() bool { return d.xml != nil }

// Goquery returns the document as a goquery Document over the same nodes, for code that
// uses goquery's API; Results and goquery Selections share node identity. It must not be
// modified.
func (d *Document) Goquery() *goquery.Document { return d.gq }

// Node returns the underlying DocumentNode, for code that walks the tree itself. It must
// not be modified.
func (d *Document) Node() *html.Node { return d.node }
