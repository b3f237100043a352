package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/examples/demosite"
)

// jscrawlIn runs the binary in dir (the package folder when empty) with stdin and returns
// what it wrote and its exit code.
func jscrawlIn(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runJscrawl(t, dir, stdin, nil, args...)
}

// runJscrawl runs the binary in dir with stdin and env (nil: this process's) and returns
// what it wrote and its exit code; it fails the test if the binary cannot run or takes
// more than two minutes.
func runJscrawl(t *testing.T, dir, stdin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code = exitCode(t, ctx, cmd.Run(), args, errOut.String())
	return out.String(), errOut.String(), code
}

// exitCode returns the exit code of a jscrawl run with args that ended with err, and fails
// the test when the binary could not run or ctx (the run's) ran out, with the run's
// stderr.
func exitCode(t *testing.T, ctx context.Context, err error, args []string, stderr string) int {
	t.Helper()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run jscrawl %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("jscrawl %v did not end in time\n%s", args, stderr)
	}
	return code
}

// latin1 is "café" in ISO-8859-1: fetch must not convert it to UTF-8.
var latin1 = []byte("<html><head><title>caf\xe9</title></head><body><p>caf\xe9</p></body></html>\n")

// siteServer serves the pages the command tests read, besides enginetest's routes.
func siteServer(t *testing.T) *httptest.Server {
	t.Helper()
	return enginetest.StartWith(t, siteMux()).Server
}

// siteMux routes siteServer's pages.
func siteMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Header().Set("X-Seen-User-Agent", r.UserAgent())
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(latin1)
		_ = zw.Close()
	})
	mux.HandleFunc("GET /old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/latin1", http.StatusFound)
	})
	mux.HandleFunc("GET /missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	// /list/N: three items and links to /list/N+1 and /list/N+2 (up to 5).
	mux.HandleFunc("GET /list/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>List %d</title></head><body>", n)
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(w, `<p class="item">item %d.%d</p>`, n, i)
		}
		for _, m := range []int{n + 1, n + 2} {
			if m <= 5 {
				fmt.Fprintf(w, `<a href="/list/%d">next</a>`, m)
			}
		}
		fmt.Fprint(w, "</body></html>")
	})
	return mux
}

