package jsapi_test

import (
	"strings"
	"testing"
)

// TestCallbackTimeoutStart: CALLBACK_TIMEOUT bounds each step of start() (from one request
// to the next), not start() as a whole, and not its pauses while the scheduler is full:
// a start() that yields 150 requests slower than the budget in all, then awaits forever,
// fails with a TimeoutError only for the last wait, and the crawl ends by itself.
func TestCallbackTimeoutStart(t *testing.T) {
	t.Parallel()
	src := `import { Request } from "jscrawl";
export default class {
  name = "st";
  async *start() {
    for (let i = 0; i < 150; i++) {
      yield new Request("BASE/p/" + i);
      if (i % 50 === 0) await sleep(200);
    }
    await new Promise(() => {});
  }
  async parse(r) {
    await sleep(5);
    return { url: r.url };
  }
}
`
	res := crawl(t, newServer(t), spec{src: src, settings: map[string]string{"CALLBACK_TIMEOUT": "1", "CONCURRENT_REQUESTS": "2",
		// 32 pages 40 ms apart: a pause for the backlog lasts about 1.3 s.
		"DOWNLOAD_DELAY": "0.04", "RANDOMIZE_DOWNLOAD_DELAY": "false"}})
	if n := res.stat("item_scraped_count"); n != 150 {
		t.Errorf("item_scraped_count = %d, want 150\n%s", n, res.log)
	}
	if n := res.stat("spider_exceptions/TimeoutError"); n != 1 {
		t.Errorf("spider_exceptions/TimeoutError = %d, want 1\n%s", n, res.log)
	}
	if !strings.Contains(res.log, "TimeoutError: callback start did not settle within CALLBACK_TIMEOUT (1s)") {
		t.Errorf("no TimeoutError of start() in the log:\n%s", res.log)
	}
}
