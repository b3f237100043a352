package xpath1_test

import (
	"strings"
	"testing"

	"github.com/antchfx/xpath"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/jsapi/selector/xpath1"
)

// benchQueries are jsapi/selector's XPath benchmark queries (xpath_bench_test.go's
// selectorBench), with their result counts per 20 articles.
var benchQueries = []struct {
	name, xpath string
	per20       int
	perArticle  bool // run from each article (a chained, relative query)
}{
	{"titles", "//article[@class='product_pod']//h3/a/@title", 20, false},
	{"price-text", "//p[@class='price_color']/text()", 20, false},
	{"articles", "//article[@class='product_pod']", 20, false},
	{"next-href", "//li[@class='next']/a/@href", 1, false},
	{"chained-href", "./h3/a/@href", 20, true},
	{"union-sorted", "//h3/a/@href | //img/@src", 40, false},
	{"reverse-axis", "//p[@class='price_color']/ancestor::article[1]/preceding-sibling::*", 0, false},
	{"all-hrefs", "//@href", 41, false},
	{"positional", "//li[last()]", 22, false},
	{"contains", "//a[contains(@href, 'book')]/text()", 40, false},
}

// BenchmarkXPath runs the selector's benchmark queries on the kit's page (20 articles,
// about 20 KB) and on a 1 MB one (1000 articles), with this engine ("xpath1": a compiled
// Expr, Select), through the selector ("selector": selector.XPath, xpath1 behind its
// compiled-query cache, building []selector.Result) and with the upstream
// github.com/antchfx/xpath ("antchfx": a compiled Expr through antchfx_test.go's
// navigator, building []selector.Result and sorting unions, as the selector did when it
// used that library). Compare them by name: same page, same query.
func BenchmarkXPath(b *testing.B) {
	for _, page := range []struct {
		name     string
		articles int
	}{{"kit", 20}, {"1MB", 1000}} {
		d, err := selector.Parse(booksPage(page.articles), "text/html; charset=utf-8")
		if err != nil {
			b.Fatal(err)
		}
		root := d.Root()
		articles, err := selector.XPath([]selector.Result{root}, "//article", nil)
		if err != nil || len(articles) != page.articles {
			b.Fatalf("articles: %d, %v", len(articles), err)
		}
		for _, q := range benchQueries {
			want := -1
			if q.per20 > 0 {
				want = q.per20 * page.articles / 20
				switch q.name {
				case "next-href":
					want = 1
				case "all-hrefs":
					want = 2*page.articles + 2
				case "positional":
					want = 3
				case "contains":
					want = page.articles // the image link has no text child
				}
			}
			in := []selector.Result{root}
			if q.perArticle {
				in = articles
			}
			x := xpath1.MustCompile(q.xpath, nil)
			b.Run(page.name+"/"+q.name+"/xpath1", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					n := 0
					for _, r := range in {
						ns, err := x.Select(xpath1.HTML, xpath1.NodeOf(r.Node), nil)
						if err != nil {
							b.Fatal(err)
						}
						n += len(ns)
					}
					if want >= 0 && n != want {
						b.Fatalf("%d results, want %d", n, want)
					}
				}
			})
			b.Run(page.name+"/"+q.name+"/selector", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					rs, err := selector.XPath(in, q.xpath, nil)
					if err != nil {
						b.Fatal(err)
					}
					if want >= 0 && len(rs) != want {
						b.Fatalf("%d results, want %d", len(rs), want)
					}
				}
			})
			ax := xpath.MustCompile(q.xpath)
			reorder := strings.Contains(q.xpath, "|") || strings.Contains(q.xpath, "ancestor") || strings.Contains(q.xpath, "preceding")
			b.Run(page.name+"/"+q.name+"/antchfx", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					n := 0
					for _, r := range in {
						rs, err := antchfxEval(ax, r.Node, reorder)
						if err != nil {
							b.Fatal(err)
						}
						n += len(rs)
					}
					if want >= 0 && n != want && q.name != "reverse-axis" {
						b.Fatalf("%d results, want %d", n, want)
					}
				}
			})
		}
	}
}
