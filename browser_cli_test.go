package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// TestFetchBrowser: fetch --browser and --wait-for print the DOM Chromium rendered (the
// demo site's /js/ catalogue, whose products a plain download does not see), --headers
// shows the main document's, a page that never shows the selector fails with
// BROWSER_TIMEOUT's hint, and the Chromium fetch started is closed (its temporary profile
// is removed) before fetch exits.
func TestFetchBrowser(t *testing.T) {
	t.Parallel()
	enginetest.RequireBrowser(t)
	base, _ := guideDemo(t)
	page := base + "/js/catalogue/page-1.html"
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)
	fetch := func(args ...string) (string, string, int) {
		return runJscrawl(t, "", "", env, append([]string{"fetch"}, args...)...)
	}

	plain, stderr, code := fetch(page)
	if code != 0 || !strings.Contains(plain, `data-view="catalogue"`) || strings.Contains(plain, "product_pod") {
		t.Fatalf("fetch: exit code %d, want the empty shell\n%s\n%s", code, plain, stderr)
	}
	for _, args := range [][]string{
		{"--wait-for", "article.product_pod", page},
		{page, "--browser", "--wait-for", "li.next"}, // options after the URL
	} {
		rendered, stderr, code := fetch(args...)
		if code != 0 || strings.Count(rendered, `<article class="product_pod"`) != 20 ||
			!strings.Contains(rendered, `title="Tipping the Velvet &amp; Co"`) || !strings.Contains(rendered, `<li class="next"><a href="page-2.html">`) {
			t.Errorf("fetch %v: exit code %d, want the 20 rendered products\n%s\n%s", args, code, rendered, stderr)
		}
	}
	headers, stderr, code := fetch("--browser", "--headers", base+"/js/more/")
	if code != 0 || !strings.HasPrefix(headers, "200 OK\n") && !strings.HasPrefix(headers, "HTTP/1.1 200 OK\n") ||
		!strings.Contains(headers, "\nContent-Type: text/html; charset=utf-8\n") {
		t.Errorf("fetch --browser --headers: exit code %d, stdout %q\n%s", code, headers, stderr)
	}
	out, stderr, code := fetch("--wait-for", "#never", "-s", "BROWSER_TIMEOUT=1", "-s", "RETRY_ENABLED=false", page)
	if code != 1 || out != "" || !strings.Contains(stderr, "BROWSER_TIMEOUT=SECONDS allows more time") {
		t.Errorf("fetch --wait-for a missing selector: exit code %d, stdout %q, stderr %q", code, out, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "chromedp-runner*")); len(left) > 0 {
		t.Errorf("Chromium's temporary profiles are left behind: %v", left)
	}
}

// TestBrowserFlagsWithoutChromium: with no Chromium to start, fetch --browser fails with
// the install hint, and a bad --wait-for is a usage error; neither needs a browser.
func TestBrowserFlagsWithoutChromium(t *testing.T) {
	t.Parallel()
	out, stderr, code := jscrawl(t, "fetch", "--browser", "-s", "BROWSER_EXECUTABLE=/nonexistent/chromium", "http://127.0.0.1:1/")
	if code != 1 || out != "" || !strings.Contains(stderr, "apt-get install chromium") || strings.Contains(stderr, "allows more time") {
		t.Errorf("fetch --browser without Chromium: exit code %d, stdout %q, stderr %q", code, out, stderr)
	}
	for _, cmd := range []string{"fetch", "parse", "shell"} {
		if _, stderr, code := jscrawl(t, cmd, "--browser", "--badflag", "http://127.0.0.1:1/"); code != 2 || !strings.Contains(stderr, "badflag") {
			t.Errorf("%s --browser --badflag: exit code %d, stderr %q", cmd, code, stderr)
		}
	}
}

// browserParseSpider reads the rendered catalogue (parse) and a rendered detail page
// (parseBook), and says whether it got a browser response.
const browserParseSpider = `export default class {
  name = "rendered";
  *parse(response) {
    yield { products: response.css("article.product_pod").length, browser: response.meta.browser ?? null };
  }
  *parseBook(response) {
    yield { title: response.css("article.product_page h1::text").get(), upc: response.css("td.upc::text").get() };
  }
}
`

// TestParseBrowser: parse --browser (or --wait-for) gives the callback the rendered DOM, and
// a browser key in --meta gives all the options.
func TestParseBrowser(t *testing.T) {
	t.Parallel()
	enginetest.RequireBrowser(t)
	base, _ := guideDemo(t)
	spider := writeFile(t, t.TempDir(), "rendered.js", browserParseSpider)
	page := base + "/js/catalogue/page-1.html"
	for _, tc := range []struct {
		name     string
		args     []string
		products float64
		browser  any
	}{
		{"plain", nil, 0, nil},
		{"wait-for", []string{"--wait-for", "article.product_pod"}, 20, map[string]any{"waitFor": "article.product_pod"}},
		{"meta", []string{"--browser", "--meta", `{"browser": {"waitFor": "li.next", "waitUntil": "domcontentloaded"}}`}, 20,
			map[string]any{"waitFor": "li.next", "waitUntil": "domcontentloaded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, append([]string{"parse", page, "--spider", spider}, tc.args...)...)
			items, _ := parseLines(t, stdout)
			if code != 0 || len(items) != 1 {
				t.Fatalf("exit code %d, items %v\n%s", code, items, stderr)
			}
			if items[0]["products"] != tc.products || !equalJSON(items[0]["browser"], tc.browser) {
				t.Errorf("item %v, want %v products and meta.browser %v", items[0], tc.products, tc.browser)
			}
		})
	}
	stdout, stderr, code := jscrawl(t, "parse", base+"/js/catalogue/tipping-the-velvet-co_1/index.html", "--spider", spider,
		"--callback", "parseBook", "--wait-for", "td.upc")
	items, _ := parseLines(t, stdout)
	if code != 0 || len(items) != 1 || items[0]["title"] != "Tipping the Velvet & Co" || items[0]["upc"] != "19a16980fc0cfe1a" {
		t.Errorf("parse --callback parseBook --wait-for: exit code %d, items %v\n%s", code, items, stderr)
	}
}

