package enginetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// RequireBrowser returns the Chromium that browser requests will start (BROWSER_EXECUTABLE
// unset: chromium, chromium-browser or google-chrome on PATH). When there is none the test
// is skipped with the reason, unless the environment has CI=true: then it fails (CI
// installs Debian's chromium: see .ci/run).
func RequireBrowser(t testing.TB) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on PATH (CI=true): looked for chromium, chromium-browser, google-chrome")
	}
	t.Skip("no Chromium on PATH, skipping (install Debian's chromium package to run this test)")
	return ""
}

// ChildProcesses returns the pids of the processes whose parent is pid and whose command
// name contains name (Linux: read from /proc; nil elsewhere).
func ChildProcesses(pid int, name string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var comm string
		ppid := -1
		for line := range strings.SplitSeq(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "Name:"); ok {
				comm = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if ppid == pid && strings.Contains(comm, name) && !isZombie(string(status)) {
			out = append(out, child)
		}
	}
	return out
}

func isZombie(status string) bool {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, "State:"); ok {
			return strings.HasPrefix(strings.TrimSpace(v), "Z")
		}
	}
	return false
}
