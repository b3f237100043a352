package selector

import (
	"io"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropImpliedTbody removes the <tbody> elements the HTML5 parser inserts into tables
// written without one, moving their rows up into the table, so selectors see each table as
// written, as Scrapy's (lxml's libxml2 parser adds no <tbody>): "//table/tr/td" and
// "table > tr > td" find the cells of <table><tr><td>, and a <tbody> written in the source
// stays, so "table > tbody > tr" keeps matching there.
//
// A table counts as written with a <tbody> when a <tbody> start tag appears in its source
// (tables are matched to their start tags in document order). When the tables of the tree
// and the <table> start tags do not pair up (markup the parser drops or moves), the
// document keeps every <tbody>, as before.
func dropImpliedTbody[T string | []byte](doc *html.Node, text T) {
	if !containsFold(text, "<table") {
		return
	}
	var tables []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Table && c.Namespace == "" {
				tables = append(tables, c)
			}
			walk(c)
		}
	}
	walk(doc)
	if len(tables) == 0 {
		return
	}
	var written []bool // per table, in document order: a <tbody> in its source
	if containsFold(text, "<tbody") {
		var ok bool
		if written, ok = writtenTbodies(text); !ok || len(written) != len(tables) {
			return
		}
	}
	for i, t := range tables {
		if written != nil && written[i] {
			continue
		}
		for c := t.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && c.DataAtom == atom.Tbody && len(c.Attr) == 0 {
				for r := c.FirstChild; r != nil; r = c.FirstChild {
					c.RemoveChild(r)
					t.InsertBefore(r, c)
				}
				t.RemoveChild(c)
			}
			c = next
		}
	}
}

// writtenTbodies tokenizes text and reports, for each <table> start tag in order, whether
// a <tbody> start tag appears directly in that table (not in a table nested in it).
func writtenTbodies[T string | []byte](text T) ([]bool, bool) {
	z := html.NewTokenizer(readerOf(text))
	var written []bool
	var open []int // ordinals of the open tables
	for {
		switch z.Next() {
		case html.ErrorToken:
			return written, z.Err() == io.EOF
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "noscript":
				z.NextIsNotRawText() // as the parser does with scripting disabled
			case "table":
				open = append(open, len(written))
				written = append(written, false)
			case "tbody":
				if len(open) > 0 {
					written[open[len(open)-1]] = true
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "table" && len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
}
