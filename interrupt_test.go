package main

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowSpider scrapes two fast pages first (higher priority), then waits on eight slow ones
// (5 s each, four at a time).
const slowSpider = `export default class {
  name = "slow";
  customSettings = { CONCURRENT_REQUESTS: 4 };
  *start() {
    for (let i = 0; i < 10; i++) {
      yield new Request(this.baseUrl + "/delay?ms=" + (i < 2 ? 1 : 5000) + "&i=" + i, { priority: i < 2 ? 1 : 0 });
    }
  }
  parse(r) { return { url: r.url }; }
}
`

// startLogged starts jscrawl with args (killed after a minute, or when the test ends) and
// returns it with a scanner of its stderr.
func startLogged(t *testing.T, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(stderr)
}

func TestInterrupt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		signals   int
		minItems  int
		maxItems  int
		maxLength time.Duration // from the first signal to the exit
	}{
		// The first Ctrl-C stops scheduling; the slow downloads in flight (up to four) finish.
		{"once: in-flight work finishes", 1, 3, 6, 20 * time.Second},
		// The second stops at once: the slow downloads are cancelled.
		{"twice: stops at once", 2, 2, 2, 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			spider := writeFile(t, dir, "slow.js", slowSpider)
			out := filepath.Join(dir, "items.jsonl")
			cmd, sc := startLogged(t, "run", "--demo", spider, "-o", out, "-L", "DEBUG")
			// Wait until both fast items are scraped, reading the log as it comes.
			var log strings.Builder
			scraped := 0
			for scraped < 2 && sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "Scraped from") {
					scraped++
				}
			}
			if scraped < 2 {
				t.Fatalf("the fast items were not scraped:\n%s", log.String())
			}
			sent := time.Now()
			for range tc.signals {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				// The second signal must come after the first was handled.
				for tc.signals > 1 && sc.Scan() {
					log.WriteString(sc.Text() + "\n")
					if strings.Contains(sc.Text(), "shutting down gracefully") {
						break
					}
				}
			}
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
			}
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Fatalf("exit code %d, want 130:\n%s", code, log.String())
			}
			if took > tc.maxLength {
				t.Errorf("took %v after the signal, want < %v", took, tc.maxLength)
			}
			if !strings.Contains(log.String(), `"finish_reason": "shutdown"`) {
				t.Errorf("finish_reason is not shutdown:\n%s", log.String())
			}
			items, _ := readFeed(t, out)
			if len(items) < tc.minItems || len(items) > tc.maxItems {
				t.Errorf("feed has %d items, want %d..%d (every scraped item flushed):\n%s", len(items), tc.minItems, tc.maxItems, log.String())
			}
		})
	}
}
