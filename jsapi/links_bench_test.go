package jsapi_test

import (
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkFollowLinks measures one callback that turns the 32 links of a benchmark page
// (benchPage) into Requests, written each way jscrawl offers: the selector-and-follow loop,
// followAll({ css }), enqueueLinks, a LinkExtractor, and a CrawlSpider rule. Everything but
// the first does the link work in Go.
func BenchmarkFollowLinks(b *testing.B) {
	for _, bc := range []struct {
		name, src string
		min       int64 // outputs per page, at least (pages repeat some links)
	}{
		{"css-follow", `export default class S { name = "b";
  *parse(r) { for (const href of r.css("a::attr(href)").getall()) yield r.follow(href); } }`, 32},
		{"followAll-css", `export default class S { name = "b";
  parse(r) { return r.followAll({ css: "a" }); } }`, 32},
		{"enqueueLinks", `export default class S { name = "b";
  parse(r) { return r.enqueueLinks(); } }`, 15},
		{"LinkExtractor", `import { LinkExtractor } from "jscrawl";
const le = new LinkExtractor();
export default class S { name = "b";
  parse(r) { return le.extractLinks(r).map((l) => new Request(l.url)); } }`, 15},
		{"CrawlSpider", `import { CrawlSpider } from "jscrawl";
export default class S extends CrawlSpider { name = "b";
  rules = [{ link: { allow: /\/page\/\d+$/ } }]; }`, 15},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sp := benchSpider(b, bc.src)
			var outs atomic.Int64
			parse := benchParser(b, sp, func(types.Output) { outs.Add(1) })
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				parse(i)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			if got, want := outs.Load(), int64(b.N)*bc.min; got < want {
				b.Fatalf("outputs = %d, want at least %d", got, want)
			}
		})
	}
}
