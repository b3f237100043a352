package jsapi_test

// Crawlee's forms under jscrawl (crawlee.js): export default router, export default
// crawler and a script that runs a crawler, with Crawlee 3.18's context and options.

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
)

// TestCrawleeRouter: export default createCheerioRouter() with labels routing to handlers,
// userData travelling, pushData items in the feed and start URLs from -a startUrls.
func TestCrawleeRouter(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, mod := range []string{"crawlee", "@crawlee/cheerio"} {
		t.Run(mod, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `
import { createCheerioRouter, EnqueueStrategy } from "` + mod + `";
const router = createCheerioRouter();
router.addDefaultHandler(async ({ request, enqueueLinks, log }) => {
  log.info("start " + request.url);
  const r = await enqueueLinks({ globs: ["**/p/*"], label: "DETAIL", userData: { from: request.loadedUrl }, strategy: EnqueueStrategy.SameHostname });
  await enqueueLinks({ urls: ["BASE/json"], label: "JSON" });
  if (r.processedRequests.length !== 3) throw new Error("processed " + r.processedRequests.length);
});
router.addHandler("DETAIL", async ({ request, body, pushData }) => {
  await pushData({ url: request.url, label: request.label, from: request.userData.from, h1: /<h1>([^<]*)/.exec(body)[1] });
});
router.addHandler("JSON", async ({ request, json, contentType, response, pushData }) => {
  await pushData({ url: request.url, x: json.x, type: contentType.type, status: response.statusCode, test: response.headers["x-test"] });
});
export default router;
`, args: map[string]string{"startUrls": srv.URL + "/"}})
			got := strings.Join(res.sorted(t), "\n")
			want := strings.Join([]string{
				`{"url":"` + srv.URL + `/json","x":1,"type":"application/json","status":200,"test":"yes"}`,
				`{"url":"` + srv.URL + `/p/1","label":"DETAIL","from":"` + srv.URL + `/","h1":"Page 1"}`,
				`{"url":"` + srv.URL + `/p/2","label":"DETAIL","from":"` + srv.URL + `/","h1":"Page 2"}`,
				`{"url":"` + srv.URL + `/p/3","label":"DETAIL","from":"` + srv.URL + `/","h1":"Page 3"}`,
			}, "\n")
			if got != want {
				t.Fatalf("items:\n%s\nwant:\n%s\n%s", got, want, res.log)
			}
			if !strings.Contains(res.log, "start "+srv.URL+"/") {
				t.Errorf("no log line from the handler's log:\n%s", res.log)
			}
		})
	}
}

// TestCrawleeScript: a script in the style of Crawlee's examples (top-level await, no
// default export) runs the crawler it ran, with the requests it added; run() resolves
// with the final statistics on one VM only, so the code after it runs once.
func TestCrawleeScript(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `
import { CheerioCrawler, Dataset, KeyValueStore, log, LogLevel } from "crawlee";
log.setLevel(LogLevel.DEBUG);
const crawler = new CheerioCrawler({
  minConcurrency: 2,
  maxConcurrency: 4,
  async requestHandler({ request, body, pushData, log }) {
    log.debug("handling " + request.url);
    await pushData({ url: request.url, label: request.label ?? null, size: body.length > 0 });
  },
});
await crawler.addRequests(["BASE/p/1", { url: "BASE/p/2", label: "two" }]);
const stats = await crawler.run(["BASE/p/3"]);
const all = await Dataset.getData();
await KeyValueStore.setValue("after-run", { finished: stats.requestsFinished, failed: stats.requestsFailed, seen: all.items.length });
console.log("after run: " + JSON.stringify(await KeyValueStore.getValue("after-run")));
`, settings: map[string]string{"JS_VMS": "3"}})
	if got := res.sorted(t); len(got) != 3 || !strings.Contains(got[1], `"label":"two"`) {
		t.Fatalf("items: %q\n%s", got, res.log)
	}
	if n := strings.Count(res.log, "after run: "); n != 1 {
		t.Fatalf("the code after run() ran %d times, want 1\n%s", n, res.log)
	}
	if !strings.Contains(res.log, `after run: {"finished":3,"failed":0,"seen":`) {
		t.Errorf("no final statistics after run():\n%s", res.log)
	}
	if !strings.Contains(res.log, "handling "+srv.URL) {
		t.Errorf("log.setLevel(LogLevel.DEBUG) did not let log.debug through:\n%s", res.log)
	}
	if res.stat("crawlee/requests_finished") != 3 {
		t.Errorf("crawlee/requests_finished = %d, want 3", res.stat("crawlee/requests_finished"))
	}
}

