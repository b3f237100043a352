package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// manySpider yields 3000 items of varied sizes from one demo page, as fast as it can.
const manySpider = `import { Request } from "jscrawl";
export default class Many {
  name = "many";
  baseUrl = "http://127.0.0.1:1";
  *start() { yield new Request(this.baseUrl + "/catalogue/page-1.html"); }
  *parse(response) {
    for (let i = 0; i < 3000; i++) {
      yield { i, title: "book " + i, pad: "x".repeat(i % 97) };
    }
  }
}
`

// statInt reads one integer stat from the stats dump in a log.
func statInt(t *testing.T, log, key string) int {
	t.Helper()
	m := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `": (\d+)`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no stat %s in the log:\n%s", key, log)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestFeedFullDisk runs the binary with a 16 KiB file-size limit (RLIMIT_FSIZE, set by the
// shell's ulimit before it execs jscrawl), so the feed's writes fail with EFBIG as on a
// full disk. The crawl must stop with finish_reason feed_error and exit code 1, log the
// failure once, count it, count as scraped exactly the items in the file, and leave only
// whole records there.
func TestFeedFullDisk(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for ulimit -f")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "many.ts"), []byte(manySpider), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"jsonl", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "items."+format)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			// SIGXFSZ would kill a process that does not ignore it; Go's runtime does, so
			// write returns EFBIG (a death by signal fails the exit code check).
			cmd := exec.CommandContext(ctx, "bash", "-c", `ulimit -f 16 && exec "$0" "$@"`,
				bin, "run", "--demo", filepath.Join(dir, "many.ts"), "-O", out, "-s", "LOG_LEVEL=INFO")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v, want exit code 1\n%s", err, stderr.String())
			}
			log := stderr.String()
			if !strings.Contains(log, `"finish_reason": "feed_error"`) {
				t.Errorf("finish_reason is not feed_error:\n%s", log)
			}
			if n := strings.Count(log, "file too large"); n != 1 || !strings.Contains(log, "ERROR: Feed failed, closing the spider (FEED_ERRORS=stop): feed "+out) {
				t.Errorf("the failure is logged %d times, want once naming %s:\n%s", n, out, log)
			}
			if n := strings.Count(log, "] ERROR:"); n != 1 || statInt(t, log, "log_count/ERROR") != 1 {
				t.Errorf("%d ERROR lines, want 1:\n%s", n, log)
			}
			scraped := statInt(t, log, "item_scraped_count")
			if failed := statInt(t, log, "feedexport/failed_count/"+format); failed == 0 || failed+scraped != 3000 {
				t.Errorf("feedexport/failed_count/%s = %d and item_scraped_count = %d, want them to add up to 3000", format, failed, scraped)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 16<<10 {
				t.Fatalf("file of %d bytes past the limit", len(b))
			}
			var items []map[string]any
			switch format {
			case "jsonl":
				if !strings.HasSuffix(string(b), "\n") {
					t.Errorf("the file ends in a partial line: %q", b[max(len(b)-40, 0):])
				}
				for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
					var it map[string]any
					if err := json.Unmarshal([]byte(line), &it); err != nil {
						t.Fatalf("line %q: %v", line, err)
					}
					items = append(items, it)
				}
			case "json": // left unclosed: whole items after "["
				if err := json.Unmarshal(append(b, "\n]"...), &items); err != nil {
					t.Fatalf("the file plus \"]\" does not parse: %v\n%q", err, b[max(len(b)-80, 0):])
				}
			case "csv":
				if !strings.HasSuffix(string(b), "\n") {
					t.Errorf("the file ends in a partial row: %q", b[max(len(b)-40, 0):])
				}
				rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows[1:] {
					items = append(items, map[string]any{"i": r[0]})
				}
			}
			if len(items) != scraped {
				t.Errorf("%d items in the file, item_scraped_count %d", len(items), scraped)
			}
			for i, it := range items {
				if s := strings.TrimSuffix(strings.TrimSpace(jsonString(it["i"])), ".0"); s != strconv.Itoa(i) {
					t.Fatalf("item %d is %v: items out of order or lost", i, it)
				}
			}
		})
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// endlessSpider yields items without end, a few every millisecond, until it is killed; with
// the argument run=2 it yields 5 items.
const endlessSpider = `import { Request, sleep } from "jscrawl";
export default class Slow {
  name = "slow";
  baseUrl = "http://127.0.0.1:1";
  *start() { yield new Request(this.baseUrl + "/catalogue/page-1.html"); }
  async *parse(response) {
    const n = this.run === "2" ? 5 : Infinity;
    for (let i = 0; i < n; i++) {
      yield { run: this.run, i, pad: "y".repeat(i % 50) };
      if (i % 5 === 4) await sleep(1);
    }
  }
}
`

