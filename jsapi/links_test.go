package jsapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// linksPage exercises the LinkExtractor options: a <base href>, relative and absolute
// links, duplicates, a fragment, rel=nofollow, other domains, a denied extension, links that
// are not http(s), an <area>, a query to canonicalize and a custom attribute.
const linksPage = `<!DOCTYPE html><html><head><base href="/base/"><link href="/style.css" rel="stylesheet"></head><body>
<div id="nav"><a href="a.html">  Alpha
   page </a> <a href="/item/1#top" rel="external nofollow">Item <b>1</b></a></div>
<div id="main">
<a href="/item/2">Item 2</a>
<a href="/item/2">Item 2 again</a>
<a href="http://other.example/item/3">Other</a>
<a href="http://sub.other.example/x">Sub</a>
<a href="/files/doc.PDF">PDF</a>
<a href="mailto:x@y.test">mail</a>
<a href="javascript:go('/js/1')">js</a>
<map><area href="/area" alt="area"></map>
<img src="/img.png">
<a href="/q?b=2&amp;a=1&amp;a=0">query</a>
<span data-href="/data/1">data</span>
<a href="http://[::1:bad/">bad</a>
</div></body></html>`

// newLinksServer serves linksPage at /links plus what the link tests crawl.
func newLinksServer(t *testing.T, routes map[string]string) *server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/links", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, linksPage)
	})
	for path, body := range routes {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			ct := "text/html; charset=utf-8"
			switch {
			case strings.HasSuffix(r.URL.Path, ".txt"):
				ct = "text/plain"
			case strings.HasPrefix(body, "<?xml"):
				ct = "application/xml"
			case strings.HasSuffix(r.URL.Path, ".csv"):
				ct = "text/csv"
			}
			w.Header().Set("Content-Type", ct)
			fmt.Fprint(w, body)
		})
	}
	srv := &server{Server: httptest.NewServer(mux)}
	t.Cleanup(srv.Close)
	return srv
}

