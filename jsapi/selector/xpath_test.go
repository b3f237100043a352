package selector_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

func TestXPath(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	for _, tc := range []struct {
		name, expr string
		want       []string
	}{
		{"element", "//title", []string{"<title>Shop &amp; more</title>"}},
		{"text", "//span[@class='name']/text()", []string{"Apple", "Pear"}},
		{"attribute", "//a/@href", []string{"/a", "/p"}},
		{"relative from root element", "body/h1/text()", []string{"Products"}},
		{"absolute", "/html/head/title/text()", []string{"Shop & more"}},
		{"predicate position", "//li[2]/text()", []string{"two"}},
		{"last()", "//li[last()]/text()", []string{"three"}},
		{"contains()", "//div[contains(@class, 'sale')]/@data-id", []string{"2"}},
		{"union in document order", "//h1/text() | //title/text()", []string{"Shop & more", "Products"}},
		{"descendant text", "//p[@class='lead']//text()", []string{"Intro ", "bold", " tail"}},
		{"parent axis", "//em/../@href", []string{"/a"}},
		{"following-sibling", "//li[@class='x']/following-sibling::li/text()", []string{"three"}},
		{"count is a float", "count(//li)", []string{"3.0"}},
		{"count zero", "count(//table)", []string{"0.0"}},
		{"arithmetic", "count(//li) div 2", []string{"1.5"}},
		{"boolean true", "1=1", []string{"1"}},
		{"boolean false", "count(//li) > 5", []string{"0"}},
		{"string()", "string(//h1)", []string{"Products"}},
		{"normalize-space()", "normalize-space(//p[@class='lead'])", []string{"Intro bold tail"}},
		{"concat()", "concat(//h1/@id, '-', count(//a))", []string{"top-3"}},
		{"string of nothing", "string(//table)", []string{""}},
		{"no match", "//table", nil},
		{"attribute entity decoded", "//p[@id='esc']/@title", []string{`say "hi" & bye`}},
		{"comment-free text", "//b/text()", []string{"bold"}},
		{"reverse axis in document order", "//em/ancestor::*[self::div or self::a]/@class | //em/ancestor::a/@href", []string{"product", "/a"}},
		{"union of equal attribute values", "//a[@title]/@title | //h1/@id | //a[@title]/@href", []string{"top", "/a", "A"}},
		{"union deduplicated", "//h1 | //h1", []string{`<h1 id="top">Products</h1>`}},
		{"name()", "name(//h1)", []string{"h1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs, err := d.XPath(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
				t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

func TestXPathKinds(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	for _, tc := range []struct {
		expr string
		kind selector.Kind
		node bool
	}{
		{"//h1", selector.KindElement, true},
		{"//h1/text()", selector.KindText, true},
		{"//h1/@id", selector.KindAttr, true},
		{"count(//h1)", selector.KindText, false},
		{"'x'", selector.KindText, false},
	} {
		rs, err := d.XPath(tc.expr)
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v %v", tc.expr, rs, err)
		}
		if rs[0].Kind != tc.kind || (rs[0].Node != nil) != tc.node {
			t.Errorf("%s: kind %v node %v, want %v %v", tc.expr, rs[0].Kind, rs[0].Node != nil, tc.kind, tc.node)
		}
	}
}

// TestMixCSSAndXPath chains css → xpath → css on one tree, with relative and absolute
// expressions, and checks that text and attribute results give nothing further.
func TestMixCSSAndXPath(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	root := []selector.Result{d.Root()}
	divs, err := selector.Select(root, "div.product")
	if err != nil {
		t.Fatal(err)
	}
	hrefs, err := selector.XPath(divs, "./a/@href", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(hrefs); !slices.Equal(got, []string{"/a", "/p"}) {
		t.Errorf("css→xpath = %q", got)
	}
	links, err := selector.XPath(divs, ".//a[@href]", nil)
	if err != nil {
		t.Fatal(err)
	}
	texts, err := selector.Select(links, "::text")
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(texts); !slices.Equal(got, []string{"buy ", "now", "buy"}) {
		t.Errorf("css→xpath→css = %q", got)
	}
	// From a list of two, an absolute expression runs once per element (parsel flattens).
	abs, err := selector.XPath(divs, "//h1/text()", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(abs); !slices.Equal(got, []string{"Products", "Products"}) {
		t.Errorf("absolute from list = %q", got)
	}
	// Strings give nothing, as in parsel.
	if rs, err := selector.XPath(hrefs, ".", nil); err != nil || len(rs) != 0 {
		t.Errorf("xpath on attribute results = %v, %v", rs, err)
	}
	if rs, err := selector.Select(hrefs, "a"); err != nil || len(rs) != 0 {
		t.Errorf("css on attribute results = %v, %v", rs, err)
	}
}

func TestXPathErrors(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	for _, expr := range []string{"//a[", "", "//*[", "foo:bar", "//a/@"} {
		_, err := d.XPath(expr)
		var xe *selector.XPathError
		if !errors.As(err, &xe) {
			t.Errorf("%q: error %v, want *XPathError", expr, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "XPath error: ") || !strings.HasSuffix(err.Error(), " in "+expr) {
			t.Errorf("%q: message %q", expr, err)
		}
	}
}

const sitemap = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc>http://example.com/a</loc><lastmod>2024-01-02</lastmod>
    <xhtml:link rel="alternate" hreflang="de" href="http://example.com/de/a"/></url>
  <url><loc>http://example.com/b?x=1&amp;y=2</loc></url>
</urlset>`

const rss = `<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Feed</title><atom:link href="http://example.com/feed" rel="self"/>
<item><title>One</title><link>http://example.com/1</link><pubDate>Mon, 01 Jan 2024</pubDate><dc:creator>Ann</dc:creator></item>
<item><title>Two &amp; more</title><link>http://example.com/2</link><pubDate>Tue, 02 Jan 2024</pubDate><description><![CDATA[<p>Hi</p>]]></description></item>
</channel></rss>`

const mixedCase = `<r xml:lang="en" Foo="1"><!-- note --><Item Kind="x">a &lt; b</Item></r>`

func parseXML(t testing.TB, body string) *selector.Document {
	t.Helper()
	d, err := selector.ParseXML([]byte(body), "application/xml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestXPathXMLNamespaces(t *testing.T) {
	t.Parallel()
	sm := map[string]string{"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
	atom := map[string]string{"atom": "http://www.w3.org/2005/Atom", "dc": "http://purl.org/dc/elements/1.1/"}
	for _, tc := range []struct {
		name, doc, expr string
		ns              map[string]string
		want            []string
	}{
		{"default namespace needs a prefix", sitemap, "//loc/text()", nil, nil},
		{"registered prefix", sitemap, "//s:loc/text()", sm, []string{"http://example.com/a", "http://example.com/b?x=1&y=2"}},
		{"prefixed attribute-less element", sitemap, "//x:link/@hreflang", sm, []string{"de"}},
		{"local-name()", sitemap, "//*[local-name()='lastmod']/text()", nil, []string{"2024-01-02"}},
		{"namespace-uri()", sitemap, "namespace-uri(//*[local-name()='url'])", nil, []string{"http://www.sitemaps.org/schemas/sitemap/0.9"}},
		{"element serialised with its namespace", sitemap, "//s:url[2]/s:loc", sm,
			[]string{`<loc xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">http://example.com/b?x=1&amp;y=2</loc>`}},
		{"count", sitemap, "count(//s:url)", sm, []string{"2.0"}},
		{"no-namespace rss", rss, "//item/title/text()", nil, []string{"One", "Two & more"}},
		{"case kept", rss, "//item/pubDate/text()", nil, []string{"Mon, 01 Jan 2024", "Tue, 02 Jan 2024"}},
		{"case sensitive", rss, "//item/pubdate/text()", nil, nil},
		{"link is not void in XML", rss, "//item/link/text()", nil, []string{"http://example.com/1", "http://example.com/2"}},
		{"prefixed element", rss, "//atom:link/@href", atom, []string{"http://example.com/feed"}},
		{"prefixed element without binding is not link", rss, "//channel/link", nil, nil},
		{"dc", rss, "//dc:creator/text()", atom, []string{"Ann"}},
		{"cdata is text", rss, "//description/text()", nil, []string{"<p>Hi</p>"}},
		{"xml serialisation with the declarations in scope, as lxml", rss, "//item[1]/title", nil,
			[]string{`<title xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">One</title>`}},
		{"self-closing", rss, "//atom:link", atom, []string{`<atom:link xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/" href="http://example.com/feed" rel="self"/>`}},
		{"declarations are not attributes", rss, "count(/rss/@*)", nil, []string{"1.0"}},
		{"xml:lang is bound", mixedCase, "/r/@xml:lang", nil, []string{"en"}},
		{"attribute case kept", mixedCase, "/r/@Foo", nil, []string{"1"}},
		{"attribute case sensitive", mixedCase, "/r/@foo", nil, nil},
		{"element case kept in output", mixedCase, "//Item", nil, []string{`<Item Kind="x">a &lt; b</Item>`}},
		{"comment", mixedCase, "//comment()", nil, []string{"<!-- note -->"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := parseXML(t, tc.doc)
			rs, err := selector.XPath([]selector.Result{d.Root()}, tc.expr, tc.ns)
			if err != nil {
				t.Fatal(err)
			}
			if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
				t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

func TestXPathUndefinedPrefix(t *testing.T) {
	t.Parallel()
	d := parseXML(t, sitemap)
	if _, err := d.XPath("//s:loc"); err == nil || !strings.Contains(err.Error(), "s") {
		t.Errorf("undefined prefix: %v", err)
	}
}

func TestRemoveNamespaces(t *testing.T) {
	t.Parallel()
	d := parseXML(t, sitemap)
	d.RemoveNamespaces()
	rs, err := d.XPath("//url/loc/text()")
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(rs); !slices.Equal(got, []string{"http://example.com/a", "http://example.com/b?x=1&y=2"}) {
		t.Errorf("after RemoveNamespaces: %q", got)
	}
	rs, err = d.XPath("//link/@href")
	if err != nil || len(rs) != 1 || rs[0].Get() != "http://example.com/de/a" {
		t.Errorf("prefixed element after RemoveNamespaces: %v %v", rs, err)
	}
	rs, err = selector.XPath([]selector.Result{d.Root()}, "//s:loc", map[string]string{"s": "http://www.sitemaps.org/schemas/sitemap/0.9"})
	if err != nil || len(rs) != 0 {
		t.Errorf("namespaced query after RemoveNamespaces: %v %v", rs, err)
	}
	rs, _ = d.XPath("//url[1]")
	if got := rs[0].Get(); strings.Contains(got, "xmlns") || !strings.Contains(got, "<link ") {
		t.Errorf("serialised after RemoveNamespaces: %s", got)
	}
}

// TestCSSOnXML: CSS keeps working on XML documents, case-insensitively as before XML was
// parsed as XML, and sees <link> content.
func TestCSSOnXML(t *testing.T) {
	t.Parallel()
	d := parseXML(t, rss)
	root := []selector.Result{d.Root()}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"item > link::text", []string{"http://example.com/1", "http://example.com/2"}},
		{"pubDate::text", []string{"Mon, 01 Jan 2024", "Tue, 02 Jan 2024"}},
		{"item:first-child title::text", nil},
		{"channel > title::text", []string{"Feed"}},
	} {
		rs, err := selector.Select(root, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.query, got, tc.want)
		}
	}
	sm := parseXML(t, sitemap)
	rs, _ := selector.Select([]selector.Result{sm.Root()}, "url loc::text")
	if len(rs) != 2 {
		t.Errorf("sitemap css: %q", selector.GetAll(rs))
	}
	var names []string
	rs, _ = selector.Select([]selector.Result{d.Root()}, "rss")
	rs[0].EachAttr(func(k, v string) { names = append(names, k+"="+v) })
	if !slices.Equal(names, []string{"version=2.0"}) {
		t.Errorf("attrib of rss = %q", names)
	}
}

func TestParseXMLBroken(t *testing.T) {
	t.Parallel()
	d, err := selector.ParseXML([]byte(`<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</lo`), "text/xml")
	if err == nil {
		t.Error("no error for truncated XML")
	}
	rs, _ := d.XPath("//loc/text()")
	if got := selector.GetAll(rs); len(got) < 1 || got[0] != "http://a/1" {
		t.Errorf("what parsed: %q", got)
	}
	if _, err := selector.ParseXML([]byte("  "), "text/xml"); !errors.Is(err, selector.ErrNoRoot) {
		t.Errorf("empty: %v", err)
	}
	// Mismatched end tags close up to the matching element; unknown entities stay.
	d, err = selector.ParseXML([]byte(`<a><b>x &foo; y</c></b><d>z</d></a>`), "")
	if err != nil {
		t.Fatal(err)
	}
	rs, _ = d.XPath("/a/d/text()")
	if got := selector.GetAll(rs); !slices.Equal(got, []string{"z"}) {
		t.Errorf("recovery: %q", got)
	}
}

// TestParseXMLDepth: as libxml2 with XML_PARSE_HUGE (parsel's huge_tree), elements nest
// MaxXMLDepth deep; the first one deeper ends the parse, keeping what came before it.
func TestParseXMLDepth(t *testing.T) {
	t.Parallel()
	nested := func(depth int, inner string) []byte {
		return []byte(strings.Repeat("<e>", depth) + inner + strings.Repeat("</e>", depth))
	}
	d, err := selector.ParseXML(nested(selector.MaxXMLDepth, "deepest"), "text/xml")
	if err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	rs, _ := d.XPath("count(//e)")
	if got := rs[0].Get(); got != "2048.0" {
		t.Errorf("count(//e) = %s at the limit", got)
	}
	rs, _ = d.XPath("//text()")
	if got := selector.GetAll(rs); !slices.Equal(got, []string{"deepest"}) {
		t.Errorf("text at the limit: %q", got)
	}

	body := append([]byte("<r><a>before</a>"), nested(selector.MaxXMLDepth, "<f>too deep</f>")...)
	body = append(body, "<z>after</z></r>"...)
	d, err = selector.ParseXML(body, "text/xml")
	if !errors.Is(err, selector.ErrTooDeep) {
		t.Fatalf("past the limit: %v", err)
	}
	for expr, want := range map[string]string{
		"count(//e)":         "2047.0", // under <r>, the 2048th element is the last <e>
		"string(/r/a)":       "before",
		"count(//f | //z)":   "0.0",
		"count(//e[not(*)])": "1.0",
	} {
		rs, err := d.XPath(expr)
		if err != nil || rs[0].Get() != want {
			t.Errorf("%s = %v (%v), want %s", expr, rs, err, want)
		}
	}

	// A page far deeper than the limit parses at once, and get() of all its elements
	// stays bounded by the limit.
	d, _ = selector.ParseXML(nested(100_000, ""), "text/xml")
	rs, _ = d.XPath("//e")
	if len(rs) != selector.MaxXMLDepth {
		t.Errorf("%d elements kept of 100000, want %d", len(rs), selector.MaxXMLDepth)
	}
	if n := len(selector.GetAll(rs)); n != selector.MaxXMLDepth {
		t.Errorf("get() of %d elements", n)
	}
}

func TestParseXMLCharset(t *testing.T) {
	t.Parallel()
	body := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r>caf\xe9</r>")
	for _, ct := range []string{"text/xml", "text/xml; charset=iso-8859-1"} {
		d, err := selector.ParseXML(body, ct)
		if err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
		rs, _ := d.XPath("string(/r)")
		if rs[0].Get() != "café" {
			t.Errorf("%s: %q", ct, rs[0].Get())
		}
	}
}

func TestXPathConcurrent(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				rs, err := d.XPath("count(//li[contains(., 't')])")
				if err != nil || rs[0].Get() != "2.0" {
					t.Errorf("%v %v", rs, err)
					return
				}
				rs, err = d.XPath("//li/text()")
				if err != nil || len(rs) != 3 {
					t.Errorf("%v %v", rs, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestReplaceEntities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"a &amp; b &lt; c", "a &amp; b &lt; c"},
		{"&gt; &quot;x&quot; &nbsp;", "> \"x\" \u00a0"},
		{"&#65;&#x42;&#67", "ABC"},
		{"&#150;", "\u2013"},
		{"&eacute;&Eacute;", "éÉ"},
		{"&unknown; &unknown", " &unknown"},
		{"no entities", "no entities"},
	} {
		if got := selector.ReplaceEntities(tc.in); got != tc.want {
			t.Errorf("ReplaceEntities(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
