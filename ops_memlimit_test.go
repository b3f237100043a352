package main

import (
	"os"
	"strings"
	"testing"
)

// TestSoftMemoryLimit: run sets a Go soft memory limit of twice DOWNLOAD_MEMORY_BUDGET plus
// 512 MiB, none when the budget is off, and leaves GOMEMLIMIT alone.
func TestSoftMemoryLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spider := writeFile(t, dir, "idle.js", `export default class { name = "idle"; *start() {} }`)
	for _, tc := range []struct {
		name   string
		env    []string
		budget string
		want   string // "" for no limit line
	}{
		{"default", nil, "", "Go soft memory limit: 1536 MiB"},
		{"budget", nil, "DOWNLOAD_MEMORY_BUDGET=104857600", "Go soft memory limit: 712 MiB"},
		{"budget off", nil, "DOWNLOAD_MEMORY_BUDGET=0", ""},
		{"GOMEMLIMIT", []string{"GOMEMLIMIT=3GiB"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"run", spider, "-L", "DEBUG"}
			if tc.budget != "" {
				args = append(args, "-s", tc.budget)
			}
			_, stderr, code := runJscrawl(t, dir, "", append(os.Environ(), tc.env...), args...)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			got := strings.Contains(stderr, "Go soft memory limit")
			if tc.want == "" && got {
				t.Errorf("a soft memory limit was set:\n%s", stderr)
			}
			if tc.want != "" && !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr)
			}
		})
	}
}
