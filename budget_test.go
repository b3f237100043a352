package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// budgetSpider writes a spider that yields three pages of the stop test server for parse
// and one for the callback named cb (with an errback), followed by extra (pipelines).
func budgetSpider(t *testing.T, dir, base, cb, extra string) string {
	t.Helper()
	return writeFile(t, dir, "budget.js", `import { Request, fetch } from "jscrawl";
export default class {
  name = "budget";
  *start() {
    for (let i = 0; i < 3; i++) yield new Request("`+base+`/fast?i=" + i, { priority: 2 });
    yield new Request("`+base+`/fast?i=odd", { callback: this.`+cb+`, errback: this.eb, priority: 1 });
  }
  slow = "";
  parse(r) {
    if (!this.slow) return { url: r.url };
    // -a slow=1: a callback that starts spinning meanwhile holds it up.
    return sleep(200).then(() => ({ url: r.url }));
  }
  async forever(r) {
    this.logger.info("awaiting forever");
    await new Promise(() => {});
    return { never: true };
  }
  async awaitHang(r) {
    const got = await fetch("`+base+`/hang");
    return { got: got.status };
  }
  pollute(r) {
    Object.prototype.then = function () {};
    return { url: r.url };
  }
  spin(r) {
    this.logger.info("spinning");
    while (true) {}
  }
  eb(f) {
    delete Object.prototype.then;
    return { errback: f.error.name };
  }
}
`+extra)
}

// TestCallbackTimeout: a callback or a processItem awaiting a promise that never settles
// (or one made to by a then on Object.prototype) fails with a TimeoutError after
// CALLBACK_TIMEOUT, and the crawl ends by itself with the other items. Before, it stayed
// open until killed.
func TestCallbackTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cb, extra string
		log             []string
		stats           map[string]float64
		items           []string // the url or errback of each item, any order
	}{
		{
			name: "a callback awaiting forever", cb: "forever",
			log:   []string{"TimeoutError: callback forever did not settle within CALLBACK_TIMEOUT (1s) processing <", "/fast?i=odd>"},
			stats: map[string]float64{"spider_exceptions/TimeoutError": 1, "item_scraped_count": 4},
			items: []string{"/fast?i=0", "/fast?i=1", "/fast?i=2", "TimeoutError"},
		},
		{
			// The error names the download it awaits and where the spider started it; the
			// download is cancelled (it would hang for DOWNLOAD_TIMEOUT, 180 s).
			name: "a callback awaiting a download", cb: "awaitHang",
			log: []string{"TimeoutError: callback awaitHang did not settle within CALLBACK_TIMEOUT (1s)",
				"; it awaits the inline download GET ", "/hang started at ", "budget.js:20:28"},
			stats: map[string]float64{"spider_exceptions/TimeoutError": 1, "item_scraped_count": 4},
			items: []string{"/fast?i=0", "/fast?i=1", "/fast?i=2", "TimeoutError"},
		},
		{
			name: "a processItem awaiting forever", cb: "parse",
			extra: `export const pipelines = [{ async processItem(item) {
  if (item.url.endsWith("i=1")) await new Promise(() => {});
  return item;
} }];
`,
			log:   []string{"TimeoutError: pipelines[0].processItem did not settle within CALLBACK_TIMEOUT (1s)"},
			stats: map[string]float64{"item_error_count": 1, "item_scraped_count": 3},
			items: []string{"/fast?i=0", "/fast?i=2", "/fast?i=odd"},
		},
		{
			// The driver no longer takes an item for a thenable: nothing times out.
			name: "a then on Object.prototype", cb: "pollute",
			stats: map[string]float64{"item_scraped_count": 4},
			items: []string{"/fast?i=0", "/fast?i=1", "/fast?i=2", "/fast?i=odd"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newStopServer(t)
			dir := t.TempDir()
			spider := budgetSpider(t, dir, srv.URL, tc.cb, tc.extra)
			out := filepath.Join(dir, "items.jsonl")
			stats := filepath.Join(dir, "stats.json")
			start := time.Now()
			_, log, code := runJscrawl(t, dir, "", os.Environ(), "run", spider, "-o", out, "--stats-json", stats,
				"-s", "CALLBACK_TIMEOUT=1", "-s", "CONCURRENT_REQUESTS=1", "-s", "ROBOTSTXT_OBEY=false")
			took := time.Since(start)
			if code != 0 {
				t.Fatalf("exit code %d:\n%s", code, log)
			}
			if took > 30*time.Second {
				t.Errorf("the crawl took %v, want it to end by itself soon after CALLBACK_TIMEOUT", took)
			}
			for _, want := range tc.log {
				if !strings.Contains(log, want) {
					t.Errorf("no %q in the log:\n%s", want, log)
				}
			}
			st := readStatsJSON(t, stats)
			if st["finish_reason"] != "finished" {
				t.Errorf("finish_reason %v, want finished", st["finish_reason"])
			}
			for k, want := range tc.stats {
				if st[k] != want {
					t.Errorf("stat %s = %v, want %v", k, st[k], want)
				}
			}
			items, data := readFeed(t, out)
			if len(items) != len(tc.items) {
				t.Fatalf("%d items, want %d:\n%s", len(items), len(tc.items), data)
			}
			for _, want := range tc.items {
				found := false
				for _, it := range items {
					u, _ := it["url"].(string)
					e, _ := it["errback"].(string)
					if strings.HasSuffix(u, want) || e == want {
						found = true
					}
				}
				if !found {
					t.Errorf("no item %q in the feed:\n%s", want, data)
				}
			}
		})
	}
}

