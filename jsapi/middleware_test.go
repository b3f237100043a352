package jsapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
)

// TestDownloaderMiddlewares runs JS downloader middlewares against a real server: order
// (requests forward, responses and exceptions in reverse), header changes that are sent,
// responses that skip or replace a download, requests that replace one, and inline fetch.
func TestDownloaderMiddlewares(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tag=%s", r.Header.Get("X-Tag"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "moved here")
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	res := crawl(t, newServer(t), spec{args: map[string]string{"site": site.URL}, src: `import { Request, Response } from "jscrawl";
const seq = {};
// note records a hook per scheduled request (inline fetches, without meta.case, overlap).
const note = (request, what) => { const k = request.meta.case; if (k) (seq[k] = seq[k] || []).push(what); };
export default class S {
  name = "mw";
  *start() {
    yield new Request(this.site + "/echo", { meta: { case: "header" } });
    yield new Request(this.site + "/echo?canned", { meta: { case: "canned" } });
    yield new Request(this.site + "/missing", { meta: { case: "fixed" } });
    yield new Request(this.site + "/old", { meta: { case: "replaced" } });
    yield new Request("http://127.0.0.1:1/refused", { meta: { case: "refused" } });
  }
  async parse(r) {
    const inline = await fetch(this.site + "/echo");
    return { case: r.meta.case, status: r.status, body: r.body, inline: inline.body, url: r.url };
  }
  closed() { for (const k in seq) this.crawler.stats.set("order/" + k, seq[k].join(",")); }
}
export const downloaderMiddlewares = [
  {
    async processRequest(request) {
      note(request, "a.req");
      await null;
      request.headers["X-Tag"] = "from-a";
      if (request.url.endsWith("?canned")) return new Response("canned body", { status: 200 });
      if (request.url.endsWith("/old")) return new Request(request.url.replace("/old", "/moved"), { meta: { case: "replaced" } });
    },
    processResponse(request, response) {
      note(request, "a.resp");
      if (response.status === 404) return response.replace({ status: 200, body: "fixed" });
      return response;
    },
    processException(request, error) {
      note(request, "a.exc:" + error.name);
      return new Response("recovered", { status: 200, request });
    },
  },
  class {
    processRequest(request) { note(request, "b.req"); }
    processResponse(request, response) { note(request, "b.resp"); return undefined; }
  },
];
`, settings: map[string]string{"RETRY_ENABLED": "false", "CONCURRENT_REQUESTS": "1"}})
	items := map[string]string{}
	for _, l := range res.lines(t) {
		for _, c := range []string{"header", "canned", "fixed", "replaced", "refused"} {
			if strings.Contains(l, `"case":"`+c+`"`) {
				items[c] = l
			}
		}
	}
	for c, want := range map[string][]string{
		"header":   {`"status":200`, `"body":"tag=from-a"`, `"inline":"tag=from-a"`},
		"canned":   {`"body":"canned body"`, `/echo?canned"`}, // not downloaded: the body would be tag=...
		"fixed":    {`"status":200`, `"body":"fixed"`},
		"replaced": {`"body":"moved here"`, `/moved"`},
		"refused":  {`"body":"recovered"`},
	} {
		for _, w := range want {
			if !strings.Contains(items[c], w) {
				t.Errorf("case %s: item %q lacks %s\n%s", c, items[c], w, res.log)
			}
		}
	}
	// Requests forward (a, b), responses and exceptions back (b, a). The canned response
	// skipped b.req and the download but still passed through both processResponse hooks;
	// the replaced request went through the chain again.
	for c, want := range map[string]string{
		"header":   "a.req,b.req,b.resp,a.resp",
		"canned":   "a.req,b.resp,a.resp",
		"fixed":    "a.req,b.req,b.resp,a.resp",
		"replaced": "a.req,a.req,b.req,b.resp,a.resp",
		"refused":  "a.req,b.req,a.exc:ConnectionRefusedError,b.resp,a.resp",
	} {
		if got := res.stats["order/"+c]; got != want {
			t.Errorf("hooks for %s: %v, want %s", c, got, want)
		}
	}
}

