package main

import (
	"strings"
	"testing"
)

// TestSettingOutOfRange: a setting outside its range, from -s or from a spider's
// customSettings, stops run (and the other commands reading settings) with exit code 2 and
// a message naming the key, the range and where the value came from.
func TestSettingOutOfRange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := writeFile(t, dir, "tiny.ts", tinySpider)
	zeroVMs := writeFile(t, dir, "zerovms.ts", strings.Replace(tinySpider, "CONCURRENT_REQUESTS: 4", "JS_VMS: 0", 1))
	negDelay := writeFile(t, dir, "negdelay.js", strings.Replace(tinySpider, "CONCURRENT_REQUESTS: 4", "DOWNLOAD_DELAY: -1", 1))
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"-s CONCURRENT_REQUESTS=0", []string{"run", spider, "-s", "CONCURRENT_REQUESTS=0"},
			[]string{"-s CONCURRENT_REQUESTS=0: ", "out of range: must be >= 1"}},
		{"-s CONCURRENT_REQUESTS=-4", []string{"run", spider, "-s", "CONCURRENT_REQUESTS=-4"},
			[]string{"-s CONCURRENT_REQUESTS=-4: ", "out of range: must be >= 1"}},
		{"-s JS_VMS=0", []string{"run", spider, "-s", "JS_VMS=0"}, []string{"-s JS_VMS=0: ", "out of range: must be >= 1"}},
		{"-s JSON_MAX_DEPTH=1000000", []string{"run", spider, "-s", "JSON_MAX_DEPTH=1000000"},
			[]string{"-s JSON_MAX_DEPTH=1000000: ", "out of range: must be between 1 and 10000"}},
		{"-s RETRY_TIMES=-1", []string{"run", spider, "-s", "RETRY_TIMES=-1"}, []string{"-s RETRY_TIMES=-1: ", "out of range: must be >= 0"}},
		{"-s SCHEDULER_MEMORY_QUEUE=xyz", []string{"run", spider, "-s", "SCHEDULER_MEMORY_QUEUE=xyz"},
			[]string{"-s SCHEDULER_MEMORY_QUEUE=xyz: ", "out of range: must be one of lifo, fifo"}},
		{"customSettings JS_VMS: 0", []string{"run", zeroVMs, "-o", "-:jsonl"},
			[]string{"zerovms.ts: customSettings: ", "JS_VMS", "out of range: must be >= 1"}},
		{"customSettings under -s", []string{"run", negDelay, "-s", "DOWNLOAD_DELAY=1"},
			[]string{"negdelay.js: customSettings: ", "DOWNLOAD_DELAY", "out of range: must be >= 0"}},
		{"settings -s", []string{"settings", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=0"},
			[]string{"-s CONCURRENT_REQUESTS_PER_DOMAIN=0: ", "out of range: must be >= 1"}},
		{"settings --spider", []string{"settings", "--spider", zeroVMs},
			[]string{"zerovms.ts: customSettings: ", "JS_VMS", "out of range: must be >= 1"}},
		{"fetch -s", []string{"fetch", "-s", "DOWNLOAD_TIMEOUT=-2", "http://127.0.0.1:1/"},
			[]string{"-s DOWNLOAD_TIMEOUT=-2: ", "out of range: must be >= 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, tc.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
		})
	}
}