// TestStopNoDownloadInFlight: a SIGTERM while the only work left is a callback awaiting
// forever ends within the callbacks' short grace, not after SHUTDOWN_TIMEOUT (30 s) and
// more, as it did.
func TestStopNoDownloadInFlight(t *testing.T) {
	t.Parallel()
	srv := newStopServer(t)
	dir := t.TempDir()
	spider := budgetSpider(t, dir, srv.URL, "forever", "")
	out := filepath.Join(dir, "items.jsonl")
	p := startCrawl(t, nil, spider, "-o", out, "-s", "SHUTDOWN_TIMEOUT=30", "-s", "CALLBACK_TIMEOUT=600",
		"-s", "CONCURRENT_REQUESTS=1", "-s", "ROBOTSTXT_OBEY=false")
	p.waitLines(t, "awaiting forever")
	sent := time.Now()
	p.signal(t, syscall.SIGTERM)
	took, log := p.waitExit(t, sent, 143)
	if took > 20*time.Second {
		t.Errorf("took %v after SIGTERM with no download in flight, want well under SHUTDOWN_TIMEOUT (30s):\n%s", took, log)
	}
	if !strings.Contains(log, "after no download was left") {
		t.Errorf("the log does not say why the callback was stopped:\n%s", log)
	}
	items, data := readFeed(t, out)
	if len(items) != 3 {
		t.Errorf("feed has %d items, want 3:\n%s", len(items), data)
	}
}

