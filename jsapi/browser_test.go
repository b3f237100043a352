package jsapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// browserServer serves pages that need a browser: /scroll (an infinite list: 10 items, 10
// more each time the page is scrolled to the bottom, 50 at most), /more (a "load more"
// button that adds 5 items from /api/more, and a form field #q) and /app (items rendered
// from /api/more).
func browserServer(t *testing.T) *server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><head><style>.item{height:120px}</style></head><body>"+body+"</body></html>")
		}
	}
	mux.HandleFunc("/scroll", page(`<div id="list"></div><script>
let n = 0;
function more() { for (let i = 0; i < 10 && n < 50; i++) { const d = document.createElement("div"); d.className = "item"; d.textContent = "item " + (++n); document.getElementById("list").appendChild(d); } }
more();
window.addEventListener("scroll", () => { if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 5) setTimeout(more, 20); });
</script>`))
	mux.HandleFunc("/more", page(`<input id="q"><div id="list"><div class="item">item 1</div><div class="item">item 2</div><div class="item">item 3</div></div>
<button id="more" onclick="fetch('/api/more').then(r => r.json()).then(xs => { for (const x of xs) { const d = document.createElement('div'); d.className = 'item'; d.textContent = x; document.getElementById('list').appendChild(d); } })">more</button>`))
	mux.HandleFunc("/app", page(`<ul id="out"></ul><script>fetch("/api/more").then(r => r.json()).then(xs => { document.getElementById("out").innerHTML = xs.map(x => "<li>" + x + "</li>").join(""); });</script>`))
	mux.HandleFunc("/api/more", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `["item 4","item 5","item 6","item 7","item 8"]`)
	})
	return &server{Server: enginetest.StartWith(t, mux).Server}
}

func TestBrowserPageAPI(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := browserServer(t)
	res := crawl(t, srv, spec{src: `import { Request, fetch } from "jscrawl";
export default class S {
  name = "pages";
  kept = null;
  *start() {
    yield new Request("BASE/scroll", { browser: { includePage: true }, callback: this.scroll });
    yield new Request("BASE/more", { browser: { includePage: true }, callback: this.more });
    yield new Request("BASE/more?plain", { browser: true, callback: this.plain });
    yield new Request("BASE/more?inline", { callback: this.inline });
    yield new Request("BASE/more?fail", { browser: { includePage: true }, callback: this.failing, errback: this.failed });
  }
  async *failing(response) {
    this.failedPage = response.page;
    await response.page.click("#more");
    throw new Error("boom");
  }
  *failed(failure) {
    yield new Request("BASE/more?afterFail", { callback: this.afterFail });
  }
  async *afterFail(response) {
    let err = null;
    try { await this.failedPage.url(); await this.failedPage.content(); } catch (e) { err = e.message; }
    yield { kind: "afterFail", closed: err !== null && err.includes("closed") };
  }
  async *scroll(response) {
    const page = response.page;
    const before = response.css(".item").length;
    await page.scroll({ times: 20, delay: 1000 }); // a loaded machine may take long to grow the page: scroll stops at the first wait it does not
    const r = await page.response();
    yield { kind: "scroll", before, after: r.css(".item").length, sameUrl: page.url() === response.url };
  }
  async *more(response) {
    const page = response.page;
    await page.click("#more");
    await page.waitForSelector(".item:nth-child(8)", { timeout: 5000 });
    const doubled = await page.evaluate((sel, k) => document.querySelectorAll(sel).length * k, ".item", 2);
    await page.fill("#q", "hello");
    const q = await page.evaluate("() => document.querySelector('#q').value");
    const png = await page.screenshot();
    let timeout = null;
    try { await page.waitForSelector("#never", { timeout: 200 }); } catch (e) { timeout = e.name; }
    const content = await page.content();
    await page.goto("BASE/app");
    await page.waitForSelector("#out li");
    const app = await page.response();
    yield { kind: "more", doubled, q, png: png instanceof Uint8Array && png[0] === 0x89 && png[1] === 0x50,
      timeout, hasItem8: content.includes("item 8"), app: app.css("#out li::text").getall().length };
  }
  *plain(response) {
    yield { kind: "plain", page: response.page === undefined, shot: response.screenshot };
  }
  async *inline(response) {
    const r = await fetch("BASE/app", { browser: { includePage: true, waitUntil: "networkidle" } });
    this.kept = r.page;
    yield { kind: "inline", items: r.css("#out li").length, url: r.page.url() === r.url };
    yield new Request("BASE/more?after", { callback: this.after });
  }
  async *after(response) {
    let err = null;
    try { await this.kept.content(); } catch (e) { err = e.message; }
    yield { kind: "after", closed: err !== null && err.includes("closed") };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"kind":"after","closed":true}`,
		`{"kind":"afterFail","closed":true}`,
		`{"kind":"inline","items":5,"url":true}`,
		`{"kind":"more","doubled":16,"q":"hello","png":true,"timeout":"TimeoutError","hasItem8":true,"app":5}`,
		`{"kind":"plain","page":true,"shot":null}`,
		`{"kind":"scroll","before":10,"after":50,"sameUrl":true}`,
	}, res.log)
	if n := strings.Count(res.log, "] ERROR:"); n != 1 || !strings.Contains(res.log, "Error: boom") {
		t.Errorf("want one ERROR, for boom:\n%s", res.log)
	}
}

