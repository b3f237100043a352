package jsapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// skipPage mixes links that cannot be downloaded with good ones: each good link comes after
// some that response.follow must skip.
const skipPage = `<!DOCTYPE html><html><body>
<a href="mailto:someone@example.com">mail</a>
<a href="/p/1">one</a>
<a href="tel:+15550100">call</a>
<a href="javascript:void(0)">js</a>
<a href="">empty</a>
<a href="#top">top</a>
<a href="/p/2">two</a>
<a href="data:text/html,<p>hi</p>">data</a>
<a href="  MAILTO:Someone@Example.com ">mail, upper case</a>
<a name="anchor">no href</a>
<a href="/p/3">three</a>
</body></html>`

// skipped is how many links of skipPage follow() skips (the <a> without href is not a link).
const skipped = 7

// TestFollowSkipsLinksItCannotDownload: response.follow and followAll skip mailto:, tel:,
// javascript:, data: (unless DOWNLOAD_SCHEMES enables it), empty and "#" links instead of
// throwing, so the good links after them are all followed; follow() of such a link is
// undefined and yielding it yields nothing. The link helpers that filter by scheme already
// (followAll({ css }), enqueueLinks, LinkExtractor) do not throw either.
func TestFollowSkipsLinksItCannotDownload(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/skip": skipPage, "/p/{n}": "<p>page</p>"})
	for _, tc := range []struct {
		name, body string
		settings   map[string]string
		wantData   bool  // the data: link is followed
		wantSkips  int64 // follow/skipped_scheme
		summary    bool  // one DEBUG line for all the links skipped, not one per link
	}{
		{name: "follow in a loop over getall", body: `for (const href of r.css("a::attr(href)").getall()) yield r.follow(href);`,
			wantSkips: skipped},
		{name: "follow of each selector", body: `for (const a of r.css("a[href]")) yield r.follow(a);`, wantSkips: skipped},
		{name: "followAll of a SelectorList", body: `yield r.followAll(r.css("a"));`, wantSkips: skipped},
		{name: "followAll of hrefs", body: `yield* r.followAll(r.css("a::attr(href)").getall());`, wantSkips: skipped},
		{name: "yielded array with undefined", body: `yield r.css("a::attr(href)").getall().map((h) => r.follow(h));`,
			wantSkips: skipped},
		{name: "data enabled by DOWNLOAD_SCHEMES", body: `yield r.followAll(r.css("a"));`,
			settings: map[string]string{"DOWNLOAD_SCHEMES": "http,https,data"}, wantData: true, wantSkips: skipped - 1},
		{name: "followAll css", body: `yield r.followAll({ css: "a" });`, wantSkips: skipped, summary: true},
		{name: "enqueueLinks", body: `yield r.enqueueLinks({ strategy: "all" });`, wantSkips: skipped, summary: true},
		{name: "LinkExtractor", body: `for (const l of new LinkExtractor().extractLinks(r)) yield r.follow(l.url);`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{settings: tc.settings, src: `import { LinkExtractor } from "jscrawl";
export default class S {
  name = "skip";
  startUrls = ["BASE/skip"];
  *parse(r) {
    if (!r.url.endsWith("/skip")) {
      yield { page: r.url.startsWith("data:") ? "data" : new URL(r.url).pathname };
      return;
    }
    ` + tc.body + `
  }
}`})
			var got []string
			for _, l := range res.lines(t) {
				var it struct{ Page string }
				if err := json.Unmarshal([]byte(l), &it); err != nil {
					t.Fatal(err)
				}
				got = append(got, it.Page)
			}
			slices.Sort(got)
			want := []string{"/p/1", "/p/2", "/p/3"}
			if tc.wantData {
				want = append(want, "data")
			}
			equalLines(t, "pages followed", got, want, res.log)
			if n := res.stat("spider_exceptions/count"); n != 0 {
				t.Errorf("spider_exceptions/count = %d, want 0\n%s", n, res.log)
			}
			if strings.Contains(res.log, "ERROR") {
				t.Errorf("the log has an error:\n%s", res.log)
			}
			if n := res.stat("follow/skipped_scheme"); n != tc.wantSkips {
				t.Errorf("follow/skipped_scheme = %d, want %d\n%s", n, tc.wantSkips, res.log)
			}
			debug := `DEBUG: follow(): skipped link "mailto:someone@example.com" on ` + srv.URL + `/skip: scheme "mailto" is not in DOWNLOAD_SCHEMES`
			if tc.summary {
				debug = fmt.Sprintf("DEBUG: skipped %d links on %s/skip that cannot be downloaded", skipped, srv.URL)
			}
			if tc.wantSkips > 0 && !strings.Contains(res.log, debug) {
				t.Errorf("no DEBUG line %q:\n%s", debug, res.log)
			}
		})
	}
}