// TestSpiderMiddlewares: processStart sees start() in array order, processSpiderOutput sees
// every callback's output in reverse order, as async iterables, for every callback shape.
func TestSpiderMiddlewares(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "spmw";
  start() { return [new Request("BASE/p/1")]; }            // a plain array
  async *parse(r) {                                         // an async generator
    yield { page: r.url, n: 1 };
    yield { page: r.url, n: 2, drop: true };
    yield new Request("BASE/p/2", { callback: this.second });
  }
  async second(r) { return { page: r.url, n: 3 }; }       // an async function
}
export const spiderMiddlewares = [
  {
    async *processStart(start) {
      for await (const r of start) yield r;
      yield new Request("BASE/p/3", { callback: "second" }); // added by the middleware
    },
    async *processSpiderOutput(response, result) {
      for await (const x of result) {
        if (x instanceof Request) { yield x; continue; }
        x.trail = (x.trail || "") + "a";                    // runs second: sees b's mark
        yield x;
      }
    },
  },
  class {
    async *processSpiderOutput(response, result) {
      for await (const x of result) {
        if (x.drop) continue;                               // runs first: drops
        if (!(x instanceof Request)) x.trail = "b";
        yield x;
      }
    }
  },
];
`})
	got := res.lines(t)
	if len(got) != 3 {
		t.Fatalf("items = %v, want 3 (one dropped)\n%s", got, res.log)
	}
	for _, l := range got {
		if !strings.Contains(l, `"trail":"ba"`) {
			t.Errorf("item %s did not pass b then a", l)
		}
		if strings.Contains(l, `"drop"`) {
			t.Errorf("dropped item exported: %s", l)
		}
	}
	var p3 bool
	for _, l := range got {
		p3 = p3 || strings.Contains(l, `/p/3","n":3`)
	}
	if !p3 {
		t.Errorf("the request added by processStart was not crawled: %v", got)
	}
}

// TestProcessSpiderException: an error from a callback (thrown at once or while yielding)
// goes to processSpiderException in output order; the first that returns an iterable
// replaces the output, which passes only the later stages' processSpiderOutput, and the
// error is handled (not counted). An error no hook handles still reaches the errback path.
func TestProcessSpiderException(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "spexc";
  start() { return [new Request("BASE/p/1"), new Request("BASE/p/2", { callback: "later" }), new Request("BASE/p/3", { callback: "unhandled" })]; }
  parse(r) { throw new RangeError("at once"); }
  async *later(r) { yield { n: 1 }; await null; throw new RangeError("while yielding"); }
  async *unhandled(r) { throw new TypeError("nobody"); }
}
export const spiderMiddlewares = [
  {
    processSpiderException(response, error) {
      if (error.name === "RangeError") return [{ recovered: error.message }];
    },
    async *processSpiderOutput(response, result) {
      for await (const x of result) { if (!(x instanceof Request)) x.trail = (x.trail || "") + "a"; yield x; }
    },
  },
  {
    async *processSpiderOutput(response, result) {
      for await (const x of result) { if (!(x instanceof Request)) x.trail = (x.trail || "") + "b"; yield x; }
    },
  },
];
`})
	got := res.lines(t)
	sort.Strings(got)
	want := []string{`{"n":1,"trail":"ba"}`, `{"recovered":"at once"}`, `{"recovered":"while yielding"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items =\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), res.log)
	}
	if n := res.stat("spider_exceptions/RangeError"); n != 0 {
		t.Errorf("handled errors were counted: spider_exceptions/RangeError = %d", n)
	}
	if n := res.stat("spider_exceptions/TypeError"); n != 1 {
		t.Errorf("spider_exceptions/TypeError = %d, want 1 (the unhandled one)\n%s", n, res.log)
	}
}