func TestLinkExtractor(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, nil)
	b := srv.URL
	// Each want entry is "url|text|nofollow|fragment".
	defaults := []string{
		b + "/base/a.html|Alpha page|false|",
		b + "/item/1#top|Item 1|true|", // the fragment kept in url, as Scrapy's default (test_extract_all_links)

		b + "/item/2|Item 2|false|",
		"http://other.example/item/3|Other|false|",
		"http://sub.other.example/x|Sub|false|",
		b + "/area||false|",
		b + "/q?b=2&a=1&a=0|query|false|",
	}
	for _, tc := range []struct {
		name, opts string
		want       []string
	}{
		{"defaults", `{}`, defaults},
		{"no options", ``, defaults},
		{"allow RegExp", `{ allow: /\/item\// }`, []string{defaults[1], defaults[2], defaults[3]}},
		{"allow string and deny", `{ allow: "item/\\d", deny: ["other"] }`, []string{defaults[1], defaults[2]}},
		{"allow is case-sensitive unless i", `{ allow: [/ITEM\/2/i, "ALPHA"] }`, []string{defaults[2]}},
		{"allowDomains", `{ allowDomains: "other.example" }`, []string{defaults[3], defaults[4]}},
		{"denyDomains", `{ denyDomains: ["other.example", "127.0.0.1"] }`, nil},
		{"restrictCss", `{ restrictCss: "#nav" }`, []string{defaults[0], defaults[1]}},
		{"restrictCss two roots", `{ restrictCss: ["#main", "#nav"], allow: /item/ }`, []string{defaults[2], defaults[3], defaults[1]}},
		{"unique false", `{ unique: false, allow: /item\/2/ }`, []string{defaults[2], b + "/item/2|Item 2 again|false|"}},
		{"keepFragments", `{ keepFragments: true, allow: /item\/1/ }`, []string{b + "/item/1#top|Item 1|true|"}},
		{"keepFragments false", `{ keepFragments: false, allow: /item\/1/ }`, []string{b + "/item/1|Item 1|true|"}},
		{"canonicalize drops fragments", `{ canonicalize: true, allow: /item\/1/ }`, []string{b + "/item/1|Item 1|true|"}},
		{"canonicalize", `{ canonicalize: true, allow: /q/ }`, []string{b + "/q?a=0&a=1&b=2|query|false|"}},
		{"tags and attrs", `{ tags: "span", attrs: ["data-href"] }`, []string{b + "/data/1|data|false|"}},
		{"link tags", `{ tags: ["link"], denyExtensions: [] }`, []string{b + "/style.css||false|"}},
		{"no tags (Scrapy: tags=None)", `{ tags: [] }`, nil},
		{"no attrs (Scrapy: attrs=None)", `{ attrs: [] }`, nil},
		{"tags null is the default", `{ tags: null, attrs: null }`, defaults},
		{"denyExtensions empty", `{ denyExtensions: [], allow: /files/ }`, []string{b + "/files/doc.PDF|PDF|false|"}},
		{"denyExtensions custom", `{ denyExtensions: ["html"], restrictCss: "#nav" }`, []string{defaults[1]}},
		{"restrictText", `{ restrictText: /^Item \d$/ }`, []string{defaults[1], defaults[2]}},
		{"processValue function", `{ processValue: (v) => { const m = /go\('(.*?)'\)/.exec(v); return m ? m[1] : null; } }`,
			[]string{b + "/js/1|js|false|"}},
		{"processValue method name", `{ processValue: "onlyItems" }`, []string{defaults[1], defaults[2], defaults[3]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { LinkExtractor, Link } from "jscrawl";
export default class S {
  name = "links";
  startUrls = ["BASE/links"];
  le = new LinkExtractor(` + tc.opts + `);
  onlyItems(v) { return v.includes("/item/") ? v : null; }
  parse(r) {
    const links = this.le.extractLinks(r);
    return { links: links.map((l) => [l.url, l.text, l.nofollow, l.fragment].join("|")), ok: links.every((l) => l instanceof Link) };
  }
}`})
			want := `{"links":[` + quoteJoin(tc.want) + `],"ok":true}`
			equalLines(t, "items", res.lines(t), []string{want}, res.log)
		})
	}
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = rawJSON(s)
	}
	return strings.Join(q, ",")
}

// TestLinkExtractorErrors: bad options fail where they are given, and restrictXpaths and
// followAll({ xpath }) work through response.xpath.
func TestLinkExtractorErrors(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, nil)
	res := crawl(t, srv, spec{src: `import { LinkExtractor } from "jscrawl";
const err = (f) => { try { f(); return null; } catch (e) { return e.name + ": " + e.message; } };
export default class S {
  name = "links";
  startUrls = ["BASE/links"];
  parse(r) {
    return {
      badRegex: err(() => new LinkExtractor({ allow: "(" })),
      badOption: err(() => new LinkExtractor({ alow: /x/ })),
      badCss: err(() => new LinkExtractor({ restrictCss: "a[" })),
      xpath: new LinkExtractor({ restrictXpaths: "//body" }).extractLinks(r).length === new LinkExtractor().extractLinks(r).length &&
        new LinkExtractor({ restrictXpaths: "//nothing" }).extractLinks(r).length === 0,
      followXpath: r.followAll({ xpath: "//a" }).length > 0 && r.followAll({ xpath: "//a" }).length === r.followAll({ css: "a" }).length,
      badXpath: err(() => new LinkExtractor({ restrictXpaths: "//a[" }).extractLinks(r)),
      matches: [new LinkExtractor({ allow: /item/, denyDomains: "other.example" }).matches("http://x.test/item/1"),
        new LinkExtractor({ allow: /item/, denyDomains: "other.example" }).matches("http://other.example/item/1")],
    };
  }
}`})
	lines := res.lines(t)
	if len(lines) != 1 {
		t.Fatalf("items %v\n%s", lines, res.log)
	}
	for _, want := range []string{`"badRegex":"SyntaxError: LinkExtractor allow`, `"badOption":"TypeError: new LinkExtractor(): unknown option \"alow\"`,
		`"badCss":"TypeError: LinkExtractor restrictCss: invalid CSS selector`, `"matches":[true,false]`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("%s lacks %s", lines[0], want)
		}
	}
	for _, want := range []string{`"xpath":true`, `"followXpath":true`, `"badXpath":"TypeError: `} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("%s lacks %s", lines[0], want)
		}
	}
}

