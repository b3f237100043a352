package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJSONDeepCLI: with the real binary, a server answering 6 MB of '[' (3,000,000 deep)
// to response.json() and to JSON.parse(response.body), and a spider that stringifies or
// yields a 100,000-deep object, fail those callbacks only: the SyntaxError or RangeError
// names JSON_MAX_DEPTH, is logged with the spider's file:line and counted by class (the
// deep item is a TypeError naming its path and the export limit of 64 levels), the other
// pages are crawled, the feed is closed and the process exits 0 in bounded time (it used
// to die of a goroutine stack overflow, stringify ran for minutes, and the item's export
// took 34 s, converting the whole tree to Go maps at each level).
func TestJSONDeepCLI(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 6_000_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/deep-json", "/deep-parse":
			_, _ = w.Write([]byte(deep))
		default:
			_, _ = w.Write([]byte(`{"path":"` + r.URL.Path + `","list":[[{"x":1}]]}`))
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	spider := writeFile(t, dir, "deep.ts", `export default class Deep {
  name = "deep";
  startUrls = ["/deep-json", "/deep-parse", "/ok/1", "/stringify", "/item", "/ok/2"].map((p) => "`+srv.URL+`" + p);
  deepObject() { let v: any = 1; for (let i = 0; i < 100000; i++) v = { a: v }; return v; }
  async *parse(response) {
    const path = new URL(response.url).pathname;
    if (path === "/deep-json") yield await response.json();
    else if (path === "/deep-parse") yield JSON.parse(response.body);
    else if (path === "/stringify") yield { s: JSON.stringify(this.deepObject()) };
    else if (path === "/item") yield { deep: this.deepObject() };
    else yield { ok: (await response.json()).path };
  }
}
`)
	start := time.Now()
	_, stderr, code := jscrawlIn(t, dir, "", "run", spider, "-o", "out.jsonl")
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the crawl took %s", d)
	}
	if code != 0 {
		t.Fatalf("exit code %d, want 0\n%s", code, stderr)
	}
	for _, s := range []string{"goroutine stack exceeds", "fatal error"} {
		if strings.Contains(stderr, s) {
			t.Fatalf("the log has %q:\n%.3000s", s, stderr)
		}
	}
	syntax := "SyntaxError: JSON.parse: the text is nested deeper than JSON_MAX_DEPTH (1000)"
	for _, want := range []string{
		"Spider error processing <GET " + srv.URL + "/deep-json>",
		"Spider error processing <GET " + srv.URL + "/deep-parse>",
		syntax + "\n\tat " + spider + ":7:",
		syntax + "\n\tat " + spider + ":8:",
		"Spider error processing <GET " + srv.URL + "/stringify>",
		"RangeError: JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (1000)\n\tat " + spider + ":9:",
		"TypeError: parse processing <" + srv.URL + "/item>: item.deep.a.a.",
		".a is nested deeper than 64 levels (a cycle?)",
		`"spider_exceptions/TypeError": 1`,
		`"spider_exceptions/SyntaxError": 2`,
		`"spider_exceptions/RangeError": 1`,
		`"finish_reason": "finished"`,
		`"item_scraped_count": 2`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the log lacks %q:\n%.4000s", want, stderr)
		}
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(string(out), `{"ok":"/ok/1"}`) || !strings.Contains(string(out), `{"ok":"/ok/2"}`) {
		t.Errorf("out.jsonl:\n%s", out)
	}
}