// TestHeadersLike: request.headers and response.headers are Headers-like (get, set, has,
// delete, append, iterable, case-insensitive); request header changes are sent, including
// those a downloader middleware makes.
func TestHeadersLike(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Served", "yes")
		fmt.Fprintf(w, "a=%s b=%s c=%s mw=%s", r.Header.Get("X-A"), strings.Join(r.Header.Values("X-B"), "+"), r.Header.Get("X-C"), r.Header.Get("X-Mw"))
	}))
	defer echo.Close()
	res := crawl(t, newServer(t), spec{args: map[string]string{"echo": echo.URL}, src: `import { Request } from "jscrawl";
export default class S {
  name = "headers";
  start() {
    const r = new Request(this.echo, { headers: { "X-A": "1", "X-C": "gone" } });
    r.headers.set("x-a", "2");
    r.headers.append("X-B", "3");
    r.headers.append("x-b", "4");
    r.headers.delete("X-C");
    this.checks = [r.headers.has("X-A"), r.headers.get("x-b"), [...r.headers].length].join(",");
    return [r];
  }
  parse(r) {
    r.headers.set("X-Local", "1");
    return { body: r.body, served: r.headers.get("x-served"), local: r.headers.get("X-Local"), checks: this.checks };
  }
}
export const downloaderMiddlewares = [{ processRequest(request) { request.headers.set("X-Mw", "m"); } }];
`})
	want := `{"body":"a=2 b=3+4 c= mw=m","served":"yes","local":"1","checks":"true,3, 4,2"}`
	if got := res.lines(t); len(got) != 1 || got[0] != want {
		t.Errorf("items = %v, want %s\n%s", got, want, res.log)
	}
}

// TestMiddlewareOrder: a JS downloader middleware's order property places it among the
// built-ins (after RetryMiddleware's 550 it sees every retry), DOWNLOADER_MIDDLEWARES and
// SPIDER_MIDDLEWARES disable built-ins by name.
func TestMiddlewareOrder(t *testing.T) {
	t.Parallel()
	site := newServer(t)
	src := `import { Request } from "jscrawl";
const seen = { outer: 0, inner: 0 };
export default class S {
  name = "order";
  allowedDomains = ["example.invalid"];
  start() { return [new Request(this.site + "/status/500", { errback: "failed" })]; }
  parse(r) {}
  failed(f) { return { status: f.response ? f.response.status : 0 }; }
  closed() { this.crawler.stats.set("outer", seen.outer); this.crawler.stats.set("inner", seen.inner); }
}
export const downloaderMiddlewares = [
  { processRequest() { seen.outer++; } },                 // 543: before retries
  { order: 560, processRequest() { seen.inner++; } },     // after RetryMiddleware: every attempt
];
`
	for _, tc := range []struct {
		name         string
		settings     map[string]string
		outer, inner int64
		items        int
	}{
		// The site is not in allowedDomains, but start requests pass offsite... only when
		// OffsiteMiddleware is disabled; with it, nothing is downloaded.
		{"offsite on", map[string]string{}, 0, 0, 0},
		{"offsite off, retries", map[string]string{"SPIDER_MIDDLEWARES": `{"OffsiteMiddleware": null}`}, 1, 3, 1},
		{"offsite off, retry off", map[string]string{"SPIDER_MIDDLEWARES": `{"OffsiteMiddleware": null}`,
			"DOWNLOADER_MIDDLEWARES": `{"RetryMiddleware": null}`}, 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := crawl(t, newServer(t), spec{src: src, args: map[string]string{"site": site.URL}, settings: tc.settings})
			if o, i := res.stat("outer"), res.stat("inner"); o != tc.outer || i != tc.inner {
				t.Errorf("processRequest calls: outer %d inner %d, want %d and %d\n%s", o, i, tc.outer, tc.inner, res.log)
			}
			if len(res.items) != tc.items {
				t.Errorf("items = %v, want %d", res.lines(t), tc.items)
			}
		})
	}
}

