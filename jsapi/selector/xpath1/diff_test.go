package xpath1_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/jsapi/selector/xpath1"
	"golang.org/x/net/html"
)

// booksPage is the selector benchmark's listing page (jsapi/selector/xpath_bench_test.go,
// shaped like books.toscrape.com's), with n articles: 20 make about 20 KB, 1000 about 1 MB.
func booksPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en-us"><head><meta charset="utf-8"><title>All products | Books to Scrape</title></head>
<body><div class="container-fluid page"><div class="page_inner"><ul class="breadcrumb"><li><a href="index.html">Home</a></li><li class="active">All products</li></ul>
<section><div><strong>1000</strong> results - showing <strong>1</strong> to <strong>20</strong>.</div><ol class="row">`)
	for i := range n {
		fmt.Fprintf(&b, `<li class="col-xs-6 col-sm-4 col-md-3 col-lg-3"><article class="product_pod">
  <div class="image_container"><a href="catalogue/book-%d_%d/index.html"><img src="media/cache/%02d/cover.jpg" alt="Book %d" class="thumbnail"></a></div>
  <p class="star-rating Three"><i class="icon-star"></i><i class="icon-star"></i><i class="icon-star"></i></p>
  <h3><a href="catalogue/book-%d_%d/index.html" title="Book number %d: a long title &amp; subtitle">Book number %d: a long...</a></h3>
  <div class="product_price"><p class="price_color">£%d.%02d</p><p class="instock availability"><i class="icon-ok"></i> In stock</p>
  <form><button type="submit" class="btn btn-primary btn-block" data-loading-text="Adding...">Add to basket</button></form></div>
