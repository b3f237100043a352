package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpiderCommandsShareTheLoader checks that every command that loads a spider or runs
// the engine reads the log settings and warns about unknown settings alike: LOG_FILE from
// the command line, LOG_FORMAT from the spider's customSettings (or the command line
// without a spider file), and the warning about a setting no one knows goes to that log.
// Before the loader only run applied LOG_FILE and LOG_FORMAT and warned.
func TestSpiderCommandsShareTheLoader(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "s.js", `export default class {
  name = "s";
  customSettings = { LOG_FORMAT: "json" };
  *start() { yield { url: "none" }; }
  *parse() {}
}`)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", spider}},
		{"parse", []string{"parse", srv.URL + "/list/5", "--spider", spider}},
		{"fetch --spider", []string{"fetch", srv.URL + "/latin1", "--spider", spider}},
		{"fetch", []string{"fetch", srv.URL + "/latin1", "-s", "LOG_FORMAT=json"}},
		{"shell --spider", []string{"shell", "--spider", spider}},
		{"shell", []string{"shell", "-s", "LOG_FORMAT=json"}},
		{"bench", []string{"bench", "--timeout", "0.3", "-s", "LOG_FORMAT=json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logFile := filepath.Join(t.TempDir(), "log.jsonl")
			args := append(tc.args, "-s", "LOG_FILE="+logFile, "-s", "NO_SUCH_SETTING=1")
			_, stderr, code := jscrawlIn(t, "", ".exit\n", args...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			if strings.Contains(stderr, "NO_SUCH_SETTING") {
				t.Errorf("the log went to stderr, not to LOG_FILE:\n%s", stderr)
			}
			b, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatalf("LOG_FILE not written: %v\n%s", err, stderr)
			}
			warned := false
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var rec map[string]any
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("LOG_FORMAT=json wrote a line that is not JSON: %q", l)
				}
				if rec["level"] == "WARNING" && strings.Contains(rec["msg"].(string), "Unknown setting NO_SUCH_SETTING") {
					warned = true
				}
			}
			if !warned {
				t.Errorf("no warning about the unknown setting in the log:\n%s", b)
			}
		})
	}
}

// TestSpiderCommandsFlags checks the flags every spider command shares behave alike: -L
// sets LOG_LEVEL in settings too, and an -a that would replace a method of the spider is a
// usage error (exit code 2) for the shell's built-in spider as for a spider file.
func TestSpiderCommandsFlags(t *testing.T) {
	t.Parallel()
	if stdout, stderr, code := jscrawl(t, "settings", "-L", "DEBUG", "--get", "LOG_LEVEL"); code != 0 || stdout != "DEBUG\n" {
		t.Errorf("settings -L DEBUG --get LOG_LEVEL: exit code %d, stdout %q\n%s", code, stdout, stderr)
	}
	if _, stderr, code := jscrawlIn(t, "", ".exit\n", "shell", "-a", "parse=x"); code != 2 || !strings.Contains(stderr, "-a parse") {
		t.Errorf("shell -a parse=x: exit code %d, want 2\n%s", code, stderr)
	}
}

// sharedFlagUsageCases are TestUsageErrors' cases for the flags every spider command
// shares and for a spider's customSettings, on each spider command (run, shell, parse,
// fetch, settings; bench has no spider file and no -a).
func sharedFlagUsageCases(spider, badCustom string) []usageCase {
	commands := map[string]func(spider string) []string{
		"run":      func(s string) []string { return []string{"run", s} },
		"shell":    func(s string) []string { return []string{"shell", "--spider", s} },
		"parse":    func(s string) []string { return []string{"parse", "http://127.0.0.1:1/", "--spider", s} },
		"fetch":    func(s string) []string { return []string{"fetch", "http://127.0.0.1:1/", "--spider", s} },
		"settings": func(s string) []string { return []string{"settings", "--spider", s} },
		"bench":    func(string) []string { return []string{"bench"} },
	}
	var cases []usageCase
	for name, cmd := range commands {
		for _, c := range []struct {
			name   string
			spider string
			flags  []string
			names  string
		}{
			{"bad -s value", spider, []string{"-s", "CONCURRENT_REQUESTS=abc"}, "CONCURRENT_REQUESTS"},
			{"-s without =", spider, []string{"-s", "CONCURRENT_REQUESTS"}, "CONCURRENT_REQUESTS"},
			{"bad log level", spider, []string{"-L", "LOUD"}, "LOUD"},
			{"-a without a value", spider, []string{"-a", "novalue"}, "novalue"},
			{"bad customSettings value", badCustom, nil, "CONCURRENT_REQUESTS"},
		} {
			if name == "bench" && (c.spider != spider || c.flags[0] == "-a") {
				continue
			}
			cases = append(cases, usageCase{name + ": " + c.name, append(cmd(c.spider), c.flags...), c.names})
		}
	}
	return cases
}

// TestUnknownSettingHint: a misspelled setting, which tsc lets through (customSettings also
// takes the spider's own keys), is named at load with the setting it was likely meant to be.
func TestUnknownSettingHint(t *testing.T) {
	t.Parallel()
	spider := writeFile(t, t.TempDir(), "typo.js", `export default class { name = "typo"; customSettings = { DOWNLAOD_DELAY: 1 }; *start() {} }`)
	_, stderr, code := jscrawl(t, "run", spider)
	if code != 0 || !strings.Contains(stderr, "Unknown setting DOWNLAOD_DELAY (ignored unless something reads it; did you mean DOWNLOAD_DELAY?)") {
		t.Errorf("exit code %d, want a warning with the hint\n%s", code, stderr)
	}
}