// TestThrowingMiddlewares: a middleware that throws is logged with its JS stack and counted,
// the request goes to its errback, and the crawl goes on.
func TestThrowingMiddlewares(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "throwing";
  start() {
    return [
      new Request("BASE/p/1", { meta: { boom: "request" }, errback: "failed" }),
      new Request("BASE/p/2", { meta: { boom: "output" }, errback: "failed" }),
      new Request("BASE/p/3"),
      new Request("BASE/p/4", { meta: { boom: "response" }, errback: "failed" }),
      new Request("http://127.0.0.1:1/refused", { meta: { boom: "exception" }, errback: "failed" }),
    ];
  }
  parse(r) { return { page: r.url.slice(-4) }; }
  failed(f) { return { failed: f.request.meta.boom, error: f.error.name, message: f.error.message }; }
}
export const downloaderMiddlewares = [{
  async processRequest(request) { if (request.meta.boom === "request") throw new RangeError("mw request broke"); },
  processResponse(request, response) {
    if (request.meta.boom === "response") throw new TypeError("mw response broke");
    return response;
  },
  processException(request, error) { if (request.meta.boom === "exception") throw new EvalError("mw exception broke"); },
}];
export const spiderMiddlewares = [{
  async *processSpiderOutput(response, result) {
    for await (const x of result) {
      if (response && response.meta.boom === "output" && x.page) throw new SyntaxError("mw output broke");
      yield x;
    }
  },
}];
`})
	got := res.lines(t)
	sort.Strings(got)
	want := []string{
		`{"failed":"exception","error":"EvalError","message":"mw exception broke"}`,
		`{"failed":"output","error":"SyntaxError","message":"mw output broke"}`,
		`{"failed":"request","error":"RangeError","message":"mw request broke"}`,
		`{"failed":"response","error":"TypeError","message":"mw response broke"}`,
		`{"page":"/p/3"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items =\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), res.log)
	}
	for _, w := range []string{"RangeError: mw request broke", "TypeError: mw response broke", "EvalError: mw exception broke", "SyntaxError: mw output broke", "spider.ts:"} {
		if !strings.Contains(res.log, w) {
			t.Errorf("the log lacks %q (errors are logged with their JS stack)", w)
		}
	}
	if n := res.stat("spider_exceptions/SyntaxError"); n != 1 {
		t.Errorf("spider_exceptions/SyntaxError = %d, want 1", n)
	}
}

// TestThrowingProcessStart: an error in processStart is logged and counted; what it yielded
// before is crawled.
func TestThrowingProcessStart(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "startboom";
  start() { return [new Request("BASE/p/1"), new Request("BASE/p/2")]; }
  parse(r) { return { page: r.url.slice(-4) }; }
}
export const spiderMiddlewares = [{
  async *processStart(start) {
    for await (const r of start) { yield r; throw new URIError("start mw broke"); }
  },
}];
`})
	if got := res.lines(t); len(got) != 1 || got[0] != `{"page":"/p/1"}` {
		t.Errorf("items = %v, want the one request yielded before the error", got)
	}
	if n := res.stat("spider_exceptions/URIError"); n != 1 || !strings.Contains(res.log, "URIError: start mw broke") {
		t.Errorf("spider_exceptions/URIError = %d; log:\n%s", n, res.log)
	}
}

// TestSpiderMiddlewareAmongBuiltins: a JS spider middleware's order places it among the
// built-in output filters (DepthMiddleware 900, RefererMiddleware 700, OffsiteMiddleware
// 500): at the default 543 it sees requests with their depth and Referer set and never
// sees those DEPTH_LIMIT dropped, but still sees offsite ones; at 950 it sees them raw;
// SPIDER_MIDDLEWARES moves a built-in to the other side.
func TestSpiderMiddlewareAmongBuiltins(t *testing.T) {
	t.Parallel()
	src := `import { Request } from "jscrawl";
