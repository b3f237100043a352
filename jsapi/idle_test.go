package jsapi_test

import (
	"strings"
	"testing"
)

// TestIdleAsyncHandler runs real crawls whose spider_idle handlers are async: a pending
// promise keeps the spider open until it settles (the request it then schedules is
// crawled), a rejection is logged and the spider closes, and DontCloseSpider keeps the
// spider open until spider_idle is sent again.
func TestIdleAsyncHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler string
		items   []string
		log     []string // substrings the log must have
		idles   int64
	}{{
		name: "await-timer-then-crawl",
		handler: `async () => {
      this.crawler.stats.inc("idles");
      if (this.more === 0) return;
      this.more--;
      await sleep(100);
      this.crawler.engine.crawl(new Request("BASE/p/2"));
    }`,
		items: []string{`{"h1":"Page 1"}`, `{"h1":"Page 2"}`},
		idles: 2,
	}, {
		name: "await-fetch-then-crawl",
		handler: `async () => {
      this.crawler.stats.inc("idles");
      if (this.more === 0) return;
      this.more--;
      const r = await fetch("BASE/p/3");
      await sleep(20);
      this.crawler.engine.crawl(new Request("BASE/p/" + (r.css("h1::text").get() === "Page 3" ? 4 : 5)));
    }`,
		items: []string{`{"h1":"Page 1"}`, `{"h1":"Page 4"}`},
		idles: 2,
	}, {
		name: "rejects",
		handler: `async () => {
      this.crawler.stats.inc("idles");
      await sleep(50);
      throw new Error("idle went wrong");
    }`,
		items: []string{`{"h1":"Page 1"}`},
		log:   []string{"Error caught on signal handler: spider_idle", "idle went wrong"},
		idles: 1,
	}, {
		name: "dont-close-spider",
		handler: `async () => {
      this.crawler.stats.inc("idles");
      if (this.more === 0) return;
      this.more--;
      if (this.more === 0) { this.crawler.engine.crawl(new Request("BASE/p/6")); return; }
      await sleep(10);
      throw new DontCloseSpider("not yet");
    }`,
		items: []string{`{"h1":"Page 1"}`, `{"h1":"Page 6"}`},
		idles: 3,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, newServer(t), spec{src: `import { Request, DontCloseSpider, sleep, fetch } from "jscrawl";
export default class S {
  name = "idle";
  startUrls = ["BASE/p/1"];
  more = 2;
  constructor() { this.more = "` + tc.name + `" === "dont-close-spider" ? 2 : 1; }
  setup(crawler) { crawler.signals.connect("spider_idle", ` + tc.handler + `); }
  parse(r) { return { h1: r.css("h1::text").get() }; }
}
`})
			equalLines(t, "items", res.sorted(t), tc.items, res.log)
			if got := res.stats["finish_reason"]; got != "finished" {
				t.Errorf("finish_reason = %v, want finished\n%s", got, res.log)
			}
			if got := res.stat("idles"); got != tc.idles {
				t.Errorf("spider_idle sent %d times, want %d\n%s", got, tc.idles, res.log)
			}
			for _, l := range tc.log {
				if !strings.Contains(res.log, l) {
					t.Errorf("log lacks %q:\n%s", l, res.log)
				}
			}
			if tc.log == nil && strings.Contains(res.log, "Error caught on signal handler") {
				t.Errorf("a handler's error was logged:\n%s", res.log)
			}
		})
	}
}
