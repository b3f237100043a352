package jsapi_test

import (
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkSelectors measures the cost of the JS bindings a callback uses most, on a
// benchmark page (benchPage): response.css(...).get()/getall() with ::text and ::attr,
// Selector.css on each product, xpath, headers.get, urljoin and follow. The callback
// yields one item with what it found, so the figure is mostly the Go↔JS calls and the
// selectors, not output conversion. Compare ns/op and allocs/op between commits.
func BenchmarkSelectors(b *testing.B) {
	sp := benchSpider(b, `export default class S {
  name = "sel";
  *parse(response) {
    let n = 0, len = 0;
    const type = response.headers.get("Content-Type");
    const title = response.css("title::text").get();
    for (const p of response.css("div.product")) {
      const name = p.css(".name::text").get();
      const price = p.xpath(".//span[@class='price']/text()").get();
      const href = p.css("a.detail::attr(href)").get();
      len += name.length + price.length + response.urljoin(href).length;
      n++;
    }
    const hrefs = response.css("a::attr(href)").getall();
    const texts = response.xpath("//li/a/text()").getall();
    for (const href of hrefs.slice(0, 10)) len += response.follow(href).url.length;
    len += response.css("h1").get().length + response.headers.get("content-type").length;
    yield { n, len, links: hrefs.length + texts.length, type, title };
  }
}
`)
	var got types.Output
	parse := benchParser(b, sp, func(o types.Output) { got = o })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parse(i)
	}
	b.StopTimer()
	if got.Item == nil {
		b.Fatal("no item")
	}
	if n, _ := got.Item.Get("n"); n != int64(10) {
		b.Fatalf("n = %v (%T), want 10", n, n)
	}
}
