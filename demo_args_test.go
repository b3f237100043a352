package main

import (
	"strings"
	"testing"
)

// TestArgumentNamedLikeMethod: -a NAME=VALUE naming a method of the spider stops run, and
// the other commands that load a spider, with exit code 2 naming the method.
func TestArgumentNamedLikeMethod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method string
		args         []string
	}{
		{"run -a parse", "parse", []string{"run", "examples/books.ts", "-a", "parse=oops", "-o", "-:jsonl"}},
		{"run --demo -a start", "start", []string{"run", "--demo", "examples/books.ts", "-a", "start=1"}},
		{"parse -a parse", "parse", []string{"parse", "http://127.0.0.1:1/", "--spider", "examples/books.ts", "-a", "parse=oops"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawl(t, tc.args...)
			method := tc.method
			if code != 2 {
				t.Errorf("exit code %d, want 2\n%s", code, stderr)
			}
			want := "-a " + method + ": the spider has a method " + method + "; an argument cannot replace it"
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
		})
	}
}

// TestDemoIgnoredWarning: --demo with a spider that never reads this.baseUrl warns that
// the spider ignores the demo site; a spider building its URLs from baseUrl gets no such
// warning.
func TestDemoIgnoredWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hard := writeFile(t, dir, "hard.js", `import { Request } from "jscrawl";
export default class Hard {
  name = "hard";
  baseUrl = "http://127.0.0.1:1";
  *start() { yield new Request("http://127.0.0.1:1/"); }
  parse() {}
}
`)
	const warning = "WARNING: The spider ignores the demo site at http://127.0.0.1:"
	for _, tc := range []struct {
		name string
		args []string
		warn bool
	}{
		{"hard-coded URLs", []string{"run", "--demo", hard, "-s", "RETRY_ENABLED=false", "-s", "ROBOTSTXT_OBEY=false"}, true},
		{"books.ts", []string{"run", "--demo", "examples/books.ts", "-s", "CLOSESPIDER_PAGECOUNT=2", "-o", "-:jsonl"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := jscrawl(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			if got := strings.Contains(stderr, warning); got != tc.warn {
				t.Errorf("warning shown: %v, want %v\n%s", got, tc.warn, stderr)
			}
		})
	}
}
