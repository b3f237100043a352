// End-to-end tests of the JS API: each test writes a spider, bundles it with the runtime,
// loads it with Load and crawls a local test server with the real engine.
package jsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// page is the HTML most routes of the test server answer with.
const page = `<!DOCTYPE html>
<html><head><title>Fixture</title></head><body>
<h1 class="t">Hello <b>world</b></h1>
<ul id="list">
<li class="a" data-x="1"><a href="/p/1">One</a></li>
<li class="a" data-x="2"><a href="/p/2">Two</a></li>
<li class="b"><a href="p/3">Three</a></li>
</ul>
</body></html>`

// server is the local site every test crawls: enginetest's routes (/status/{code},
// /redirect/{n}, /delay, /echo, ...) and
//
//	/            page
//	/p/{n}       <h1>Page n</h1>
//	/json        {"x":1,"list":[1,2]} with the header X-Test: yes
//	/text        a text/plain body
//	/together    waits until a second /together request arrives (or 10 s), then answers
//	             "overlap" (or "alone"): two downloads ran at the same time
type server struct {
	*httptest.Server

	mu       sync.Mutex
	together int
	met      chan struct{}
}

func newServer(t *testing.T) *server {
	t.Helper()
	s := &server{met: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><h1>Page %s</h1></body></html>", r.PathValue("n"))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Test", "yes")
		fmt.Fprint(w, `{"x":1,"list":[1,2]}`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "plain body ✓")
	})
	mux.HandleFunc("/together", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.together++
		if s.together == 2 {
			close(s.met)
		}
		s.mu.Unlock()
		t := time.NewTimer(10 * time.Second)
		defer t.Stop()
		select {
		case <-s.met:
			fmt.Fprint(w, "overlap")
		case <-t.C:
			fmt.Fprint(w, "alone")
		case <-r.Context().Done():
		}
	})
	s.Server = enginetest.StartWith(t, mux).Server
	return s
}

// closedURL returns a loopback URL on which nothing listens.
func closedURL(t *testing.T) string { return "http://" + enginetest.ClosedAddr(t) + "/gone" }

// collector is an engine.Exporter that keeps the items.
type collector struct {
	mu    sync.Mutex
	items []types.Item
}

func (c *collector) Export(item types.Item) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = append(c.items, item)
	return nil
}

func (c *collector) Close() error { return nil }

// spec is one crawl: the spider source (BASE is replaced by the server's URL and CLOSED by
// a URL nobody listens on), spider arguments and settings.
type spec struct {
	src      string
	ext      string // ".ts" unless set
	args     map[string]string
	settings map[string]string
	// loaded, when set, is called with the spider after Load, before Bind.
	loaded func(*jsapi.Spider)
	// bound, when set, is called with the spider and engine before the crawl runs.
	bound func(*jsapi.Spider, *engine.Engine)
}

// result is what a crawl produced.
type result struct {
	items []types.Item
	stats map[string]any
	log   string
	file  string // the spider file's path
}