// TestCrawleeCrawler: export default new CheerioCrawler({...}): a handler that throws is
// retried maxRequestRetries times and then failedRequestHandler runs (Crawlee's
// basic-crawler semantics), a download that fails for good (a 500 after RETRY_TIMES) goes
// to failedRequestHandler too, a 404 page reaches the handler (as in Crawlee), and the
// name option names the spider.
func TestCrawleeCrawler(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	var name string
	res := crawl(t, srv, spec{src: `
import { CheerioCrawler } from "crawlee";
export default new CheerioCrawler({
  name: "mycrawler",
  maxRequestRetries: 2,
  maxConcurrency: 2,
  startUrls: ["BASE/p/1", "BASE/p/2", "BASE/status/500", "BASE/status/404"],
  async requestHandler({ request, response, pushData }) {
    if (request.url.endsWith("/p/1")) throw new Error("boom " + request.retryCount);
    await pushData({ ok: request.url, status: response.statusCode });
  },
  async failedRequestHandler({ request, pushData }, error) {
    await pushData({ failed: request.url, retries: request.retryCount, error: error.message, messages: request.errorMessages.length });
  },
});
`, loaded: func(s *jsapi.Spider) { name = s.Name() }})
	if name != "mycrawler" {
		t.Errorf("spider name %q, want mycrawler", name)
	}
	got := strings.Join(res.sorted(t), "\n")
	for _, want := range []string{
		`{"failed":"` + srv.URL + `/p/1","retries":2,"error":"boom 2","messages":3}`,
		`{"ok":"` + srv.URL + `/p/2","status":200}`,
		`{"ok":"` + srv.URL + `/status/404","status":404}`,
		`{"failed":"` + srv.URL + `/status/500","retries":0,`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no item %s in:\n%s\n%s", want, got, res.log)
		}
	}
	if len(res.items) != 4 {
		t.Errorf("%d items, want 4:\n%s", len(res.items), got)
	}
	if !strings.Contains(res.log, "Reclaiming failed request back to the list or queue. boom 0") {
		t.Errorf("no retry warning:\n%s", res.log)
	}
	if res.stat("crawlee/requests_failed") != 2 || res.stat("crawlee/requests_retries") != 2 {
		t.Errorf("failed %d retries %d, want 2 and 2", res.stat("crawlee/requests_failed"), res.stat("crawlee/requests_retries"))
	}
}

// TestCrawleeMaxRequestsPerCrawl: maxRequestsPerCrawl bounds the requests handled over
// every VM, and the crawl stops once they are done.
func TestCrawleeMaxRequestsPerCrawl(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `
import { CheerioCrawler } from "crawlee";
export default new CheerioCrawler({
  maxRequestsPerCrawl: 3,
  startUrls: ["BASE/"],
  async requestHandler({ request, enqueueLinks, pushData }) {
    await pushData({ url: request.url });
    await enqueueLinks({ urls: ["BASE/p/1", "BASE/p/2", "BASE/p/3", "BASE/p/4", "BASE/p/5", "BASE/json", "BASE/text"] });
  },
});
`, settings: map[string]string{"JS_VMS": "2"}})
	if len(res.items) != 3 {
		t.Fatalf("%d items, want 3:\n%s\n%s", len(res.items), strings.Join(res.lines(t), "\n"), res.log)
	}
	if !strings.Contains(res.log, "reached the maxRequestsPerCrawl limit of 3 requests") && res.stat("response_received_count") > 3 {
		t.Errorf("more than 3 responses and no limit warning:\n%s", res.log)
	}
}