func TestFetch(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)

	stdout, stderr, code := jscrawl(t, "fetch", srv.URL+"/latin1", "-s", "USER_AGENT=testbot/1.0")
	if code != 0 || stdout != string(latin1) {
		t.Errorf("fetch: exit code %d, body %q (want the gunzipped bytes unchanged)\n%s", code, stdout, stderr)
	}
	// Options after the URL; redirects are followed.
	stdout, stderr, code = jscrawl(t, "fetch", srv.URL+"/old", "--headers", "-s", "USER_AGENT=testbot/1.0")
	if code != 0 || !strings.HasPrefix(stdout, "HTTP/1.1 200 OK\n") ||
		!strings.Contains(stdout, "\nContent-Type: text/html; charset=iso-8859-1\n") ||
		!strings.Contains(stdout, "\nX-Seen-User-Agent: testbot/1.0\n") || strings.Contains(stdout, "caf") {
		t.Errorf("fetch --headers: exit code %d, stdout %q\n%s", code, stdout, stderr)
	}
	stdout, _, code = jscrawl(t, "fetch", "--no-redirect", "--headers", srv.URL+"/old")
	if code != 0 || !strings.HasPrefix(stdout, "HTTP/1.1 302 Found\n") || !strings.Contains(stdout, "\nLocation: /latin1\n") {
		t.Errorf("fetch --no-redirect: exit code %d, stdout %q", code, stdout)
	}
	// A 404 is printed, with a warning, and exits 0 (Scrapy's fetch).
	stdout, stderr, code = jscrawl(t, "fetch", srv.URL+"/missing")
	if code != 0 || stdout != "no such page\n" || !strings.Contains(stderr, "status 404") {
		t.Errorf("fetch 404: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A network error exits 1 and says what failed.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	stdout, stderr, code = jscrawl(t, "fetch", "-s", "RETRY_ENABLED=false", closed.URL+"/x")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, closed.URL+"/x") {
		t.Errorf("fetch of a closed port: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// --spider: the spider's customSettings apply.
	spider := writeFile(t, t.TempDir(), "ua.js", `export default class { name = "ua"; customSettings = { USER_AGENT: "spiderbot/3" }; }`)
	stdout, stderr, code = jscrawl(t, "fetch", "--headers", "--spider", spider, srv.URL+"/latin1")
	if code != 0 || !strings.Contains(stdout, "\nX-Seen-User-Agent: spiderbot/3\n") {
		t.Errorf("fetch --spider: exit code %d, stdout %q\n%s", code, stdout, stderr)
	}
	_, stderr, code = jscrawl(t, "fetch")
	if code != 2 || !strings.Contains(stderr, "fetch needs exactly one URL") {
		t.Errorf("fetch without URL: exit code %d, stderr %q", code, stderr)
	}
}

const listSpider = `import { Request, DropItem } from "jscrawl";
export default class ListSpider {
  name = "list";
  tag = "none";
  *start() { throw new Error("parse does not call start()"); }
  *parse(response, kw) {
    for (const p of response.css("p.item::text").getall()) {
      yield { text: p, tag: this.tag, page: response.meta.page ?? null, kw: kw.id ?? null };
    }
    for (const a of response.css("a::attr(href)").getall()) yield response.follow(a, { callback: "parse" });
  }
  *parseTitle(response) { yield { title: response.css("title::text").get() }; }
  *broken(response) { yield { ok: 1 }; throw new Error("broken callback"); }
}
export const pipelines = [{ processItem(item) { item.piped = true; if (item.text === "item 1.2") throw new DropItem("no 1.2"); return item; } }];
`

// parseLines decodes parse's JSON lines into items and request URLs.
func parseLines(t *testing.T, stdout string) (items []map[string]any, reqs []map[string]any) {
	t.Helper()
	for _, l := range jsonLines(t, stdout) {
		delete(l, "\x00raw")
		switch {
		case l["item"] != nil:
			items = append(items, l["item"].(map[string]any))
		case l["request"] != nil:
			reqs = append(reqs, l["request"].(map[string]any))
		default:
			t.Errorf("unexpected line %v", l)
		}
	}
	return items, reqs
}

func TestParse(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	spider := writeFile(t, t.TempDir(), "list.js", listSpider)

	stdout, stderr, code := jscrawl(t, "parse", srv.URL+"/list/1", "--spider", spider, "-a", "tag=x",
		"--meta", `{"page": 7}`, "--cbkwargs", `{"id": 3}`)
	items, reqs := parseLines(t, stdout)
	if code != 0 || len(items) != 3 || len(reqs) != 2 {
		t.Fatalf("parse: exit code %d, %d items, %d requests\n%s\n%s", code, len(items), len(reqs), stdout, stderr)
	}
	if it := items[0]; it["text"] != "item 1.1" || it["tag"] != "x" || it["page"] != float64(7) || it["kw"] != float64(3) || it["piped"] != nil {
		t.Errorf("item: %v", it)
	}
	if r := reqs[0]; r["url"] != srv.URL+"/list/2" || r["method"] != "GET" || r["callback"] != "parse" || len(r) != 3 {
		t.Errorf("request: %v", r)
	}
	if !strings.Contains(stdout, `{"request":{"url":"`+srv.URL+`/list/2","method":"GET","callback":"parse"}}`) {
		t.Errorf("request line shape: %s", stdout)
	}

	// --depth 2: the yielded requests (2, 3) are parsed too; theirs (3, 4, 5) are printed.
	stdout, stderr, code = jscrawl(t, "parse", "--spider", spider, "--depth", "2", srv.URL+"/list/1")
	items, reqs = parseLines(t, stdout)
	var texts []string
	for _, it := range items {
		texts = append(texts, it["text"].(string))
	}
	slices.Sort(texts)
	if code != 0 || len(items) != 9 || texts[0] != "item 1.1" || texts[8] != "item 3.3" || len(reqs) != 6 {
		t.Errorf("parse --depth 2: exit code %d, items %v, %d requests\n%s", code, texts, len(reqs), stderr)
	}

	stdout, _, code = jscrawl(t, "parse", "--spider", spider, "--depth", "2", "--noitems", srv.URL+"/list/1")
	if items, reqs := parseLines(t, stdout); code != 0 || len(items) != 0 || len(reqs) != 6 {
		t.Errorf("parse --noitems: exit code %d, %d items, %d requests", code, len(items), len(reqs))
	}
	stdout, _, code = jscrawl(t, "parse", "--spider", spider, "--nolinks", srv.URL+"/list/1")
	if items, reqs := parseLines(t, stdout); code != 0 || len(items) != 3 || len(reqs) != 0 {
		t.Errorf("parse --nolinks: exit code %d, %d items, %d requests", code, len(items), len(reqs))
	}

	// --callback; --pipelines runs the pipelines (dropped items are not printed).
	stdout, _, code = jscrawl(t, "parse", srv.URL+"/list/4", "--spider", spider, "--callback", "parseTitle")
	if code != 0 || strings.TrimSpace(stdout) != `{"item":{"title":"List 4"}}` {
		t.Errorf("parse --callback: exit code %d, stdout %q", code, stdout)
	}
	stdout, stderr, code = jscrawl(t, "parse", srv.URL+"/list/1", "--spider", spider, "--pipelines")
	items, _ = parseLines(t, stdout)
	if code != 0 || len(items) != 2 || items[0]["piped"] != true || strings.Contains(stdout, "item 1.2") {
		t.Errorf("parse --pipelines: exit code %d, stdout %s\n%s", code, stdout, stderr)
	}

	// A callback that throws: its outputs so far are printed, the error goes to stderr, exit 1.
	stdout, stderr, code = jscrawl(t, "parse", srv.URL+"/list/1", "--spider", spider, "-c", "broken")
	if code != 1 || strings.TrimSpace(stdout) != `{"item":{"ok":1}}` || !strings.Contains(stderr, "broken callback") {
		t.Errorf("parse of a throwing callback: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A page the callback never sees (404) exits 1 and says what to do.
	stdout, stderr, code = jscrawl(t, "parse", srv.URL+"/missing", "--spider", spider)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "HTTPERROR_ALLOW_ALL") {
		t.Errorf("parse of a 404: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"parse", srv.URL, "--spider", spider, "--meta", "[1]"},
		{"parse", srv.URL, "--spider", spider, "--depth", "0"},
		{"parse", srv.URL},
	} {
		if _, stderr, code := jscrawl(t, args...); code != 2 {
			t.Errorf("%v: exit code %d, want 2\n%s", args, code, stderr)
		}
	}
}

func TestBundle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "slugs.js")
	_, stderr, code := jscrawl(t, "bundle", "examples/npm-import/spider.ts", "-o", out)
	if code != 0 || !strings.Contains(stderr, "Wrote "+out) {
		t.Fatalf("bundle: exit code %d\n%s", code, stderr)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// One plain JS file: the npm package is inlined, "jscrawl" stays an import, no types.
	if !regexp.MustCompile(`import \{[^}]*\} from "jscrawl"`).Match(src) || strings.Contains(string(src), "slugify-lite\"") ||
		strings.Contains(string(src), ": Response") {
		t.Errorf("bundle output:\n%s", src)
	}
	// The bundle runs from a folder without node_modules and gives the same items.
	want, stderr, code := jscrawl(t, "run", "--demo", "examples/npm-import/spider.ts", "-o", "-:jsonl")
	if code != 0 {
		t.Fatalf("run the original: exit code %d\n%s", code, stderr)
	}
	got, stderr, code := jscrawlIn(t, dir, "", "run", "--demo", "slugs.js", "-o", "-:jsonl")
	if code != 0 {
		t.Fatalf("run the bundle: exit code %d\n%s", code, stderr)
	}
	sortLines := func(s string) []string {
		l := strings.Split(strings.TrimSpace(s), "\n")
		slices.Sort(l)
		return l
	}
	if w, g := sortLines(want), sortLines(got); len(w) != 20 || !slices.Equal(w, g) {
		t.Errorf("items of the bundle differ from the original's (%d, %d):\n%s\n---\n%s", len(w), len(g), want, got)
	}

	stdout, _, code := jscrawl(t, "bundle", "examples/npm-import/spider.ts", "--minify", "-o", "-")
	if code != 0 || len(stdout) == 0 || len(stdout) >= len(src) {
		t.Errorf("bundle --minify -o -: exit code %d, %d bytes (unminified %d)", code, len(stdout), len(src))
	}
	bad := writeFile(t, dir, "bad.ts", "export default class {\n  x = 1 +* 2;\n}\n")
	_, stderr, code = jscrawl(t, "bundle", bad, "-o", filepath.Join(dir, "bad.js"))
	if code != 1 || !strings.Contains(stderr, "bad.ts:") || !strings.Contains(stderr, "^") {
		t.Errorf("bundle of a syntax error: exit code %d, stderr %q", code, stderr)
	}
}

func TestSettingsCommand(t *testing.T) {
	t.Parallel()
	spider := writeFile(t, t.TempDir(), "s.js", `export default class { name = "s"; customSettings = { DOWNLOAD_DELAY: 2.5, CONCURRENT_REQUESTS: 3 }; }`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"settings", "--get", "CONCURRENT_REQUESTS"}, "16\n"},
		{[]string{"settings", "--get", "USER_AGENT", "-s", "USER_AGENT=bot/2"}, "bot/2\n"},
		{[]string{"settings", "--get", "DOWNLOAD_DELAY", "--spider", spider}, "2.5\n"},
		{[]string{"settings", "--spider", spider, "--get", "CONCURRENT_REQUESTS", "-s", "CONCURRENT_REQUESTS=9"}, "9\n"},
		{[]string{"settings", "--get", "RETRY_HTTP_CODES"}, "[500,502,503,504,522,524,408,429]\n"},
	} {
		stdout, stderr, code := jscrawl(t, tc.args...)
		if code != 0 || stdout != tc.want {
			t.Errorf("%v: exit code %d, stdout %q, want %q\n%s", tc.args, code, stdout, tc.want, stderr)
		}
	}
	stdout, _, code := jscrawl(t, "settings", "--json", "--spider", spider)
	var all map[string]any
	if err := json.Unmarshal([]byte(stdout), &all); err != nil || code != 0 || all["DOWNLOAD_DELAY"] != 2.5 || all["BOT_NAME"] != "jscrawl" {
		t.Errorf("settings --json: exit code %d, %v, %v", code, err, all)
	}
	stdout, _, code = jscrawl(t, "settings")
	for _, row := range []string{`CONCURRENT_REQUESTS +spider +16`, `BROWSER_EXECUTABLE +operator only +""`,
		`FRONTIER +operator only +""`, `LOG_FILE +spider: relative path +""`, `DOWNLOAD_MAXSIZE +spider: tighten only +1073741824`,
		`FEEDS +spider: checked +\{\}`} {
		if code != 0 || !regexp.MustCompile(`(?m)^`+row+`$`).MatchString(stdout) {
			t.Errorf("settings table: exit code %d, no row %s\n%s", code, row, stdout)
		}
	}
	_, stderr, code := jscrawl(t, "settings", "--get", "NO_SUCH_SETTING")
	if code != 2 || !strings.Contains(stderr, "unknown setting NO_SUCH_SETTING") {
		t.Errorf("settings --get of an unknown key: exit code %d, stderr %q", code, stderr)
	}
}

func TestBench(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := jscrawl(t, "bench", "--timeout", "1.5")
	m := regexp.MustCompile(`^Bench: (\d+) pages in [\d.]+ s \((\d+) pages/min\).*finish reason closespider_timeout\n$`).FindStringSubmatch(stdout)
	if code != 0 || m == nil || m[1] == "0" {
		t.Fatalf("bench: exit code %d, stdout %q\n%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`Crawled [1-9]\d* pages \(at \d+ pages/min\)`).MatchString(stderr) {
		t.Errorf("bench log has no progress line:\n%s", stderr)
	}
}

func TestShell(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	spider := writeFile(t, t.TempDir(), "list.js", listSpider)
	input := strings.Join([]string{
		`response.css("title::text").get()`,
		`response.status`,
		`const texts = response.css(`, // multi-line: an open call ...
		`  "p.item::text"`,
		`).getall()`,
		`function twice(x) {`, // ... and an open block
		`  return x * 2;`,
		`}`,
		`texts.length + twice(10)`,
		`notDefined()`, // an error: shown, and the REPL goes on
		`fetch("` + srv.URL + `/list/4")`,
		`response.url`,
		`const t = await fetch("` + srv.URL + `/list/5")`,
		`t.status`,
		`request.url`,
		`[...spider.parseTitle(response)]`,
		`({ a: 1, b: [1, "x"] })`,
		`console.log("logged", 1 + 1)`,
		`const texts = 3`, // let/const may be declared again
		`.exit`,
		`"not evaluated"`,
	}, "\n") + "\n"
	stdout, stderr, code := jscrawlIn(t, "", input, "shell", srv.URL+"/list/1", "--spider", spider)
	want := []string{
		`'List 1'`,
		`200`,
		`undefined`,
		`undefined`,
		`23`,
		`Uncaught ReferenceError: notDefined is not defined`,
		`<200 ` + srv.URL + `/list/4>`,
		`'` + srv.URL + `/list/4'`,
		`undefined`,
		`200`,
		`'` + srv.URL + `/list/5'`,
		`[ { title: 'List 5' } ]`,
		`{ a: 1, b: [ 1, 'x' ] }`,
		`logged 2`,
		`undefined`,
		`undefined`,
	}
	got := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	// Error stacks add "    at ..." lines: keep the first line of each output.
	got = slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "\tat ") || strings.HasPrefix(l, "    at ") })
	if code != 0 || !slices.Equal(got, want) {
		t.Errorf("shell: exit code %d\ngot:\n%s\nwant:\n%s\nstderr:\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
	}
	if !strings.Contains(stderr, `response: <200 `+srv.URL+`/list/1>`) {
		t.Errorf("shell banner: %q", stderr)
	}

	// Without a URL and a spider; EOF ends the REPL with 0; .help works.
	stdout, stderr, code = jscrawlIn(t, "", "response\n.help\n1 +\n1\n", "shell")
	if code != 0 || !strings.HasPrefix(stdout, "undefined\nGlobals:") || !strings.HasSuffix(stdout, "\n2\n") {
		t.Errorf("shell without URL: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A local file is read, as Scrapy's shell does.
	page := writeFile(t, t.TempDir(), "page.html", "<html><head><title>Saved</title></head></html>")
	stdout, stderr, code = jscrawlIn(t, "", "response.css(\"title::text\").get()\nresponse.url.startsWith(\"file:///\")\n", "shell", page)
	if code != 0 || stdout != "'Saved'\ntrue\n" {
		t.Errorf("shell FILE: exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A fetch that fails is an error in the REPL, not the end of it.
	stdout, _, code = jscrawlIn(t, "", "fetch(\"http://127.0.0.1:1/\")\n\"still here\"\n", "shell", "-s", "RETRY_ENABLED=false")
	if code != 0 || !strings.HasPrefix(stdout, "Uncaught ConnectionRefusedError") || !strings.HasSuffix(stdout, "'still here'\n") {
		t.Errorf("shell fetch error: exit code %d, stdout %q", code, stdout)
	}
}

func TestShellRestartsAfterTimeout(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	input := "let kept = 1\nwhile (true) {}\ntypeof kept\nresponse.url\n"
	stdout, stderr, code := jscrawlIn(t, "", input, "shell", srv.URL+"/list/2", "-s", "JS_CALLBACK_TIMEOUT=0.3")
	want := "undefined\nUncaught: the JS VM was interrupted and restarted: variables defined so far are gone\n'undefined'\n'" + srv.URL + "/list/2'\n"
	if code != 0 || stdout != want {
		t.Errorf("shell after an endless loop: exit code %d, stdout %q, want %q\n%s", code, stdout, want, stderr)
	}
}

func TestCommandHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"run", "fetch", "parse", "bundle", "bench", "settings", "shell", "version", "demo", "new", "types", "test"} {
		stdout, stderr, code := jscrawl(t, cmd, "--help")
		if code != 0 || !strings.Contains(stdout, "jscrawl "+cmd) {
			t.Errorf("%s --help: exit code %d\n%s%s", cmd, code, stdout, stderr)
		}
		if cmd != "version" && !strings.Contains(stdout, "Examples:") {
			t.Errorf("%s --help has no examples:\n%s", cmd, stdout)
		}
	}
}

// guideDemo starts the demo site for a test of a docs example and returns its base URL and
// a function that rewrites the docs' http://127.0.0.1:8000 to it.
func guideDemo(t *testing.T) (base string, fix func(string) string) {
	t.Helper()
	srv, err := demosite.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	base = strings.TrimSuffix(srv.URL(), "/")
	return base, func(s string) string { return strings.ReplaceAll(s, "http://127.0.0.1:8000", base) }
}

// guideExample returns the submatches of the regular expression re in docs/guide.md, and
// fails the test, naming what, when there is no match.
func guideExample(t *testing.T, re, what string) [][]byte {
	t.Helper()
	guide, err := os.ReadFile("docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(re).FindSubmatch(guide)
	if m == nil {
		t.Fatalf("no %s in docs/guide.md", what)
	}
	return m
}

// TestGuideShellSession replays the shell session shown in docs/guide.md against the demo
// site: the lines after "> " and "... " are typed, the others are the expected output.
func TestGuideShellSession(t *testing.T) {
	t.Parallel()
	m := guideExample(t, "(?s)### `jscrawl shell`.*?```sh\n(jscrawl shell [^\n]*)\n```\n```text\n(.*?)```", "shell session")
	base, fix := guideDemo(t)
	var input, want strings.Builder
	for _, l := range strings.Split(strings.TrimRight(string(m[2]), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "> "):
			input.WriteString(fix(l[2:]) + "\n")
		case strings.HasPrefix(l, "... "):
			input.WriteString(fix(l[4:]) + "\n")
		default:
			want.WriteString(fix(l) + "\n")
		}
	}
	args := append(strings.Fields(fix(string(m[1])))[1:], "-a", "baseUrl="+base)
	stdout, stderr, code := jscrawlIn(t, "", input.String(), args...)
	if code != 0 || stdout != want.String() {
		t.Errorf("guide's shell session: exit code %d\ngot:\n%s\nwant:\n%s\n%s", code, stdout, want.String(), stderr)
	}
}

// TestShellCtrlC interrupts an endless loop typed at the shell with SIGINT: the loop stops,
// the VM restarts with response still bound, and the REPL goes on.
func TestShellCtrlC(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "shell", srv.URL+"/list/3")
	stdin, stdout, stderr := enginetest.StartPiped(t, cmd)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("shell ended early\n%s", stderr.String())
			}
			return l
		case <-ctx.Done():
			t.Fatalf("no output in time\n%s", stderr.String())
		}
		return ""
	}
	_, _ = io.WriteString(stdin, "let kept = 1\nconsole.log(\"looping\"); while (true) {}\n")
	if l := next(); l != "undefined" {
		t.Fatalf("first line %q", l)
	}
	if l := next(); l != "looping" {
		t.Fatalf("second line %q", l)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if l := next(); l != "Uncaught: interrupted; the JS VM was interrupted and restarted: variables defined so far are gone" {
		t.Errorf("after Ctrl-C: %q", l)
	}
	_, _ = io.WriteString(stdin, "typeof kept\nresponse.url\n.exit\n")
	_ = stdin.Close()
	for _, want := range []string{"'undefined'", "'" + srv.URL + "/list/3'"} {
		if l := next(); l != want {
			t.Errorf("got %q, want %q", l, want)
		}
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("shell: %v\n%s", err, stderr.String())
	}
}

