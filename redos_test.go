package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// redosText is the text that makes a backtracking (a+)+ try every split of its a's: 2^34
// ways before the "!" fails it.
var redosText = strings.Repeat("a", 34) + "!"

// newReDoSServer serves /redos, a page whose only text is redosText, and /ok?i=N, a plain
// page.
func newReDoSServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /redos", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><body><p>%s</p></body></html>", redosText)
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><body><p>%s</p></body></html>", r.URL.Query().Get("i"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestReDoSCallbackTimeout: a backtracking regular expression on hostile text runs in
// native code, where the callback watchdog cannot interrupt it; it ran for hours before.
// Now response.re(), XPath re:test() and a JS RegExp that goja runs on regexp2 (a
// lookahead) each fail their callback with a TimeoutError about JS_CALLBACK_TIMEOUT after
// it began (the RegExp's is never read as "no match"), the other pages are scraped and the
// crawl exits 0.
func TestReDoSCallbackTimeout(t *testing.T) {
	t.Parallel()
	srv := newReDoSServer(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "redos.js", `export default class {
  name = "redos";
  *start() {
    yield new Request("`+srv.URL+`/ok?i=0", { priority: 10 });
    yield new Request("`+srv.URL+`/redos?via=re", { callback: this.viaRe, dontFilter: true });
    yield new Request("`+srv.URL+`/redos?via=xpath", { callback: this.viaXPath, dontFilter: true });
    yield new Request("`+srv.URL+`/redos?via=regexp", { callback: this.viaRegExp, dontFilter: true });
    yield new Request("`+srv.URL+`/ok?i=1", { priority: 10 });
  }
  parse(r) { return { url: r.url }; }
  viaRe(r) {
    this.logger.info("start re " + Date.now());
    return { matched: r.css("p::text").re("^(a+)+$") };
  }
  viaXPath(r) {
    this.logger.info("start xpath " + Date.now());
    return { matched: r.xpath("re:test(string(//p), '^(a+)+$')").get() };
  }
  viaRegExp(r) {
    this.logger.info("start regexp " + Date.now());
    const text = r.css("p::text").get();
    if (!/^(?=a)(a+)+$/.test(text)) return { wrong: "the timed-out match was read as no match" };
    return { matched: true };
  }
}
`)
	out := filepath.Join(dir, "items.jsonl")
	start := time.Now()
	_, stderr, code := jscrawlIn(t, dir, "", "run", spider, "-o", out, "-s", "JS_CALLBACK_TIMEOUT=1",
		"-s", "ROBOTSTXT_OBEY=false", "-s", "CONCURRENT_REQUESTS=1", "--stats-json", filepath.Join(dir, "stats.json"))
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr)
	}
	// Three callbacks of 1 s at most (plus the match timeout's margin), on two cores shared
	// with other tests: far from the minutes one match ran before.
	if took > 30*time.Second {
		t.Errorf("the crawl took %v, want < 30s:\n%s", took, stderr)
	}
	items, data := readFeed(t, out)
	if len(items) != 2 {
		t.Errorf("feed has %d items, want the 2 plain pages':\n%s\n%s", len(items), data, stderr)
	}
	stats := readStatsJSON(t, filepath.Join(dir, "stats.json"))
	if stats["spider_exceptions/TimeoutError"] != 3.0 {
		t.Errorf("spider_exceptions/TimeoutError = %v, want 3:\n%s", stats["spider_exceptions/TimeoutError"], stderr)
	}
	// re() and re:test() fail before the watchdog, naming the pattern; goja's RegExp hides
	// its match's timeout, so the watchdog's interrupt fails that callback.
	if n := strings.Count(stderr, "TimeoutError: regular expression ^(a+)+$: match timeout after"); n != 2 {
		t.Errorf("%d TimeoutErrors name the pattern, want 2 (re(), re:test()):\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "TimeoutError: callback viaRegExp exceeded JS_CALLBACK_TIMEOUT (1s)") {
		t.Errorf("the JS RegExp's callback did not fail with the watchdog's TimeoutError:\n%s", stderr)
	}
	for _, via := range []string{"re", "xpath", "regexp"} {
		if !strings.Contains(stderr, "via="+via) || !strings.Contains(stderr, "start "+via) {
			t.Errorf("the %s callback did not run or fail:\n%s", via, stderr)
		}
	}
}

// TestReDoSStop: a stop ends the process while a callback is stuck in a backtracking match
// (JS_CALLBACK_TIMEOUT at its default, a minute): the second SIGTERM at once, a single one
// at its deadline (SHUTDOWN_TIMEOUT, then the callbacks' grace of 5 s). Both waited for the
// match before. The item scraped before the stop is in the feed, whole.
func TestReDoSStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		signals int
		within  time.Duration
	}{
		{name: "second SIGTERM", signals: 2, within: 10 * time.Second},
		{name: "stop deadline", signals: 1, within: 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newReDoSServer(t)
			dir := t.TempDir()
			spider := writeFile(t, dir, "redos.js", `export default class {
  name = "redos";
  *start() {
    yield new Request("`+srv.URL+`/ok?i=0", { priority: 1 });
  }
  *parse(r) {
    if (!r.url.includes("redos")) {
      // The item before the request: it is scraped before the stuck callback can start.
      yield { url: r.url };
      yield new Request("`+srv.URL+`/redos");
      return;
    }
    this.logger.info("matching");
    yield { matched: r.css("p::text").re("^(a+)+$") };
  }
}
`)
			out := filepath.Join(dir, "items.jsonl")
			p := startCrawl(t, nil, spider, "-o", out, "-L", "DEBUG", "-s", "CONCURRENT_REQUESTS=1", "-s", "ROBOTSTXT_OBEY=false", "-s", "SHUTDOWN_TIMEOUT=1")
			p.waitLines(t, "Scraped from", "matching")
			sent := time.Now()
			for i := range tc.signals {
				if i > 0 {
					p.waitLine(t, "shutting down gracefully")
				}
				p.signal(t, syscall.SIGTERM)
			}
			took, log := p.waitExit(t, sent, 143)
			if took > tc.within {
				t.Errorf("took %v after the signal, want < %v:\n%s", took, tc.within, log)
			}
			if !strings.Contains(log, "exiting without waiting for it") {
				t.Errorf("the log does not say the stuck callback was left:\n%s", log)
			}
			items, data := readFeed(t, out)
			if len(items) != 1 {
				t.Errorf("feed has %d items, want 1:\n%s", len(items), data)
			}
		})
	}
}
