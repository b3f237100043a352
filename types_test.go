package main

import (
	"os"
	"path/filepath"
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

// TestExampleTypingsAreCurrent: examples/jscrawl.d.ts is what `jscrawl types examples` writes,
// so the examples are type-checked (by .ci/run, with tsc) against the current typings.
func TestExampleTypingsAreCurrent(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("examples/jscrawl.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != jsapi.TypeDefinitions {
		t.Error("examples/jscrawl.d.ts is stale: run `go run . types examples`")
	}
}