// TestFeedKilled kills (SIGKILL) a run writing -O items.{json,xml,jsonl} once the file
// holds items, and checks that the file keeps them and that a second run with -o and a
// limit continues it into one valid document.
func TestFeedKilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := filepath.Join(dir, "slow.ts")
	if err := os.WriteFile(spider, []byte(endlessSpider), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "jsonl", "xml"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "items."+format)
			cmd := exec.Command(bin, "run", "--demo", spider, "-O", out, "-a", "run=1", "-s", "LOG_LEVEL=INFO", "-s", "JS_CALLBACK_TIMEOUT=600")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for {
				if b, _ := os.ReadFile(out); strings.Count(string(b), "\"run\"")+strings.Count(string(b), "<run>") >= 50 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no 50 items in a minute\n%s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond) // polling the file, not synchronising
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			killed, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			stdout, log, code := jscrawl(t, "run", "--demo", spider, "-o", out, "-a", "run=2", "-s", "LOG_LEVEL=INFO")
			if code != 0 {
				t.Fatalf("second run: exit code %d\n%s%s", code, stdout, log)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var runs []string
			switch format {
			case "json":
				var items []map[string]any
				if err := json.Unmarshal(b, &items); err != nil {
					t.Fatalf("not one JSON array after the second run: %v\n%s", err, b[max(len(b)-200, 0):])
				}
				for _, it := range items {
					runs = append(runs, jsonString(it["run"]))
				}
				if !strings.Contains(log, "was left unclosed") {
					t.Errorf("no warning about the unclosed array:\n%s", log)
				}
			case "jsonl":
				for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
					var it map[string]any
					if err := json.Unmarshal([]byte(line), &it); err != nil {
						t.Fatalf("line %q: %v", line, err)
					}
					runs = append(runs, jsonString(it["run"]))
				}
			case "xml":
				if !strings.HasSuffix(string(b), "</items>\n") || strings.Count(string(b), "<items>") != 1 {
					t.Fatalf("not one <items> document:\n%s", b[max(len(b)-200, 0):])
				}
				for _, m := range regexp.MustCompile(`<run>(\d)</run>`).FindAllStringSubmatch(string(b), -1) {
					runs = append(runs, m[1])
				}
			}
			first := strings.Count(strings.Join(runs, ""), "1")
			if first < 50 || len(runs)-first != 5 || runs[len(runs)-1] != "2" {
				t.Errorf("%d items of the killed run (want >= 50) and %d of the second (want 5); killed file ended %q",
					first, len(runs)-first, killed[max(len(killed)-60, 0):])
			}
		})
	}
}

// TestFeedTargetsOnce checks that two feeds on one target are refused with exit code 2 and
// the reason, and that FEED_ERRORS takes only its two values.
func TestFeedTargetsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := filepath.Join(dir, "many.ts")
	if err := os.WriteFile(spider, []byte(manySpider), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "items.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"-o and -O of one file", []string{"-o", out, "-O", out}, "names the same feed target"},
		{"one file two ways", []string{"-o", out, "-o", "file://" + out + ":jsonl"}, "names the same feed target"},
		{"two stdout feeds", []string{"-o", "-:jsonl", "-o", "-:csv"}, "names the same feed target (stdout)"},
		{"stdout twice by name", []string{"-o", "-:jsonl", "-O", "stdout::csv"}, "names the same feed target (stdout)"},
		{"FEEDS and -o on stdout", []string{"-o", "-:jsonl", "-s", `FEEDS={"stdout:": {"format": "csv"}}`}, "names the same feed target (stdout)"},
		{"FEED_ERRORS", []string{"-s", "FEED_ERRORS=skip"}, `setting FEED_ERRORS: out of range: must be one of stop, ignore`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"run", spider}, tc.args...)
			stdout, stderr, code := jscrawl(t, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit code %d, want 2 with %q:\n%s", code, tc.want, stderr)
			}
			if stdout != "" {
				t.Errorf("wrote to stdout: %q", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was created", out)
			}
		})
	}
}

// TestCloseSpiderItemCountExact checks that CLOSESPIDER_ITEMCOUNT=5 on a page of 20 items
// writes exactly 5 to the feed and counts the 15 others as dropped.
func TestCloseSpiderItemCountExact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := writeFile(t, dir, "tiny.ts", tinySpider)
	out := filepath.Join(dir, "items.jsonl")
	_, log, code := jscrawl(t, "run", "--demo", spider, "-o", out, "-s", "CLOSESPIDER_ITEMCOUNT=5", "-s", "LOG_LEVEL=INFO")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, log)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 5 || statInt(t, log, "item_scraped_count") != 5 {
		t.Errorf("%d items in the feed, item_scraped_count %d, want 5\n%s", n, statInt(t, log, "item_scraped_count"), log)
	}
	if n := statInt(t, log, "item_dropped_reasons_count/closespider_itemcount"); n != 15 {
		t.Errorf("item_dropped_reasons_count/closespider_itemcount = %d, want 15", n)
	}
}
