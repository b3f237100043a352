package jsapi_test

import (
	"strings"
	"testing"
)

func TestSignalsFromJS(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "signals";
  startUrls = ["BASE/p/1"];
  idled = false;
  constructor() {
    // Connected in the constructor: handlers reach the engine once the crawl is bound.
    this.log = [];
  }
  async opened() { await null; this.crawler.stats.set("opened", true); }
  async closed(reason) { await null; this.crawler.stats.set("closed_reason", reason); }
  start() {
    const s = this.crawler.signals;
    s.connect("item_scraped", async (ev) => { await null; this.crawler.stats.inc("seen_items"); this.log.push(ev.item.url); });
    s.connect("response_received", (ev) => { this.crawler.stats.inc("seen_status_" + ev.response.status); });
    s.connect("request_dropped", (ev) => { this.crawler.stats.set("dropped_url", ev.request.url); });
    s.connect("spider_idle", () => {
      // A spider_idle handler that schedules work keeps the spider alive (DontCloseSpider).
      if (!this.idled) { this.idled = true; this.crawler.engine.crawl(new Request("BASE/p/2")); }
    });
    s.connect("spider_closed", (ev) => { this.crawler.stats.set("closed_items", this.log.length + ":" + ev.reason); });
    let bad = "";
    try { s.connect("no_such_signal", () => {}); } catch (e) { bad = e.name + ": " + e.message; }
    this.crawler.stats.set("bad_signal", bad);
    return [new Request("BASE/p/1"), new Request("BASE/p/1")];
  }
  parse(r) { return { url: r.url }; }
}
`})
	checks := map[string]any{
		"opened":                  true,
		"closed_reason":           "finished",
		"seen_items":              int64(2),
		"seen_status_200":         int64(2),
		"closed_items":            "2:finished",
		"response_received_count": int64(2),
	}
	for k, want := range checks {
		if got := res.stats[k]; got != want {
			t.Errorf("stats[%q] = %#v, want %#v\n%s", k, got, want, res.log)
		}
	}
	if u, _ := res.stats["dropped_url"].(string); !strings.HasSuffix(u, "/p/1") {
		t.Errorf("request_dropped handler did not see the duplicate: %v", res.stats["dropped_url"])
	}
	if b, _ := res.stats["bad_signal"].(string); !strings.Contains(b, `TypeError: unknown signal "no_such_signal"`) || !strings.Contains(b, "item_scraped") {
		t.Errorf("unknown signal error = %q", b)
	}
}

func TestCloseSpiderFromJS(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "closer";
  *start() { for (let i = 0; i < 50; i++) yield new Request("BASE/p/" + i); }
  seen = 0;
  parse(r) {
    if (++this.seen === 3) this.crawler.engine.closeSpider("enough");
    return { url: r.url };
  }
}
`, settings: map[string]string{"CONCURRENT_REQUESTS": "1"}})
	if got := res.stats["finish_reason"]; got != "enough" {
		t.Errorf("finish_reason = %v, want enough", got)
	}
	if n := res.stat("response_received_count"); n < 3 || n > 5 {
		t.Errorf("closeSpider after the 3rd response: %d responses, want 3 (+ the ones in flight)", n)
	}
}

func TestFailingSignalHandlerIsLogged(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `export default class S {
  name = "failing";
  start() {
    this.crawler.signals.connect("item_scraped", async () => { await null; throw new RangeError("handler broke"); });
    return [new Request("BASE/p/1")];
  }
  parse(r) { return { url: r.url }; }
}
`})
	if len(res.items) != 1 {
		t.Errorf("items = %d, want 1 (a failing handler does not drop the item)", len(res.items))
	}
	if !strings.Contains(res.log, "Error caught on signal handler: item_scraped") || !strings.Contains(res.log, "RangeError: handler broke") {
		t.Errorf("the handler's error is not logged with its name:\n%s", res.log)
	}
}

// TestSetup: setup(crawler) runs after the -a arguments are set and before spider_opened,
// and may be async; handlers it connects see every signal.
func TestSetup(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{args: map[string]string{"arg": "x"}, src: `export default class S {
  name = "setup";
  startUrls = ["BASE/p/1"];
  arg = "default";
  async setup(crawler) {
    await null;
    this.tag = this.arg + "!";
    crawler.signals.connect("spider_opened", () => crawler.stats.set("opened_after_setup", this.tag));
  }
  parse(r) { return { url: r.url }; }
}
`})
	if got := res.stats["opened_after_setup"]; got != "x!" {
		t.Errorf("opened_after_setup = %v, want x!\n%s", got, res.log)
	}
}

