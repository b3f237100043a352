package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// slowFetchSpider: parse awaits an inline fetch of /slow; /slow2 is a scheduled download.
// The server holds both until the test releases them.
const slowFetchSpider = `import { Request, fetch } from "jscrawl";
export default class {
  name = "slowfetch";
  base = "http://127.0.0.1:1";
  *start() {
    yield new Request(this.base + "/");
    yield new Request(this.base + "/slow2");
  }
  async parse(r) {
    if (r.url.endsWith("/slow2")) return { page: r.url };
    const x = await fetch(this.base + "/slow"); // FETCH
    return { page: r.url, fetched: x.status };
  }
}
`

// holdServer serves "/" (and a missing /robots.txt) at once and holds /slow and /slow2
// until release is closed; each held request is announced on arrived.
type holdServer struct {
	*httptest.Server
	arrived chan string
	release chan struct{}
	once    sync.Once
}

func newHoldServer(t *testing.T) *holdServer {
	h := &holdServer{arrived: make(chan string, 16), release: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>home</body></html>")
			return
		case "/robots.txt":
			http.NotFound(w, r)
			return
		}
		h.arrived <- r.URL.Path
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "done")
	}))
	t.Cleanup(func() { h.Release(); h.Close() })
	return h
}

// Release lets the held requests finish.
func (h *holdServer) Release() { h.once.Do(func() { close(h.release) }) }

// waitHeld waits until n held requests arrived.
func (h *holdServer) waitHeld(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-h.arrived:
		case <-time.After(30 * time.Second):
			t.Fatal("the crawl never reached the slow server")
		}
	}
}

// crawlProc is a `jscrawl run` child whose log is read line by line.
type crawlProc struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	log   strings.Builder
}

// startCrawl starts jscrawl run with env added to the environment.
func startCrawl(t *testing.T, env []string, args ...string) *crawlProc {
	t.Helper()
	return startCrawlIn(t, "", env, args...)
}

// startCrawlIn starts jscrawl run in dir (the package folder when empty) with env added to
// the environment.
func startCrawlIn(t *testing.T, dir string, env []string, args ...string) *crawlProc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{"run"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &crawlProc{cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

func (p *crawlProc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// waitLine returns the first log line (from here on) containing s.
func (p *crawlProc) waitLine(t *testing.T, s string) string {
	t.Helper()
	l, ok := p.nextLine(t, s)
	if !ok {
		t.Fatalf("the crawl ended before logging %q:\n%s", s, p.Log())
	}
	return l
}

// nextLine returns the first log line (from here on) containing s, or false when the
// crawl's log ends first; it fails the test when no such line comes within 30 seconds.
func (p *crawlProc) nextLine(t *testing.T, s string) (string, bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return "", false
			}
			if strings.Contains(l, s) {
				return l, true
			}
		case <-timeout:
			t.Fatalf("no %q in the log:\n%s", s, p.Log())
		}
	}
}

// waitLines waits until each of want has matched its own log line (from here on), in any
// order: lines logged by different goroutines of the crawl may come in either order.
func (p *crawlProc) waitLines(t *testing.T, want ...string) {
	t.Helper()
	left := append([]string(nil), want...)
	timeout := time.After(30 * time.Second)
	for len(left) > 0 {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("the crawl ended before logging %q:\n%s", left, p.Log())
			}
			for i, s := range left {
				if strings.Contains(l, s) {
					left = append(left[:i], left[i+1:]...)
					break
				}
			}
		case <-timeout:
			t.Fatalf("no %q in the log:\n%s", left, p.Log())
		}
	}
}