</article></li>
`, i, 1000-i, i%100, i, i, 1000-i, i, i, 10+i%90, i*3%100)
	}
	b.WriteString(`</ol><div><ul class="pager"><li class="current">Page 1 of 50</li><li class="next"><a href="catalogue/page-2.html">next</a></li></ul></div></section></div></div></body></html>`)
	return []byte(b.String())
}

// diffExprs are the expressions the differential test runs through both engines: a fixed
// list, then every axis with several node tests and predicates from two contexts.
func diffExprs() []string {
	exprs := []string{
		"//article[@class='product_pod']//h3/a/@title", "//p[@class='price_color']/text()",
		"//li[@class='next']/a/@href", "//a", "//a[1]", "(//a)[1]", "//a[last()]", "(//a)[last()]",
		"//article/div[2]/p[1]", "//h3/a/text()", "//*[@class]", "//@class", "//text()",
		"count(//article)", "sum(//strong)", "string(//title)", "normalize-space(//ul[@class='pager'])",
		"//li[position() mod 2 = 0]/article//img/@src", "//article[.//p[contains(@class,'Three')]]/h3/a/@href",
		"//a/@href | //img/@src", "//img/@src | //a/@href", "//i/..", "//i/../..", "//p/following-sibling::*",
		"//p/preceding-sibling::*", "//h3/ancestor::*", "//h3/ancestor-or-self::*", "//div[@class='product_price']/descendant::*",
		"//form/descendant-or-self::node()", "//strong[2]/following::strong", "//strong[3]/preceding::strong",
		"//li[a]", "//li[not(a)]", "//*[starts-with(@class,'col')]", "//*[substring(@href, string-length(@href)-4)='.html']",
		"//a[contains(., 'next')]/@href", "//title/text()", "//title = 'All products | Books to Scrape'",
		"//strong > 10", "//strong < //strong", "count(//li | //a)", "//*[local-name()='h3']", "//*[name()='title']",
		"//comment()", "//article[1]/self::article", "//article[1]/self::li", "//section/*[last()]",
		"//ol/li[3]/article/h3/a/@title", "translate(//title, 'abc', 'ABC')", "substring-before(//title, '|')",
		"substring-after(//title, '|')", "concat(//strong[1], '/', //strong[3])", "round(//strong[3] div 3)",
		"floor(2.5) + ceiling(2.5)", "boolean(//nope)", "not(//a)", "//a[@href][@title]", "//a[@title][1]",
		"//button/@type='submit'", "//p[@class='instock availability']/text()[normalize-space()]",
		"//article/descendant::text()[1]", "//article/descendant::a[2]/@href",
		"//body/descendant-or-self::p[1]/text()", "descendant-or-self::p/text()", "//p/text()[1]",
	}
	axes := []string{"child", "descendant", "parent", "ancestor", "following-sibling", "preceding-sibling",
		"following", "preceding", "attribute", "self", "descendant-or-self", "ancestor-or-self"}
	tests := []string{"*", "node()", "text()", "a", "p"}
	preds := []string{"", "[1]", "[last()]", "[2][@class]"}
	for _, ctx := range []string{"(//article)[2]/div[2]", "(//h3)[3]/a"} {
		for _, ax := range axes {
			for _, nt := range tests {
				for _, pr := range preds {
					exprs = append(exprs, ctx+"/"+ax+"::"+nt+pr, "count("+ctx+"/"+ax+"::"+nt+pr+")")
				}
			}
		}
	}
	return exprs
}

// antchfxPositional matches a positional predicate on an axis other than child, which
// antchfx/xpath (v1.3.x) does not count per context node in
// proximity order: "following::a[1]" gives every following a, "preceding::p[2]" counts in
// document order, "ancestor::*[last()]" gives nothing. XPath 1.0 §2.4 and libxml2 (see
// libxml2Cases: chaptersprefol, simpleabbr) agree with this engine.
var antchfxPositional = regexp.MustCompile(`(parent|ancestor|ancestor-or-self|following|following-sibling|preceding|preceding-sibling|descendant|descendant-or-self|self|attribute)::[^/]*\[(1|last\(\)|2)\]`)

// antchfxDiffers are the other expressions where antchfx/xpath is wrong, with the reason.
var antchfxDiffers = map[string]string{
	"//i/..":                       "antchfx repeats a parent for each child (a node-set has no duplicates, §1)",
	"//i/../..":                    "antchfx repeats an ancestor for each descendant",
	"//p/following-sibling::*":     "antchfx repeats a sibling for each preceding context node",
	"descendant-or-self::p/text()": "upstream antchfx gives every text node below the context, not only the p's children (the bug third_party/antchfx-xpath patched)",
	"//a[@title][1]":               "antchfx applies [1] to the whole path: //a is /descendant-or-self::node()/child::a, so [1] is per parent (§2.5)",
}

// TestDifferential runs diffExprs through this engine and through the upstream
// github.com/antchfx/xpath (unmodified, test-only, behind antchfxSelect) on the same tree,
// and compares the results: the same nodes in the same order, or the same value.
func TestDifferential(t *testing.T) {
	t.Parallel()
	d, err := selector.Parse(booksPage(20), "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	root := d.Root()
	same, known := 0, 0
	exprs := diffExprs()
	for _, src := range exprs {
		theirs, err := antchfxSelect(root.Node, src)
		if err != nil {
			t.Errorf("%s: antchfx: %v", src, err)
			continue
		}
		x, err := xpath1.Compile(src, nil)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		v, err := x.Evaluate(xpath1.HTML, xpath1.NodeOf(root.Node), nil)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if diff := compareResults(v, theirs); diff != "" {
			if antchfxDiffers[src] == "" && !antchfxPositional.MatchString(src) {
				t.Errorf("%s: %s", src, diff)
			}
			known++
			continue
		}
		same++
	}
	t.Logf("%d of %d expressions agree with antchfx/xpath; %d differ where antchfx is wrong", same, len(exprs), known)
}

func compareResults(v xpath1.Value, theirs []selector.Result) string {
	switch v.Type {
	case xpath1.TypeNodeSet:
		if len(v.Nodes) != len(theirs) {
			return fmt.Sprintf("%d nodes, antchfx %d", len(v.Nodes), len(theirs))
		}
		for i, n := range v.Nodes {
			r := theirs[i]
			switch {
			case n.IsAttr():
				if r.Kind != selector.KindAttr || r.Node != n.N || r.Value != n.N.Attr[n.A].Val {
					return fmt.Sprintf("node %d: attribute %s, antchfx %v %q", i, n.N.Attr[n.A].Key, r.Kind, r.Value)
				}
			case r.Node != n.N:
				return fmt.Sprintf("node %d: %s, antchfx %s", i, describe(n.N), describe(r.Node))
			}
		}
		return ""
	case xpath1.TypeNumber:
		if len(theirs) != 1 {
			return "antchfx gave no number"
		}
		f, err := strconv.ParseFloat(theirs[0].Value, 64)
		if err != nil || f != v.Num && !(math.IsNaN(f) && math.IsNaN(v.Num)) {
			return fmt.Sprintf("number %v, antchfx %q", v.Num, theirs[0].Value)
		}
		return ""
	case xpath1.TypeBoolean:
		want := "0"
		if v.Bool {
			want = "1"
		}
		if len(theirs) != 1 || theirs[0].Value != want {
			return fmt.Sprintf("boolean %v, antchfx %v", v.Bool, theirs)
		}
		return ""
	}
	if len(theirs) != 1 || theirs[0].Value != v.Str {
		return fmt.Sprintf("string %q, antchfx %v", v.Str, theirs)
	}
	return ""
}

func describe(n *html.Node) string {
	if n == nil {
		return "nil"
	}
	var b strings.Builder
	_ = html.Render(&b, n)
	s := b.String()
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