// strategyPage is parsed from http://www.example.com/dir/page.html in TestEnqueueLinks.
const strategyPage = `<a href="/dir/a.html">a</a> <a href="/dir/sub/b.html#x">b</a>
<a href="https://www.example.com/c">c</a> <a href="http://www.example.com:8080/d">d</a>
<a href="http://shop.example.com/e">e</a> <a href="http://other.org/f">f</a>
<a href="/dir/a.html#again">dup</a> <a href="mailto:z@example.com">m</a> <a>none</a>
<p class="x"><a class="x" href="/x1">x1</a></p>`

func TestEnqueueLinks(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, nil)
	const (
		a = "http://www.example.com/dir/a.html"
		b = "http://www.example.com/dir/sub/b.html"
		c = "https://www.example.com/c"
		d = "http://www.example.com:8080/d"
		e = "http://shop.example.com/e"
		f = "http://other.org/f"
		x = "http://www.example.com/x1"
	)
	for _, tc := range []struct {
		name, opts string
		want       []string
	}{
		{"default strategy is same-hostname", `{}`, []string{a, b, c, d, x}},
		{"same-hostname", `{ strategy: "same-hostname" }`, []string{a, b, c, d, x}},
		{"same-origin", `{ strategy: "same-origin" }`, []string{a, b, x}},
		{"same-domain", `{ strategy: "same-domain" }`, []string{a, b, c, d, e, x}},
		{"all", `{ strategy: "all" }`, []string{a, b, c, d, e, f, x}},
		{"glob star stays in a segment", `{ globs: ["http://www.example.com/dir/*"] }`, []string{a}},
		{"glob double star crosses segments", `{ globs: ["http://**/dir/**"], strategy: "all" }`, []string{a, b}},
		{"glob braces, case-insensitive", `{ globs: [{ glob: "HTTP*://*.example.com/{c,e}" }], strategy: "all" }`, []string{c, e}},
		{"regexps", `{ regexps: [/\.html$/, { regexp: /\/x\d$/ }] }`, []string{a, b, x}},
		{"globs or regexps", `{ globs: "**/c", regexps: /x1/ }`, []string{c, x}},
		{"exclude glob and regexp", `{ exclude: ["**/sub/**", /\/c$/] }`, []string{a, d, x}},
		{"selector", `{ selector: "p.x a" }`, []string{x}},
		{"limit", `{ limit: 2 }`, []string{a, b}},
		{"urls", `{ urls: ["/u/1", "http://other.org/u/2", "/u/1#f"] }`, []string{"http://www.example.com/u/1"}},
		{"transformRequestFunction", `{ transformRequestFunction: (r) => r.url.endsWith("c") ? null : r.url.endsWith("a.html") ? { priority: 5 } : r }`,
			[]string{a + " 5", b, d, x}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { Response } from "jscrawl";
export default class S {
  name = "enqueue";
  startUrls = ["BASE/links"];
  parse(r) {
    const page = new Response(` + "`" + strategyPage + "`" + `, { url: "http://www.example.com/dir/page.html", headers: { "Content-Type": "text/html" } });
    const reqs = page.enqueueLinks(` + tc.opts + `);
    return { urls: reqs.map((q) => q.url + (q.priority ? " " + q.priority : "")) };
  }
}`})
			equalLines(t, "items", res.lines(t), []string{`{"urls":[` + quoteJoin(tc.want) + `]}`}, res.log)
		})
	}
}

// TestEnqueueLinksRequests: the Requests enqueueLinks and followAll({ css }) return carry
// the label, callback and request options, and are crawled.
func TestEnqueueLinksRequests(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{
		"/start":   `<a href="/p/1">1</a><a href="/p/2#f">2</a><a class="n" href="/n/1">n</a><a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a>`,
		"/p/{n}":   `<h1>p</h1>`,
		"/n/{n}":   `<h1>n</h1>`,
		"/badstra": `x`,
	})
	res := crawl(t, srv, spec{src: `export default class S {
  name = "enqueue";
  startUrls = ["BASE/start"];
  *parse(r) {
    yield* r.enqueueLinks({ globs: ["**/p/*"], label: "detail", callback: this.detail, userData: { from: "start" } });
    yield* r.followAll({ css: "a.n", callback: "other", cbKwargs: { k: 1 }, meta: { m: 2 } });
    const all = r.followAll({ callback: "other" });
    let bad = null;
    try { r.enqueueLinks({ strategy: "same-planet" }); } catch (e) { bad = e.message; }
    yield { all: all.map((q) => q.url.replace(/^http:\/\/[^/]+/, "")), bad };
  }
  detail(r) { return { url: r.url.replace(/^http:\/\/[^/]+/, ""), label: r.meta.label, from: r.meta.from }; }
  other(r, kw) { return { other: r.url.replace(/^http:\/\/[^/]+/, ""), k: kw.k ?? null, m: r.meta.m ?? null }; }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"all":["/p/1","/p/2#f","/n/1"],"bad":"enqueueLinks(): unknown strategy \"same-planet\": use \"same-hostname\", \"same-domain\", \"same-origin\" or \"all\""}`,
		`{"other":"/n/1","k":1,"m":2}`,
		`{"url":"/p/1","label":"detail","from":"start"}`,
		`{"url":"/p/2","label":"detail","from":"start"}`,
	}, res.log)
}

// TestBaseHref: response.urljoin() and response.follow() resolve against the page's
// <base href>, as Scrapy's (get_base_url); a page without one, a plain-text response and a
// Response built in JS resolve against their URL.
func TestBaseHref(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{
		"/dir/nobase.html": `<html><head><title>x</title></head><body><a href="y.html">y</a></body></html>`,
		"/dir/notes.txt":   `<base href="/elsewhere/"> is only text here`,
	})
	res := crawl(t, srv, spec{src: `import { Request, Response } from "jscrawl";
export default class S {
  name = "base";
  start() { return ["BASE/links", "BASE/dir/nobase.html", "BASE/dir/notes.txt"].map((u) => new Request(u)); }
  parse(r) {
    const made = new Response("<html><head><base href='/made/'></head></html>", { url: "BASE/dir/m.html", headers: { "Content-Type": "text/html" } });
    return {
      page: new URL(r.url).pathname,
      join: new URL(r.urljoin("x.html")).pathname,
      follow: new URL(r.follow("x.html").url).pathname,
      made: new URL(made.urljoin("x.html")).pathname,
    };
  }
}`})
	want := map[string]string{
		`"page":"/links"`:           `"join":"/base/x.html","follow":"/base/x.html","made":"/made/x.html"`,
		`"page":"/dir/nobase.html"`: `"join":"/dir/x.html","follow":"/dir/x.html"`,
		`"page":"/dir/notes.txt"`:   `"join":"/dir/x.html","follow":"/dir/x.html"`,
	}
	lines := res.lines(t)
	if len(lines) != 3 {
		t.Fatalf("items %v\n%s", lines, res.log)
	}
	for _, l := range lines {
		for page, w := range want {
			if strings.Contains(l, page) && !strings.Contains(l, w) {
				t.Errorf("%s: want %s", l, w)
			}
		}
	}
}

// TestURLsLikeScrapy: the URLs a spider gets are made safe as Scrapy makes them. On an
// iso-8859-15 page, a query's € is sent as %A4 (the page's encoding, as browsers and
// Scrapy's safe_url_string with the response encoding do) while the path stays UTF-8, by
// urljoin, follow, followAll, enqueueLinks and LinkExtractor alike; host names become
// punycode everywhere, so www.bücher.de and www.xn--bcher-kva.de are one host to
// allowedDomains and one request to the duplicate filter; a tab or newline inside an href
// is dropped, not the link; "host:" loses its empty port. tags/attrs "*" with denyTags and
// denyAttrs work from JS.
func TestURLsLikeScrapy(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/latin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-15")
		fmt.Fprint(w, "<html><body><a href=\"/\xe9t\xe9?c=&euro;\">euro</a> <a href=\"http://www.B\xfccher.de/x?q=\xfc\">idn</a>"+
			" <a href=\"/ta\tb/x\n.html\">tab</a> <a href=\"http://Example.COM:/empty-port\">port</a> <span data-u=\"/span\" class=\"/cls\">s</span></body></html>")
	})
	mux.HandleFunc("/idn", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<p>%s</p>", r.Host)
	})
	srv := &server{Server: httptest.NewServer(mux)}
	t.Cleanup(srv.Close)
	res := crawl(t, srv, spec{src: `import { LinkExtractor, Request } from "jscrawl";
export default class S {
  name = "urls";
  allowedDomains = ["127.0.0.1", "bücher.de"];
  startUrls = ["BASE/latin"];
  *parse(r) {
    yield {
      urljoin: r.urljoin("/été?c=€"),
      follow: r.follow("/été?c=€").url,
      followAll: r.followAll({ css: "a" }).map((q) => q.url),
      enqueueLinks: r.enqueueLinks({ strategy: "all" }).map((q) => q.url),
      links: new LinkExtractor().extractLinks(r).map((l) => l.url),
      wildcard: new LinkExtractor({ tags: "*", attrs: "*", denyTags: ["a"], denyAttrs: "class" }).extractLinks(r).map((l) => l.url),
      request: new Request("http://www.Bücher.de:/a b?q=ü").url,
    };
    for (const u of ["http://www.bücher.de/idn", "http://www.xn--bcher-kva.de/idn", "http://WWW.BÜCHER.DE/idn"]) {
      yield new Request(u, { meta: { proxy: "BASE" }, callback: "idn" });
    }
  }
  idn(r) { return { url: r.url, host: r.css("p::text").get() }; }
}`})
	b := srv.URL
	euro := b + "/%C3%A9t%C3%A9?c=%A4"
	idn := "http://www.xn--bcher-kva.de/x?q=%FC"
	page := []string{euro, idn, b + "/tab/x.html", "http://example.com/empty-port"}
	want := fmt.Sprintf(`{"urljoin":%q,"follow":%q,"followAll":[%s],"enqueueLinks":[%s],"links":[%s],"wildcard":[%q],"request":"http://www.xn--bcher-kva.de/a%%20b?q=%%C3%%BC"}`,
		euro, euro, quoteJoin(page), quoteJoin(page), quoteJoin(page), b+"/span")
	equalLines(t, "items", res.lines(t), []string{want, `{"url":"http://www.xn--bcher-kva.de/idn","host":"www.xn--bcher-kva.de"}`}, res.log)
	if f := res.stat("dupefilter/filtered"); f != 2 {
		t.Errorf("dupefilter/filtered = %d, want 2 (three spellings of one URL)", f)
	}
	if o := res.stat("offsite/filtered"); o != 0 {
		t.Errorf("offsite/filtered = %d, want 0 (allowedDomains names bücher.de)", o)
	}
}