// signal sends sig to the crawl, failing the test when it cannot.
func (p *crawlProc) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the crawl's end and returns its exit code. It reads the log to its end
// first: cmd.Wait closes the pipe, and the last lines would be lost if it ran first.
func (p *crawlProc) wait(t *testing.T) int {
	t.Helper()
	for range p.lines {
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// jscrawlEnv runs a jscrawl command with env added and returns its output and exit code.
func jscrawlEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runJscrawl(t, "", "", append(os.Environ(), env...), args...)
}

// jscrawlOK runs a jscrawl command with env added and returns its output, failing the
// test unless it exits 0.
func jscrawlOK(t *testing.T, env []string, args ...string) string {
	t.Helper()
	stdout, stderr, code := jscrawlEnv(t, env, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return stdout
}

// After finds the text after marker in line.
func after(t *testing.T, line, marker string) string {
	t.Helper()
	i := strings.Index(line, marker)
	if i < 0 {
		t.Fatalf("no %q in %q", marker, line)
	}
	return line[i+len(marker):]
}

// TestPS: `jscrawl ps` on a crawl blocked on a slow server shows the blocked request and
// the callback awaiting it, with the spider line that started it; pstree, stats and
// metrics see the same; released, the crawl ends normally and removes its socket.
func TestPS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"TMPDIR=" + dir} // a control folder of its own: no other test's crawls
	srv := newHoldServer(t)
	spider := writeFile(t, dir, "spider.js", slowFetchSpider)
	out := filepath.Join(dir, "items.jsonl")
	crawl := startCrawl(t, env, spider, "-a", "base="+srv.URL, "-o", out, "--metrics", "127.0.0.1:0", "-s", "ROBOTSTXT_OBEY=false")
	line := crawl.waitLine(t, "Control socket ")
	sock := strings.Fields(after(t, line, "Control socket "))[0]
	pid := strconv.Itoa(crawl.cmd.Process.Pid)
	if want := filepath.Join(dir, "jscrawl-"+strconv.Itoa(os.Getuid()), pid+".sock"); sock != want {
		t.Errorf("socket %s, want %s", sock, want)
	}
	if fi, err := os.Stat(filepath.Dir(sock)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket folder: %v, %v; want mode 0700", fi.Mode(), err)
	}
	metrics := "http://" + strings.Fields(after(t, crawl.waitLine(t, "Prometheus metrics at http://"), "Prometheus metrics at http://"))[0]
	srv.waitHeld(t, 2) // /slow (inline) and /slow2 (scheduled) are on the wire
	fetchLine := lineOf(slowFetchSpider, "// FETCH")

	t.Run("ps", func(t *testing.T) {
		stdout := jscrawlOK(t, env, "ps", pid)
		for _, want := range []string{
			"PID " + pid, "slowfetch",
			"downloading", "GET " + srv.URL + "/slow\n", "GET " + srv.URL + "/slow2",
			"parse", srv.URL + "/ ", "GET " + srv.URL + "/slow (downloading, download",
			fmt.Sprintf("spider.js:%d:", fetchLine),
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("no %q in:\n%s", want, stdout)
			}
		}
		// Off a terminal nothing is truncated: the full path of the spider file.
		if !strings.Contains(stdout, spider+":") || strings.Contains(stdout, "…") {
			t.Errorf("truncated off a terminal:\n%s", stdout)
		}
	})

	t.Run("ps --json", func(t *testing.T) {
		stdout := jscrawlOK(t, env, "ps", "--json", pid)
		var rep psReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if rep.PID != crawl.cmd.Process.Pid || rep.Spider != "slowfetch" || len(rep.Downloads) != 2 || len(rep.Callbacks) != 1 {
			t.Fatalf("report = %s", stdout)
		}
		cb := rep.Callbacks[0]
		if cb.Method != "parse" || cb.URL != srv.URL+"/" || cb.Age <= 0 || len(cb.Awaits) != 1 {
			t.Fatalf("callback = %+v", cb)
		}
		aw := cb.Awaits[0]
		if aw.URL != srv.URL+"/slow" || aw.State != "downloading" || !strings.HasPrefix(aw.Location, fmt.Sprintf("%s:%d:", spider, fetchLine)) {
			t.Errorf("awaits = %+v", aw)
		}
		for _, d := range rep.Downloads {
			switch d.URL {
			case srv.URL + "/slow":
				if !d.Inline || d.Callback != cb.ID || d.ID != aw.Download || d.State != "downloading" || d.Slot != "127.0.0.1" || d.Method != "GET" {
					t.Errorf("inline download = %+v", d)
				}
			case srv.URL + "/slow2":
				if d.Inline || d.Callback != 0 || d.State != "downloading" {
					t.Errorf("scheduled download = %+v", d)
				}
			default:
				t.Errorf("download %+v", d)
			}
		}
	})

	t.Run("pstree", func(t *testing.T) {
		stdout := jscrawlOK(t, env, "pstree", pid)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 4 {
			t.Fatalf("want 4 lines:\n%s", stdout)
		}
		checks := []struct{ prefix, contains string }{
			{pid + " slowfetch", ""},
			{"├── parse " + srv.URL + "/ ", "VM 0"},
			{"│   └── GET " + srv.URL + "/slow ", fmt.Sprintf("downloading %s", "")},
			{"└── GET " + srv.URL + "/slow2 ", "downloading"},
		}
		for i, c := range checks {
			if !strings.HasPrefix(lines[i], c.prefix) || !strings.Contains(lines[i], c.contains) {
				t.Errorf("line %d = %q, want %q…%q\n%s", i, lines[i], c.prefix, c.contains, stdout)
			}
		}
		if !strings.Contains(lines[2], fmt.Sprintf("at %s:%d:", spider, fetchLine)) {
			t.Errorf("no location in %q", lines[2])
		}
	})

	t.Run("stats", func(t *testing.T) {
		stdout := jscrawlOK(t, env, "stats", "--json", pid)
		var rep statsReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if rep.Live.Downloads != 2 || rep.Live.Callbacks != 1 || rep.Live.Elapsed <= 0 {
			t.Errorf("live = %+v", rep.Live)
		}
		if n, _ := rep.Stats["downloader/request_count"].(float64); n != 3 {
			t.Errorf("downloader/request_count = %v, want 3", rep.Stats["downloader/request_count"])
		}
		stdout, _, code := jscrawlEnv(t, env, "stats", pid)
		if code != 0 || !strings.Contains(stdout, "2 downloads in flight") || !regexpMatch(`(?m)^downloader/request_count +3$`, stdout) {
			t.Errorf("stats table (exit %d):\n%s", code, stdout)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		resp, err := http.Get(metrics)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
			t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
		}
		for _, want := range []string{
			"# TYPE jscrawl_downloads_in_flight gauge\njscrawl_downloads_in_flight{spider=\"slowfetch\"} 2\n",
			"jscrawl_callbacks_running{spider=\"slowfetch\"} 1\n",
			"# HELP jscrawl_downloader_request_count stat downloader/request_count\n",
			"jscrawl_downloader_request_count{spider=\"slowfetch\"} 3\n",
			"jscrawl_downloader_response_status_count_200{spider=\"slowfetch\"} 1\n",
		} {
			if !strings.Contains(string(body), want) {
				t.Errorf("no %q in:\n%s", want, body)
			}
		}
	})

	t.Run("no PID: the only crawl", func(t *testing.T) {
		stdout, stderr, code := jscrawlEnv(t, env, "ps")
		if code != 0 || !strings.Contains(stdout, "PID "+pid) {
			t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
		}
	})

	srv.Release()
	if code := crawl.wait(t); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, crawl.Log())
	}
	items, _ := readFeed(t, out)
	if len(items) != 2 {
		t.Errorf("%d items, want 2:\n%s", len(items), crawl.Log())
	}
	if !strings.Contains(crawl.Log(), "Spider closed (finished)") {
		t.Errorf("the crawl did not finish normally:\n%s", crawl.Log())
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, stderr, code := jscrawlEnv(t, env, "ps", pid); code != 1 || !strings.Contains(stderr, "no crawl with PID "+pid) {
		t.Errorf("ps of a finished crawl: exit %d: %s", code, stderr)
	}
}

