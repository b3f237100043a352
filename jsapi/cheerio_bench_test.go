package jsapi_test

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// The shared benchmark kit's w1 crawl (../shared/bench: jscrawl/bench.js and
// crawlee/bench.mjs) parsed page by page on benchPage's pages, written twice: with
// response.css as bench.js writes it, and with response.$ as Crawlee's CheerioCrawler
// version writes it. Both yield the same 10 items and 32 follows per page; compare the
// time per page (issue 31: $ at most 1.2× css):
//
//	go test -run XXX -bench 'W1(Css|Cheerio)$' -count 6 ./jsapi | benchstat -col /impl -
func BenchmarkW1Css(b *testing.B) {
	benchW1(b, w1Css)
}

// BenchmarkW1Cheerio is BenchmarkW1Css's crawl written with response.$.
func BenchmarkW1Cheerio(b *testing.B) {
	benchW1(b, w1Cheerio)
}

// w1Css is the kit's bench.js parse callback.
const w1Css = `export default class S {
  name = "bench";
  async *parse(response) {
    for (const p of response.css("div.product")) {
      yield {
        name: (p.css(".name::text").get() ?? "").trim(),
        price: (p.css(".price::text").get() ?? "").trim(),
        url: response.urljoin(p.css("a::attr(href)").get() ?? ""),
      };
    }
    for (const href of response.css("a::attr(href)").getall()) yield response.follow(href);
  }
}
`

// w1Cheerio is w1Css written with response.$, as the kit's crawlee/bench.mjs.
const w1Cheerio = `export default class S {
  name = "bench";
  async *parse(response) {
    const $ = response.$;
    const items = [];
    $("div.product").each((_, el) => {
      const p = $(el);
      items.push({
        name: p.find(".name").text().trim(),
        price: p.find(".price").text().trim(),
        url: response.urljoin(p.find("a").attr("href") ?? ""),
      });
    });
    for (const item of items) yield item;
    for (const href of $("a").map((_, el) => $(el).attr("href")).get()) yield response.follow(href);
  }
}
`

// TestW1CheerioSameOutputs: the two benchmark spiders give the same outputs.
func TestW1CheerioSameOutputs(t *testing.T) {
	t.Parallel()
	var got [2][]string
	for k, src := range []string{w1Css, w1Cheerio} {
		sp := boundSpider(t, src)
		page := benchPage(3)
		u := "http://127.0.0.1:1/page/3"
		resp := &types.Response{URL: u, Status: 200, Headers: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
			Body: page, Request: &types.Request{URL: u}}
		for _, o := range parseResponse(t, sp, resp) {
			if o.Item != nil {
				b, _ := o.Item.JSON()
				got[k] = append(got[k], string(b))
			} else {
				got[k] = append(got[k], o.Request.URL)
			}
		}
	}
	if len(got[0]) != 42 || !slices.Equal(got[0], got[1]) {
		t.Errorf("css:\n%s\ncheerio:\n%s", strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
	}
}

func benchW1(b *testing.B, src string) {
	sp := benchSpider(b, src)
	var outs, items atomic.Int64
	parse := benchParser(b, sp, func(o types.Output) {
		outs.Add(1)
		if o.Item != nil {
			items.Add(1)
		}
	})
	parse(0)
	outs.Store(0)
	items.Store(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parse(i)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	if got, want := outs.Load(), int64(b.N)*42; got != want {
		b.Fatalf("outputs = %d, want %d", got, want)
	}
	if got, want := items.Load(), int64(b.N)*10; got != want {
		b.Fatalf("items = %d, want %d", got, want)
	}
}
