package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// bin is the jscrawl binary built by TestMain. The CLI is tested as a user runs it, in a
// child process: urfave/cli's shared help flag makes concurrent in-process runs race.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jscrawl-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "jscrawl")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build jscrawl:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// jscrawl runs the binary in the package folder (so paths are typed as a user would) and
// returns what it wrote and its exit code.
func jscrawl(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return jscrawlIn(t, "", "", args...)
}

// tinySpider reads the first catalogue page of the demo site: one item per book (20), with
// the CONCURRENT_REQUESTS the crawl runs with and the spider argument tag.
const tinySpider = `import { Request } from "jscrawl";
export default class Tiny {
  name = "tiny";
  baseUrl = "http://127.0.0.1:1";
  tag = "none";
  customSettings = { CONCURRENT_REQUESTS: 4 };
  *start() { yield new Request(this.baseUrl + "/catalogue/page-1.html"); }
  *parse(response) {
    for (const a of response.css("article.product_pod h3 a")) {
      yield { title: a.attrib.title, tag: this.tag, conc: this.crawler.settings.getInt("CONCURRENT_REQUESTS"),
        nested: { n: 1, list: ["x"] } };
      this.logger.debug("base " + this.baseUrl);
    }
  }
}
`

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// onlyTravel checks that every item is of the category Travel (a crawl with
// -a category=travel).
func onlyTravel(t *testing.T, items []map[string]any) {
	for _, it := range items {
		if it["category"] != "Travel" {
			t.Errorf("category=travel gave %v", it)
		}
	}
}

// eachTitleOnce checks that titles (how many items have each title) has n titles, each
// counted once.
func eachTitleOnce(t *testing.T, titles map[string]int, n int) {
	t.Helper()
	if len(titles) != n {
		t.Errorf("%d distinct books, want %d", len(titles), n)
	}
	for title, k := range titles {
		if k != 1 {
			t.Errorf("%q is in the feed %d times", title, k)
		}
	}
}

// readFeed returns the items of the JSON-lines feed at path, and its bytes.
func readFeed(t *testing.T, path string) ([]map[string]any, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return jsonLines(t, string(data)), data
}

// feedCounts returns how many items of the JSON-lines feed at path have each value of
// key, a string field.
func feedCounts(t *testing.T, path, key string) map[string]int {
	t.Helper()
	items, _ := readFeed(t, path)
	counts := map[string]int{}
	for _, it := range items {
		counts[it[key].(string)]++
	}
	return counts
}

// runItems returns the JSON-lines items a jscrawl run printed on stdout, failing the test
// unless the run exited 0 (code) with n items; stderr is the run's log, for the messages.
func runItems(t *testing.T, stdout, stderr string, code, n int) []map[string]any {
	t.Helper()
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	items := jsonLines(t, stdout)
	if len(items) != n {
		t.Fatalf("%d items, want %d\n%s", len(items), n, stderr)
	}
	return items
}

// jsonLines decodes stdout as JSON Lines.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		m["\x00raw"] = l // for keyOrder
		out = append(out, m)
	}
	return out
}

