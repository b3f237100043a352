package jsapi_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkYield measures the per-value cost of what a callback yields, without the HTML
// parsing of a real page: each op is one callback on a tiny page that yields 32 values of
// one kind from a JS array, so ns/op and allocs/op divided by 32 are the cost of one
// yielded value (the generator step, the driver in runtime/prelude.js, the crossing to
// Go and the conversion to a types.Output), once "none" (the callback alone: the Response,
// the generator, the driver's set-up, the loop over the array) is taken off. "empty" is
// a callback whose body is empty: the fixed cost of invoking one (per response).
//   - follow: response.follow(href) of a relative href (joined, checked, a Request made and
//     converted), as a crawl follows links;
//   - item: a three-field item of strings, as the bench spider yields per product;
//   - request: new Request(url) of an absolute URL.
func BenchmarkYield(b *testing.B) {
	cases := []struct{ name, body string }{
		{"none", `for (const h of HREFS) if (h === "") yield h;`}, // the callback's own cost
		{"empty", ``}, // the fixed cost of invoking a callback: none without its loop
		{"follow", `for (const h of HREFS) yield response.follow(h);`},
		{"item", `for (const h of HREFS) yield { name: h, price: "$1.99", url: h };`},
		{"request", `for (const h of HREFS) yield new Request("http://127.0.0.1:1" + h);`},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			sp := benchSpider(b, `import { Request } from "jscrawl";
const HREFS = [];
for (let i = 0; i < 32; i++) HREFS.push("/page/" + i);
export default class S {
  name = "yield";
  async *parse(response) { `+tc.body+` }
}
`)
			var outs atomic.Int64
			emit := func(types.Output) { outs.Add(1) }
			hdr := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
			body := []byte("<html><body><p>x</p></body></html>")
			const u = "http://127.0.0.1:1/page/0"
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp := &types.Response{URL: u, Status: 200, Headers: hdr, Body: body, Request: &types.Request{URL: u}}
				if err := sp.Parse(ctx, resp, emit); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if got, want := outs.Load(), int64(b.N)*32; tc.name != "none" && tc.name != "empty" && got != want {
				b.Fatalf("outputs = %d, want %d", got, want)
			}
		})
	}
}