// TestCrawleeEnqueueLinks: enqueueLinks' strategies, globs, exclude and
// transformRequestFunction, as Crawlee 3.18's (enqueue_links.ts).
func TestCrawleeEnqueueLinks(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	res := crawl(t, srv, spec{src: `
import { createCheerioRouter, EnqueueStrategy } from "crawlee";
const router = createCheerioRouter();
export const startUrls = ["BASE/"];
const urls = ["BASE/p/1", "BASE/p/2", "` + other + `/p/9", "https://example.invalid/x"];
router.addDefaultHandler(async ({ enqueueLinks, pushData }) => {
  const count = async (o) => (await enqueueLinks(Object.assign({ label: "NONE" }, o))).processedRequests.map((r) => r.uniqueKey);
  await pushData({
    all: await count({ urls, strategy: EnqueueStrategy.All }),
    sameHostname: await count({ urls }),
    sameOrigin: await count({ urls, strategy: "same-origin" }),
    globs: await count({ globs: ["**/p/[12]"] }),
    exclude: await count({ exclude: ["**/p/1"] }),
    include: await count({ include: ["**/p/3"] }),
    transform: await count({ transformRequestFunction: (r) => (r.url.endsWith("/p/2") ? false : Object.assign(r, { userData: { t: 1 } })) }),
  });
});
router.addHandler("NONE", async () => {});
export default router;
`})
	item := res.onlyItem(t)
	b := srv.URL
	want := map[string][]string{
		"all":          {b + "/p/1", b + "/p/2", other + "/p/9", "https://example.invalid/x"},
		"sameHostname": {b + "/p/1", b + "/p/2"},
		"sameOrigin":   {b + "/p/1", b + "/p/2"},
		"globs":        {b + "/p/1", b + "/p/2"},
		"exclude":      {b + "/p/2", b + "/p/3"},
		"include":      {b + "/p/3"},
		"transform":    {b + "/p/1", b + "/p/3"},
	}
	for k, w := range want {
		got := fmt.Sprint(item[k])
		if got != fmt.Sprint(w) {
			t.Errorf("%s: %s, want %v", k, got, w)
		}
	}
}

// TestCrawleeTopLevelAwaitWithExports: a file with top-level await and exports is refused
// at the await, file:line:col.
func TestCrawleeTopLevelAwaitWithExports(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "script.ts")
	src := "import { CheerioCrawler } from \"crawlee\";\nconst c = new CheerioCrawler({ requestHandler() {} });\nexport const x = 1;\nawait c.run([\"http://x/\"]);\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runtime.Bundle(path, runtime.BundleOptions{External: jsapi.NativeModules})
	if err == nil || !strings.HasPrefix(err.Error(), path+":4:1: top-level await in a file with exports (x)") {
		t.Fatalf("err = %v", err)
	}
}

// TestCrawleeScriptError: an error the script throws before crawler.run() fails the load
// with its position in the script.
func TestCrawleeScriptError(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	src := `import { CheerioCrawler } from "crawlee";
const crawler = new CheerioCrawler({ requestHandler() {} });
await crawler.addRequests(["BASE/"]);
throw new Error("no luck"); // here
await crawler.run();
`
	_, _, err := load(t, spec{src: src}, srv.URL, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "no luck") || !strings.Contains(err.Error(), "spider.ts:4:") {
		t.Fatalf("err = %v", err)
	}
}

