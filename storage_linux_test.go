package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/warc"
)

// fillAt makes site fill the disk of path (to the last byte) as its download number n is
// served, and free it again as download free is (0: never).
func fillAt(t *testing.T, site *treeSite, path string, n, free int) {
	t.Helper()
	site.mu.Lock()
	defer site.mu.Unlock()
	site.onHit = func(i int) {
		switch i {
		case n:
			if err := enginetest.Fill(path, 0); err != nil {
				t.Errorf("fill the disk: %v", err)
			}
		case free:
			_ = os.Remove(path)
		}
	}
}

// noCrash checks that a run's log has no Go panic or stack trace.
func noCrash(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"panic:", "goroutine ", "fatal error:"} {
		if strings.Contains(out, bad) {
			t.Errorf("the run crashed (%q in its log):\n%s", bad, out)
			return
		}
	}
}

// endedWith checks that a run whose log is out did not crash and ended with exit code
// want and finish_reason reason; code is its exit code.
func endedWith(t *testing.T, out string, code, want int, reason string) {
	t.Helper()
	noCrash(t, out)
	if code != want {
		t.Fatalf("exit code %d, want %d\n%s", code, want, out)
	}
	_, stats := statsDump(t, out)
	if stats["finish_reason"] != reason {
		t.Errorf("finish_reason %v, want %s", stats["finish_reason"], reason)
	}
}

// TestFullDiskJobdir: the disk of a --jobdir fills mid-crawl. The run ends with
// finish_reason jobdir_error, exit code 1, its stats and one line naming the store's file
// and the reason (no pebble panic, no exit 2); once space is freed, jscrawl run --jobdir
// DIR alone resumes the job and its feed ends with every item exactly once.
func TestFullDiskJobdir(t *testing.T) {
	t.Parallel()
	const total = 300
	disk := enginetest.TmpDisk(t, 8)
	site := newTreeSite(t, total)
	site.delay = 2 * time.Millisecond // commits every 20 ms fall between the downloads
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	jobdir := filepath.Join(disk, "job")
	filler := filepath.Join(disk, "filler")
	fillAt(t, site, filler, 60, 0)
	code, out := runJobCrawl(t, dir, "tree.js", "--jobdir", jobdir, "-o", "items.jsonl",
		"-a", "baseUrl="+site.URL, "-s", "JOBDIR_COMMIT_INTERVAL=0.02")
	endedWith(t, out, code, 1, "jobdir_error")
	last := lastLine(out)
	if !strings.HasPrefix(last, "jscrawl: ") || !strings.Contains(last, "jobdir_error") ||
		!strings.Contains(last, jobdir) || !strings.Contains(last, "no space left on device") {
		t.Errorf("the last line does not name the finish reason, the job's path and the reason: %q", last)
	}
	if strings.Contains(out, "damaged") {
		t.Errorf("a full disk is reported as damage:\n%s", out)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	code, out = runJobCrawl(t, dir, "--jobdir", jobdir)
	noCrash(t, out)
	if code != 0 {
		t.Fatalf("resumed run: exit code %d\n%s", code, out)
	}
	eachOnce(t, filepath.Join(dir, "items.jsonl"), total)
}

// TestFullDiskNewJob: a job whose store cannot be created on a full disk (pebble's
// MANIFEST, CURRENT or log cannot be written) fails with exit code 1 and the reason, and
// is not reported damaged: once space is freed, the same command runs it to the end.
func TestFullDiskNewJob(t *testing.T) {
	t.Parallel()
	const total = 40
	for _, free := range []int64{4 << 10, 8 << 10, 16 << 10} {
		t.Run(strconv.Itoa(int(free>>10))+"k", func(t *testing.T) {
			t.Parallel()
			disk := enginetest.TmpDisk(t, 2)
			site := newTreeSite(t, total)
			dir := t.TempDir()
			writeFile(t, dir, "tree.js", treeSpider)
			jobdir := filepath.Join(disk, "job")
			filler := filepath.Join(disk, "filler")
			if err := enginetest.Fill(filler, free); err != nil {
				t.Fatal(err)
			}
			args := []string{"tree.js", "--jobdir", jobdir, "-o", "items.jsonl", "-a", "baseUrl=" + site.URL}
			code, out := runJobCrawl(t, dir, args...)
			noCrash(t, out)
			if code != 1 || !strings.Contains(out, "no space left on device") {
				t.Errorf("run with %d bytes free: exit code %d, want 1 with the reason\n%s", free, code, out)
			}
			if strings.Contains(out, "damaged") {
				t.Errorf("a full disk is reported as damage:\n%s", out)
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			code, out = runJobCrawl(t, dir, args...)
			if code != 0 {
				t.Fatalf("run once space is freed: exit code %d\n%s", code, out)
			}
			eachOnce(t, filepath.Join(dir, "items.jsonl"), total)
		})
	}
}

// TestFullDiskWARC: the disk of a --warc file fills mid-crawl and has room again a few
// downloads later (a tmpfs), or the file passes the process's file size limit
// (RLIMIT_FSIZE: a write stops half-way with EFBIG). With WARC_ERRORS=stop (the default)
// the crawl ends with finish_reason warc_error and exit code 1; with ignore it finishes
// without recording the rest. Either way the WARC file reads cleanly with the project's
// reader: every record whole, none appended after a cut one.
func TestFullDiskWARC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, setting, reason string
		fsize                 bool // RLIMIT_FSIZE instead of a tmpfs
		code                  int
	}{
		{"stop", "WARC_ERRORS=stop", "warc_error", false, 1},
		{"ignore", "WARC_ERRORS=ignore", "finished", false, 0},
		{"fsize-stop", "WARC_ERRORS=stop", "warc_error", true, 1},
		{"fsize-ignore", "WARC_ERRORS=ignore", "finished", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const total = 200
			site := newTreeSite(t, total)
			site.delay = time.Millisecond
			dir := t.TempDir()
			writeFile(t, dir, "tree.js", treeSpider)
			disk, cause := dir, "file too large"
			if !tc.fsize {
				disk, cause = enginetest.TmpDisk(t, 4), "no space left on device"
				fillAt(t, site, filepath.Join(disk, "filler"), 40, 50)
			}
			archive := filepath.Join(disk, "crawl.warc")
			args := []string{"run", "tree.js", "--warc", archive, "-o", "items.jsonl", "-a", "baseUrl=" + site.URL, "-s", tc.setting}
			cmd := exec.Command(bin, args...)
			if tc.fsize {
				// 64 blocks (32 KB in dash, 64 KB in bash): the archive passes it, the
				// feed does not. Go ignores SIGXFSZ, so the write fails with EFBIG.
				cmd = exec.Command("sh", append([]string{"-c", `ulimit -f 64 && exec "$0" "$@"`, bin}, args...)...)
			}
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			out, code := string(b), 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			endedWith(t, out, code, tc.code, tc.reason)
			if tc.code != 0 {
				if last := lastLine(out); !strings.Contains(last, "warc_error") {
					t.Errorf("the last line does not name warc_error: %q", last)
				}
			}
			if !strings.Contains(out, cause) || !strings.Contains(out, archive) {
				t.Errorf("the log does not name the WARC file and the reason (%s):\n%s", cause, out)
			}
			a, err := warc.Open(archive)
			if err != nil {
				t.Fatalf("the WARC file does not read: %v", err)
			}
			defer a.Close()
			if a.Len() == 0 {
				t.Error("the WARC file holds no exchange")
			}
		})
	}
}

