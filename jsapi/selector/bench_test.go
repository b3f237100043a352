package selector_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// benchPage returns a listing page of about 15 KB: 10 div.product blocks and 30 links.
func benchPage() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Catalogue</title>
<style>body{font-family:sans-serif}.product{margin:1em}</style></head><body>
<header><nav><ul>`)
	for i := range 5 {
		fmt.Fprintf(&b, `<li class="nav-item"><a class="nav-link" href="/category/%d">Category %d</a></li>`+"\n", i, i)
	}
	b.WriteString(`</ul></nav></header><main id="content"><h1>All products</h1>`)
	for i := range 10 {
		fmt.Fprintf(&b, `<div class="product" data-sku="SKU-%04d">
  <div class="image"><a href="/product/%d"><img src="/img/%d.jpg" alt="Product %d" width="200" height="200"></a></div>
  <h2 class="name">Product number %d &amp; friends</h2>
  <p class="description">%s</p>
  <p class="price">€%d.99 <span class="old">€%d.99</span></p>
  <a class="more" href="/product/%d/details">Details</a>
</div>
`, i, i, i, i, i, strings.Repeat("A fine product with a long description. ", 27), 10+i, 20+i, i)
	}
	b.WriteString(`</main><footer><p>`)
	for i := range 5 {
		fmt.Fprintf(&b, `<a href="/page/%d">%d</a> `, i, i)
	}
	b.WriteString(`</p><p class="copy">&copy; Example shop</p></footer></body></html>`)
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	body := benchPage()
	if n := len(body); n < 14_000 || n > 17_000 {
		b.Fatalf("page is %d bytes, want about 15 KB", n)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := selector.Parse(body, "text/html; charset=utf-8"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelect(b *testing.B) {
	d, err := selector.Parse(benchPage(), "text/html")
	if err != nil {
		b.Fatal(err)
	}
	root := []selector.Result{d.Root()}
	products, err := selector.Select(root, "div.product")
	if err != nil || len(products) != 10 {
		b.Fatalf("div.product: %d results, %v", len(products), err)
	}
	for _, bc := range []struct {
		name, query string
		in          []selector.Result
		want        int
		getall      bool
	}{
		{"div.product", "div.product", root, 10, false},
		{"div.product-getall", "div.product", root, 10, true},
		{"name-text-getall", ".name::text", root, 10, true},
		{"href-getall", "a::attr(href)", root, 30, true},
		{"chained-price-text", ".price::text", products, 10, true},
		{"deep-text", "main ::text", root, 121, true},
		{"group", "h1::text, h2::text", root, 11, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rs, err := selector.Select(bc.in, bc.query)
				if err != nil {
					b.Fatal(err)
				}
				if len(rs) != bc.want {
					b.Fatalf("%s: %d results, want %d", bc.query, len(rs), bc.want)
				}
				if bc.getall {
					_ = selector.GetAll(rs)
				}
			}
		})
	}
}
