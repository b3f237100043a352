package main

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// descendants returns pid's child processes and theirs, recursively.
func descendants(pid int) []int {
	var out []int
	for _, c := range enginetest.ChildProcesses(pid, "") {
		out = append(out, c)
		out = append(out, descendants(c)...)
	}
	return out
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "State:"); ok {
			return !strings.HasPrefix(strings.TrimSpace(v), "Z")
		}
	}
	return true
}

// TestInterruptClosesBrowser: Ctrl-C (once: graceful, twice: at once) during a browser
// request ends the crawl and leaves no Chromium process behind.
func TestInterruptClosesBrowser(t *testing.T) {
	enginetest.RequireBrowser(t)
	for _, signals := range []int{1, 2} {
		t.Run(strconv.Itoa(signals), func(t *testing.T) {
			dir := t.TempDir()
			spider := writeFile(t, dir, "render.js", `export default class {
  name = "render";
  *start() { yield new Request(this.baseUrl + "/delay?ms=4000", { browser: true }); }
  parse(r) { return { url: r.url }; }
}
`)
			cmd, sc := startLogged(t, "run", "--demo", spider, "-L", "DEBUG")
			var log strings.Builder
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "Started Chromium") {
					break
				}
			}
			var chromium []int
			for _, pid := range descendants(cmd.Process.Pid) {
				if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && strings.Contains(string(b), "chrom") {
					chromium = append(chromium, pid)
				}
			}
			if len(chromium) == 0 {
				t.Fatalf("no Chromium process under jscrawl (pid %d):\n%s", cmd.Process.Pid, log.String())
			}
			for i := range signals {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				for i+1 < signals && sc.Scan() { // the second signal after the first was handled
					log.WriteString(sc.Text() + "\n")
					if strings.Contains(sc.Text(), "shutting down gracefully") {
						break
					}
				}
			}
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
			}
			var ee *exec.ExitError
			if err := cmd.Wait(); err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit code %d, want 130:\n%s", code, log.String())
			}
			// Chromium's helpers may take a moment to go once their parent has.
			deadline := time.Now().Add(5 * time.Second)
			for slices.ContainsFunc(chromium, alive) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if left := slices.DeleteFunc(slices.Clone(chromium), func(p int) bool { return !alive(p) }); len(left) > 0 {
				t.Errorf("Chromium processes %v still run after jscrawl exited:\n%s", left, log.String())
			}
		})
	}
}
