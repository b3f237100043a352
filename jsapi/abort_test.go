package jsapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestAbortSignalCancelsDownload: aborting a fetch or a crawler.download cancels the real
// download: the server holding the response open sees the connection go away.
func TestAbortSignalCancelsDownload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, call, want string
	}{
		// Each aborts once the held download has reached the server (this.arrived answers
		// then), so a busy machine cannot abort it before it was sent.
		{"AbortController on fetch", `const c = new AbortController();
      const p = fetch(this.hold, { signal: c.signal });
      await fetch(this.arrived); c.abort();
      await p;`, `{"name":"AbortError","aborted":true}`},
		{"AbortSignal.timeout on crawler.download", `const p = this.crawler.download(new Request(this.hold), { signal: AbortSignal.timeout(1500) });
      await fetch(this.arrived);
      await p;`, `{"name":"TimeoutError","aborted":true}`},
		{"AbortSignal.any with a custom reason", `const c = new AbortController();
      const p = fetch(this.hold, { signal: AbortSignal.any([c.signal, AbortSignal.timeout(60000)]) });
      await fetch(this.arrived); c.abort(new RangeError("enough"));
      await p;`, `{"name":"RangeError","aborted":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gone, in := make(chan struct{}), make(chan struct{})
			arrived := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-in:
				case <-time.After(10 * time.Second):
				}
			}))
			defer arrived.Close()
			hold := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(in)
				select {
				case <-r.Context().Done():
					close(gone)
				case <-time.After(30 * time.Second):
				}
			}))
			defer hold.Close()
			res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "abort";
  startUrls = ["BASE/p/1"];
  async parse(r) {
    try {
      ` + tc.call + `
      return { name: "not aborted" };
    } catch (e) {
      return { name: e.name, aborted: true };
    }
  }
}
`, args: map[string]string{"hold": hold.URL, "arrived": arrived.URL}, settings: map[string]string{"RETRY_ENABLED": "false"}})
			select {
			case <-gone:
			case <-time.After(10 * time.Second):
				t.Fatal("the server never saw the aborted download's connection close")
			}
			if got := res.lines(t); len(got) != 1 || got[0] != tc.want {
				t.Errorf("items = %v, want [%s]\n%s", got, tc.want, res.log)
			}
		})
	}
}

// TestTimersAndMicrotasks: setTimeout, setImmediate, queueMicrotask and sleep run on the VM's
// loop in the expected order, and an already-aborted signal rejects at once.
func TestTimersAndMicrotasks(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request, sleep } from "jscrawl";
export default class S {
  name = "timers";
  startUrls = ["BASE/p/1"];
  async parse(r) {
    const order = [];
    await new Promise((done) => {
      setTimeout(() => { order.push("timeout"); done(); }, 5);
      setImmediate(() => order.push("immediate"));
      queueMicrotask(() => order.push("microtask"));
      order.push("sync");
    });
    await sleep(1);
    setInterval(() => {}, 1000);                     // never cleared, never awaited: must not keep the crawl open
    setTimeout(() => {}, 60000);
    const settled = await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error("x"))]);
    const any = await Promise.any([Promise.reject(new Error("a")), Promise.resolve("b")]);
    const race = await Promise.race([sleep(50).then(() => "slow"), Promise.resolve("fast")]);
    order.push(settled.map((s) => s.status).join("/"), any, race);
    let early = "";
    try { await fetch(r.url, { signal: AbortSignal.abort() }); } catch (e) { early = e.name; }
    return { order: order.join(","), early };
  }
}
`})
	if got := res.lines(t); len(got) != 1 || got[0] != `{"order":"sync,microtask,immediate,timeout,fulfilled/rejected,b,fast","early":"AbortError"}` {
		t.Errorf("items = %v\n%s", got, res.log)
	}
}

// TestFailingCallbackCancelsItsDownloads: when a callback fails, the inline downloads it
// started and still awaits are cancelled (structured concurrency): the server holding the
// response open sees the connection go away, and the crawl goes on. The sibling that fails
// waits (server side) until the held request has arrived.
func TestFailingCallbackCancelsItsDownloads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, ext, parse string }{
		{"async generator", "", `async *parse(r) {
    const held = fetch(this.base + "/hold");
    await Promise.all([held, fetch(this.base + "/gate").then(() => { throw new RangeError("sibling failed"); })]);
    yield { unreachable: true };
  }`},
		{"async function, fetch after an await, in a helper", "", `async parse(r) {
    await null;
    await this.both();
  }
  async both() {
    await null;
    const held = fetch(this.base + "/hold");
    await Promise.all([held, fetch(this.base + "/gate").then(() => { throw new RangeError("sibling failed"); })]);
  }`},
		{"async function, fetch before the first await", "", `async parse(r) {
    const held = fetch(this.base + "/hold");
    await null;
    await Promise.all([held, fetch(this.base + "/gate").then(() => { throw new RangeError("sibling failed"); })]);
  }`},
		// A base spider calls the user's method from its own callback (CrawlSpider's _parse
		// calls parseStartUrl): the downloads it starts are still the callback's.
		{"CrawlSpider processResults, after the callback settled", " extends CrawlSpider", `rules = [];
  async parseStartUrl(r) { await null; return []; }
  async processResults(r, results) {
    await null;
    const held = fetch(this.base + "/hold");
    await Promise.all([held, fetch(this.base + "/gate").then(() => { throw new RangeError("sibling failed"); })]);
    return results;
  }`},
		{"CrawlSpider parseStartUrl", " extends CrawlSpider", `rules = [];
  async parseStartUrl(r) {
    await null;
    const held = fetch(this.base + "/hold");
    await Promise.all([held, fetch(this.base + "/gate").then(() => { throw new RangeError("sibling failed"); })]);
  }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			arrived, gone := make(chan struct{}), make(chan struct{})
			mux := http.NewServeMux()
			mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
				close(arrived)
				select {
				case <-r.Context().Done():
					close(gone)
				case <-time.After(30 * time.Second):
				}
			})
			mux.HandleFunc("/gate", func(w http.ResponseWriter, r *http.Request) {
				<-arrived
			})
			// Answers once the held download is gone, or "still held" after 5 s: the crawl
			// (and its context) is still running meanwhile, so only the scope can cancel it.
			mux.HandleFunc("/watch", func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-gone:
					fmt.Fprint(w, "cancelled")
				case <-time.After(5 * time.Second):
					fmt.Fprint(w, "still held")
				}
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			res := crawl(t, newServer(t), spec{src: `import { Request, CrawlSpider } from "jscrawl";
export default class S` + tc.ext + ` {
  name = "scoped";
  *start() {
    yield new Request("BASE/p/1");
    yield new Request(this.base + "/watch", { callback: this.watch });
  }
  async watch(r) { return { held: await r.text() }; }
  ` + tc.parse + `
}
`, args: map[string]string{"base": srv.URL}, settings: map[string]string{"RETRY_ENABLED": "false"}})
			if got := res.lines(t); len(got) != 1 || got[0] != `{"held":"cancelled"}` {
				t.Errorf("items = %v, want the held download cancelled while the crawl ran\n%s", got, res.log)
			}
			if n := res.stat("spider_exceptions/RangeError"); n != 1 {
				t.Errorf("spider_exceptions/RangeError = %d, want 1\n%s", n, res.log)
			}
		})
	}
}
