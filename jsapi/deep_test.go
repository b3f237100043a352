package jsapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestDeeplyNestedPage: a page nested far past x/net/html's limit of 512 open elements
// (20,000 divs) is parsed with the excess flattened, noted at DEBUG, and css, xpath and
// followAll work on the content after the nesting, in a downloaded page as in a fetched one.
func TestDeeplyNestedPage(t *testing.T) {
	t.Parallel()
	deep := "<!DOCTYPE html><html><body>" + strings.Repeat("<div>", 20_000) + "deep" +
		`<p class=after>x</p><a href="/p/1">next</a></body></html>`
	srv := newLinksServer(t, map[string]string{"/deep": deep, "/fetched": deep, "/p/{n}": "<p>page</p>"})
	res := crawl(t, srv, spec{src: `export default class S {
  name = "deep";
  startUrls = ["BASE/deep"];
  async *parse(r) {
    if (!r.url.endsWith("/deep")) {
      const f = await fetch("BASE/fetched");
      yield { followed: r.url, fetched: f.css("p.after::text").get() };
      return;
    }
    yield { css: r.css("p.after::text").get(), xpath: r.xpath("//p[@class='after']/text()").get(),
      deep: r.xpath("//text()[. = 'deep']").get() };
    yield r.followAll(r.css("a"));
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"css":"x","xpath":"x","deep":"deep"}`,
		fmt.Sprintf(`{"followed":"%s/p/1","fetched":"x"}`, srv.URL),
	}, res.log)
	for _, path := range []string{"/deep", "/fetched"} {
		if !strings.Contains(res.log, "DEBUG: "+srv.URL+path+" is nested deeper than the HTML parser allows") {
			t.Errorf("no DEBUG note of the flattening of %s:\n%.3000s", path, res.log)
		}
	}
	if strings.Contains(res.log, "ERROR") {
		t.Errorf("the log has an error:\n%.3000s", res.log)
	}
}