export default class S {
  name = "among";
  allowedDomains = ["127.0.0.1"];
  start() { return [new Request("BASE/p/1")]; }
  *parse(r) {
    yield { page: new URL(r.url).pathname };
    if (r.url.endsWith("/p/1")) {
      yield new Request("BASE/p/2");
      yield new Request("http://offsite.invalid/x");
    } else {
      yield new Request("BASE/p/3");
    }
  }
}
export const spiderMiddlewares = [{
  order: ORDER,
  async *processSpiderOutput(response, result, spider) {
    for await (const x of result) {
      if (x instanceof Request) {
        const d = x.meta.depth === undefined ? "u" : x.meta.depth;
        const where = x.url.includes("offsite") ? "offsite" : new URL(x.url).pathname;
        spider.crawler.stats.inc("seen" + where + "|" + d + "|" + (x.headers.get("Referer") ? "y" : "n"));
      }
      yield x;
    }
  },
}];
`
	for _, tc := range []struct {
		name     string
		order    string
		settings map[string]string
		seen     []string
		unseen   []string
	}{
		{"default order 543", "543", nil,
			[]string{"seen/p/2|1|y", "seenoffsite|1|y"}, []string{"seen/p/3|2|y", "seen/p/3|u|n"}},
		{"order 950: before every built-in", "950", nil,
			[]string{"seen/p/2|u|n", "seenoffsite|u|n", "seen/p/3|u|n"}, nil},
		{"DepthMiddleware moved to 100", "543", map[string]string{"SPIDER_MIDDLEWARES": `{"DepthMiddleware": 100}`},
			[]string{"seen/p/2|0|y", "seen/p/3|0|y"}, []string{"seen/p/2|1|y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings := map[string]string{"DEPTH_LIMIT": "1"}
			for k, v := range tc.settings {
				settings[k] = v
			}
			res := crawl(t, newServer(t), spec{src: strings.Replace(src, "ORDER", tc.order, 1), settings: settings})
			for _, k := range tc.seen {
				if res.stat(k) != 1 {
					t.Errorf("middleware did not see %q once; stats %v\n%s", k, res.stats, res.log)
				}
			}
			for _, k := range tc.unseen {
				if res.stat(k) != 0 {
					t.Errorf("middleware saw %q", k)
				}
			}
			if got := res.lines(t); len(got) != 2 {
				t.Errorf("items = %v, want /p/1 and /p/2 (depth limit 1, offsite filtered)", got)
			}
			if res.stat("offsite/filtered") != 1 {
				t.Errorf("offsite/filtered = %v, want 1", res.stats["offsite/filtered"])
			}
		})
	}
}

// TestMiddlewareSharesRequest: every hook of one download gets the same Request object, as
// Scrapy's middlewares get one request: what processRequest set on it (even a property that
// is not sent) is there in processResponse of another middleware.
func TestMiddlewareSharesRequest(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "shared";
  startUrls = ["BASE/p/1", "BASE/p/2"];
  parse(r) { return { url: r.url, seen: r.meta.seen || null }; }
}
const seen = new Map();
export const downloaderMiddlewares = [
  { processResponse(request, response) { return response.replace({ request: request.replace({ meta: { seen: seen.get(request.url) === request } }) }); } },
  { processRequest(request) { seen.set(request.url, request); } },
];
`})
	got := res.lines(t)
	if len(got) != 2 {
		t.Fatalf("items = %v\n%s", got, res.log)
	}
	for _, l := range got {
		if !strings.Contains(l, `"seen":true`) {
			t.Errorf("processResponse got another Request than processRequest: %s", l)
		}
	}
}