// TestFullDiskFeed: the disk of a feed fills mid-crawl: the crawl ends with finish_reason
// feed_error, exit code 1, its stats and the feed's path and the reason in the log.
func TestFullDiskFeed(t *testing.T) {
	t.Parallel()
	const total = 300
	disk := enginetest.TmpDisk(t, 2)
	site := newTreeSite(t, total)
	site.delay = time.Millisecond
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	// Items of 4 KB: the feed's writes pass the page tmpfs gave it before the disk filled.
	writeFile(t, dir, "tree.js", strings.Replace(treeSpider, `yield { n: Number(r.css("h1::text").get()) }`,
		`yield { n: Number(r.css("h1::text").get()), pad: "x".repeat(4096) }`, 1))
	feedPath := filepath.Join(disk, "items.jsonl")
	filler := filepath.Join(disk, "filler")
	fillAt(t, site, filler, 40, 0)
	code, out := runJobCrawl(t, dir, "tree.js", "-o", feedPath, "-a", "baseUrl="+site.URL)
	endedWith(t, out, code, 1, "feed_error")
	if !strings.Contains(lastLine(out), "feed_error") {
		t.Errorf("the last line does not name feed_error: %q", lastLine(out))
	}
	if !strings.Contains(out, "no space left on device") || !strings.Contains(out, feedPath) {
		t.Errorf("the log does not name the feed and the reason:\n%s", out)
	}
}

// lastLine returns the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