func TestVersionVerbose(t *testing.T) {
	t.Parallel()
	stdout, _, code := jscrawl(t, "version", "-v")
	for _, dep := range []string{"\ngo go1.", "\ngithub.com/dop251/goja v", "\ngithub.com/evanw/esbuild v"} {
		if code != 0 || !strings.Contains(stdout, dep) {
			t.Errorf("version -v lacks %q: exit code %d\n%s", dep, code, stdout)
		}
	}
}

// TestGuideParseExample runs the parse example of docs/guide.md against the demo site and
// checks the first line it shows.
func TestGuideParseExample(t *testing.T) {
	t.Parallel()
	m := guideExample(t, "(?s)### `jscrawl parse`.*?```sh\n(jscrawl parse [^\n]*)\n```\n```text\n([^\n]*)\n", "parse example")
	_, fix := guideDemo(t)
	stdout, stderr, code := jscrawl(t, strings.Fields(fix(string(m[1])))[1:]...)
	if first, _, _ := strings.Cut(stdout, "\n"); code != 0 || first != fix(string(m[2])) {
		t.Errorf("guide's parse example: exit code %d, first line %q, want %q\n%s", code, first, fix(string(m[2])), stderr)
	}
}

// TestProxyFromEnvironment: http_proxy / https_proxy / no_proxy from the environment send
// downloads through a proxy (net/http reads them once per process, so each case is its own
// jscrawl process); HTTPPROXY_ENABLED=false and no_proxy go direct.
func TestProxyFromEnvironment(t *testing.T) {
	t.Parallel()
	var proxied enginetest.Recorder[string]
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(r.Method + " " + r.URL.String())
		fmt.Fprint(w, "via proxy: "+r.URL.Host)
	}))
	defer proxy.Close()
	// A host that does not resolve: only the proxy can answer for it.
	const target = "http://jscrawl-proxy-test.invalid/page"
	for _, tc := range []struct {
		name    string
		env     []string
		args    []string
		viaProx bool
	}{
		{"http_proxy", []string{"http_proxy=" + proxy.URL}, nil, true},
		{"HTTP_PROXY", []string{"HTTP_PROXY=" + proxy.URL}, nil, true},
		{"no_proxy", []string{"http_proxy=" + proxy.URL, "no_proxy=.invalid"}, nil, false},
		{"HTTPPROXY_ENABLED=false", []string{"http_proxy=" + proxy.URL}, []string{"-s", "HTTPPROXY_ENABLED=false"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"fetch", "-s", "RETRY_ENABLED=false", "-s", "ROBOTSTXT_OBEY=false"}, tc.args...)
			// The machine's own proxy variables would win or interfere: leave them out.
			var env []string
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); !slices.Contains([]string{"http_proxy", "https_proxy", "no_proxy", "all_proxy"}, strings.ToLower(k)) {
					env = append(env, kv)
				}
			}
			stdout, stderr, code := runJscrawl(t, "", "", append(env, tc.env...), append(args, target)...)
			if tc.viaProx {
				if code != 0 || stdout != "via proxy: jscrawl-proxy-test.invalid" {
					t.Fatalf("exit code %d, stdout %q\n%s", code, stdout, stderr)
				}
				return
			}
			if code == 0 {
				t.Fatalf("went through the proxy: stdout %q", stdout)
			}
		})
	}
	if seen := proxied.All(); len(seen) != 2 || seen[0] != "GET "+target {
		t.Errorf("the proxy saw %v, want two GET %s", seen, target)
	}
}