// TestAsyncSignalHandlerDoesNotStallTheEngine: request_scheduled is sent on the engine
// goroutine, where Scrapy allows no deferred handler: an async handler that sleeps is not
// awaited, so every page is crawled while each handler still sleeps (the old code awaited
// each handler before scheduling the next request).
func TestAsyncSignalHandlerDoesNotStallTheEngine(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `import { Request, sleep } from "jscrawl";
export default class S {
  name = "sleepy";
  events = [];
  setup(crawler) {
    crawler.signals.connect("request_scheduled", async () => {
      this.events.push("scheduled");
      await sleep(1000);
      this.events.push("woke");
    });
  }
  start() { return [1, 2, 3, 4, 5].map((i) => new Request("BASE/p/" + i)); }
  parse(r) { this.events.push("parsed"); return { url: r.url }; }
  closed() { this.crawler.stats.set("events", this.events.join(",")); }
}
`, settings: map[string]string{"JS_VMS": "1"}})
	events, _ := res.stats["events"].(string)
	if strings.Count(events, "scheduled") != 5 || strings.Count(events, "parsed") != 5 || strings.Contains(events, "woke") {
		t.Errorf("events at spider_closed = %q, want 5 scheduled and 5 parsed while every handler still sleeps\n%s", events, res.log)
	}
	if len(res.items) != 5 {
		t.Errorf("items = %d, want 5", len(res.items))
	}
}

// TestRejectedNonDeferrableHandlerIsLogged: a request_scheduled handler is not awaited, but
// the error its promise rejects with is still logged with its JS stack, and a handler that
// throws synchronously too.
func TestRejectedNonDeferrableHandlerIsLogged(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `export default class S {
  name = "late";
  setup(crawler) {
    crawler.signals.connect("request_scheduled", async () => { await null; throw new RangeError("late broke"); });
    crawler.signals.connect("response_received", () => { throw new EvalError("sync broke"); });
  }
  startUrls = ["BASE/p/1"];
  parse(r) { return { url: r.url }; }
}
`})
	if len(res.items) != 1 {
		t.Errorf("items = %d, want 1", len(res.items))
	}
	for _, w := range []string{"Error caught on signal handler: request_scheduled", "RangeError: late broke",
		"Error caught on signal handler: response_received", "EvalError: sync broke", "spider.ts:"} {
		if !strings.Contains(res.log, w) {
			t.Errorf("the log lacks %q:\n%s", w, res.log)
		}
	}
}

// TestSignalsAndLoggerObjects pins what JS sees of this.crawler.signals and this.logger,
// Go-backed plain objects: their own enumerable functions (in the order the JS objects
// had), detached methods that still work, the errors of connect, and disconnect removing
// the first connection of a handler only. (The logger functions are named since they
// moved to Go; the JS ones were anonymous.)
func TestSignalsAndLoggerObjects(t *testing.T) {
	t.Parallel()
	res := crawl(t, newServer(t), spec{src: `
export default class S {
  name = "shapes";
  startUrls = ["BASE/p/1"];
  start() {
    const s = this.crawler.signals, st = this.crawler.stats;
    const err = (f) => { try { f(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
    const { connect, disconnect } = s;
    const count = () => st.inc("scraped");
    connect("item_scraped", count);
    connect("item_scraped", count);
    disconnect("item_scraped", count);
    disconnect("item_scraped", () => {});
    disconnect("no_such_signal", count);
    const twice = () => st.inc("never");
    s.connect("item_scraped", twice);
    s.disconnect("item_scraped", twice);
    st.set("shape", JSON.stringify([Object.keys(s), Object.keys(this.logger), this.logger.name,
      typeof this.logger.warning, s.connect.name, this.logger.info.name]));
    st.set("no_handler", err(() => s.connect("item_scraped")));
    st.set("bad_name", err(() => s.connect(42, () => {})).slice(0, 35));
    this.logger.warning("warned", { a: 1 });
    return [new Request("BASE/p/1")];
  }
  parse(r) { return { url: r.url }; }
}
`})
	for k, want := range map[string]any{
		"shape":      `[["connect","disconnect"],["debug","info","warn","warning","error","name"],"shapes","function","connect","info"]`,
		"no_handler": "TypeError: signals.connect(name, handler): the handler must be a function",
		"bad_name":   `TypeError: unknown signal "42": use`,
		"scraped":    int64(1),
		"never":      nil,
	} {
		if got := res.stats[k]; got != want {
			t.Errorf("stats[%q] = %#v, want %#v", k, got, want)
		}
	}
	if !strings.Contains(res.log, `[shapes] WARNING: warned { a: 1 }`) && !strings.Contains(res.log, `[shapes] WARNING: warned {"a":1}`) {
		t.Errorf("no warning in the log:\n%s", res.log)
	}
}
