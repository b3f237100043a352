package jsapi_test

import (
	"testing"
)

// TestStartIsLazy: start() is consumed as the scheduler has room (Scrapy consumes start
// requests lazily), so an endless start() crawls until a limit closes the spider, and a
// long one never has more than a bounded backlog queued.
func TestStartIsLazy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		settings  map[string]string
		// the crawl must end with this many responses, and no more than maxEnqueued
		// requests may have been scheduled by then
		pages, maxEnqueued int64
	}{
		{"endless sync generator", `export default class S {
  name = "endless";
  *start() { for (let i = 0; ; i++) yield new Request("BASE/p/" + i); }
  parse(r) { return { url: r.url }; }
}`, map[string]string{"CLOSESPIDER_PAGECOUNT": "30", "CONCURRENT_REQUESTS": "2"}, 30, 200},
		{"endless async generator", `export default class S {
  name = "endless";
  async *start() { for (let i = 0; ; i++) { if (i % 10 === 0) await null; yield new Request("BASE/p/" + i); } }
  parse(r) { return { url: r.url }; }
}`, map[string]string{"CLOSESPIDER_PAGECOUNT": "30", "CONCURRENT_REQUESTS": "2"}, 30, 200},
		{"long array from an async start", `export default class S {
  name = "long";
  async start() { return Array.from({ length: 300 }, (_, i) => new Request("BASE/p/" + i)); }
  parse(r) { return { url: r.url }; }
}`, map[string]string{"CONCURRENT_REQUESTS": "4"}, 300, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, newServer(t), spec{src: tc.src, settings: tc.settings})
			if got := res.stat("response_received_count"); got < tc.pages || got > tc.pages+2 {
				t.Errorf("responses = %d, want %d (+ at most the 2 in flight)\n%s", got, tc.pages, res.log)
			}
			if got := res.stat("scheduler/enqueued"); got > tc.maxEnqueued {
				t.Errorf("scheduler/enqueued = %d, want ≤ %d: start() was not consumed lazily", got, tc.maxEnqueued)
			}
		})
	}
}
