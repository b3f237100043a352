package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestThresholdsExitCode: thresholds from --threshold and from THRESHOLDS are reported on
// stderr, a line each with its value; a failed one makes the exit code 99, after the feed
// is written.
func TestThresholdsExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		lines []string
	}{
		{"flag fails", []string{"--threshold", "item_scraped_count >= 100", "--threshold", "log_count/ERROR == 0"}, 99,
			[]string{"✗ item_scraped_count >= 100 (value 20)", "✓ log_count/ERROR == 0 (value 0)", "exit code 99"}},
		{"setting passes", []string{"-s", `THRESHOLDS={"item_scraped_count": ">= 20", "downloader/response_status_count/5xx": "< 1"}`}, 0,
			[]string{"✓ downloader/response_status_count/5xx < 1 (value 0)", "✓ item_scraped_count >= 20 (value 20)"}},
		{"both, setting fails", []string{"-s", `THRESHOLDS={"item_scraped_count": "< 20"}`, "--threshold", "item_scraped_count > 0"}, 99,
			[]string{"✗ item_scraped_count < 20 (value 20)", "✓ item_scraped_count > 0 (value 20)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			spider := writeFile(t, dir, "tiny.ts", tinySpider)
			out := filepath.Join(dir, "items.jsonl")
			_, stderr, code := jscrawl(t, append([]string{"run", "--demo", spider, "-o", out}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d\n%s", code, tc.code, stderr)
			}
			for _, l := range tc.lines {
				if !strings.Contains(stderr, l) {
					t.Errorf("stderr lacks %q:\n%s", l, stderr)
				}
			}
			items, _ := readFeed(t, out)
			if n := len(items); n != 20 {
				t.Errorf("feed has %d items, want 20", n)
			}
		})
	}
	if _, stderr, code := jscrawl(t, "run", "--demo", "x.ts", "--threshold", "item_scraped_count is big"); code != 2 || !strings.Contains(stderr, "--threshold") {
		t.Errorf("a bad --threshold: exit %d, want 2 naming the flag\n%s", code, stderr)
	}
}

// TestStatsAndLogOutputs: --stats-json writes the stats as JSON (numbers as numbers, times
// as RFC 3339); LOG_FILE sends the log to the file only; LOG_FORMAT=json writes one object
// per record, the stats dump as one record with a stats object.
func TestStatsAndLogOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := writeFile(t, dir, "tiny.ts", tinySpider)

	statsFile := filepath.Join(dir, "stats.json")
	logFile := filepath.Join(dir, "crawl.log")
	_, stderr, code := jscrawl(t, "run", "--demo", spider, "--stats-json", statsFile, "-s", "LOG_FILE="+logFile)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "INFO") || strings.Contains(stderr, "Dumping stats") {
		t.Errorf("with LOG_FILE the log still went to stderr:\n%s", stderr)
	}
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, st := statsDump(t, string(logged)); st["item_scraped_count"] != float64(20) {
		t.Errorf("the log file's stats dump: %v", st)
	}
	data, err := os.ReadFile(statsFile)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("--stats-json is not JSON: %v\n%s", err, data)
	}
	if st["item_scraped_count"] != float64(20) || st["finish_reason"] != "finished" {
		t.Errorf("--stats-json: %v", st)
	}
	for _, k := range []string{"start_time", "finish_time"} {
		s, _ := st[k].(string)
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			t.Errorf("%s = %v, want an RFC 3339 time", k, st[k])
		}
	}
	if _, ok := st["elapsed_time_seconds"].(float64); !ok {
		t.Errorf("elapsed_time_seconds = %v, want a number", st["elapsed_time_seconds"])
	}

	_, stderr, code = jscrawl(t, "run", "--demo", spider, "-s", "LOG_FORMAT=json", "-L", "DEBUG")
	if code != 0 {
		t.Fatalf("LOG_FORMAT=json: exit code %d\n%s", code, stderr)
	}
	var dumps, debug int
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		dec := json.NewDecoder(bytes.NewReader([]byte(l)))
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("LOG_FORMAT=json wrote a line that is not JSON: %q", l)
		}
		if rec["level"] == "DEBUG" {
			debug++
		}
		if s, ok := rec["stats"].(map[string]any); ok {
			dumps++
			if s["item_scraped_count"] != float64(20) || rec["level"] != "INFO" {
				t.Errorf("stats record: %v", rec)
			}
		}
	}
	if dumps != 1 || debug == 0 {
		t.Errorf("%d stats records (want 1), %d DEBUG records (want some):\n%s", dumps, debug, stderr)
	}
	if _, stderr, code := jscrawl(t, "run", "--demo", spider, "-s", "LOG_FORMAT=xml"); code != 2 || !strings.Contains(stderr, "LOG_FORMAT") {
		t.Errorf("LOG_FORMAT=xml: exit %d, want 2 naming the setting\n%s", code, stderr)
	}
}

// TestFeedsSettingFromJS: customSettings.FEEDS with camelCase options and an itemFilter
// function (settings given in JS only), next to a plain feed of the same crawl.
func TestFeedsSettingFromJS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `import { Request } from "jscrawl";
export default class Filtered {
  name = "filtered";
  customSettings = {
    FEEDS: {
      "out/cheap-%(batch_id)d.jsonl": { batchItemCount: 3, itemFilter: async (item) => item.price < 20 },
      "out/all.csv": { fields: ["title", "price"] },
    },
  };
  *start() { yield new Request(this.baseUrl + "/catalogue/page-1.html"); }
  *parse(response) {
    for (const b of response.css("article.product_pod")) {
      yield { title: b.css("h3 a::attr(title)").get(), price: parseFloat(b.css(".price_color::text").get().replace(/[^0-9.]/g, "")) };
    }
  }
}
`
	spider := writeFile(t, dir, "filtered.ts", src)
	// A spider's feeds are relative paths inside the working folder (the sandbox).
	if _, stderr, code := jscrawlIn(t, dir, "", "run", "--demo", spider); code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	dir = filepath.Join(dir, "out")
	all := strings.Split(strings.TrimSpace(readFileT(t, filepath.Join(dir, "all.csv"))), "\n")
	if len(all) != 21 || all[0] != "title,price" {
		t.Fatalf("all.csv has %d lines (want header + 20): %q", len(all), all[:min(3, len(all))])
	}
	var cheap []map[string]any
	matches, _ := filepath.Glob(filepath.Join(dir, "cheap-*.jsonl"))
	for _, m := range matches {
		items := jsonLines(t, readFileT(t, m))
		if len(items) > 3 {
			t.Errorf("%s has %d items, want at most batchItemCount 3", m, len(items))
		}
		cheap = append(cheap, items...)
	}
	want := 0
	for _, l := range all[1:] {
		if p, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ',')+1:], 64); err != nil {
			t.Fatalf("all.csv line %q: %v", l, err)
		} else if p < 20 {
			want++
		}
	}
	if len(cheap) == 0 || len(cheap) != want || len(cheap) == 20 {
		t.Errorf("cheap feeds have %d items, want the %d under 20 of 20", len(cheap), want)
	}
	for _, it := range cheap {
		if it["price"].(float64) >= 20 {
			t.Errorf("itemFilter let through %v", it)
		}
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
