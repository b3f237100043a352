package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/sandbox"
	"github.com/jscrawl/jscrawl/types"
)

// workdir makes a working folder holding a real folder, a symlink to a folder outside,
// a symlink to a folder inside, a dangling symlink that points outside and a symlinked
// file outside.
func workdir(t *testing.T) string {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"exports", "cache"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "bashrc"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"out":        outside,
		"in":         filepath.Join(dir, "exports"),
		"dangling":   filepath.Join(outside, "not-yet"),
		"bashrc.csv": filepath.Join(outside, "bashrc"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestInside(t *testing.T) {
	t.Parallel()
	dir := workdir(t)
	for _, tc := range []struct {
		path string
		want string // "" passes; else a part of the error
	}{
		{"", ""},
		{"items.jsonl", ""},
		{"exports/%(name)s-%(time)s.jsonl", ""},
		{"exports/new/deeper/items.csv", ""},
		{"./exports/items.csv", ""},
		{"in/items.csv", ""},
		{".jscrawl/httpcache", ""},
		{"/etc/passwd", "absolute"},
		{"/home/user/.bashrc", "absolute"},
		{`\server\share`, "absolute"},
		{"../items.jsonl", `".."`},
		{"exports/../../items.jsonl", `".."`},
		{"exports/../items.jsonl", `".."`},
		{"out/items.jsonl", "resolves outside"},
		{"out", "resolves outside"},
		{"out/new/folder/items.jsonl", "resolves outside"},
		{"bashrc.csv", "resolves outside"},
		{"dangling", "does not resolve"},
		{"dangling/x.jsonl", "does not resolve"},
	} {
		err := sandbox.Inside(dir, tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Inside(%q) = %v, want it to pass", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Inside(%q) = %v, want an error with %q", tc.path, err, tc.want)
		}
	}
}

// TestCheckSettings runs one spider setting through the rules per case.
func TestCheckSettings(t *testing.T) {
	t.Parallel()
	dir := workdir(t)
	for _, tc := range []struct {
		name  string
		key   string
		value any
		want  string // "" passes; else a part of the error
	}{
		{"crawl behaviour", types.ConcurrentRequests, 64, ""},
		{"delay", types.DownloadDelay, 2.5, ""},
		{"middlewares", types.DownloaderMiddlewares, map[string]any{"RobotsTxtMiddleware": nil}, ""},
		{"a spider's own key", "MY_API_TOKEN", "abc", ""},
		{"data scheme", types.DownloadSchemes, []any{"http", "https", "data"}, ""},
		{"file scheme", types.DownloadSchemes, []any{"http", "https", "file"}, "file scheme"},
		{"file scheme in capitals, as text", types.DownloadSchemes, "http,FILE", "file scheme"},
		{"a handler switched off", types.DownloadHandlers, map[string]any{"https": nil}, ""},
		{"file handler for another scheme", types.DownloadHandlers, map[string]any{"local": "FileDownloadHandler"}, "reads local files"},
		{"a handler for file", types.DownloadHandlers, map[string]any{"file": "HTTPDownloadHandler"}, "reads local files"},
		{"relative feed", types.Feeds, map[string]any{"exports/%(name)s.jsonl": map[string]any{"format": "jsonlines"}}, ""},
		{"stdout feed", types.Feeds, map[string]any{"stdout:": map[string]any{"format": "jsonlines"}}, ""},
		{"absolute feed", types.Feeds, map[string]any{"/home/user/.bashrc": map[string]any{"format": "csv", "overwrite": true}}, "absolute"},
		{"file:// feed", types.Feeds, map[string]any{"file:///tmp/x.jsonl": nil}, "file://"},
		{"escaping feed", types.Feeds, map[string]any{"../x.jsonl": nil}, `".."`},
		{"feed through a symlink out", types.Feeds, map[string]any{"out/x.jsonl": nil}, "resolves outside"},
		{"network feed", types.Feeds, map[string]any{"s3://bucket/x.jsonl": nil}, "network service"},
		{"relative sqlite feed", types.Feeds, map[string]any{"sqlite:out2/items.db?table=books": nil}, ""},
		{"absolute sqlite feed", types.Feeds, map[string]any{"sqlite:///tmp/items.db?table=books": nil}, "absolute path"},
		{"escaping sqlite feed", types.Feeds, map[string]any{"sqlite:../items.db": nil}, `".."`},
		{"postgres feed", types.Feeds, map[string]any{"postgres://u:p@db:5432/x?table=books": nil}, "network service"},
		{"relative log file", types.LogFile, "logs/crawl.log", ""},
		{"absolute log file", types.LogFile, "/var/log/x.log", "absolute"},
		{"WARC file out", types.WARCFile, "../crawl.warc.gz", `".."`},
		{"HTTP cache through a symlink", types.HTTPCacheDir, "out/cache", "resolves outside"},
		{"job folder", types.JobDir, "jobs/run1", ""},
		{"absolute job folder", types.JobDir, "/tmp/job", "absolute"},
		{"replay files", types.ReplayFiles, []any{"snap/a.warc.gz", "/etc/shadow"}, "absolute"},
		{"replay files inside", types.ReplayFiles, []any{"snap/a.warc.gz"}, ""},
		{"impersonate profiles", types.HTTPImpersonate, "chrome, profiles/chromium.json", ""},
		{"impersonate profile outside, listed", types.HTTPImpersonate, "chrome,/etc/profile.json", "absolute"},
		{"lower maxsize", types.DownloadMaxSize, 1 << 20, ""},
		{"maxsize 0", types.DownloadMaxSize, 0, "0 means no limit"},
		{"higher maxsize", types.DownloadMaxSize, 2 << 30, "above the default"},
		{"memory limit where none is set", types.MemUsageLimitMB, 512, ""},
		{"memory check switched off", types.MemUsageEnabled, false, "switch this check on"},
		{"memory check on", types.MemUsageEnabled, true, ""},
		{"slower memory checks", types.MemUsageCheckInterval, 3600, "above the default"},
		{"shorter shutdown", types.ShutdownTimeout, 5, ""},
		{"endless shutdown", types.ShutdownTimeout, 0, "0 means no limit"},
		{"endless callbacks", types.JSCallbackTimeout, 0, "0 means no limit"},
		{"longer callbacks", types.JSCallbackTimeout, 600, "above the default"},
		{"memory budget off", types.DownloadMemoryBudget, 0, "0 means no limit"},
		{"scheduler never spills", types.SchedulerMemoryMax, 0, "0 means no limit"},
		{"a bad value is Set's to report", types.DownloadMaxSize, "lots", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sandbox.CheckSettings(map[string]any{tc.key: tc.value}, dir)
			if tc.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			var se *sandbox.Error
			if !errors.As(err, &se) || se.Key != tc.key || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a sandbox.Error for %s with %q", err, tc.key, tc.want)
			}
			if !strings.Contains(err.Error(), "-s "+tc.key+"=") {
				t.Errorf("%v: does not say how the operator passes it", err)
			}
		})
	}
}

// TestOperatorOnlySettingsRefused is a table over the settings table: every operator-only
// setting, given by a spider with any value, is refused with its reason.
func TestOperatorOnlySettingsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := 0
	for _, d := range types.Defs {
		if types.AccessOf(d.Key) != types.OperatorOnly {
			continue
		}
		n++
		value := d.Default
		if value == nil {
			value = ""
		}
		err := sandbox.CheckSettings(map[string]any{d.Key: value}, dir)
		if err == nil || !strings.Contains(err.Error(), d.Why) {
			t.Errorf("%s from a spider: got %v, want the refusal %q", d.Key, err, d.Why)
		}
	}
	if n < 8 {
		t.Errorf("only %d operator-only settings", n)
	}
}
