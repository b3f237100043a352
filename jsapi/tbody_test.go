package jsapi_test

import "testing"

// TestTbodyResponse: a spider's response.xpath() and response.css() see a table as its
// source writes it, as Scrapy's do (docs/topics/developer-tools.rst: Scrapy "does not
// modify the original page HTML", so <tbody> belongs in an XPath only when the page has
// one): //table/tr finds the rows of a table written without <tbody>, and
// //table/tbody/tr those of one written with it.
func TestTbodyResponse(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{
		"/bare":  `<table class="products"><tr><td>Book</td><td>12</td></tr><tr><td>Pen</td><td>3</td></tr></table>`,
		"/tbody": `<table class="products"><tbody><tr><td>Book</td><td>12</td></tr></tbody></table>`,
	})
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "tbody";
  start() { return ["BASE/bare", "BASE/tbody"].map((u) => new Request(u)); }
  parse(r) {
    return {
      page: r.url.replace(/^http:\/\/[^/]+/, ""),
      xpathTr: r.xpath("//table/tr/td/text()").getall(),
      xpathTbody: r.xpath("//table/tbody/tr/td/text()").getall(),
      cssTr: r.css("table.products > tr > td::text").getall(),
      cssTbody: r.css("table.products > tbody > tr > td::text").getall(),
    };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"page":"/bare","xpathTr":["Book","12","Pen","3"],"xpathTbody":[],"cssTr":["Book","12","Pen","3"],"cssTbody":[]}`,
		`{"page":"/tbody","xpathTr":[],"xpathTbody":["Book","12"],"cssTr":[],"cssTbody":["Book","12"]}`,
	}, res.log)
}