// TestOutputFiltersRunOnce: with a JS spider middleware among the built-in output filters,
// every request passes each built-in exactly once, wherever it comes from: start() (which
// processSpiderOutput does not see), a callback (the built-ins spider side of the middleware
// run between the JS stages, the rest in the engine) and crawler.engine.crawl.
func TestOutputFiltersRunOnce(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
const long = (p) => "BASE/" + p + "/" + "x".repeat(200);
export default class S {
  name = "once";
  start() { return [new Request("BASE/p/1"), new Request(long("start"))]; }
  *parse(r) {
    yield { page: new URL(r.url).pathname };
    this.crawler.engine.crawl(new Request(long("crawl")));
    yield new Request(long("callback"));
  }
}
export const spiderMiddlewares = [{
  async *processSpiderOutput(response, result, spider) {
    for await (const x of result) {
      if (x instanceof Request) spider.crawler.stats.inc("mw/seen");
      yield x;
    }
  },
}];
`, settings: map[string]string{"URLLENGTH_LIMIT": "100"}})
	if n := res.stat("urllength/request_ignored_count"); n != 3 {
		t.Errorf("urllength/request_ignored_count = %d, want 3 (start, crawl and callback requests, once each)\n%s", n, res.log)
	}
	if n := res.stat("mw/seen"); n != 0 {
		t.Errorf("the middleware saw %d requests, want 0 (UrlLengthMiddleware at 800 drops the callback's before it)", n)
	}
	if got := res.lines(t); len(got) != 1 {
		t.Errorf("items = %v, want /p/1 only", got)
	}
}

// TestDownloaderMiddlewareAboveCache: a JS downloader middleware above HttpCacheMiddleware
// (900) sees only what the cache does not serve, even when another JS middleware sits far
// below it (they are not one group at the lower one's place).
func TestDownloaderMiddlewareAboveCache(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
const seen = { retries: 0, wire: 0 };
export default class S {
  name = "cached";
  start() { return [new Request("BASE/p/1")]; }
  *parse(r) {
    yield { page: new URL(r.url).pathname, cached: r.flags.includes("cached") };
    if (!r.meta.again) yield new Request("BASE/p/1", { dontFilter: true, meta: { again: true } });
  }
  closed() { this.crawler.stats.set("retries", seen.retries); this.crawler.stats.set("wire", seen.wire); }
}
export const downloaderMiddlewares = [
  { order: 560, processRequest() { seen.retries++; } },
  { order: 950, processRequest() { seen.wire++; } },
];
`, settings: map[string]string{"HTTPCACHE_ENABLED": "true", "HTTPCACHE_DIR": t.TempDir(), "CONCURRENT_REQUESTS": "1"}})
	if got := res.lines(t); len(got) != 2 || !strings.Contains(got[1], `"cached":true`) {
		t.Fatalf("items = %v, want /p/1 twice, the second from the cache\n%s", got, res.log)
	}
	if r, w := res.stat("retries"), res.stat("wire"); r != 2 || w != 1 {
		t.Errorf("processRequest calls: at 560 %d, at 950 %d; want 2 and 1", r, w)
	}
}

// TestMiddlewareOrderProperty: a JS middleware's order is its `order` property when that is
// a number (negative and fractional ones too), else 543; only spider middlewares with an
// output hook take part in the output chain.
func TestMiddlewareOrderProperty(t *testing.T) {
	t.Parallel()
	var dl, out []int
	crawl(t, newServer(t), spec{src: `export default class S { name = "orders"; parse() {} }
class Late { order = 950; processRequest() {} }
export const downloaderMiddlewares = [{}, { order: 100 }, { order: "600" }, { order: -5.5 }, Late];
export const spiderMiddlewares = [
  { order: 10, processStart(s) { return s; } },
  { order: 700, processSpiderOutput(r, result) { return result; } },
  { processSpiderException() {} },
];
`, loaded: func(s *jsapi.Spider) { dl, out = s.MiddlewareOrders() }})
	if got, want := fmt.Sprint(dl, out), "[543 100 543 -5 950] [700 543]"; got != want {
		t.Errorf("MiddlewareOrders = %s, want %s", got, want)
	}
}