// TestFollowValues: what follow() returns for skipped links, and that yielding or returning
// undefined and null (alone or in an array) yields nothing and is no error, while the
// errors that remain name the URL and the reason.
func TestFollowValues(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "values";
  startUrls = ["BASE/"];
  *parse(r) {
    if (r.url !== "BASE/") return;
    const err = (f) => { try { f(); return null; } catch (e) { return e.name + ": " + e.message; } };
    yield {
      mailto: r.follow("mailto:a@b.example") === undefined,
      tel: r.follow("tel:123") === undefined,
      js: r.follow("javascript:alert(1)") === undefined,
      empty: r.follow("") === undefined,
      hash: r.follow("#x") === undefined,
      data: r.follow("data:,x") === undefined,
      relative: r.follow("p/1").url,
      followAllInvalid: r.followAll(["http://[::1/x", "/p/2"]).map((q) => q.url),
      followInvalid: err(() => r.follow("http://[::1/x")),
      followNoHref: err(() => r.follow(r.css("h1")[0])),
      newMailto: err(() => new Request("mailto:a@b.example")),
    };
    yield undefined;
    yield null;
    yield [undefined, { a: 1 }, null];
    yield r.follow("mailto:x@y.example");
  }
}`})
	if len(res.items) != 2 {
		t.Fatalf("got %d items, want 2\n%s", len(res.items), res.log)
	}
	lines := res.sorted(t) // {"a":1} first
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mailto", "tel", "js", "empty", "hash", "data"} {
		if got[k] != true {
			t.Errorf("follow() of the %s link is not undefined: %v", k, got)
		}
	}
	if got["relative"] != srv.URL+"/p/1" {
		t.Errorf("follow(\"p/1\").url = %v", got["relative"])
	}
	if all, _ := json.Marshal(got["followAllInvalid"]); string(all) != `["`+srv.URL+`/p/2"]` {
		t.Errorf("followAll with an invalid URL = %s, want the valid one only", all)
	}
	for k, want := range map[string][]string{
		"followInvalid": {"TypeError", "http://[::1/x", "invalid URL"},
		"followNoHref":  {"TypeError", "<h1>", "no href"},
		"newMailto":     {"TypeError", "mailto:a@b.example", `scheme "mailto"`, "DOWNLOAD_SCHEMES"},
	} {
		msg, _ := got[k].(string)
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not contain %q", k, msg, w)
			}
		}
	}
	if l := lines[0]; l != `{"a":1}` {
		t.Errorf("second item = %s, want {\"a\":1}", l)
	}
	if n := res.stat("spider_exceptions/count"); n != 0 || strings.Contains(res.log, "ERROR") {
		t.Errorf("spider_exceptions/count = %d, want 0 and no error\n%s", n, res.log)
	}
	if n := res.stat("follow/skipped_scheme"); n != 7 {
		t.Errorf("follow/skipped_scheme = %d, want 7\n%s", n, res.log)
	}
	if n := res.stat("follow/skipped_invalid"); n != 1 {
		t.Errorf("follow/skipped_invalid = %d, want 1\n%s", n, res.log)
	}
}

// TestFollowMakesAPlainRequest: response.follow(href) of a string without options (made
// without the Request constructor, on the fast path) gives the same Request as new
// Request(url) of the joined URL: the URL as its one own property, the prototype's
// defaults, lazily made meta and headers, replace() and toString(); and the callback's async
// iterator, which the engine drives without calling next(), still works when user code
// iterates it with for await.
func TestFollowMakesAPlainRequest(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/start": "<p>start</p>"})
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "shape";
  startUrls = ["BASE/start"];
  async *links(r) {
    yield r.follow("/p/1");
    yield await Promise.resolve(r.follow("p/2?q=a b"));
  }
  async *parse(r) {
    const got = [];
    for await (const req of this.links(r)) got.push(req);
    const [a, b] = got;
    const made = new Request(a.url);
    yield {
      keys: Object.keys(a).join(","),
      sameKeys: Object.keys(a).join(",") === Object.keys(made).join(","),
      isRequest: a instanceof Request,
      proto: Object.getPrototypeOf(a) === Request.prototype,
      url: a.url.replace(/^http:\/\/[^/]+/, ""),
      b: b.url.replace(/^http:\/\/[^/]+/, ""),
      method: a.method, callback: a.callback, priority: a.priority, dontFilter: a.dontFilter,
      str: String(a) === "<GET " + a.url + ">",
      meta: (a.meta.x = 1, JSON.stringify(a.meta)),
      keysAfter: Object.keys(a).join(","),
      replaced: a.replace({ priority: 3 }).priority,
    };
  }
}`})
	want := `{"keys":"url","sameKeys":true,"isRequest":true,"proto":true,"url":"/p/1","b":"/p/2?q=a%20b","method":"GET","callback":null,"priority":0,"dontFilter":false,"str":true,"meta":"{\"x\":1}","keysAfter":"url,meta","replaced":3}`
	equalLines(t, "items", res.lines(t), []string{want}, res.log)
}
