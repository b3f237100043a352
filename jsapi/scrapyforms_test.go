package jsapi_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// formsPage links two pages; the positional forms must send both to parseP.
const formsPage = `<!DOCTYPE html><html><body>
<p><span class="author">A</span> <a class="about" href="/p/1">about</a></p>
<p><span class="author">B</span> <a class="about" href="/p/2">about</a></p>
</body></html>`

// TestCallbackPositional: Scrapy's positional callback (response.follow(url, callback),
// followAll(urls, callback), new Request(url, callback), Rule(linkExtractor, callback)) is
// the callback, as a method or its name, optionally followed by options. Before, the
// function was read as an options object without keys and the pages went to parse.
func TestCallbackPositional(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/start": formsPage, "/p/{n}": "<p>page</p>"})
	both := []string{`{"by":"parseP","page":"/p/1"}`, `{"by":"parseP","page":"/p/2"}`}
	one := both[:1]
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"follow(url, method)", `yield r.follow("/p/1", this.parseP);`, one},
		{"follow(url, name)", `yield r.follow("/p/1", "parseP");`, one},
		{"follow(url, method, options)", `yield r.follow("/p/1", this.parseP, { cbKwargs: { tag: "k" }, meta: { m: 1 } });`,
			[]string{`{"by":"parseP","page":"/p/1","tag":"k","m":1}`}},
		{"follow(selector, method)", `yield r.follow(r.css("a.about")[0], this.parseP);`, one},
		{"follow(request, method)", `yield r.follow(new Request(r.urljoin("/p/1")), this.parseP);`, one},
		{"follow(url, null) parses with parse", `yield r.follow("/p/1", null);`, []string{`{"by":"parse","page":"/p/1"}`}},
		{"followAll(selectors, method)", `yield r.followAll(r.css(".author + a"), this.parseP);`, both},
		{"followAll(hrefs, method)", `yield* r.followAll(r.css("a::attr(href)").getall(), this.parseP);`, both},
		{"followAll(hrefs, name, options)", `yield r.followAll(["/p/1", "/p/2"], "parseP", { cbKwargs: { tag: "t" } });`,
			[]string{`{"by":"parseP","page":"/p/1","tag":"t"}`, `{"by":"parseP","page":"/p/2","tag":"t"}`}},
		{"followAll({ css }, method)", `yield r.followAll({ css: "a.about" }, this.parseP);`, both},
		{"new Request(url, method)", `yield new Request(r.urljoin("/p/1"), this.parseP);`, one},
		{"new Request(url, name, options)", `yield new Request(r.urljoin("/p/2"), "parseP", { meta: { m: 2 } });`,
			[]string{`{"by":"parseP","page":"/p/2","m":2}`}},
		{"replace keeps the callback", `yield new Request(r.urljoin("/p/1"), this.parseP).replace({ meta: { m: 3 } });`,
			[]string{`{"by":"parseP","page":"/p/1","m":3}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "forms";
  startUrls = ["BASE/start"];
  *parse(r) {
    if (!r.url.endsWith("/start")) {
      yield { by: "parse", page: new URL(r.url).pathname };
      return;
    }
    ` + tc.body + `
  }
  *parseP(r, kw) {
    yield Object.assign({ by: "parseP", page: new URL(r.url).pathname }, kw, r.meta.m === undefined ? {} : { m: r.meta.m });
  }
}`})
			equalLines(t, "items", res.sorted(t), tc.want, res.log)
			if strings.Contains(res.log, "ERROR") {
				t.Errorf("the log has an error:\n%s", res.log)
			}
		})
	}
}

// TestCallbackPositionalRule: CrawlSpider rules accept Scrapy's Rule(linkExtractor,
// callback[, options]).
func TestCallbackPositionalRule(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/start": formsPage, "/p/{n}": "<p>page</p>"})
	res := crawl(t, srv, spec{src: `import { CrawlSpider, LinkExtractor, Rule } from "jscrawl";
export default class S extends CrawlSpider {
  name = "rules";
  startUrls = ["BASE/start"];
  rules = [new Rule(new LinkExtractor({ allow: "/p/" }), this.parseP, { cbKwargs: { tag: "r" } })];
  parseP(r, kw) { return { by: "parseP", page: new URL(r.url).pathname, tag: kw.tag }; }
}`})
	equalLines(t, "items", res.sorted(t), []string{`{"by":"parseP","page":"/p/1","tag":"r"}`, `{"by":"parseP","page":"/p/2","tag":"r"}`}, res.log)
}