// TestGiveUp: a page whose callback is killed on every try does not keep a crawl, or a job,
// from finishing.
func TestGiveUp(t *testing.T) {
	t.Parallel()
	// A runaway callback fails at once with a TimeoutError (errback called); its job
	// finishes, and a resume of it has nothing left to do.
	t.Run("runaway", func(t *testing.T) {
		t.Parallel()
		srv := newStopServer(t)
		dir := t.TempDir()
		spider := budgetSpider(t, dir, srv.URL, "spin", "")
		out := filepath.Join(dir, "items.jsonl")
		args := []string{"run", spider, "-o", out, "--jobdir", filepath.Join(dir, "job"),
			"-s", "JS_CALLBACK_TIMEOUT=0.5", "-s", "CONCURRENT_REQUESTS=1", "-s", "ROBOTSTXT_OBEY=false"}
		_, log, code := runJscrawl(t, dir, "", os.Environ(), args...)
		if code != 0 {
			t.Fatalf("exit code %d:\n%s", code, log)
		}
		if !strings.Contains(log, "TimeoutError: callback spin exceeded JS_CALLBACK_TIMEOUT (500ms)") {
			t.Errorf("no TimeoutError in the log:\n%s", log)
		}
		_, log, code = runJscrawl(t, dir, "", os.Environ(), args...)
		if code != 0 || !strings.Contains(log, "finished") {
			t.Errorf("resume: exit code %d:\n%s", code, log)
		}
		items, data := readFeed(t, out)
		if len(items) != 4 || !strings.Contains(string(data), `"errback":"TimeoutError"`) {
			t.Errorf("feed:\n%s", data)
		}
	})
	// A callback that takes the process down (here a kill while it spins with no
	// JS_CALLBACK_TIMEOUT; a crash is the same to the job) is given up after RETRY_TIMES + 1
	// runs of the job died with it: the next resume fails it with a GaveUpError (errback
	// called) and finishes. Before, every resume ran it again and died again.
	//
	// With one VM and four downloads at a time, the other pages' callbacks wait behind the
	// spinning one and die with it in the first run; from then on each of them runs alone,
	// so they finish and only the spinning page is given up.
	for _, conc := range []string{"1", "4"} {
		t.Run("killed every time, CONCURRENT_REQUESTS="+conc, func(t *testing.T) {
			t.Parallel()
			testKilledEveryTime(t, conc)
		})
	}
}

func testKilledEveryTime(t *testing.T, conc string) {
	t.Helper()
	{
		srv := newStopServer(t)
		dir := t.TempDir()
		spider := budgetSpider(t, dir, srv.URL, "spin", "")
		out := filepath.Join(dir, "items.jsonl")
		stats := filepath.Join(dir, "stats.json")
		args := []string{spider, "-o", out, "--jobdir", filepath.Join(dir, "job"), "--stats-json", stats,
			"-s", "JS_CALLBACK_TIMEOUT=0", "-s", "CALLBACK_TIMEOUT=0", "-s", "RETRY_TIMES=1", "-s", "JS_VMS=1",
			"-s", "CONCURRENT_REQUESTS=" + conc, "-s", "ROBOTSTXT_OBEY=false", "-s", "JOBDIR_COMMIT_INTERVAL=0.1", "-a", "slow=1"}
		kills := 0
		for run := 0; ; run++ {
			if run == 5 {
				t.Fatalf("the job did not finish after %d kills", kills)
			}
			p := startCrawl(t, nil, args...)
			if !p.waitLineOrEnd(t, "spinning") {
				break // the crawl ended
			}
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			var ee *exec.ExitError
			if err := p.cmd.Wait(); !errors.As(err, &ee) {
				t.Fatalf("wait: %v", err)
			}
			kills++
		}
		if kills != 2 {
			t.Errorf("%d kills before the job finished, want RETRY_TIMES + 1 = 2", kills)
		}
		st := readStatsJSON(t, stats)
		if st["finish_reason"] != "finished" || st["spider_exceptions/GaveUpError"] != 1.0 {
			t.Errorf("stats: finish_reason %v, spider_exceptions/GaveUpError %v", st["finish_reason"], st["spider_exceptions/GaveUpError"])
		}
		items, data := readFeed(t, out)
		if len(items) != 4 || !strings.Contains(string(data), `"errback":"GaveUpError"`) {
			t.Errorf("feed:\n%s", data)
		}
	}
}

// waitLineOrEnd waits for a log line containing s (true) or the crawl's end (false).
func (p *crawlProc) waitLineOrEnd(t *testing.T, s string) bool {
	t.Helper()
	if _, ok := p.nextLine(t, s); !ok {
		_ = p.cmd.Wait()
		return false
	}
	return true
}