var promptRe = regexp.MustCompile(`> |\.\.\. `)

// scriptPTY returns the path of script(1), which runs a command on a pseudo-terminal; it
// skips the test when there is none or it cannot make one here.
func scriptPTY(t *testing.T) string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: no pseudo-terminal")
	}
	if out, err := exec.Command(script, "-qec", "true", "/dev/null").CombinedOutput(); err != nil {
		t.Skipf("script(1) cannot make a pseudo-terminal here: %v %s", err, out)
	}
	return script
}

// TestShellTerminal drives the shell on a real terminal (a pseudo-terminal made by
// script(1)): line editing with history (the up arrow recalls earlier inputs), multi-line
// input, Ctrl-C clearing the line, and Ctrl-D leaving. Each input is sent once the shell's
// prompt for it has appeared.
func TestShellTerminal(t *testing.T) {
	t.Parallel()
	script := scriptPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qfec", bin+" shell", "/dev/null")
	cache := t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+cache, "TERM=xterm")
	stdin, stdout, _ := enginetest.StartPiped(t, cmd)
	var mu sync.Mutex
	var out strings.Builder
	grew := make(chan struct{}, 1)
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := stdout.Read(b)
			mu.Lock()
			out.Write(b[:n])
			mu.Unlock()
			select {
			case grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	// prompts waits until the output holds n prompts ("> " or the continuation "... ")
	// and returns what came after the previous one.
	seen := 0
	prompts := func(n int) string {
		t.Helper()
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if parts := promptRe.Split(s, -1); len(parts) > n {
				seen = n
				return parts[n-1]
			}
			select {
			case <-grew:
			case <-ctx.Done():
				t.Fatalf("waited for prompt %d; the terminal shows:\n%q", n, s)
			}
		}
	}
	send := func(s string) {
		if _, err := io.WriteString(stdin, s); err != nil {
			t.Fatal(err)
		}
	}
	prompts(1)
	for _, step := range []struct{ input, want string }{
		{"1+1\r", "2\r\n"},
		{"[40 +\r", ""}, // incomplete: a continuation prompt, "... "
		{"2].length\r", "1\r\n"},
		{"\x1b[A\x1b[A\x1b[A\r", "2\r\n"}, // up three times: 1+1 again
		{"\x03", "(To exit, press Ctrl-C again or Ctrl-D or type .exit)"},
		{"6*7\r", "42\r\n"},
	} {
		send(step.input)
		got := prompts(seen + 1)
		if !strings.Contains(got, step.want) {
			t.Errorf("after %q the terminal shows %q, want %q", step.input, got, step.want)
		}
	}
	send("\x04")
	if err := cmd.Wait(); err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("exit: %v\n%q", err, out.String())
	}
}
