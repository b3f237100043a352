package jsapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestCheerioMatchesCheerio runs the cases of testdata/cheerio/cases.js through the
// built-in "cheerio" module and compares each result with what cheerio 1.2.0 (npm, run by
// node 20 on the same cases) returned, recorded in testdata/cheerio/expected.json: every
// traversal, filter, text, html, attribute and element-handle method of $ on three
// fixtures. A case where cheerio threw must throw too.
func TestCheerioMatchesCheerio(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/cheerio/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Cheerio  string            `json:"cheerio"`
		Fixtures map[string]string `json:"fixtures"`
		Prelude  string            `json:"prelude"`
		Cases    []struct {
			Fixture, JS, Want, Err string
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	if len(exp.Cases) < 150 {
		t.Fatalf("only %d cases", len(exp.Cases))
	}
	for i, c := range exp.Cases {
		t.Run(fmt.Sprintf("%03d", i), func(t *testing.T) {
			t.Parallel()
			got, err := evalCheerio(t, exp.Fixtures[c.Fixture], exp.Prelude+c.JS)
			switch {
			case c.Err != "" && err == nil:
				t.Errorf("%s (on %s): got %s, want an error like cheerio's %q", c.JS, c.Fixture, got, c.Err)
			case c.Err == "" && err != nil:
				t.Errorf("%s (on %s): %v, want %s", c.JS, c.Fixture, err, c.Want)
			case c.Err == "" && got != c.Want:
				t.Errorf("%s (on %s):\n got  %s\n want %s (cheerio %s)", c.JS, c.Fixture, got, c.Want, exp.Cheerio)
			}
		})
	}
}

// TestCheerioHarness: evalCheerio gives "undefined" for undefined and the message of a
// thrown error.
func TestCheerioHarness(t *testing.T) {
	t.Parallel()
	if got, err := evalCheerio(t, "<p>x</p>", "return undefined"); got != "undefined" || err != nil {
		t.Errorf("undefined: %q %v", got, err)
	}
	if _, err := evalCheerio(t, "<p>x</p>", `throw new Error("boom")`); err == nil || err.Error() != "boom" {
		t.Errorf("throw: %v", err)
	}
	if got, err := evalCheerio(t, "<p>x</p>", `return $("p").text()`); got != `"x"` || err != nil {
		t.Errorf("text: %q %v", got, err)
	}
}

// cheerioPages serves two pages for the response.$ crawls: / links to /b/ and /c, whose
// relative links resolve against its own URL.
func cheerioPages(t *testing.T) *server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Home</title></head><body>
<ul><li><a href="b/">B</a></li><li><a href="/c?x=1">C</a></li><li><a href="#top">top</a></li></ul>
<img src="img/i.png"><p class="n">one</p><p class="n">two</p></body></html>`)
	})
	mux.HandleFunc("/b/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><a href="../d">D</a><p class="n">three</p></body></html>`)
	})
	mux.HandleFunc("/c", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><a href="e">E</a></body></html>`)
	})
	srv := &server{Server: httptest.NewServer(mux)}
	t.Cleanup(srv.Close)
	return srv
}

// TestResponseDollar crawls with response.$: prop("href") and prop("src") resolve
// against each response's URL, callbacks get (i, el) with this = el, elements keep their
// identity, and one response's $ and elements are not another's.
func TestResponseDollar(t *testing.T) {
	t.Parallel()
	srv := cheerioPages(t)
	res := crawl(t, srv, spec{src: `
let first: any = null;
export default class S {
  name = "dollar";
  startUrls = ["BASE/"];
  *parse(response) {
    const $ = response.$;
    const hrefs = $("a").map((i, el) => $(el).prop("href")).get();
    const texts: string[] = [];
    $("p.n").each(function (i, el) { texts.push(i + ":" + $(this).text() + ":" + (this === el)); });
    const same = $("a")[0] === $("a").get(0) && $("a").get(0) === $("a").toArray()[0] && response.$ === $;
    let leak = null;
    if (first === null) {
      first = { $, a: $("a")[0] };
    } else {
      // An element of the first page, wrapped by this page's $, stays the first page's.
      leak = [first.$ === $, first.a === $("a")[0], $(first.a).attr("href"), first.$("a").length];
    }
    yield { url: response.url, hrefs, texts, same, src: $("img").prop("src") ?? null,
      attr: $("a").attr("href"), title: $("title").text(), leak };
    if (response.url === "BASE/") {
      for (const el of $("a").toArray().slice(0, 2)) yield response.follow($(el).attr("href"));
    }
  }
}
`, settings: map[string]string{"CONCURRENT_REQUESTS": "1"}})
	byURL := map[string]map[string]any{}
	for _, it := range res.items {
		m := map[string]any{}
		b, _ := it.JSON()
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		byURL[m["url"].(string)] = m
	}
	base := srv.URL
	check := func(u, key, want string) {
		t.Helper()
		m, ok := byURL[u]
		if !ok {
			t.Fatalf("no item for %s; items %v\n%s", u, byURL, res.log)
		}
		b, _ := json.Marshal(m[key])
		if got := strings.ReplaceAll(string(b), base, "BASE"); got != want {
			t.Errorf("%s %s = %s, want %s", u, key, got, want)
		}
	}
	check(base+"/", "hrefs", `["BASE/b/","BASE/c?x=1","BASE/#top"]`)
	check(base+"/", "texts", `["0:one:true","1:two:true"]`)
	check(base+"/", "same", `true`)
	check(base+"/", "src", `"BASE/img/i.png"`)
	check(base+"/", "attr", `"b/"`)
	check(base+"/", "title", `"Home"`)
	check(base+"/b/", "hrefs", `["BASE/d"]`)
	check(base+"/b/", "texts", `["0:three:true"]`)
	check(base+"/c?x=1", "hrefs", `["BASE/e"]`)
	check(base+"/c?x=1", "src", `null`)
	for _, u := range []string{base + "/b/", base + "/c?x=1"} {
		check(u, "same", `true`)
		// The first page's $ still answers about the first page.
		check(u, "leak", `[false,false,"b/",3]`)
	}
}

// TestCheerioModuleBundles: a spider file importing "cheerio" as cheerio's docs do
// (a namespace import, a named import, require) bundles and gets the built-in module.
func TestCheerioModuleBundles(t *testing.T) {
	t.Parallel()
	srv := cheerioPages(t)
	res := crawl(t, srv, spec{src: `
import * as cheerio from "cheerio";
import { load } from "cheerio";
const viaRequire = require("cheerio");
export default class S {
  name = "bundles";
  startUrls = ["BASE/"];
  parse(response) {
    const $ = load(response.body, { baseURI: response.url });
    const $2 = cheerio.load("<b>x</b>");
    return { n: $("p.n").length, href: $("a").first().prop("href").replace(response.url, ""),
      b: $2("b").text(), same: viaRequire.load === load && cheerio.load === load,
      html: cheerio.load("<i>q</i>", null, false).html(),
      keys: Object.keys(cheerio).filter((k) => k !== "default").sort() };
  }
}
`})
	got := res.onlyItem(t)
	b, _ := json.Marshal(got)
	want := `{"b":"x","href":"b/","html":"\u003ci\u003eq\u003c/i\u003e","keys":["contains","load","merge"],"n":2,"same":true}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