// lines returns every item as one JSON line, in export order.
func (r result) lines(t *testing.T) []string {
	t.Helper()
	out := make([]string, len(r.items))
	for i, it := range r.items {
		b, err := it.JSON()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// sorted returns lines sorted (for crawls whose order is not fixed).
func (r result) sorted(t *testing.T) []string {
	t.Helper()
	l := r.lines(t)
	slices.Sort(l)
	return l
}

// onlyItem returns the crawl's one item, decoded from JSON; it fails the test unless there
// is exactly one.
func (r result) onlyItem(t *testing.T) map[string]any {
	t.Helper()
	if len(r.items) != 1 {
		t.Fatalf("got %d items, want 1\n%s", len(r.items), r.log)
	}
	got := map[string]any{}
	b, _ := r.items[0].JSON()
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// stat returns an integer stat (0 when absent).
func (r result) stat(key string) int64 {
	switch v := r.stats[key].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	return 0
}

// writeSpider writes src to a temp dir and returns its path.
func writeSpider(t *testing.T, sp spec, base string) string {
	t.Helper()
	ext := sp.ext
	if ext == "" {
		ext = ".ts"
	}
	path := filepath.Join(t.TempDir(), "spider"+ext)
	src := strings.ReplaceAll(sp.src, "BASE", base)
	if strings.Contains(src, "CLOSED") {
		src = strings.ReplaceAll(src, "CLOSED", closedURL(t))
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// load bundles and loads a spider.
func load(t *testing.T, sp spec, base string, logger *slog.Logger) (*jsapi.Spider, string, error) {
	t.Helper()
	path := writeSpider(t, sp, base)
	prog, err := runtime.Bundle(path, runtime.BundleOptions{External: jsapi.NativeModules})
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	spider, err := jsapi.Load(prog, jsapi.Options{Args: sp.args, Logger: logger})
	return spider, path, err
}

// crawl runs the spider against srv with the real engine and returns what it produced.
func crawl(t *testing.T, srv *server, sp spec) result {
	t.Helper()
	var logBuf enginetest.Buffer
	stats := engine.NewStats()
	logger := slog.New(engine.NewLogHandler(&logBuf, slog.LevelDebug, stats))
	spider, path, err := load(t, sp, srv.URL, logger)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(func() { _ = spider.Close() })
	if sp.loaded != nil {
		sp.loaded(spider)
	}
	settings := types.NewSettings()
	// Tests do not obey robots.txt (a /robots.txt request per origin would skew request
	// counts) and retry after milliseconds, unless the spider or the test says otherwise.
	settings.Set(types.RobotsTxtObey, false, types.PriorityDefault)
	settings.Set(types.RetryBackoffBase, 0.002, types.PriorityDefault)
	for k, v := range spider.CustomSettings() {
		if err := settings.Set(k, v, types.PrioritySpider); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range sp.settings {
		if err := settings.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	col := &collector{}
	opts := []engine.Option{engine.WithPipelines(spider.Pipelines()...),
		engine.WithExporters(col), engine.WithLogger(logger), engine.WithStats(stats)}
	eng := engine.New(spider, settings, opts...)
	if err := spider.Bind(eng); err != nil {
		t.Fatalf("bind: %v", err)
	}
	if sp.bound != nil {
		sp.bound(spider, eng)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := eng.Run(ctx); err != nil {
		t.Fatalf("run: %v\n%s", err, logBuf.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("the crawl did not end in time\n%s", logBuf.String())
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	return result{items: col.items, stats: stats.Snapshot(), log: logBuf.String(), file: path}
}

// lineOf returns the 1-based line of src holding marker.
func lineOf(t *testing.T, src, marker string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("no %q in the source", marker)
	return 0
}

func equalLines(t *testing.T, what string, got, want []string, log string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %s\n want %s\nlog:\n%s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "), log)
	}
}

func TestCallbackShapes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct {
		name      string
		methods   string
		want      []string // items, sorted
		typeErrs  int64
		logSubstr string
	}{
		{name: "async generator", methods: `async *parse(r) { yield { a: 1 }; await sleep(1); yield { a: 2 }; }`,
			want: []string{`{"a":1}`, `{"a":2}`}},
		{name: "generator yielding an array", methods: `*parse(r) { yield { a: 1 }; yield [{ a: 2 }, { a: 3 }]; }`,
			want: []string{`{"a":1}`, `{"a":2}`, `{"a":3}`}},
		{name: "async function returning an array", methods: `async parse(r) { await sleep(1); return [{ a: 1 }, { a: 2 }]; }`,
			want: []string{`{"a":1}`, `{"a":2}`}},
		{name: "async function returning an item", methods: `async parse(r) { return { a: r.status }; }`,
			want: []string{`{"a":200}`}},
		{name: "plain function returning an item", methods: `parse(r) { return { a: "x" }; }`,
			want: []string{`{"a":"x"}`}},
		{name: "plain function returning a Request", methods: `parse(r) {
			if (r.url.endsWith("/")) return new Request(r.urljoin("/p/1"));
			return { url: r.url };
		}`, want: []string{`{"url":"BASE/p/1"}`}},
		{name: "array of requests and items", methods: `parse(r) {
			if (!r.url.endsWith("/")) return { url: r.url };
			return [new Request(r.urljoin("/p/1")), { a: 1 }, new Request(r.urljoin("/p/2"), { callback: "parse" })];
		}`, want: []string{`{"a":1}`, `{"url":"BASE/p/1"}`, `{"url":"BASE/p/2"}`}},
		{name: "plain function returning undefined", methods: `parse(r) {}`},
		{name: "plain function returning null", methods: `parse(r) { return null; }`},
		{name: "async function returning undefined", methods: `async parse(r) { await sleep(1); }`},
		{name: "async function returning null", methods: `async parse(r) { return null; }`},
		{name: "returning a string", methods: `parse(r) { return "oops"; }`, typeErrs: 1, logSubstr: "oops"},
		{name: "yielding a number, then an item", methods: `*parse(r) { yield 42; yield { a: 1 }; }`,
			want: []string{`{"a":1}`}, typeErrs: 1, logSubstr: "42"},
		{name: "yielding a function", methods: `*parse(r) { yield () => 1; yield { a: 1 }; }`,
			want: []string{`{"a":1}`}, typeErrs: 1, logSubstr: "function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "shapes";
  startUrls = ["BASE/"];
  ` + tc.methods + `
}`})
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = strings.ReplaceAll(w, "BASE", srv.URL)
			}
			slices.Sort(want)
			equalLines(t, "items", res.sorted(t), want, res.log)
			if got := res.stat("spider_exceptions/TypeError"); got != tc.typeErrs {
				t.Errorf("spider_exceptions/TypeError = %d, want %d\n%s", got, tc.typeErrs, res.log)
			}
			if got := res.stat("spider_exceptions/count"); got != tc.typeErrs {
				t.Errorf("spider_exceptions/count = %d, want %d", got, tc.typeErrs)
			}
			if tc.logSubstr != "" && (!strings.Contains(res.log, "TypeError") || !strings.Contains(res.log, tc.logSubstr)) {
				t.Errorf("the log does not name the TypeError and %q:\n%s", tc.logSubstr, res.log)
			}
			if got := res.stat("downloader/response_status_count/200"); got < 1 {
				t.Errorf("no page was downloaded\n%s", res.log)
			}
		})
	}
}

// catchSpider runs body in start() and yields { name, message } of what it throws (or
// { ok: true }); body may use BASE.
func catchSpider(body string) string {
	return `import { Request } from "jscrawl";
export default class S {
  name = "catch";
  async *start() {
    try {
      ` + body + `
      yield { ok: true };
    } catch (e) {
      yield { name: e.name, message: e.message, isError: e instanceof Error };
    }
  }
  parse(r) {}
  parseOther(r) {}
}`
}

// checkCaught checks the one item of a crawl with a catching spider (catchSpider's shape):
// { ok: true } when wantName is "", else an Error named wantName whose message holds each
// of contains. It returns the item when an error was wanted, else nil.
func checkCaught(t *testing.T, res result, wantName string, contains []string) map[string]any {
	t.Helper()
	got := res.onlyItem(t)
	if wantName == "" {
		if got["ok"] != true {
			t.Fatalf("threw %v, want no error", got)
		}
		return nil
	}
	if got["name"] != wantName || got["isError"] != true {
		t.Errorf("threw %v, want a %s", got, wantName)
	}
	msg, _ := got["message"].(string)
	for _, c := range contains {
		if !strings.Contains(msg, c) {
			t.Errorf("message %q does not contain %q", msg, c)
		}
	}
	return got
}

func TestRequestErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct {
		name     string
		body     string
		settings map[string]string
		wantName string   // "" means no error
		contains []string // in the message
	}{
		{name: "callback by method", body: `yield new Request("BASE/", { callback: this.parseOther });`},
		{name: "callback by name", body: `yield new Request("BASE/", { callback: "parseOther", errback: "parse" });`},
		{name: "a function that is not a method", body: `new Request("BASE/", { callback: function stray() {} });`,
			wantName: "TypeError", contains: []string{"stray", "not a method"}},
		{name: "an arrow function", body: `new Request("BASE/", { callback: (r) => r });`,
			wantName: "TypeError", contains: []string{"not a method"}},
		{name: "a name that is not a method", body: `new Request("BASE/", { callback: "nope" });`,
			wantName: "TypeError", contains: []string{`"nope"`, "not a method"}},
		{name: "an errback that is not a method", body: `new Request("BASE/", { errback: function bad() {} });`,
			wantName: "TypeError", contains: []string{"errback", "not a method"}},
		{name: "relative URL", body: `new Request("/p/1");`,
			wantName: "TypeError", contains: []string{`"/p/1"`, "response.urljoin"}},
		{name: "relative URL in fetch", body: `await fetch("p/1");`,
			wantName: "TypeError", contains: []string{`"p/1"`, "response.urljoin"}},
		{name: "invalid URL", body: `new Request("http://[::1/x");`,
			wantName: "TypeError", contains: []string{"http://[::1/x", "invalid URL"}},
		{name: "no host", body: `new Request("http:///x");`,
			wantName: "TypeError", contains: []string{"http:///x"}},
		{name: "no URL", body: `new Request();`, wantName: "TypeError", contains: []string{"needs a URL"}},
		{name: "file scheme refused", body: `new Request("file:///etc/passwd");`,
			wantName: "TypeError", contains: []string{"file:///etc/passwd", "scheme", "DOWNLOAD_SCHEMES"}},
		{name: "file scheme refused in fetch", body: `await fetch("file:///etc/passwd");`,
			wantName: "TypeError", contains: []string{"file:///etc/passwd", "DOWNLOAD_SCHEMES"}},
		{name: "ftp scheme refused", body: `new Request("ftp://example.com/x");`,
			wantName: "TypeError", contains: []string{"ftp"}},
		{name: "file scheme enabled by DOWNLOAD_SCHEMES", body: `new Request("file:///tmp/x");`,
			settings: map[string]string{"DOWNLOAD_SCHEMES": "http,https,file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: catchSpider(tc.body), settings: tc.settings})
			checkCaught(t, res, tc.wantName, tc.contains)
		})
	}
}

// TestUncaughtRequestError checks that a TypeError thrown by new Request in start() is
// logged with the original position and counted, and the requests before it still run.
func TestUncaughtRequestError(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	src := `import { Request } from "jscrawl";
export default class S {
  name = "uncaught";
  async *start() {
    yield new Request("BASE/p/1");
    yield new Request("p/2"); // MARK
  }
  parse(r: any) { return { url: r.url }; }
}`
	res := crawl(t, srv, spec{src: src})
	equalLines(t, "items", res.lines(t), []string{fmt.Sprintf(`{"url":"%s/p/1"}`, srv.URL)}, res.log)
	if n := res.stat("spider_exceptions/TypeError"); n != 1 {
		t.Errorf("spider_exceptions/TypeError = %d, want 1\n%s", n, res.log)
	}
	pos := fmt.Sprintf("%s:%d:", filepath.Base(res.file), lineOf(t, src, "MARK"))
	for _, want := range []string{"response.urljoin", pos} {
		if !strings.Contains(res.log, want) {
			t.Errorf("the log does not contain %q:\n%s", want, res.log)
		}
	}
}

func TestCbKwargsAndMeta(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "kwargs";
  *start() {
    yield new Request("BASE/p/1", { callback: this.withKwargs, cbKwargs: { list: "L", n: 2, deep: { b: [1, "x"] } },
      meta: { tag: "T", nested: { z: 1, a: 2 } } });
    yield new Request("BASE/p/2", { callback: "withKwargs" });
  }
  *withKwargs(response, kw) {
    yield { path: new URL(response.url).pathname, kw, tag: response.meta.tag ?? null,
      nested: response.meta.nested ?? null, reqTag: response.request.meta.tag ?? null,
      depth: response.meta.depth, reqCallback: response.request.callback };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"path":"/p/1","kw":{"list":"L","n":2,"deep":{"b":[1,"x"]}},"tag":"T","nested":{"z":1,"a":2},"reqTag":"T","depth":0,"reqCallback":"withKwargs"}`,
		`{"path":"/p/2","kw":{},"tag":null,"nested":null,"reqTag":null,"depth":0,"reqCallback":"withKwargs"}`,
	}, res.log)
}

func TestDefaultStart(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct{ name, src string }{
		{"class", `export default class S {
  name = "defstart";
  startUrls = ["BASE/p/1", "BASE/p/2", "BASE/p/1"];
  parse(r) { return { h1: r.css("h1::text").get() }; }
}`},
		{"plain object", `export default {
  name: "defstart",
  startUrls: ["BASE/p/1", "BASE/p/2"],
  parse(r) { return { h1: r.css("h1::text").get() }; },
};`},
		{"plain JS", `module.exports = { default: {
  name: "defstart",
  startUrls: ["BASE/p/1", "BASE/p/2"],
  parse(r) { return { h1: r.css("h1::text").get() }; },
} };`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ext := ".ts"
			if tc.name == "plain JS" {
				ext = ".js"
			}
			res := crawl(t, srv, spec{src: tc.src, ext: ext})
			// The duplicate start URL is filtered like any other request.
			equalLines(t, "items", res.sorted(t), []string{`{"h1":"Page 1"}`, `{"h1":"Page 2"}`}, res.log)
		})
	}
}

func TestSpiderArgs(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{
		args: map[string]string{"category": "travel", "limit": "3", "extra": "e"},
		src: `import { Request } from "jscrawl";
export default class S {
  name = "args";
  category = "all";
  limit = 10;
  fromCtor: string;
  constructor() { this.fromCtor = this.category; }
  *start() { yield new Request("BASE/p/1"); }
  parse(r) {
    return { category: this.category, limit: this.limit, type: typeof this.limit,
      extra: (this as any).extra, fromCtor: this.fromCtor };
  }
}`})
	equalLines(t, "items", res.lines(t), []string{
		`{"category":"travel","limit":"3","type":"string","extra":"e","fromCtor":"all"}`,
	}, res.log)
}

func TestErrback(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct {
		name, url string
		want      string // the item, with URL for the request's URL
	}{
		{"404", "BASE/status/404", `{"name":"HttpError","namesURL":true,"status":404,"body":"status 404","reqUrl":"@URL@","cb":"parse","kw":"k"}`},
		{"connection refused", "CLOSED", `{"name":"ConnectionRefusedError","namesURL":true,"status":null,"body":null,"reqUrl":"@URL@","cb":"parse","kw":"k"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{settings: map[string]string{"RETRY_TIMES": "0"}, src: `import { Request } from "jscrawl";
export default class S {
  name = "errback";
  *start() {
    yield new Request("` + tc.url + `", { errback: this.failed, cbKwargs: { k: "k" } });
  }
  parse(r) { return { unexpected: r.url }; }
  *failed(failure) {
    const { request, error, response } = failure;
    yield { name: error.name, namesURL: error.message.includes(request.url),
      status: response === null ? null : response.status, body: response && response.body,
      reqUrl: request.url, cb: request.callback || "parse", kw: request.cbKwargs.k };
    yield new Request("BASE/p/9", { callback: this.after });
  }
  after(r) { return { after: r.css("h1::text").get() }; }
}`})
			if len(res.items) != 2 {
				t.Fatalf("got %d items, want 2\n%s", len(res.items), res.log)
			}
			lines := res.lines(t)
			var reqURL string
			var got map[string]any
			_ = json.Unmarshal([]byte(lines[0]), &got)
			reqURL, _ = got["reqUrl"].(string)
			if tc.name == "404" && reqURL != srv.URL+"/status/404" || reqURL == "" {
				t.Errorf("failure.request.url = %q", reqURL)
			}
			want := strings.ReplaceAll(tc.want, "@URL@", reqURL)
			equalLines(t, "items", lines, []string{want, `{"after":"Page 9"}`}, res.log)
		})
	}
}

func TestCallbackException(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	src := `import { Request } from "jscrawl";

interface Item { url: string }

export default class S {
  name = "exc";
  *start() {
    yield new Request("BASE/p/1");
    yield new Request("BASE/p/2", { errback: this.failed });
    yield new Request("BASE/p/3");
  }
  *parse(r): Generator<Item> {
    yield { url: r.url };
    if (r.url.endsWith("/2")) {
      throw new RangeError("boom on " + r.url); // MARK
    }
  }
  failed(f) { return { errback: f.error.name, message: f.error.message, status: f.response.status }; }
}`
	res := crawl(t, srv, spec{src: src})
	equalLines(t, "items", res.sorted(t), []string{
		fmt.Sprintf(`{"errback":"RangeError","message":"boom on %s/p/2","status":200}`, srv.URL),
		fmt.Sprintf(`{"url":"%s/p/1"}`, srv.URL),
		fmt.Sprintf(`{"url":"%s/p/2"}`, srv.URL),
		fmt.Sprintf(`{"url":"%s/p/3"}`, srv.URL),
	}, res.log)
	if n := res.stat("spider_exceptions/RangeError"); n != 1 {
		t.Errorf("spider_exceptions/RangeError = %d, want 1\n%s", n, res.log)
	}
	pos := fmt.Sprintf("%s:%d:", filepath.Base(res.file), lineOf(t, src, "MARK"))
	for _, want := range []string{"RangeError: boom on " + srv.URL + "/p/2", pos} {
		if !strings.Contains(res.log, want) {
			t.Errorf("the log does not contain %q:\n%s", want, res.log)
		}
	}
}

func TestSelectors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `import { Request, Selector, SelectorList } from "jscrawl";
export default class S {
  name = "selectors";
  startUrls = ["BASE/"];
  parse(r) {
    let invalid = null;
    try { r.css("li[data-x"); } catch (e) { invalid = e.name + ": " + e.message; }
    let invalidChained = null;
    try { r.css("ul").css("::bogus(x)"); } catch (e) { invalidChained = e.message; }
    const items = [];
    for (const li of r.css("li")) {
      items.push([li instanceof Selector, li.css("a::text").get(), li.attrib["data-x"] ?? null, li.get().startsWith("<li")]);
    }
    return {
      ownText: r.css("h1::text").get(),
      ownTextAll: r.css("h1::text").getall(),
      allText: r.css("h1")[0].css("*::text").getall(),
      descText: r.css("h1 *::text").getall(),
      hrefs: r.css("li a::attr(href)").getall(),
      firstHref: r.css("li a::attr(href)").get(),
      missing: r.css(".missing::text").get(),
      missingDefault: r.css(".missing::text").get("dflt"),
      missingAll: r.css(".missing").getall(),
      attrib: r.css("li.a").attrib,
      emptyAttrib: r.css(".missing").attrib,
      chained: r.css("ul").css("li.b a::text").get(),
      length: r.css("li").length,
      isList: r.css("li") instanceof SelectorList,
      items,
      invalid,
      invalidChained,
    };
  }
}`})
	got := res.lines(t)
	want := []string{`{"ownText":"Hello ","ownTextAll":["Hello "],"allText":["Hello ","world"],"descText":["Hello ","world"],` +
		`"hrefs":["/p/1","/p/2","p/3"],"firstHref":"/p/1","missing":null,"missingDefault":"dflt","missingAll":[],` +
		`"attrib":{"class":"a","data-x":"1"},"emptyAttrib":{},"chained":"Three","length":3,"isList":true,` +
		`"items":[[true,"One","1",true],[true,"Two","2",true],[true,"Three",null,true]],` +
		`"invalid":"@INVALID@","invalidChained":"@CHAINED@"}`}
	if len(got) == 1 {
		var m map[string]any
		_ = json.Unmarshal([]byte(got[0]), &m)
		inv, _ := m["invalid"].(string)
		if !strings.HasPrefix(inv, "TypeError: ") && !strings.HasPrefix(inv, "SyntaxError: ") || !strings.Contains(inv, "li[data-x") {
			t.Errorf("invalid CSS threw %q, want an error naming the selector", inv)
		}
		ch, _ := m["invalidChained"].(string)
		if !strings.Contains(ch, "::bogus(x)") {
			t.Errorf("invalid chained CSS threw %q, want an error naming the selector", ch)
		}
		want[0] = strings.Replace(strings.Replace(want[0], "@INVALID@", jsonEscape(inv), 1), "@CHAINED@", jsonEscape(ch), 1)
	}
	equalLines(t, "items", got, want, res.log)
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func TestResponseAPI(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "response";
  startUrls = ["BASE/"];
  async *parse(r) {
    const follow = r.follow("p/3", { callback: this.page, cbKwargs: { via: "follow" } });
    const viaSelector = r.follow(r.css("li.b a")[0], { callback: this.page, cbKwargs: { via: "selector" } });
    const all = r.followAll(r.css("li a"), { callback: this.page, cbKwargs: { via: "all" } });
    const hrefs = r.followAll(["/p/1", null, "p/4"], { callback: "page" });
    const req = r.follow(new Request(r.urljoin("/p/5")), { callback: this.page, dontFilter: true });
    yield {
      follow: follow.url, followCb: follow.callback, viaSelector: viaSelector.url,
      all: all.map((q) => q.url), hrefs: hrefs.map((q) => q.url), req: [req.url, req.callback, req.dontFilter],
      urljoin: [r.urljoin("a/b?x=1#f"), r.urljoin("//other.test/x"), r.urljoin("https://abs.test/")],
      status: r.status, url: r.url, reqUrl: r.request.url,
      contentType: r.headers.get("content-type"), missingHeader: r.headers.get("X-None"),
      title: r.body.includes("<title>Fixture</title>"), text: (await r.text()) === r.body,
    };
    yield* all;
    yield new Request(r.urljoin("/json"), { callback: this.api });
    yield new Request(r.urljoin("/text"), { callback: this.api });
  }
  page(r, kw) { return { page: r.url, via: kw.via ?? null }; }
  async api(r) {
    if (r.url.endsWith("/json")) {
      const j = await r.json();
      return { json: j, xTest: r.headers.get("x-test"), has: r.headers.has("X-Test") };
    }
    return { text: await r.text(), body: r.body, ct: r.headers.get("Content-Type") };
  }
}`})
	b := srv.URL
	equalLines(t, "items", res.sorted(t), []string{
		`{"follow":"` + b + `/p/3","followCb":"page","viaSelector":"` + b + `/p/3","all":["` + b + `/p/1","` + b + `/p/2","` + b + `/p/3"],` +
			`"hrefs":["` + b + `/p/1","` + b + `/p/4"],"req":["` + b + `/p/5","page",true],` +
			`"urljoin":["` + b + `/a/b?x=1#f","http://other.test/x","https://abs.test/"],` +
			`"status":200,"url":"` + b + `/","reqUrl":"` + b + `/","contentType":"text/html; charset=utf-8","missingHeader":null,` +
			`"title":true,"text":true}`,
		`{"json":{"x":1,"list":[1,2]},"xTest":"yes","has":true}`,
		`{"page":"` + b + `/p/1","via":"all"}`,
		`{"page":"` + b + `/p/2","via":"all"}`,
		`{"page":"` + b + `/p/3","via":"all"}`,
		`{"text":"plain body ✓","body":"plain body ✓","ct":"text/plain; charset=utf-8"}`,
	}, res.log)
}

func TestInlineDownloads(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"RETRY_TIMES": "0"}, src: `import { Request } from "jscrawl";
export default class S {
  name = "inline";
  startUrls = ["BASE/p/1"];
  async parse(r) {
    const [a, b] = await Promise.all([
      fetch(r.urljoin("/together")),
      this.crawler.download(new Request(r.urljoin("/together"))),
    ]);
    const missing = await fetch(r.urljoin("/status/404"));
    let refused = null;
    try {
      await fetch("CLOSED");
    } catch (e) {
      refused = { isError: e instanceof Error, name: e.name, namesURL: e.message.includes("CLOSED") };
    }
    let notRequest = null;
    try { this.crawler.download("BASE/p/1"); } catch (e) { notRequest = e.name; }
    const j = await fetch(new Request(r.urljoin("/json")));
    return {
      a: await a.text(), b: b.body, aStatus: a.status, bUrl: b.url === r.urljoin("/together"),
      missing: missing.status, missingBody: await missing.text(), refused, notRequest,
      json: (await j.json()).x, sel: (await fetch(r.urljoin("/p/7"))).css("h1::text").get(),
    };
  }
}`})
	equalLines(t, "items", res.lines(t), []string{
		`{"a":"overlap","b":"overlap","aStatus":200,"bUrl":true,"missing":404,"missingBody":"status 404",` +
			`"refused":{"isError":true,"name":"ConnectionRefusedError","namesURL":true},"notRequest":"TypeError","json":1,"sel":"Page 7"}`,
	}, res.log)
	// Inline downloads go through the downloader (counted) but not the scheduler.
	if n := res.stat("scheduler/enqueued"); n != 1 {
		t.Errorf("scheduler/enqueued = %d, want 1", n)
	}
	if n := res.stat("downloader/response_count"); n != 6 {
		t.Errorf("downloader/response_count = %d, want 6 (1 page, 5 inline)\n%s", n, res.log)
	}
}

func TestPipelines(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{src: `import { Request, DropItem as Drop } from "jscrawl";
export default class S {
  name = "pipes";
  startUrls = ["BASE/p/1"];
  *parse(r) { for (let i = 0; i < 5; i++) yield { i }; }
}
class Mark {
  opened: string | null = null;
  seen = 0;
  constructor() { console.log("Mark constructed"); }
  async open(spider) { await sleep(1); this.opened = spider.name; }
  processItem(item, spider) {
    this.seen++;
    item.opened = this.opened;           // undefined return: the mutated item goes on
    item.order = ["mark"];
  }
  async close(spider) { await sleep(1); console.log("Mark closed after " + this.seen + " items of " + spider.name); }
}
export const pipelines = [
  Mark,
  {
    async processItem(item) {
      await sleep(1);
      if (item.i === 1) return null;
      if (item.i === 2) throw new DropItem("two is " + "dropped");
      if (item.i === 3) throw new Drop("three too");
      return { i: item.i, opened: item.opened, order: [...item.order, "replace"], replaced: true };
    },
  },
  { processItem(item) { item.order.push("last"); return item; }, close() { console.log("last closed"); } },
];`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"i":0,"opened":"pipes","order":["mark","replace","last"],"replaced":true}`,
		`{"i":4,"opened":"pipes","order":["mark","replace","last"],"replaced":true}`,
	}, res.log)
	if n := res.stat("item_dropped_count"); n != 3 {
		t.Errorf("item_dropped_count = %d, want 3\n%s", n, res.log)
	}
	if n := res.stat("item_scraped_count"); n != 2 {
		t.Errorf("item_scraped_count = %d, want 2", n)
	}
	for _, want := range []string{"Mark constructed", "Mark closed after 5 items of pipes", "last closed", "two is dropped", "three too"} {
		if !strings.Contains(res.log, want) {
			t.Errorf("the log does not contain %q:\n%s", want, res.log)
		}
	}
	if strings.Count(res.log, "Mark constructed") != 1 {
		t.Errorf("the pipeline class was constructed %d times, want once", strings.Count(res.log, "Mark constructed"))
	}
}

func TestItemKeyOrder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct{ name, pipelines string }{
		{"without pipelines", ""},
		{"through a pipeline", `export const pipelines = [{ processItem(item) { item.added = true; } }];`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `export default class S {
  name = "order";
  startUrls = ["BASE/p/1"];
  parse(r) {
    const it: any = { zeta: 1, alpha: { yes: 1, banana: 2, arr: [{ d: 1, c: 2 }] }, mid: "x", "2": "num" };
    it.beta = null;
    it.skipped = undefined;
    return it;
  }
}
` + tc.pipelines})
			want := `{"2":"num","zeta":1,"alpha":{"yes":1,"banana":2,"arr":[{"d":1,"c":2}]},"mid":"x","beta":null`
			if tc.pipelines != "" {
				want += `,"added":true`
			}
			equalLines(t, "items", res.lines(t), []string{want + "}"}, res.log)
		})
	}
}

func TestLogging(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, vms := range []string{"1", "2"} {
		t.Run("JS_VMS="+vms, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{settings: map[string]string{"JS_VMS": vms}, src: `
console.log("module level");
export default class S {
  name = "logname";
  startUrls = ["BASE/p/1"];
  parse(r) {
    console.log("console log", 42, { a: 1 });
    console.info("console info");
    console.warn("console warn");
    console.error("console error");
    console.debug("console debug");
    this.logger.info("logger info", r.status);
    this.logger.warn("logger warn");
    this.logger.error("logger error");
  }
}`})
			for _, want := range []string{
				"[logname] INFO: console log 42", "[logname] INFO: console info", "[logname] WARNING: console warn",
				"[logname] ERROR: console error", "[logname] DEBUG: console debug", "[logname] INFO: logger info 200",
				"[logname] WARNING: logger warn", "[logname] ERROR: logger error",
			} {
				if !strings.Contains(res.log, want) {
					t.Errorf("the log does not contain %q:\n%s", want, res.log)
				}
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{ext: ".js", src: `const jscrawl = require("jscrawl");
export default class S {
  name = "sandbox";
  startUrls = ["BASE/p/1"];
  parse(r) {
    const out = { jscrawl: typeof jscrawl.Request };
    for (const m of ["fs", "child_process", "os", "net", "http", "./spider.js"]) {
      try { const name = m; require(name); out[m] = "loaded"; } catch (e) { out[m] = "refused"; }
    }
    out.process = typeof process === "undefined" ? "absent" : Object.keys(process.env || {}).length;
    out.globals = ["Deno", "Bun", "XMLHttpRequest", "WebSocket"].filter((g) => typeof globalThis[g] !== "undefined");
    return out;
  }
}`})
	got := res.lines(t)
	if len(got) != 1 {
		t.Fatalf("got %d items\n%s", len(got), res.log)
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(got[0]), &m)
	if m["jscrawl"] != "function" {
		t.Errorf(`require("jscrawl") gave %v`, m["jscrawl"])
	}
	for _, mod := range []string{"fs", "child_process", "os", "net", "http", "./spider.js"} {
		if m[mod] != "refused" {
			t.Errorf("require(%q): %v, want refused", mod, m[mod])
		}
	}
	if p := m["process"]; p != "absent" && p != float64(0) {
		t.Errorf("process.env has %v keys, want none", p)
	}
	if g, _ := m["globals"].([]any); len(g) != 0 {
		t.Errorf("unexpected globals %v", g)
	}
}

func TestJSVMs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vms       string
		instances int
	}{{"1", 1}, {"2", 2}} {
		t.Run("JS_VMS="+tc.vms, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t) // its own /together
			// The two /p/ callbacks each wait for /together, so they run at the same time:
			// with two VMs they run on different spider instances.
			res := crawl(t, srv, spec{settings: map[string]string{"JS_VMS": tc.vms}, src: `import { Request } from "jscrawl";
let moduleCounter = 0;
export default class S {
  name = "vms";
  id = Math.random().toString(36).slice(2);
  calls = 0;
  *start() {
    yield new Request("BASE/p/1");
    yield new Request("BASE/p/2");
  }
  async parse(r) {
    this.calls++;
    moduleCounter++;
    const t = await fetch(r.urljoin("/together"));
    return { page: r.css("h1::text").get(), id: this.id, together: await t.text() };
  }
}`})
			if len(res.items) != 2 {
				t.Fatalf("got %d items, want 2\n%s", len(res.items), res.log)
			}
			ids := map[string]bool{}
			var pages []string
			for _, it := range res.items {
				var m map[string]any
				b, _ := it.JSON()
				_ = json.Unmarshal(b, &m)
				ids[m["id"].(string)] = true
				pages = append(pages, m["page"].(string))
				if m["together"] != "overlap" {
					t.Errorf("the callbacks did not overlap: %v", m)
				}
			}
			slices.Sort(pages)
			equalLines(t, "pages", pages, []string{"Page 1", "Page 2"}, res.log)
			if len(ids) != tc.instances {
				t.Errorf("the callbacks ran on %d spider instances, want %d", len(ids), tc.instances)
			}
		})
	}
}

func TestCallbackTimeout(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"JS_CALLBACK_TIMEOUT": "0.2"}, args: map[string]string{"arg": "a"}, src: `import { Request } from "jscrawl";
export default class S {
  name = "spin";
  arg = "";
  *start() { yield new Request("BASE/p/1", { callback: this.spin, errback: this.recover }); }
  spin(r) { while (true) {} }
  *recover(f) {
    yield { error: f.error.name, message: f.error.message, arg: this.arg };
    yield new Request(f.request.url.replace("/p/1", "/p/2"));
  }
  parse(r) { return { page: r.css("h1::text").get() }; }
}`})
	equalLines(t, "items", res.lines(t), []string{`{"error":"TimeoutError","message":"callback spin exceeded JS_CALLBACK_TIMEOUT (200ms)","arg":"a"}`, `{"page":"Page 2"}`}, res.log)
	if n := res.stat("spider_exceptions/TimeoutError"); n != 1 {
		t.Errorf("spider_exceptions/TimeoutError = %d, want 1\n%s", n, res.log)
	}
	if !strings.Contains(res.log, "JS_CALLBACK_TIMEOUT") {
		t.Errorf("the log does not name JS_CALLBACK_TIMEOUT:\n%s", res.log)
	}
}

func TestUnhandledRejection(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	src := `export default class S {
  name = "rejection";
  startUrls = ["BASE/p/1"];
  parse(r) {
    Promise.reject(new SyntaxError("nobody catches this")); // MARK
    return { ok: true };
  }
}`
	res := crawl(t, srv, spec{src: src})
	equalLines(t, "items", res.lines(t), []string{`{"ok":true}`}, res.log)
	for _, want := range []string{"Uncaught (in promise)", "nobody catches this",
		fmt.Sprintf("%s:%d:", filepath.Base(res.file), lineOf(t, src, "MARK"))} {
		if !strings.Contains(res.log, want) {
			t.Errorf("the log does not contain %q:\n%s", want, res.log)
		}
	}
	if n := res.stat("spider_exceptions/SyntaxError"); n != 1 {
		t.Errorf("spider_exceptions/SyntaxError = %d, want 1", n)
	}
	if n := res.stat("spider_exceptions/count"); n != 1 {
		t.Errorf("spider_exceptions/count = %d, want 1", n)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"no default export", `export const x = 1;`, "no default export"},
		{"no name", `export default class S { parse() {} }`, "no name"},
		{"constructor throws", `export default class S { name = "x"; constructor() { throw new Error("ctor failed"); } }`, "ctor failed"},
		{"pipelines not an array", `export default { name: "x" }; export const pipelines = { processItem() {} };`, "pipelines"},
		{"allowedDomains not a list", `export default { name: "x", allowedDomains: 3 };`, "allowedDomains"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp, _, err := load(t, spec{src: tc.src}, "http://127.0.0.1:1", slog.New(slog.DiscardHandler))
			if err == nil {
				_ = sp.Close()
				t.Fatalf("Load succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestSchedulingFilters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "filters";
  allowedDomains = ["localhost"];
  *start() {
    yield new Request("` + local + `/p/1");
    yield new Request("` + local + `/p/1#fragment");
    yield new Request("` + local + `/p/1", { dontFilter: true, callback: this.again });
  }
  async *parse(r) {
    // An explicit fetch is not offsite-filtered; a scheduled request is.
    const j = await fetch("BASE/json");
    yield { fetched: (await j.json()).x };
    yield new Request("BASE/p/2");
  }
  again(r) { return { again: r.url }; }
}`})
	equalLines(t, "items", res.sorted(t), []string{`{"again":"` + local + `/p/1"}`, `{"fetched":1}`}, res.log)
	for k, want := range map[string]int64{"offsite/filtered": 1, "dupefilter/filtered": 1, "scheduler/enqueued": 2} {
		if got := res.stat(k); got != want {
			t.Errorf("%s = %d, want %d\n%s", k, got, want, res.log)
		}
	}
}

// TestItemValues checks that items holding a Map, a Set or a BigInt (at the top of the
// item or nested), or having a toJSON method, are exported as JSON.stringify would write
// them after the obvious conversion, not as {}.
func TestItemValues(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct{ name, pipelines string }{
		{"without pipelines", ""},
		{"through a pipeline", `export const pipelines = [{ processItem(item) { return item; } }];`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One item at a time: this test is about values, not the order of items.
			res := crawl(t, srv, spec{settings: map[string]string{"CONCURRENT_ITEMS": "1"}, src: `class Price {
  constructor(public amount: number) {}
  toJSON() { return { amount: this.amount, currency: "EUR" }; }
}
export default class S {
  name = "values";
  startUrls = ["BASE/p/1"];
  *parse(r) {
    yield {
      m: new Map<any, any>([["b", 1], ["a", new Set([1, "x"])], [true, 10n]]),
      s: new Set([new Map([["k", "v"]]), 2]),
      big: 12345678901234567890123n,
      nested: { deep: [new Map([["z", null]])], price: new Price(3) },
    };
    yield new Map<string, any>([["title", "from a map"], ["n", 1]]);
    yield { secret: "hidden", toJSON() { return { shown: true }; } };
    yield new Price(7);
  }
}
` + tc.pipelines})
			equalLines(t, "items", res.lines(t), []string{
				`{"m":{"b":1,"a":[1,"x"],"true":"10"},"s":[{"k":"v"},2],"big":"12345678901234567890123","nested":{"deep":[{"z":null}],"price":{"amount":3,"currency":"EUR"}}}`,
				`{"title":"from a map","n":1}`,
				`{"shown":true}`,
				`{"amount":7,"currency":"EUR"}`,
			}, res.log)
		})
	}
}

// TestItemOrderThroughJSPipeline checks that items reach the feeds in the order the callback
// yielded them when an async JS pipeline finishes them in the reverse order: it holds each
// item until all have arrived (CONCURRENT_ITEMS lets them), then releases the last first.
func TestItemOrderThroughJSPipeline(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"CONCURRENT_ITEMS": "10"}, src: `export default class S {
  name = "order";
  startUrls = ["BASE/p/1"];
  *parse(r) {
    for (let i = 0; i < 10; i++) yield { i };
  }
}
const waiting: Array<() => void> = [];
export const pipelines = [{
  processItem(item) {
    return new Promise<any>((resolve) => {
      waiting.push(() => resolve({ ...item, held: true }));
      if (waiting.length === 10) {
        for (const release of waiting.reverse()) release();
      }
    });
  },
}];
`})
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf(`{"i":%d,"held":true}`, i))
	}
	equalLines(t, "items", res.lines(t), want, res.log)
}