// statsDump finds the "Dumping stats:" JSON object in the log and returns its keys in the
// order written and the decoded object.
func statsDump(t *testing.T, log string) ([]string, map[string]any) {
	t.Helper()
	i := strings.Index(log, "Dumping stats:")
	if i < 0 {
		t.Fatalf("no Dumping stats: in the log:\n%s", log)
	}
	rest := log[i+len("Dumping stats:"):]
	dec := json.NewDecoder(strings.NewReader(rest))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("the stats are not JSON: %v\n%s", err, rest)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	kd := json.NewDecoder(bytes.NewReader(raw))
	if _, err := kd.Token(); err != nil { // {
		t.Fatal(err)
	}
	for kd.More() {
		k, err := kd.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := kd.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys, m
}

func TestRunOptionsBeforeAndAfterFile(t *testing.T) {
	t.Parallel()
	spider := writeFile(t, t.TempDir(), "tiny.ts", tinySpider)
	for _, tc := range []struct {
		name string
		args []string
		tag  string
		conc float64
	}{
		{"options after the file", []string{"run", spider, "--demo", "-o", "-:jsonl", "-a", "tag=after"}, "after", 4},
		{"options before the file", []string{"run", "--demo", "-a", "tag=before", "-o", "-:jsonl", spider}, "before", 4},
		{"options around the file", []string{"run", "-a=tag=around", "--demo", spider, "-s", "CONCURRENT_REQUESTS=7", "-o", "-:jsonl"}, "around", 7},
		{"long names and -L", []string{"run", spider, "--set", "CONCURRENT_REQUESTS=2", "--output", "-:jsonl", "--demo", "-L", "WARNING"}, "none", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, tc.args...)
			items := runItems(t, stdout, stderr, code, 20)
			for _, it := range items {
				if it["tag"] != tc.tag || it["conc"] != tc.conc {
					t.Fatalf("item %v: want tag %q and CONCURRENT_REQUESTS %v", it, tc.tag, tc.conc)
				}
			}
			if quiet := tc.name == "long names and -L"; quiet == strings.Contains(stderr, "INFO:") {
				t.Errorf("-L WARNING: %v, but stderr has INFO lines: %v\n%s", quiet, !quiet, stderr)
			}
		})
	}
}

