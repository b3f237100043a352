package jsapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// parseOutputs loads the spider module code, runs its parse callback on one HTML page
// (body at pageURL) and returns what it yielded, converted, in order.
func parseOutputs(t *testing.T, code, pageURL, body string) []types.Output {
	t.Helper()
	resp := &types.Response{URL: pageURL, Status: 200, Body: []byte(body),
		Headers: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Request: &types.Request{URL: pageURL}}
	return parseResponse(t, boundSpider(t, code), resp)
}

// TestYieldedFollowConverts pins what the engine gets for the links a callback follows
// and the items it yields, on the fast paths (plain links: urlfast.go) and off them: the
// URL as the slow path writes it, the request's other fields only when JS set them, and
// items' fields in the spider's order.
func TestYieldedFollowConverts(t *testing.T) {
	t.Parallel()
	const page = `<html><body>
<div class="product"><h2 class="name"> Product 1 </h2><span class="price">$1.50</span><a href="/page/3#p1">d</a></div>
<a href="/page/7">7</a><a href="https://example.invalid/elsewhere">off</a><a href="q?x=1&amp;y=2">q</a>
<a href=" /sp ace ">s</a><a href="../up">u</a><a href="mailto:a@b.example">m</a><a href="#top">t</a>
</body></html>`
	outs := parseOutputs(t, `import { Request } from "jscrawl";
export default class S {
  name = "conv";
  async *parse(response) {
    for (const p of response.css("div.product")) {
      yield {
        name: (p.css(".name::text").get() ?? "").trim(),
        price: (p.css(".price::text").get() ?? "").trim(),
        url: response.urljoin(p.css("a::attr(href)").get() ?? ""),
        odd: response.urljoin(" /a b?c=d e"),
      };
    }
    for (const href of response.css("a::attr(href)").getall()) {
      const r = response.follow(href);
      if (r !== undefined) yield r;
    }
    const m = response.follow("/page/9");
    m.meta.k = "v";
    m.priority = 4;
    m.callback = "parse";
    yield m;
    yield response.follow("/page/10", { dontFilter: true });
  }
}`, "http://127.0.0.1:18081/dir/page", page)
	var got []string
	for _, o := range outs {
		var b []byte
		if o.Item != nil {
			b, _ = json.Marshal(o.Item)
		} else {
			r := o.Request
			b, _ = json.Marshal(map[string]any{"url": r.URL, "method": r.Method, "cb": r.Callback, "meta": r.Meta,
				"prio": r.Priority, "df": r.DontFilter, "hdr": r.Headers, "body": r.Body})
		}
		got = append(got, string(b))
	}
	req := func(url, rest string) string {
		return `{"body":null,"cb":"","df":false,"hdr":null,"meta":{},"method":"","prio":0,"url":"` + url + `"` + rest + `}`
	}
	want := []string{
		`{"name":"Product 1","price":"$1.50","url":"http://127.0.0.1:18081/page/3#p1","odd":"http://127.0.0.1:18081/a%20b?c=d%20e"}`,
		req("http://127.0.0.1:18081/page/3#p1", ""),
		req("http://127.0.0.1:18081/page/7", ""),
		req("https://example.invalid/elsewhere", ""),
		req("http://127.0.0.1:18081/dir/q?x=1\\u0026y=2", ""),
		req("http://127.0.0.1:18081/sp%20ace", ""),
		req("http://127.0.0.1:18081/up", ""),
		`{"body":null,"cb":"parse","df":false,"hdr":null,"meta":{"k":"v"},"method":"","prio":4,"url":"http://127.0.0.1:18081/page/9"}`,
		`{"body":null,"cb":"","df":true,"hdr":null,"meta":{},"method":"","prio":0,"url":"http://127.0.0.1:18081/page/10"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d outputs, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("output %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
