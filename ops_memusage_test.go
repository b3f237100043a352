package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hogSpider scrapes /list/1, /list/2 and /list/3 one after the other, then hands a page to
// hog, which allocates without bound (with an await now and then, so the JS_CALLBACK_TIMEOUT
// watchdog never fires: only the memory limit can stop it).
const hogSpider = `import { Request } from "jscrawl";
export default class Hog {
  name = "hog";
  baseUrl = "";
  *start() { yield new Request(this.baseUrl + "/list/1"); }
  *parse(response) {
    const n = Number(response.url.split("/").pop());
    yield { page: n };
    if (n < 3) yield new Request(this.baseUrl + "/list/" + (n + 1));
    else yield new Request(this.baseUrl + "/list/4", { callback: this.hog });
  }
  async *hog(response) {
    const keep = [];
    for (let i = 0; ; i++) {
      keep.push("x".repeat(1 << 16) + i);
      if (i % 64 === 0) await null;
    }
  }
}
`

// TestMemUsageLimit: past MEMUSAGE_LIMIT_MB the running callback is interrupted, the spider
// closes with finish_reason memusage_exceeded, the feed keeps the items scraped before, and
// jscrawl exits 1, long before the allocation reaches gigabytes.
func TestMemUsageLimit(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "hog.ts", hogSpider)
	items := filepath.Join(dir, "items.jsonl")
	statsFile := filepath.Join(dir, "stats.json")
	const limitMB = 300
	_, stderr, code := jscrawl(t, "run", spider, "-a", "baseUrl="+srv.URL, "-o", items, "--stats-json", statsFile,
		"-s", "MEMUSAGE_LIMIT_MB=300", "-s", "MEMUSAGE_WARNING_MB=150", "-s", "MEMUSAGE_CHECK_INTERVAL_SECONDS=0.1",
		"-s", "ROBOTSTXT_OBEY=false")
	if code != 1 {
		t.Fatalf("exit code %d, want 1\n%s", code, stderr)
	}
	data, err := os.ReadFile(statsFile)
	if err != nil {
		t.Fatalf("no --stats-json: %v\n%s", err, stderr)
	}
	var stats map[string]any
	if err := json.Unmarshal(data, &stats); err != nil {
		t.Fatal(err)
	}
	if stats["finish_reason"] != "memusage_exceeded" {
		t.Errorf("finish_reason = %v, want memusage_exceeded\n%s", stats["finish_reason"], stderr)
	}
	num := func(k string) float64 { f, _ := stats[k].(float64); return f }
	const mib = 1 << 20
	if num("memusage/limit_reached") != 1 || num("memusage/warning_reached") != 1 {
		t.Errorf("memusage/limit_reached = %v, memusage/warning_reached = %v, want 1 and 1", stats["memusage/limit_reached"], stats["memusage/warning_reached"])
	}
	if s := num("memusage/startup"); s <= 0 || s >= 150*mib {
		t.Errorf("memusage/startup = %.0f MiB, want between 0 and the warning (150 MiB)", s/mib)
	}
	// Stopped soon after the limit: well before the gigabytes an unbounded callback reaches.
	if m := num("memusage/max"); m <= limitMB*mib || m > 1024*mib {
		t.Errorf("memusage/max = %.0f MiB, want above the limit (%d MiB) and below 1024 MiB", m/mib, limitMB)
	}
	if n := num("spider_exceptions/InterruptedError"); n != 1 {
		t.Errorf("spider_exceptions/InterruptedError = %v, want 1 (the hog callback)", n)
	}
	for _, want := range []string{"Memory usage reached 150 MiB", "Memory usage exceeded 300 MiB", "callback hog (" + srv.URL + "/list/4) interrupted"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the log lacks %q:\n%s", want, stderr)
		}
	}
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	var pages []float64
	for _, it := range jsonLines(t, string(b)) {
		pages = append(pages, it["page"].(float64))
	}
	slices.Sort(pages)
	if !slices.Equal(pages, []float64{1, 2, 3}) {
		t.Errorf("feed pages %v, want [1 2 3]", pages)
	}
}