// TestCrawleeStores: a key-value store is shared by every VM of the crawl (values set in
// handlers on three VMs are read after run() on the first), values keep their types and
// content types, and a dataset's getData, map, reduce and exportToJSON/CSV work on what
// this VM pushed.
func TestCrawleeStores(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `
import { CheerioCrawler, Dataset, KeyValueStore } from "crawlee";
const crawler = new CheerioCrawler({
  async requestHandler({ request, getKeyValueStore }) {
    const store = await getKeyValueStore();
    await store.setValue("seen-" + request.url.split("/").pop(), { url: request.url });
  },
});
await crawler.run(["BASE/p/1", "BASE/p/2", "BASE/p/3", "BASE/p/4", "BASE/p/5", "BASE/p/6"]);
const store = await KeyValueStore.open();
const keys = [];
await store.forEachKey((k) => { keys.push(k); });
await KeyValueStore.setValue("text", "plain");
await KeyValueStore.setValue("html", "<b>x</b>", { contentType: "text/html" });
await KeyValueStore.setValue("gone", 1);
await KeyValueStore.setValue("gone", null);
const named = await KeyValueStore.open("other");
await named.setValue("k", [1, 2]);
const ds = await Dataset.open();
await ds.pushData([{ a: 1, b: "x,y" }, { a: 2 }]);
await ds.exportToJSON("OUT");
await ds.exportToCSV("OUT-CSV");
const data = await ds.getData({ offset: 1 });
console.log("RESULT " + JSON.stringify({
  keys,
  text: await KeyValueStore.getValue("text"),
  html: await store.getValue("html"),
  gone: await store.recordExists("gone"),
  missing: await store.getValue("missing", "def"),
  other: await named.getValue("k"),
  defaultHasK: await store.recordExists("k"),
  out: await store.getValue("OUT"),
  csv: await store.getValue("OUT-CSV"),
  data: [data.items, data.total, data.count],
  sum: await ds.reduce((acc, it) => acc + it.a, 0),
  doubled: await ds.map((it) => it.a * 2),
}));
`, settings: map[string]string{"JS_VMS": "3"}})
	want := `RESULT {"keys":["seen-1","seen-2","seen-3","seen-4","seen-5","seen-6"],"text":"plain","html":"<b>x</b>","gone":false,"missing":"def",` +
		`"other":[1,2],"defaultHasK":false,"out":[{"a":1,"b":"x,y"},{"a":2}],"csv":"a,b\r\n1,\"x,y\"\r\n2,\r\n","data":[[{"a":2}],2,1],"sum":3,"doubled":[2,4]}`
	if !strings.Contains(res.log, want) {
		t.Fatalf("want %s in:\n%s", want, res.log)
	}
}

// TestCrawleeDeclared: every export jscrawl.d.ts declares for "crawlee" exists at run time,
// in both module names.
func TestCrawleeDeclared(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("jscrawl.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "declare module \"crawlee\" {\n")
	if !ok {
		t.Fatal("no declare module \"crawlee\" in jscrawl.d.ts")
	}
	var names []string
	for _, line := range strings.Split(body, "\n") {
		if line == "}" {
			break
		}
		f := strings.Fields(strings.TrimPrefix(line, "  export "))
		if !strings.HasPrefix(line, "  export ") || len(f) < 2 || f[0] == "type" || f[0] == "interface" {
			continue
		}
		names = append(names, strings.FieldsFunc(f[1], func(r rune) bool { return r == '(' || r == ':' || r == '<' })[0])
	}
	if len(names) < 10 {
		t.Fatalf("only %v declared", names)
	}
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `
import * as a from "crawlee";
import * as b from "@crawlee/cheerio";
const names = ` + fmt.Sprintf("%q", strings.Join(names, " ")) + `.split(" ");
export default class S { name = "d"; startUrls = ["BASE/p/1"];
  parse() { return { missing: names.filter((n) => a[n] === undefined || b[n] !== a[n]) }; } }
`})
	if got := res.onlyItem(t)["missing"]; fmt.Sprint(got) != "[]" {
		t.Fatalf("declared in jscrawl.d.ts but not exported: %v", got)
	}
}
