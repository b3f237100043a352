package jsapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCrawlSpider checks Scrapy's CrawlSpider semantics on a small shop: the first rule that
// extracts a link wins (a later rule never sees it, even one that would not filter it),
// follow defaults to true without a callback and false with one, cbKwargs, processLinks,
// processRequest, processResults, errback, parseStartUrl, and requests without a callback
// going through the rules again.
func TestCrawlSpider(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{
		"/shop/":           `<a href="/cat/1">c1</a> <a href="/cat/2">c2</a> <a href="/item/1">Item one</a> <a href="/about">about</a>`,
		"/cat/1":           `<a href="/item/10">i10</a> <a href="/item/10/reviews">r10</a> <a href="/item/1">again</a> <a href="/cat/1">self</a> <a href="/broken/1">b</a>`,
		"/cat/2":           `<a href="/more/1">m1</a> <a href="/skip/1">s</a>`,
		"/more/1":          `<a href="/more/2">m2</a>`,
		"/more/2":          `<a href="/more/3">m3</a> <a href="/item/20">i20</a>`,
		"/more/3":          `end`,
		"/item/{n}":        `<a href="/related/1">related, never followed: the item rule has a callback</a>`,
		"/item/10/reviews": `<h1>reviews</h1>`,
		"/about":           `<h1>About</h1>`,
		"/related/1":       `<h1>related</h1>`,
		"/skip/1":          `<h1>skipped by processLinks</h1>`,
	})
	srv.Config.Handler.(*http.ServeMux).HandleFunc("/broken/{n}", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	// With JS_VMS=3 the rules are also compiled on the VMs that did not run start().
	for _, vms := range []string{"1", "3"} {
		t.Run("JS_VMS="+vms, func(t *testing.T) {
			t.Parallel()
			crawlShop(t, srv, vms)
		})
	}
}

func crawlShop(t *testing.T, srv *server, vms string) {
	res := crawl(t, srv, spec{settings: map[string]string{"ROBOTSTXT_OBEY": "false", "JS_VMS": vms}, src: `import { CrawlSpider, LinkExtractor, Request, Rule, type Response } from "jscrawl";
const path = (u: string) => u.replace(/^http:\/\/[^/]+/, "");
export default class Shop extends CrawlSpider {
  name = "shop";
  startUrls = ["BASE/shop/"];
  rules = [
    { link: { allow: /\/item\/\d+$/ }, callback: "parseItem", cbKwargs: { via: "item rule" } },
    { link: { allow: /\/cat\// } },
    { link: new LinkExtractor({ allow: /\/item\// }), callback: this.parseAny, processRequest: "noFilter" },
    { link: { allow: /\/more\// }, callback: "parseMore", follow: true, processLinks: (links: any[]) => links.filter((l) => !l.url.endsWith("/3")) },
    { link: { allow: /\/broken\// }, callback: "parseItem", errback: "onError" },
    new Rule({ link: { allow: /\/skip\// }, processLinks: "dropAll" }),
  ];
  parseStartUrl(r: Response) { return { start: path(r.url) }; }
  *parseItem(r: Response, kw: any) {
    yield { item: path(r.url), rule: r.meta.rule, linkText: r.meta.link_text, via: kw.via ?? null };
    if (r.url.endsWith("/item/1")) yield new Request(r.urljoin("/about"));
  }
  parseAny(r: Response) { return [{ any: path(r.url) }]; }
  async *parseMore(r: Response) { yield { more: path(r.url) }; }
  noFilter(req: Request) { return req.replace({ dontFilter: true }); }
  dropAll() { return []; }
  onError(f: any) { return { error: path(f.request.url), status: f.response?.status ?? null, rule: f.request.meta.rule }; }
  processResults(r: Response, results: any[]) { return results.map((x) => (x instanceof Request ? x : { ...x, processed: true })); }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"any":"/item/10/reviews","processed":true}`,
		`{"error":"/broken/1","status":410,"rule":4}`,
		`{"item":"/item/1","rule":0,"linkText":"Item one","via":"item rule","processed":true}`,
		`{"item":"/item/10","rule":0,"linkText":"i10","via":"item rule","processed":true}`,
		`{"item":"/item/20","rule":0,"linkText":"i20","via":"item rule","processed":true}`,
		`{"more":"/more/1","processed":true}`,
		`{"more":"/more/2","processed":true}`,
		`{"start":"/about","processed":true}`,
		`{"start":"/shop/","processed":true}`,
	}, res.log)
	for _, p := range []string{"/related/", "/skip/", "/more/3"} {
		if strings.Contains(res.log, p) {
			t.Errorf("%s was requested", p)
		}
	}
}

// TestBaseSpidersWithMiddleware: a spider middleware sees the outputs of the base spiders one
// by one, as it sees any callback's.
func TestBaseSpidersWithMiddleware(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/data.csv": "a,b\n1,2\n3,4\n", "/list": `<a href="/data.csv">csv</a>`})
	res := crawl(t, srv, spec{src: `import { CSVFeedSpider } from "jscrawl";
export default class S extends CSVFeedSpider {
  name = "mw";
  startUrls = ["BASE/data.csv"];
  async parseRow(response, row) { return [row, { ...row, copy: true }]; }
}
export const spiderMiddlewares = [{
  async *processSpiderOutput(response, result) {
    for await (const x of result) {
      if (Array.isArray(x)) throw new Error("got an array");
      yield { ...x, seen: true };
    }
  },
}];`, ext: ".js"})
	equalLines(t, "items", res.sorted(t), []string{
		`{"a":"1","b":"2","copy":true,"seen":true}`,
		`{"a":"1","b":"2","seen":true}`,
		`{"a":"3","b":"4","copy":true,"seen":true}`,
		`{"a":"3","b":"4","seen":true}`,
	}, res.log)
}

// TestCrawlSpiderMissingRule: a request for a rule the spider no longer has (a job resumed
// after the rules were edited) fails with an error naming the rule, not a TypeError about
// undefined.
func TestCrawlSpiderMissingRule(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `import { CrawlSpider, Request } from "jscrawl";
export default class S extends CrawlSpider {
  name = "edited";
  rules = [{ link: { allow: "/p/" }, callback: "parsePage" }];
  *start() { yield new Request("BASE/p/1", { callback: "_callback", meta: { rule: 3 } }); }
  parsePage() { return { page: 1 }; }
}`})
	if len(res.items) != 0 || res.stat("spider_exceptions/TypeError") != 1 ||
		!strings.Contains(res.log, "/p/1 was extracted by rules[3], which the spider no longer has (1 rules)") {
		t.Errorf("items %v; log:\n%s", res.lines(t), res.log)
	}
}
