package selector_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// booksPage returns a listing page shaped like books.toscrape.com's (about 20 KB): 20
// article.product_pod blocks in an ol, with a title link, a price and a rating.
func booksPage() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en-us"><head><meta charset="utf-8"><title>All products | Books to Scrape</title></head>
<body><div class="container-fluid page"><div class="page_inner"><ul class="breadcrumb"><li><a href="index.html">Home</a></li><li class="active">All products</li></ul>
<section><div><strong>1000</strong> results - showing <strong>1</strong> to <strong>20</strong>.</div><ol class="row">`)
	for i := range 20 {
		fmt.Fprintf(&b, `<li class="col-xs-6 col-sm-4 col-md-3 col-lg-3"><article class="product_pod">
  <div class="image_container"><a href="catalogue/book-%d_%d/index.html"><img src="media/cache/%02d/cover.jpg" alt="Book %d" class="thumbnail"></a></div>
  <p class="star-rating Three"><i class="icon-star"></i><i class="icon-star"></i><i class="icon-star"></i></p>
  <h3><a href="catalogue/book-%d_%d/index.html" title="Book number %d: a long title &amp; subtitle">Book number %d: a long...</a></h3>
  <div class="product_price"><p class="price_color">£%d.%02d</p><p class="instock availability"><i class="icon-ok"></i> In stock</p>
  <form><button type="submit" class="btn btn-primary btn-block" data-loading-text="Adding...">Add to basket</button></form></div>
</article></li>
`, i, 1000-i, i, i, i, 1000-i, i, i, 10+i, i*3%100)
	}
	b.WriteString(`</ol><div><ul class="pager"><li class="current">Page 1 of 50</li><li class="next"><a href="catalogue/page-2.html">next</a></li></ul></div></section></div></div></body></html>`)
	return []byte(b.String())
}

// selectorBench is one query in both languages, with the same meaning and results.
var selectorBench = []struct {
	name, css, xpath string
	want             int
	perArticle       bool // run from each article (a chained, relative query)
}{
	{"titles", "article.product_pod h3 a::attr(title)", "//article[@class='product_pod']//h3/a/@title", 20, false},
	{"price-text", "p.price_color::text", "//p[@class='price_color']/text()", 20, false},
	{"articles", "article.product_pod", "//article[@class='product_pod']", 20, false},
	{"next-href", "li.next a::attr(href)", "//li[@class='next']/a/@href", 1, false},
	{"chained-href", "h3 a::attr(href)", "./h3/a/@href", 20, true},
}

// BenchmarkCSS and BenchmarkXPath run the same queries (compiled through the caches, as
// in a callback) on one parsed page, with getall(); compare their sub-benchmarks by name.
func BenchmarkCSS(b *testing.B) { benchSelectors(b, false) }

func BenchmarkXPath(b *testing.B) { benchSelectors(b, true) }

func benchSelectors(b *testing.B, xpath bool) {
	d, err := selector.Parse(booksPage(), "text/html; charset=utf-8")
	if err != nil {
		b.Fatal(err)
	}
	root := []selector.Result{d.Root()}
	articles, err := selector.Select(root, "article.product_pod")
	if err != nil || len(articles) != 20 {
		b.Fatalf("articles: %d, %v", len(articles), err)
	}
	for _, bc := range selectorBench {
		in := root
		if bc.perArticle {
			in = articles
		}
		run := func() ([]selector.Result, error) { return selector.Select(in, bc.css) }
		if xpath {
			run = func() ([]selector.Result, error) { return selector.XPath(in, bc.xpath, nil) }
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rs, err := run()
				if err != nil {
					b.Fatal(err)
				}
				if len(rs) != bc.want {
					b.Fatalf("%d results, want %d", len(rs), bc.want)
				}
				_ = selector.GetAll(rs)
			}
		})
	}
}

// TestSelectorBenchQueriesAgree checks that each CSS/XPath pair of the benchmark gives the
// same strings, so the comparison is fair.
func TestSelectorBenchQueriesAgree(t *testing.T) {
	t.Parallel()
	d, err := selector.Parse(booksPage(), "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	root := []selector.Result{d.Root()}
	articles, _ := selector.Select(root, "article.product_pod")
	for _, bc := range selectorBench {
		in := root
		if bc.perArticle {
			in = articles
		}
		c, err := selector.Select(in, bc.css)
		if err != nil {
			t.Fatal(err)
		}
		x, err := selector.XPath(in, bc.xpath, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, xs := selector.GetAll(c), selector.GetAll(x)
		if len(cs) != bc.want || strings.Join(cs, "\n") != strings.Join(xs, "\n") {
			t.Errorf("%s: css %d results, xpath %d, or they differ", bc.name, len(cs), len(xs))
		}
	}
}