// TestBrowserOption: the request option browser is checked, kept in meta.browser (also
// through follow and replace), and without a Chromium a browser request fails with a
// BrowserNotFoundError that an inline fetch rejects with, while plain requests go on.
func TestBrowserOption(t *testing.T) {
	t.Parallel()
	srv := browserServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"BROWSER_EXECUTABLE": "/nonexistent/chromium"}, src: `import { Request, fetch } from "jscrawl";
export default class S {
  name = "opts";
  *start() {
    yield new Request("BASE/more", { callback: this.plain });
    yield new Request("BASE/more?b", { browser: true, errback: this.failed, meta: { tag: 1 } });
  }
  async *plain(response) {
    const f = response.follow("/app", { browser: { waitFor: "li", timeout: 5, blockResources: [] } });
    const errors = [];
    for (const bad of [{ waitUntil: "idle" }, { nope: 1 }, "yes", { timeout: -1 }, { blockResources: "image" }]) {
      try { new Request("BASE/x", { browser: bad }); } catch (e) { errors.push(e.name + ": " + e.message); }
    }
    let rejected = null;
    try { await fetch("BASE/app", { browser: true }); } catch (e) { rejected = e.name + " " + e.message.includes("apt-get install chromium"); }
    yield { kind: "plain", follow: f.meta.browser, replaced: f.replace({ priority: 1 }).meta.browser.waitFor,
      plain: new Request("BASE/x", { browser: false }).meta.browser === undefined, errors, rejected };
  }
  *failed(failure) {
    yield { kind: "failed", name: failure.error.name, apt: failure.error.message.includes("apt-get install chromium"),
      meta: failure.request.meta };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"kind":"failed","name":"BrowserNotFoundError","apt":true,"meta":{"tag":1,"browser":true,"depth":0}}`,
		`{"kind":"plain","follow":{"waitFor":"li","timeout":5,"blockResources":[]},"replaced":"li","plain":true,"errors":[` +
			`"TypeError: browser.waitUntil: want \"load\", \"domcontentloaded\" or \"networkidle\", got string idle",` +
			`"TypeError: browser: unknown option \"nope\" (known: waitUntil, waitFor, timeout, blockResources, screenshot, includePage)",` +
			`"TypeError: browser: want true or an options object { waitUntil, waitFor, timeout, blockResources, screenshot, includePage }, got string yes",` +
			`"TypeError: browser.timeout: want seconds (a number >= 0), got -1",` +
			`"TypeError: browser.blockResources: want an array of resource types, got string image"],"rejected":"BrowserNotFoundError true"}`,
	}, res.log)
}

// TestBrowserPageThroughMiddlewares: a downloader middleware that returns the response it
// got keeps its page open for the callback; one that replaces it by a request closes it
// (BROWSER_CONCURRENCY 1: otherwise the replacement's page never gets a place).
func TestBrowserPageThroughMiddlewares(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := browserServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"BROWSER_CONCURRENCY": "1"}, src: `import { Request } from "jscrawl";
export const downloaderMiddlewares = [{
  processResponse(request, response) {
    if (response.url.endsWith("?swap")) return new Request("BASE/more?swapped", { browser: { includePage: true }, dontFilter: true });
    return response;
  },
}];
export default class S {
  name = "mw";
  *start() { yield new Request("BASE/more?swap", { browser: { includePage: true } }); }
  async *parse(response) {
    yield { url: new URL(response.url).search, content: (await response.page.content()).includes("item 3") };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{`{"url":"?swapped","content":true}`}, res.log)
}
