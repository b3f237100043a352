package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// watchSpider requests two pages the test site holds until the test has edited the
// spider; with CONCURRENT_REQUESTS=1 the second (of lower priority) waits in the queue
// meanwhile.
const watchSpider = `import { Request } from "jscrawl";
import { VERSION } from "./version";
export default class W {
  name = "watch";
  *start() {
    this.state.pages = 10;
    yield new Request("BASE/gate/1", { callback: this.parseGate, errback: this.onError, priority: 1 });
    yield new Request("BASE/gate/2", { callback: this.parseOld, errback: this.onError });
  }
  *parseGate(response) { this.state.pages++; yield { url: response.url, version: VERSION, pages: this.state.pages }; }
  *parseOld(response) { yield { url: response.url, old: true }; }
  *onError(failure) { yield { url: failure.request.url, error: failure.error.name + ": " + failure.error.message }; }
}
`

// TestRunWatch edits a spider and its import while run --watch crawls: a broken edit is
// reported with file:line:col and the crawl goes on; the fixed edit and then an edit of
// each import (one the edit added) reload the code, so the request held during the edits runs the new callback
// (with this.state carried over) and the queued request whose callback the edit removed
// reaches its errback.
func TestRunWatch(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan string, 2), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/gate/{n}", func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.PathValue("n")
		<-release
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>gate</p>")
	})
	srv := enginetest.StartWith(t, mux).Server
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	dir := t.TempDir()
	src := strings.ReplaceAll(watchSpider, "BASE", srv.URL)
	writeFile(t, dir, "spider.ts", src)
	writeFile(t, dir, "version.ts", "export const VERSION = 1;\n")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "spider.ts", "--watch", "-o", "items.jsonl",
		"-s", "CONCURRENT_REQUESTS=1", "-s", "ROBOTSTXT_OBEY=false", "-L", "INFO")
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var log []string
	// waitFor reads the log until a line matches re; the log so far is in log.
	waitFor := func(re string) {
		t.Helper()
		rx := regexp.MustCompile(re)
		deadline := time.After(time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("jscrawl ended before logging %q:\n%s", re, strings.Join(log, "\n"))
				}
				log = append(log, l)
				if rx.MatchString(l) {
					return
				}
			case <-deadline:
				t.Fatalf("no log line %q in time:\n%s", re, strings.Join(log, "\n"))
			}
		}
	}
	waitFor(`Watching spider\.ts and its 1 local imports`)
	if n := <-arrived; n != "1" {
		t.Fatalf("first download: /gate/%s, want /gate/1", n)
	}

	// A syntax error: logged with its position, the crawl goes on with the old code.
	writeFile(t, dir, "spider.ts", strings.Replace(src, "*parseOld(response) {", "*parseOld(response) { yield {", 1))
	waitFor(`spider\.ts changed but does not build`)
	waitFor(`^spider\.ts:11:\d+: `)
	// The fixed spider lacks parseOld and imports a new file; then each import changes.
	writeFile(t, dir, "extra.ts", "export const EXTRA = 1;\n")
	fixed := strings.NewReplacer("  *parseOld(response) { yield { url: response.url, old: true }; }\n", "",
		`import { VERSION } from "./version";`, "import { VERSION } from \"./version\";\nimport { EXTRA } from \"./extra\";",
		"pages: this.state.pages }", "pages: this.state.pages, extra: EXTRA }").Replace(src)
	writeFile(t, dir, "spider.ts", fixed)
	waitFor(`Reloaded spider\.ts \(1 requests queued\)`)
	writeFile(t, dir, "version.ts", "export const VERSION = 22;\n")
	waitFor(`Reloaded spider\.ts \(1 requests queued\)`)
	writeFile(t, dir, "extra.ts", "export const EXTRA = 333;\n")
	waitFor(`Reloaded spider\.ts \(1 requests queued\)`)
	close(release)
	released = true
	for l := range lines {
		log = append(log, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("jscrawl run --watch: %v\n%s", err, strings.Join(log, "\n"))
	}
	b, err := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(b), srv.URL, "")), "\n")
	want := []string{
		`{"url":"/gate/1","version":22,"pages":11,"extra":333}`,
		`{"url":"/gate/2","error":"TypeError: spider watch has no method \"parseOld\" for /gate/2 (the code reloaded from spider.ts no longer defines it)"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("items:\n got %s\nwant %s\nlog:\n%s", strings.Join(got, "\n     "), strings.Join(want, "\n     "), strings.Join(log, "\n"))
	}
}
