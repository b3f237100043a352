package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
)

func TestTypesCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "kept")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := `{"compilerOptions": {"strict": false}}`
	writeFile(t, keep, "tsconfig.json", mine)
	for _, tc := range []struct {
		name, dir, tsconfig string
	}{
		{"new folder gets both files", filepath.Join(dir, "new", "spiders"), tsconfig},
		{"an existing tsconfig.json is kept", keep, mine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := jscrawl(t, "types", tc.dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			dts, err := os.ReadFile(filepath.Join(tc.dir, "jscrawl.d.ts"))
			if err != nil || string(dts) != jsapi.TypeDefinitions {
				t.Errorf("jscrawl.d.ts not written as embedded (%v)", err)
			}
			cfg, err := os.ReadFile(filepath.Join(tc.dir, "tsconfig.json"))
			if err != nil || string(cfg) != tc.tsconfig {
				t.Errorf("tsconfig.json = %q (%v), want %q", cfg, err, tc.tsconfig)
			}
		})
	}
	if _, stderr, code := jscrawl(t, "types", "a", "b"); code != 2 || !strings.Contains(stderr, "at most one folder") {
		t.Errorf("two folders: exit %d, %s", code, stderr)
	}
}

// TestExampleTypingsAreWrittenByCI: examples/jscrawl.d.ts is not committed (it would be a
// second copy of jsapi.TypeDefinitions): .gitignore leaves it out and .ci/run writes it with
// `jscrawl types examples` (TestTypesCommand checks what that writes) before type-checking
// the examples with tsc, so they are checked against the current typings.
func TestExampleTypingsAreWrittenByCI(t *testing.T) {
	t.Parallel()
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), "/examples/jscrawl.d.ts") {
		t.Error(".gitignore does not list /examples/jscrawl.d.ts")
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	write := strings.Index(string(ci), "\n./jscrawl types examples\n")
	check := strings.Index(string(ci), `tsc" -p examples`)
	if write < 0 || check < 0 || write > check {
		t.Errorf(".ci/run must run ./jscrawl types examples before tsc -p examples (at %d and %d)", write, check)
	}
}

func TestNewCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		tmpl  string
		items int
	}{{"basic", 32}, {"crawl", 100}, {"api", 100}, {"sitemap", 100}} {
		t.Run(tc.tmpl, func(t *testing.T) {
			t.Parallel()
			sub := filepath.Join(dir, tc.tmpl)
			if _, stderr, code := jscrawl(t, "new", "my-"+tc.tmpl, "--template", tc.tmpl, "--dir", sub); code != 0 {
				t.Fatalf("new: exit %d: %s", code, stderr)
			}
			for _, f := range []string{"my-" + tc.tmpl + ".ts", "jscrawl.d.ts", "tsconfig.json"} {
				if _, err := os.Stat(filepath.Join(sub, f)); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			src, _ := os.ReadFile(filepath.Join(sub, "my-"+tc.tmpl+".ts"))
			if !strings.Contains(string(src), `name = "my-`+tc.tmpl+`"`) || !strings.Contains(string(src), "class My"+strings.ToUpper(tc.tmpl[:1])+tc.tmpl[1:]+"Spider") {
				t.Errorf("name or class not filled in:\n%s", src)
			}
			if !strings.Contains(string(src), "MEMUSAGE_LIMIT_MB: 2048") {
				t.Errorf("the template sets no memory limit:\n%s", src)
			}
			stdout, stderr, code := jscrawl(t, "run", "--demo", filepath.Join(sub, "my-"+tc.tmpl+".ts"), "-o", "-")
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			if n := len(jsonLines(t, stdout)); n != tc.items {
				t.Errorf("%d items from the %s template on the demo site, want %d", n, tc.tmpl, tc.items)
			}
			// Its tests export records the demo site and replays it (the case pins the demo's
			// default address, rewritten to this test's).
			base, fix := guideDemo(t)
			file := filepath.Join(sub, "my-"+tc.tmpl+".ts")
			if !strings.Contains(string(src), "export const tests: SpiderTest[]") {
				t.Errorf("the template has no tests export:\n%s", src)
			}
			writeFile(t, sub, "my-"+tc.tmpl+".ts", fix(string(src)))
			for _, args := range [][]string{{"--record"}, nil} {
				stdout, stderr, code := jscrawl(t, append([]string{"test", file}, args...)...)
				verb := map[bool]string{true: "RECORDED", false: "PASS"}[args != nil]
				if want := fmt.Sprintf("%s demo (%d items", verb, tc.items); code != 0 || !strings.Contains(stdout, want) {
					t.Errorf("test %v against %s: exit %d, no %q in\n%s%s", args, base, code, want, stdout, stderr)
				}
			}
			// A second new with the same name refuses to overwrite.
			if _, stderr, code := jscrawl(t, "new", "my-"+tc.tmpl, "--dir", sub); code != 1 || !strings.Contains(stderr, "exists") {
				t.Errorf("overwrite: exit %d: %s", code, stderr)
			}
		})
	}
	for _, args := range [][]string{{"new", "Bad Name"}, {"new", "ok", "--template", "nope"}, {"new"}} {
		if _, stderr, code := jscrawl(t, append(args, "--dir", dir)...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}