// TestShellBrowser: shell --browser binds response to the rendered page, fetch(url, {
// browser: true }) renders another, and the Chromium is closed when the shell ends.
func TestShellBrowser(t *testing.T) {
	t.Parallel()
	enginetest.RequireBrowser(t)
	base, _ := guideDemo(t)
	input := strings.Join([]string{
		`response.css("article.product_pod").length`,
		`response.css("li.current::text").get()`,
		`await fetch("` + base + `/js/catalogue/page-2.html", { browser: { waitFor: "article.product_pod" } })`,
		`response.css("li.current::text").get()`,
		`await fetch("` + base + `/js/catalogue/page-3.html")`,
		`response.css("article.product_pod").length`,
	}, "\n") + "\n"
	tmp := t.TempDir()
	stdout, stderr, code := runJscrawl(t, "", input, append(os.Environ(), "TMPDIR="+tmp),
		"shell", "--wait-for", "article.product_pod", base+"/js/catalogue/page-1.html")
	want := []string{
		`20`,
		`'Page 1 of 5'`,
		`<200 ` + base + `/js/catalogue/page-2.html>`,
		`'Page 2 of 5'`,
		`<200 ` + base + `/js/catalogue/page-3.html>`,
		`0`, // a plain fetch: the empty shell
	}
	if got := strings.Split(strings.TrimRight(stdout, "\n"), "\n"); code != 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("shell --wait-for: exit code %d\ngot:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, strings.Join(want, "\n"), stderr)
	}
	if !strings.Contains(stderr, `response: <200 `+base+`/js/catalogue/page-1.html>`) {
		t.Errorf("shell banner: %q", stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "chromedp-runner*")); len(left) > 0 {
		t.Errorf("the shell left Chromium's temporary profile behind: %v", left)
	}
}

// equalJSON reports whether a and b have the same JSON form.
func equalJSON(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && bytes.Equal(x, y)
}

// TestBrowserExample runs examples/browser.ts against the demo site: the rendered
// catalogue's 100 books (each from its rendered detail page), the 32 quotes of the
// infinite scroll (page.scroll) and the 100 books of the "load more" list (page.click),
// every page rendered once, no error.
func TestBrowserExample(t *testing.T) {
	t.Parallel()
	enginetest.RequireBrowser(t)
	// Rendering 107 pages takes a while on a loaded machine: more than runJscrawl's two
	// minutes.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--demo", "examples/browser.ts", "-o", "-:jsonl")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run --demo examples/browser.ts: %v\n%s", err, stderr.String())
	}
	items := jsonLines(t, stdout.String())
	byKind := map[string][]map[string]any{}
	for _, it := range items {
		k := fmt.Sprint(it["kind"])
		byKind[k] = append(byKind[k], it)
	}
	for kind, want := range map[string]int{"book": 100, "quote": 32, "listed": 100} {
		ids := map[any]bool{}
		for _, it := range byKind[kind] {
			ids[it["id"]] = true
			ids[it["text"]] = true
		}
		if len(byKind[kind]) != want || len(ids) != want+1 { // +1: the absent key's nil
			t.Errorf("%d distinct %s items of %d, want %d", len(ids)-1, kind, len(byKind[kind]), want)
		}
	}
	if len(items) != 232 {
		t.Errorf("%d items, want 232", len(items))
	}
	book := find(byKind["book"], "id", float64(1))
	if book == nil || book["title"] != "Tipping the Velvet & Co" || book["price"] != 52.98 || book["rating"] != float64(1) ||
		book["stock"] != float64(13) || book["upc"] != "19a16980fc0cfe1a" || book["category"] != "Poetry" ||
		!strings.HasSuffix(fmt.Sprint(book["url"]), "/js/catalogue/tipping-the-velvet-co_1/index.html") {
		t.Errorf("book 1: %v", book)
	}
	if q := byKind["quote"]; len(q) == 0 || q[0]["text"] != "“A map is a promise that the road will still be there.”" ||
		q[0]["author"] != "Émile Durand" || !equalJSON(q[0]["tags"], []string{"maps", "travel"}) {
		t.Errorf("first quote: %v", q)
	}
	if l := find(byKind["listed"], "id", float64(100)); l == nil || l["title"] == "" || l["price"] == float64(0) {
		t.Errorf("listed book 100: %v", l)
	}
	_, stats := statsDump(t, stderr.String())
	if stats["browser/page_count"] != float64(107) || stats["item_scraped_count"] != float64(232) ||
		stats["browser/blocked_resource_count"] == nil {
		t.Errorf("stats: browser/page_count %v (want 107), item_scraped_count %v, browser/blocked_resource_count %v",
			stats["browser/page_count"], stats["item_scraped_count"], stats["browser/blocked_resource_count"])
	}
	for _, k := range []string{"spider_exceptions/count", "log_count/ERROR", "downloader/exception_count"} {
		if stats[k] != nil {
			t.Errorf("%s = %v\n%s", k, stats[k], stderr.String())
		}
	}
}