// optionsSpider runs body (one line, which MARK ends) in start() against a Response of a
// page with links, and yields { name, message } of what it throws (or { ok: true }).
func optionsSpider(body string) string {
	return `import { Request, Response, LinkExtractor, Rule } from "jscrawl";
export default class S {
  name = "options";
  async *start() {
    const r = new Response('<a href="/p/1">1</a>', { url: "BASE/", headers: { "Content-Type": "text/html" } });
    try {
      ` + body + ` // MARK
      yield { ok: true };
    } catch (e) {
      yield { name: e.name, message: e.message };
    }
  }
  parse(r) {}
  parseOther(r) {}
}`
}

// TestCallbackOptionErrors: an option present with the value undefined (a misspelled method:
// callback: this.parseBok) and an unknown option (Scrapy's snake_case spellings, typos) throw
// a TypeError naming the key, jscrawl's spelling and the spider's file:line, in every API that
// takes request options. Before, both fell back to a default without a word.
func TestCallbackOptionErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct {
		name, body string
		contains   []string // in the message; "" in wantNoError cases
	}{
		{"follow callback undefined", `r.follow("/p/1", { callback: this.parseBok });`, []string{`option "callback" is undefined`}},
		{"follow positional undefined", `r.follow("/p/1", this.parseBok);`, []string{"argument 2", "undefined"}},
		{"followAll positional undefined", `r.followAll(["/p/1"], this.parseAuthr);`, []string{"response.followAll()", "argument 2", "undefined"}},
		{"followAll callback undefined", `r.followAll(["/p/1"], { callback: this.parseBok });`, []string{`"callback" is undefined`}},
		{"followAll css callback undefined", `r.followAll({ css: "a", callback: this.parseBok });`, []string{`"callback" is undefined`}},
		{"Request errback undefined", `new Request("BASE/", { errback: this.onError });`, []string{"new Request()", `"errback" is undefined`}},
		{"Request cbKwargs undefined", `new Request("BASE/", { callback: "parseOther", cbKwargs: undefined });`, []string{`"cbKwargs" is undefined`}},
		{"Request meta undefined", `new Request("BASE/", { meta: this.metaa });`, []string{`"meta" is undefined`}},
		{"Request positional undefined", `new Request("BASE/", this.parseBok);`, []string{"new Request()", "argument 2"}},
		{"enqueueLinks callback undefined", `r.enqueueLinks({ callback: this.parseBok });`, []string{"enqueueLinks()", `"callback" is undefined`}},
		{"call_back", `r.follow("/p/1", { call_back: "parseOther" });`, []string{`unknown option "call_back"`, `jscrawl spells it "callback"`}},
		{"dont_filter", `new Request("BASE/", { dont_filter: true });`, []string{`"dont_filter"`, `"dontFilter"`}},
		{"cb_kwargs", `r.followAll(["/p/1"], { cb_kwargs: { a: 1 } });`, []string{`"cb_kwargs"`, `"cbKwargs"`}},
		{"cb_kwargs in followAll css", `r.followAll({ css: "a", cb_kwargs: { a: 1 } });`, []string{`"cb_kwargs"`, `"cbKwargs"`}},
		{"dont_filter in enqueueLinks", `r.enqueueLinks({ dont_filter: true });`, []string{`"dont_filter"`, `"dontFilter"`}},
		{"cb_kwargs after a positional callback", `r.follow("/p/1", "parseOther", { cb_kwargs: {} });`, []string{`"cbKwargs"`}},
		{"a key jscrawl lacks", `new Request("BASE/", { flags: ["x"] });`, []string{`unknown option "flags"`, "options: method"}},
		{"replace with snake_case", `new Request("BASE/").replace({ dont_filter: true });`, []string{"request.replace()", `"dontFilter"`}},
		{"callback twice", `r.follow("/p/1", this.parseOther, { callback: "parse" });`, []string{"given twice"}},
		{"Rule positional undefined", `new Rule(new LinkExtractor(), this.parseItm);`, []string{"new Rule()", "undefined"}},
		{"Rule link_extractor", `new Rule(new LinkExtractor(), "parseOther", { link_extractor: null });`, []string{`"link_extractor"`, `"link"`}},
		{"ok: positional name and options", `new Request("BASE/", "parseOther", { meta: { a: 1 }, dontFilter: true });`, nil},
		{"ok: callback null", `r.follow("/p/1", { callback: null, errback: null });`, nil},
		{"ok: replace with a url", `new Request("BASE/").replace({ url: "BASE/p/2" });`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := optionsSpider(tc.body)
			res := crawl(t, srv, spec{src: src})
			got := res.onlyItem(t)
			if tc.contains == nil {
				if got["ok"] != true {
					t.Fatalf("threw %v, want no error", got)
				}
				return
			}
			if got["name"] != "TypeError" {
				t.Fatalf("threw %v, want a TypeError", got)
			}
			msg, _ := got["message"].(string)
			// Rule's own checks run at construction, before the crawl: no caller position.
			if !strings.HasPrefix(tc.name, "Rule positional") {
				tc.contains = append(tc.contains, fmt.Sprintf("%s:%d:", filepath.Base(res.file), lineOf(t, src, "MARK")))
			}
			for _, c := range tc.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("message %q does not contain %q", msg, c)
				}
			}
		})
	}
}