func lineOf(src, marker string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	return 0
}

// TestControlTCP: --control serves on TCP and refuses a request without the right token.
func TestControlTCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"TMPDIR=" + dir}
	srv := newHoldServer(t)
	spider := writeFile(t, dir, "spider.js", slowFetchSpider)
	crawl := startCrawl(t, env, spider, "-a", "base="+srv.URL, "--control", "127.0.0.1:0")
	line := crawl.waitLine(t, "Control endpoint http://")
	addr := strings.Fields(after(t, line, "Control endpoint http://"))[0]
	token := strings.TrimSuffix(strings.Fields(after(t, line, "(token "))[0], ";")
	srv.waitHeld(t, 2)

	if _, stderr, code := jscrawlEnv(t, env, "ps", "--control", addr, "--token", "wrong"); code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("wrong token: exit %d: %s", code, stderr)
	}
	if _, stderr, code := jscrawlEnv(t, env, "ps", "--control", addr); code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("no token: exit %d: %s", code, stderr)
	}
	resp, err := http.Get("http://" + addr + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /stats without a token: %s", resp.Status)
	}
	stdout, stderr, code := jscrawlEnv(t, env, "ps", "--control", addr, "--token", token)
	if code != 0 || !strings.Contains(stdout, srv.URL+"/slow") {
		t.Errorf("right token: exit %d:\n%s%s", code, stdout, stderr)
	}
	// The token also comes from the environment.
	stdout, _, code = jscrawlEnv(t, append(env, "JSCRAWL_CONTROL_TOKEN="+token), "pstree", "--control", addr)
	if code != 0 || !strings.Contains(stdout, "parse "+srv.URL) {
		t.Errorf("token from JSCRAWL_CONTROL_TOKEN: exit %d:\n%s", code, stdout)
	}
	srv.Release()
	if code := crawl.wait(t); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, crawl.Log())
	}
}