func TestStdoutOnlyItems(t *testing.T) {
	t.Parallel()
	spider := writeFile(t, t.TempDir(), "tiny.ts", tinySpider)
	stdout, stderr, code := jscrawl(t, "run", "--demo", spider, "-o", "-:jsonl", "-L", "DEBUG")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	// Every line of stdout is an item: no log line, no stats.
	if n := len(jsonLines(t, stdout)); n != 20 {
		t.Errorf("%d items on stdout, want 20", n)
	}
	if strings.Contains(stdout, "INFO") || strings.Contains(stdout, "Dumping") {
		t.Errorf("log lines on stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "[jscrawl] INFO: Spider opened") {
		t.Errorf("no log on stderr:\n%s", stderr)
	}
	// --demo passes baseUrl without a trailing slash.
	if !regexp.MustCompile(`\[tiny\] DEBUG: base http://127\.0\.0\.1:\d+\n`).MatchString(stderr) {
		t.Errorf("no baseUrl without a trailing slash in the log:\n%s", stderr)
	}
	keys, stats := statsDump(t, stderr)
	if !slices.IsSorted(keys) {
		t.Errorf("stats keys are not sorted: %v", keys)
	}
	for k, want := range map[string]any{
		"item_scraped_count":                   float64(20),
		"finish_reason":                        "finished",
		"downloader/response_status_count/200": float64(2), // the page and robots.txt (ROBOTSTXT_OBEY is on by default)
		"robotstxt/request_count":              float64(1),
		"robotstxt/response_count":             float64(1),
	} {
		if stats[k] != want {
			t.Errorf("stats[%q] = %v, want %v", k, stats[k], want)
		}
	}
	if _, ok := stats["elapsed_time_seconds"]; !ok {
		t.Errorf("no elapsed_time_seconds in %v", stats)
	}
}

func TestFeeds(t *testing.T) {
	t.Parallel()
	spider := writeFile(t, t.TempDir(), "tiny.ts", tinySpider)
	countJSONL := func(t *testing.T, path string) int {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return len(jsonLines(t, string(b)))
	}
	run := func(t *testing.T, args ...string) {
		t.Helper()
		if _, stderr, code := jscrawl(t, append([]string{"run", "--demo", spider}, args...)...); code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
	}
	t.Run("-o appends", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "items.jsonl")
		run(t, "-o", out)
		run(t, "-o", out)
		if n := countJSONL(t, out); n != 40 {
			t.Errorf("%d lines after two runs with -o, want 40", n)
		}
	})
	t.Run("-O overwrites", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "items.jl")
		if err := os.WriteFile(out, []byte(`{"old":true}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, "-O", out)
		run(t, "-O", out)
		if n := countJSONL(t, out); n != 20 {
			t.Errorf("%d lines after two runs with -O, want 20", n)
		}
	})
	t.Run("csv", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "items.csv")
		run(t, "-o", out)
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 21 {
			t.Fatalf("%d CSV rows, want a header and 20", len(rows))
		}
		if !slices.Equal(rows[0], []string{"title", "tag", "conc", "nested"}) {
			t.Errorf("CSV header %v, want the item's keys in order", rows[0])
		}
		var found bool
		for _, r := range rows[1:] {
			found = found || slices.Equal(r, []string{"Tipping the Velvet & Co", "none", "4", `{"n":1,"list":["x"]}`})
		}
		if !found {
			t.Errorf("no CSV row for book 1 with its nested value as JSON: %v", rows)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "items.json")
		run(t, "-O", out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var items []map[string]any
		if err := json.Unmarshal(b, &items); err != nil {
			t.Fatalf("not a JSON array: %v\n%s", err, b)
		}
		if len(items) != 20 {
			t.Errorf("%d items, want 20", len(items))
		}
		// -o onto an existing .json file continues its array: still one valid array.
		_, stderr, code := jscrawl(t, "run", "--demo", spider, "-o", out)
		if code != 0 {
			t.Fatalf("-o onto an existing .json: exit code %d, stderr:\n%s", code, stderr)
		}
		b2, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b2, &items); err != nil || len(items) != 40 || !bytes.HasPrefix(b2, b[:len(b)-3]) {
			t.Errorf("after -o: %d items (%v), want the 20 first ones and 20 more in one array:\n%s", len(items), err, b2)
		}
	})
	t.Run("several feeds", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		stdout, stderr, code := jscrawl(t, "run", "--demo", spider, "-o", filepath.Join(dir, "a.jsonl"),
			"-O", filepath.Join(dir, "b.json"), "-o", filepath.Join(dir, "c.csv"), "-o", "-:jsonl")
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
		if n := countJSONL(t, filepath.Join(dir, "a.jsonl")); n != 20 {
			t.Errorf("a.jsonl: %d items", n)
		}
		if n := len(jsonLines(t, stdout)); n != 20 {
			t.Errorf("stdout: %d items", n)
		}
		for _, f := range []string{"b.json", "c.csv"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
	})
}

// usageCase is a command line that must exit with code 2, naming names, with nothing on
// stdout.
type usageCase struct {
	name  string
	args  []string
	names string
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := writeFile(t, dir, "tiny.ts", tinySpider)
	badCustom := writeFile(t, dir, "badcustom.ts", strings.Replace(tinySpider, "CONCURRENT_REQUESTS: 4", `CONCURRENT_REQUESTS: "many"`, 1))
	for _, tc := range append([]usageCase{
		{"bad -s value", []string{"run", spider, "-s", "CONCURRENT_REQUESTS=abc"}, "CONCURRENT_REQUESTS"},
		{"-s without =", []string{"run", spider, "-s", "CONCURRENT_REQUESTS"}, "CONCURRENT_REQUESTS"},
		{"-a without a value", []string{"run", spider, "-a", "novalue"}, "novalue"},
		{"unknown flag", []string{"run", spider, "--bogus"}, "bogus"},
		{"unknown flag before the file", []string{"run", "-x", "1", spider}, "-x"},
		{"bad log level", []string{"run", spider, "-L", "LOUD"}, "LOUD"},
		{"bad LOG_LEVEL", []string{"run", spider, "-s", "LOG_LEVEL=LOUD"}, "LOUD"},
		{"unknown feed format", []string{"run", spider, "-o", "items.txt"}, "items.txt"},
		{"no spider file", []string{"run", "-o", "-:jsonl"}, "spider file"},
		{"two spider files", []string{"run", spider, spider}, "spider file"},
		{"bad customSettings value", []string{"run", "--demo", badCustom}, "CONCURRENT_REQUESTS"},
	}, sharedFlagUsageCases(spider, badCustom)...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, tc.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tc.names) {
				t.Errorf("the error does not name %q:\n%s", tc.names, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
		})
	}
}

func TestSpiderFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	noName := writeFile(t, dir, "noname.js", `export default { parse() {} };`)
	for _, tc := range []struct {
		name string
		file string
		want []string
	}{
		// The position is the path as typed, line and column 1-based, then the line itself.
		{"syntax error", "testdata/syntax_error.ts",
			[]string{`testdata/syntax_error.ts:5:52: Expected "}" but found ";"`, `return { title: response.css("h1::text").get() ;`}},
		{"missing file", filepath.Join(dir, "missing.ts"), []string{"missing.ts"}},
		{"no spider name", noName, []string{"noname.js", "name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := jscrawl(t, "run", tc.file, "-o", "-:jsonl")
			if code == 0 {
				t.Errorf("exit code 0 for %s", tc.file)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestDemoExamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file  string
		args  []string
		items int
		check func(t *testing.T, items []map[string]any)
	}{
		{file: "examples/books.ts", items: 100, check: func(t *testing.T, items []map[string]any) {
			titles := map[any]bool{}
			for _, it := range items {
				titles[it["title"]] = true
				if p, _ := it["price"].(float64); p <= 0 {
					t.Errorf("book without a price: %v", it)
				}
				if r, _ := it["rating"].(float64); r < 1 || r > 5 {
					t.Errorf("book with rating %v", it["rating"])
				}
			}
			if len(titles) != 100 {
				t.Errorf("%d distinct titles, want 100", len(titles))
			}
			first := find(items, "title", "Tipping the Velvet & Co")
			if first == nil || first["upc"] != "19a16980fc0cfe1a" || first["price"] != 52.98 ||
				first["rating"] != float64(1) || first["category"] != "Poetry" || first["availability"] != "In stock (13 available)" {
				t.Errorf("book 1: %v", first)
			}
			// Item key order is the spider's.
			if keys := keyOrder(t, first); !slices.Equal(keys, []string{"title", "price", "rating", "availability", "upc", "category", "url"}) {
				t.Errorf("key order %v", keys)
			}
		}},
		{file: "examples/books.ts", args: []string{"-a", "category=travel"}, items: 11, check: onlyTravel},
		{file: "examples/quotes.js", items: 38, check: func(t *testing.T, items []map[string]any) {
			var quotes, authors int
			for _, it := range items {
				switch {
				case it["text"] != nil:
					quotes++
				case it["born"] != nil:
					authors++
				}
			}
			if quotes != 32 || authors != 6 {
				t.Errorf("%d quotes and %d authors, want 32 and 6", quotes, authors)
			}
			if a := find(items, "author", "Jorge Albarrán"); a == nil || a["born"] == nil && a["text"] == nil {
				t.Errorf("no Jorge Albarrán")
			}
		}},
		{file: "examples/crawl.ts", items: 100, check: func(t *testing.T, items []map[string]any) {
			b := find(items, "title", "Tipping the Velvet & Co")
			if b == nil || b["price"] != 52.98 || b["category"] != "Poetry" || b["listing"] == "" {
				t.Errorf("book 1: %v", b)
			}
		}},
		{file: "examples/crawl.ts", args: []string{"-a", "category=travel"}, items: 11, check: onlyTravel},
		{file: "examples/rss.ts", items: 100, check: func(t *testing.T, items []map[string]any) {
			b := find(items, "id", float64(1))
			if b == nil || b["title"] != "Tipping the Velvet & Co" || b["price"] != 52.98 || b["category"] != "Poetry" ||
				b["date"] != "2026-01-01" || !strings.HasSuffix(fmt.Sprint(b["url"]), "/catalogue/tipping-the-velvet-co_1/index.html") {
				t.Errorf("book 1: %v", b)
			}
		}},
		{file: "examples/concurrency.ts", args: []string{"-a", "n=20", "-a", "ms=100"}, items: 1, check: func(t *testing.T, items []map[string]any) {
			if it := items[0]; it["downloads"] != float64(20) || it["ok"] != float64(20) || it["sequential"] != false {
				t.Errorf("concurrency: %v", it)
			}
		}},
		{file: "examples/inline.ts", items: 20, check: func(t *testing.T, items []map[string]any) {
			b := find(items, "id", float64(1))
			if b == nil || b["title"] != "Tipping the Velvet & Co" || b["stock"] != float64(13) || b["category"] != "Poetry" ||
				!strings.HasPrefix(fmt.Sprint(b["description"]), "Tipping the Velvet & Co is a") {
				t.Errorf("book 1: %v", b)
			}
		}},
		{file: "examples/npm-import/spider.ts", items: 20, check: func(t *testing.T, items []map[string]any) {
			for title, slug := range map[string]string{
				"Les Misérables: Été à Paris":    "les-miserables-ete-a-paris",
				"Der Zauberberg — Über die Zeit": "der-zauberberg-uber-die-zeit",
			} {
				if it := find(items, "title", title); it == nil || it["slug"] != slug {
					t.Errorf("%s: %v, want slug %s", title, it, slug)
				}
			}
		}},
	} {
		t.Run(strings.Join(append([]string{tc.file}, tc.args...), " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, append([]string{"run", "--demo", tc.file, "-o", "-:jsonl"}, tc.args...)...)
			items := runItems(t, stdout, stderr, code, tc.items)
			tc.check(t, items)
			_, stats := statsDump(t, stderr)
			for _, k := range []string{"spider_exceptions/count", "log_count/ERROR"} {
				if stats[k] != nil {
					t.Errorf("%s = %v\n%s", k, stats[k], stderr)
				}
			}
			if stats["item_scraped_count"] != float64(tc.items) {
				t.Errorf("item_scraped_count = %v", stats["item_scraped_count"])
			}
		})
	}
}

// find returns the first item whose key has value v.
func find(items []map[string]any, key string, v any) map[string]any {
	for _, it := range items {
		if it[key] == v {
			return it
		}
	}
	return nil
}

// keyOrder returns the keys of an item from jsonLines in the order they were written.
func keyOrder(t *testing.T, it map[string]any) []string {
	t.Helper()
	raw, ok := it["\x00raw"].(string)
	if !ok {
		t.Fatal("item without its raw line")
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestVersion(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := jscrawl(t, "version")
	if code != 0 || stdout != "jscrawl "+types.Version+"\n" {
		t.Errorf("version: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = jscrawl(t, "version", "-v")
	if code != 0 || !strings.HasPrefix(stdout, "jscrawl "+types.Version+"\ngo go1.") {
		t.Errorf("version -v: exit code %d, stdout %q", code, stdout)
	}
}

// TestRobotsTxtDemo: by default the demo site's robots.txt is obeyed: /private/ is not
// fetched and goes to the errback as IgnoreRequest; -s ROBOTSTXT_OBEY=false fetches it.
func TestRobotsTxtDemo(t *testing.T) {
	t.Parallel()
	spider := writeFile(t, t.TempDir(), "private.js", `import { Request } from "jscrawl";
export default class Private {
  name = "private";
  baseUrl = "http://127.0.0.1:1";
  *start() {
    yield new Request(this.baseUrl + "/private/", { errback: "failed" });
    yield new Request(this.baseUrl + "/quotes/");
  }
  *parse(response) { yield { url: response.url.replace(this.baseUrl, "") }; }
  *failed(failure) { yield { failed: failure.request.url.replace(this.baseUrl, ""), name: failure.error.name }; }
}
`)
	for _, tc := range []struct {
		name      string
		args      []string
		want      []string
		forbidden any
	}{
		{"obeyed", nil, []string{`{"failed":"/private/","name":"IgnoreRequest"}`, `{"url":"/quotes/"}`}, float64(1)},
		{"ROBOTSTXT_OBEY=false", []string{"-s", "ROBOTSTXT_OBEY=false"}, []string{`{"url":"/private/"}`, `{"url":"/quotes/"}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"run", "--demo", spider, "-o", "-:jsonl"}, tc.args...)
			stdout, stderr, code := jscrawl(t, args...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			got := strings.Split(strings.TrimSpace(stdout), "\n")
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("items = %q, want %q\n%s", got, tc.want, stderr)
			}
			if _, stats := statsDump(t, stderr); stats["robotstxt/forbidden"] != tc.forbidden {
				t.Errorf("robotstxt/forbidden = %v, want %v", stats["robotstxt/forbidden"], tc.forbidden)
			}
		})
	}
}