// TestCallbackScrapySpiderNames: a spider with Scrapy's snake_case attribute names is
// refused at Load, naming jscrawl's name for each (before, only startUrls was missed, with
// a warning, and the rest were ignored). A method of one of those names in a spider whose
// base class does not have that hook is the spider's own.
func TestCallbackScrapySpiderNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []string // nil: Load succeeds
	}{
		{"scrapy attributes", `export default class S {
  name = "s";
  start_urls = ["http://127.0.0.1:1/"];
  allowed_domains = ["127.0.0.1"];
  custom_settings = { DOWNLOAD_DELAY: 1 };
  handle_httpstatus_list = [404];
  parse(r) {}
}`, []string{"start_urls: use startUrls", "allowed_domains: use allowedDomains", "custom_settings: use customSettings",
			"handle_httpstatus_list: use meta: { handleHttpStatusList", "HTTPERROR_ALLOWED_CODES"}},
		{"start_requests", `export default class S { name = "s"; *start_requests() {} parse(r) {} }`, []string{"start_requests: use start"}},
		{"parse_start_url", `import { CrawlSpider } from "jscrawl";
export default class S extends CrawlSpider { name = "s"; parse_start_url(r) { return []; } }`, []string{"parse_start_url: use parseStartUrl"}},
		{"a plain object", `export default { name: "s", start_urls: ["http://127.0.0.1:1/"], parse() {} };`, []string{"start_urls: use startUrls"}},
		{"CSVFeedSpider hooks", `import { CSVFeedSpider } from "jscrawl";
export default class S extends CSVFeedSpider { name = "s"; parse_row(r, row) {} adapt_response(r) { return r; } }`,
			[]string{"parse_row: use parseRow", "adapt_response: use adaptResponse"}},
		{"own method named like a hook", `export default class S { name = "s"; parse(r) {} parse_row(r) {} }`, nil},
		{"camelCase", `export default class S { name = "s"; startUrls = []; allowedDomains = []; customSettings = {}; parse(r) {} }`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp, _, err := load(t, spec{src: tc.src}, "http://127.0.0.1:1", slog.New(slog.DiscardHandler))
			if err == nil {
				_ = sp.Close()
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Load: %v, want no error", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load succeeded, want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load: %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestCallbackUndefinedInRules: a misspelled method in a CrawlSpider rule or a
// SitemapSpider's sitemapRules stops start() with a TypeError naming it, instead of parsing
// the pages with parse (rules) or nothing (sitemaps) without a word.
func TestCallbackUndefinedInRules(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/start": formsPage, "/p/{n}": "<p>page</p>"})
	for _, tc := range []struct{ name, src, want string }{
		{"rule callback", `import { CrawlSpider } from "jscrawl";
export default class S extends CrawlSpider {
  name = "rules";
  startUrls = ["BASE/start"];
  rules = [{ link: { allow: "/p/" }, callback: this.parseItm }];
  parseItem(r) { return { page: r.url }; }
}`, `rules[0]: option "callback" is undefined`},
		{"rule link_extractor", `import { CrawlSpider, LinkExtractor } from "jscrawl";
export default class S extends CrawlSpider {
  name = "rules";
  startUrls = ["BASE/start"];
  rules = [{ link_extractor: new LinkExtractor(), callback: "parseItem" }];
  parseItem(r) { return { page: r.url }; }
}`, `jscrawl spells it "link"`},
		{"sitemap rule callback", `import { SitemapSpider } from "jscrawl";
export default class S extends SitemapSpider {
  name = "sitemap";
  sitemapUrls = ["BASE/sitemap.xml"];
  sitemapRules = [["/p/", this.parseItm]];
  parseItem(r) { return { page: r.url }; }
}`, "sitemapRules[0]: the callback is undefined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: tc.src})
			if len(res.items) != 0 {
				t.Errorf("got %d items, want none\n%s", len(res.items), res.log)
			}
			if !strings.Contains(res.log, tc.want) || res.stat("spider_exceptions/TypeError") != 1 {
				t.Errorf("want one TypeError containing %q in the log:\n%s", tc.want, res.log)
			}
		})
	}
}