// TestPSChoose: with two crawls running, ps without a PID lists them and asks to choose; a
// stale socket (its process gone) is ignored and removed; with none it says so.
func TestPSChoose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"TMPDIR=" + dir}
	ctlDir := filepath.Join(dir, "jscrawl-"+strconv.Itoa(os.Getuid()))
	if _, stderr, code := jscrawlEnv(t, env, "ps"); code != 1 || !strings.Contains(stderr, "no running crawl found") {
		t.Errorf("no crawl: exit %d: %s", code, stderr)
	}

	// A stale socket: bound once, nobody listens, its process is gone.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ctlDir, 0o700); err != nil {
		t.Fatal(err)
	}
	stalePath := filepath.Join(ctlDir, strconv.Itoa(gone.Process.Pid)+".sock")
	l, err := net.Listen("unix", stalePath)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()

	srv := newHoldServer(t)
	spider := writeFile(t, dir, "spider.js", slowFetchSpider)
	other := writeFile(t, dir, "other.js", strings.Replace(slowFetchSpider, `name = "slowfetch"`, `name = "other"`, 1))
	a := startCrawl(t, env, spider, "-a", "base="+srv.URL)
	b := startCrawl(t, env, other, "-a", "base="+srv.URL)
	a.waitLine(t, "Control socket ")
	b.waitLine(t, "Control socket ")

	_, stderr, code := jscrawlEnv(t, env, "stats")
	if code != 2 || !strings.Contains(stderr, "2 crawls are running") {
		t.Errorf("two crawls: exit %d: %s", code, stderr)
	}
	for _, p := range []*crawlProc{a, b} {
		if !regexpMatch(fmt.Sprintf(`(?m)^%d +(slowfetch|other) `, p.cmd.Process.Pid), stderr) {
			t.Errorf("crawl %d not listed:\n%s", p.cmd.Process.Pid, stderr)
		}
	}
	if _, err := os.Stat(stalePath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale socket not removed: %v", err)
	}
	srv.Release()
	for _, p := range []*crawlProc{a, b} {
		if code := p.wait(t); code != 0 {
			t.Errorf("exit code %d:\n%s", code, p.Log())
		}
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// TestPSUsage: bad arguments are usage errors (exit 2) that say what to do.
func TestPSUsage(t *testing.T) {
	t.Parallel()
	env := []string{"TMPDIR=" + t.TempDir()}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ps", "12", "34"}, 2, "at most one PID"},
		{[]string{"pstree", "abc"}, 2, `bad PID "abc"`},
		{[]string{"stats", "--control", "127.0.0.1:1", "12"}, 2, "a PID or --control, not both"},
		{[]string{"ps", "99999999"}, 1, "no crawl with PID 99999999"},
		{[]string{"ps", "--control", "127.0.0.1:1"}, 1, "connection refused"},
	} {
		_, stderr, code := jscrawlEnv(t, env, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("jscrawl %v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"http://example.com/page/1", 0, "http://example.com/page/1"},
		{"http://example.com/page/1", 25, "http://example.com/page/1"},
		{"http://example.com/page/1", 10, "htt…page/1"},
		{"http://example.com/page/1", 1, "…"},
	} {
		if got := fit(tc.s, tc.n); got != tc.want || (tc.n > 0 && len([]rune(got)) > tc.n) {
			t.Errorf("fit(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestPSSlots: `jscrawl ps` lists the download slots with queued requests, their queue
// sizes and states: here one host waiting out a long DOWNLOAD_DELAY with three requests
// queued; `jscrawl stats` counts it in scheduler/slots.
func TestPSSlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"TMPDIR=" + dir}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	t.Cleanup(srv.Close)
	spider := writeFile(t, dir, "spider.js", `export default class {
  name = "slots";
  *start() { for (let i = 0; i < 4; i++) yield new Request("`+srv.URL+`/p" + i); }
  parse(r) { return { url: r.url }; }
}
`)
	crawl := startCrawl(t, env, spider, "-s", "ROBOTSTXT_OBEY=false", "-s", "DOWNLOAD_DELAY=60", "-s", "RANDOMIZE_DOWNLOAD_DELAY=false")
	pid := strconv.Itoa(crawl.cmd.Process.Pid)
	crawl.waitLine(t, "Control socket ")
	var rep psReport
	deadline := time.Now().Add(20 * time.Second)
	for { // the engine publishes its slots every 250 ms or so
		stdout := jscrawlOK(t, env, "ps", "--json", pid)
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if len(rep.Slots) > 0 && rep.Slots[0].Queued == 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(rep.Slots) != 1 || rep.Slots[0].Slot != "127.0.0.1" || rep.Slots[0].Queued != 3 || rep.Slots[0].State != "waiting" || rep.Slots[0].ReadyIn <= 0 {
		t.Fatalf("slots = %+v, want 127.0.0.1 with 3 queued, waiting", rep.Slots)
	}
	stdout, _, _ := jscrawlEnv(t, env, "ps", pid)
	if !strings.Contains(stdout, "SLOT") || !regexp.MustCompile(`127\.0\.0\.1\s+3\s+waiting`).MatchString(stdout) {
		t.Errorf("ps shows no waiting slot:\n%s", stdout)
	}
	stdout, _, _ = jscrawlEnv(t, env, "stats", "--json", pid)
	if !strings.Contains(stdout, `"scheduler/slots": 1`) {
		t.Errorf("stats without scheduler/slots 1:\n%s", stdout)
	}
	crawl.signal(t, syscall.SIGTERM)
	crawl.wait(t)
}
