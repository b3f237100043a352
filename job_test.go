package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// treeSite serves /p/N for N < total: page N links to 3N+1..3N+3 and shows N. It counts
// the downloads of each page; killAt, when set, is called as the download with that number
// (over all runs) is being served.
type treeSite struct {
	*httptest.Server
	total int
	mu    sync.Mutex
	hits  map[int]int
	n     int
	onHit func(n int) // called with the download's number, under mu
	hold  chan struct{}
	delay time.Duration // each page's latency (under mu)
}

func newTreeSite(t testing.TB, total int) *treeSite {
	t.Helper()
	s := &treeSite{total: total, hits: map[int]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /p/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n >= s.total {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.hits[n]++
		s.n++
		if s.onHit != nil {
			s.onHit(s.n)
		}
		hold, delay := s.hold, s.delay
		s.mu.Unlock()
		time.Sleep(delay) // a slow site's latency, not synchronisation
		if hold != nil && n != 0 {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<html><body><h1>%d</h1>", n)
		for c := 3*n + 1; c <= 3*n+3 && c < s.total; c++ {
			fmt.Fprintf(&b, `<a href="/p/%d">%d</a>`, c, c)
		}
		b.WriteString("</body></html>")
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(b.String()))
	})
	// A sitemap index of the pages, 100 to a sitemap (for SitemapSpider).
	mux.HandleFunc("GET /sitemap_index.xml", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for k := 0; k*100 < s.total; k++ {
			fmt.Fprintf(&b, "<sitemap><loc>%s/sitemap/%d.xml</loc></sitemap>", s.URL, k)
		}
		b.WriteString("</sitemapindex>")
		_, _ = w.Write([]byte(b.String()))
	})
	mux.HandleFunc("GET /sitemap/{k}", func(w http.ResponseWriter, r *http.Request) {
		k, _ := strconv.Atoi(strings.TrimSuffix(r.PathValue("k"), ".xml"))
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for n := k * 100; n < min((k+1)*100, s.total); n++ {
			fmt.Fprintf(&b, "<url><loc>%s/p/%d</loc></url>", s.URL, n)
		}
		b.WriteString("</urlset>")
		_, _ = w.Write([]byte(b.String()))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

const treeSpider = `export default class {
  name = "tree";
  customSettings = { ROBOTSTXT_OBEY: false, CONCURRENT_REQUESTS: 8, LOGSTATS_INTERVAL: 0 };
  *start() { yield new Request(this.baseUrl + "/p/0"); }
  *parse(r) {
    this.state.pages = (this.state.pages || 0) + 1;
    yield { n: Number(r.css("h1::text").get()) };
    yield* r.followAll(r.css("a"));
  }
}
`

// heldTreeSite is a treeSite that holds every page but /p/0 until site.hold is closed, and
// reports each download's arrival on the returned channel.
func heldTreeSite(t *testing.T, total int) (*treeSite, <-chan int) {
	t.Helper()
	site := newTreeSite(t, total)
	site.hold = make(chan struct{})
	arrived := make(chan int, 8*total)
	site.onHit = func(n int) { arrived <- n }
	return site, arrived
}

// runJobCrawl runs one crawl of the job with the binary and returns its exit code and log.
func runJobCrawl(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal()), string(out)
		}
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// killThenFinish runs the job with args in dir through killRuns (n kills at the most),
// then once more to the end, and fails the test unless that last run exits 0. It returns
// the number of kills and the last run's log.
func killThenFinish(t *testing.T, site *treeSite, dir string, args []string, n int) (kills int, log string) {
	t.Helper()
	kills = killRuns(t, site, dir, args, n)
	code, log := runJobCrawl(t, dir, args...)
	if code != 0 {
		t.Fatalf("the last run: exit code %d\n%s", code, log)
	}
	return kills, log
}

// TestJobSurvivesKills: a crawl of 2,000 pages is SIGKILLed at random downloads, at least
// ten times, resumed each time with the same command, then left to finish: its feed holds
// every item exactly once and no page was downloaded more often than 1 + the kills.
func TestJobSurvivesKills(t *testing.T) {
	t.Parallel()
	const total = 2000
	site, dir, args := treeJob(t, total, "-o", "items.jsonl")
	kills, _ := killThenFinish(t, site, dir, args, 12)
	data := eachOnce(t, filepath.Join(dir, "items.jsonl"), total)
	site.mu.Lock()
	for n, h := range site.hits {
		if h > 1+kills {
			t.Errorf("page %d downloaded %d times after %d kills", n, h, kills)
		}
	}
	site.mu.Unlock()
	st := jobStatus(t, filepath.Join(dir, "job"))
	if st["state"] != "finished" || st["finishReason"] != "finished" || st["pending"] != 0.0 || st["leased"] != 0.0 {
		t.Errorf("job status %v", st)
	}
	if kills < 10 {
		t.Errorf("only %d kills happened", kills)
	}
	// A finished job makes no request and leaves the feed alone.
	site.mu.Lock()
	before := site.n
	site.mu.Unlock()
	code, log := runJobCrawl(t, dir, args...)
	if code != 0 || !strings.Contains(log, "already finished (finished)") {
		t.Errorf("rerun of a finished job: exit code %d\n%s", code, log)
	}
	site.mu.Lock()
	if site.n != before {
		t.Errorf("a finished job made %d requests", site.n-before)
	}
	site.mu.Unlock()
	if again, _ := os.ReadFile(filepath.Join(dir, "items.jsonl")); string(again) != string(data) {
		t.Error("a finished job changed the feed")
	}
}

// treeJob starts a treeSite of total pages and writes treeSpider to a new folder; args run
// it as the job "job" there, committing often, with extra.
func treeJob(t *testing.T, total int, extra ...string) (site *treeSite, dir string, args []string) {
	t.Helper()
	site = newTreeSite(t, total)
	dir = t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	args = append([]string{"tree.js", "--jobdir", "job", "-a", "baseUrl=" + site.URL, "-s", "JOBDIR_COMMIT_INTERVAL=0.02"}, extra...)
	return site, dir, args
}

// killRuns runs the job with args in dir again and again, SIGKILLing each run at a random
// download of site (20 to 220 downloads after its start), until it has been killed n times
// or a run finishes. It returns the number of kills; after each, jscrawl job must say
// crashed.
func killRuns(t *testing.T, site *treeSite, dir string, args []string, n int) int {
	t.Helper()
	seed := uint64(rand.Int64())
	t.Logf("kill seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	kills := 0
	for kills < n {
		var pid int
		var cmd *exec.Cmd
		site.mu.Lock()
		target := site.n + 20 + rng.IntN(200)
		started := make(chan struct{})
		site.onHit = func(n int) {
			if n == target {
				<-started
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		site.mu.Unlock()
		cmd = exec.Command(bin, append([]string{"run"}, args...)...)
		cmd.Dir = dir
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid = cmd.Process.Pid
		close(started)
		err := cmd.Wait()
		site.mu.Lock()
		site.onHit = nil
		site.mu.Unlock()
		if err == nil {
			break // it finished before the kill
		}
		ee, ok := err.(*exec.ExitError)
		if !ok || !ee.Sys().(syscall.WaitStatus).Signaled() {
			t.Fatalf("run %d: %v\n%s", kills+1, err, log.String())
		}
		kills++
		st := jobStatus(t, filepath.Join(dir, "job"))
		if st["state"] != "crashed" {
			t.Errorf("after a kill, jscrawl job says %v, want crashed", st["state"])
		}
	}
	return kills
}

// eachOnce checks that the JSON Lines feed at path holds the items {"n": 0} to
// {"n": total-1} once each, and returns its content.
func eachOnce(t *testing.T, path string, total int) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	items := jsonLines(t, string(data))
	for _, it := range items {
		seen[int(it["n"].(float64))]++
	}
	for n := range total {
		if seen[n] != 1 {
			t.Errorf("item %d is in the feed %d times, want once", n, seen[n])
		}
	}
	if len(items) != total {
		t.Errorf("%d items in the feed, want %d", len(items), total)
	}
	return data
}

// jobStatus runs `jscrawl job DIR --json`.
func jobStatus(t *testing.T, dir string) map[string]any {
	t.Helper()
	out, stderr, code := jscrawl(t, "job", dir, "--json")
	if code != 0 {
		t.Fatalf("jscrawl job: exit code %d: %s", code, stderr)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("jscrawl job --json: %v\n%s", err, out)
	}
	return st
}

// TestJobPauseResume: the first Ctrl-C pauses a job (downloads and callbacks in flight
// finish, their progress is committed, the resume command is printed, exit code 130); the
// same command resumes it, with this.state, this.resumed and the stats carried over, and the
// -O feed (not overwritten on the resume) ends as one JSON array with every item once.
func TestJobPauseResume(t *testing.T) {
	t.Parallel()
	const total = 40
	site, arrived := heldTreeSite(t, total)
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", strings.Replace(treeSpider, `*start() {`, `opened() { this.logger.info("resumed=" + this.resumed + " pages=" + (this.state.pages || 0)); }
  *start() {`, 1))
	args := []string{"tree.js", "--jobdir", "job", "-O", "items.json", "-a", "baseUrl=" + site.URL, "--stats-json", "stats.json"}
	p := pauseJob(t, site, arrived, dir, args)
	log := p.Log()
	if !strings.Contains(log, "Paused. Resume with: jscrawl run --jobdir job\n") {
		t.Errorf("no resume hint:\n%s", log)
	}
	st := jobStatus(t, filepath.Join(dir, "job"))
	if st["state"] != "paused" || st["leased"] != 0.0 || st["pending"].(float64) < 1 || st["done"] != 4.0 {
		t.Errorf("paused job status %v", st)
	}
	text, _, _ := jscrawl(t, "job", filepath.Join(dir, "job"))
	for _, want := range []string{"spider   tree (tree.js)", "state    paused (shutdown)", ", 0 leased, 4 done, ", "items    4 in "} {
		if !strings.Contains(text, want) {
			t.Errorf("jscrawl job does not say %q:\n%s", want, text)
		}
	}
	site.mu.Lock()
	site.onHit = nil
	site.mu.Unlock()
	code, out := runJobCrawl(t, dir, args...)
	if code != 0 {
		t.Fatalf("resumed run: exit code %d\n%s", code, out)
	}
	if !strings.Contains(out, "resumed=true pages=4") {
		t.Errorf("this.state or this.resumed not restored:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "items.json"))
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatalf("items.json is not one JSON array: %v\n%s", err, data)
	}
	seen := map[float64]int{}
	for _, it := range items {
		seen[it["n"].(float64)]++
	}
	if len(items) != total || len(seen) != total {
		t.Errorf("%d items (%d distinct), want %d once each", len(items), len(seen), total)
	}
	stats := readStatsJSON(t, filepath.Join(dir, "stats.json"))
	if stats["item_scraped_count"] != float64(total) || stats["jobdir/resume_count"] != 1.0 {
		t.Errorf("stats not carried over: item_scraped_count %v, jobdir/resume_count %v", stats["item_scraped_count"], stats["jobdir/resume_count"])
	}
}

// pauseJob runs the tree crawl with args in dir until /p/0 and its three children have
// reached site (which holds the children), then sends one Ctrl-C and releases them once
// the stop has begun, so they finish and the job keeps their children; the run must exit
// with 130.
func pauseJob(t *testing.T, site *treeSite, arrived <-chan int, dir string, args []string) *crawlProc {
	t.Helper()
	p := startIn(t, dir, args...)
	for range 4 {
		<-arrived
	}
	p.signal(t, syscall.SIGINT)
	p.waitLine(t, "shutting down gracefully")
	close(site.hold)
	if code, _ := p.waitEnd(t, time.Now()); code != 130 {
		t.Fatalf("paused run: exit code %d\n%s", code, p.Log())
	}
	return p
}

// startIn starts `jscrawl run args` in dir, its log read line by line (see crawlProc).
func startIn(t *testing.T, dir string, args ...string) *crawlProc {
	t.Helper()
	return startCrawlIn(t, dir, nil, args...)
}

// TestJobRefused: a job another process runs, another spider's job and a damaged store are
// refused with a clear message (exit 2, 2, 1), making no request and touching no feed.
func TestJobRefused(t *testing.T) {
	t.Parallel()
	site := newTreeSite(t, 13)
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	writeFile(t, dir, "other.js", strings.Replace(treeSpider, `name = "tree"`, `name = "other"`, 1))
	args := []string{"--jobdir", "job", "-o", "items.jsonl", "-a", "baseUrl=" + site.URL}
	if code, log := runJobCrawl(t, dir, append([]string{"tree.js"}, args...)...); code != 0 {
		t.Fatalf("first run: exit code %d\n%s", code, log)
	}
	feedBefore, err := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	hits := site.n
	site.mu.Unlock()

	t.Run("another spider", func(t *testing.T) {
		code, log := runJobCrawl(t, dir, append([]string{"other.js"}, args...)...)
		if code != 2 || !strings.Contains(log, "the job was started with the spider file tree.js, this run gives other.js") {
			t.Errorf("exit code %d, want 2 naming both files:\n%s", code, log)
		}
		code, log = runJobCrawl(t, dir, append([]string{"other.js", "--override"}, args...)...)
		if code != 2 || !strings.Contains(log, `belongs to spider "tree", not "other"`) {
			t.Errorf("--override: exit code %d, want 2 naming both spiders:\n%s", code, log)
		}
	})
	t.Run("fresh starts over", func(t *testing.T) {
		// A finished job run again with --fresh crawls again (and -o appends).
		code, log := runJobCrawl(t, dir, append([]string{"tree.js", "--fresh"}, args...)...)
		if code != 0 || strings.Contains(log, "already finished") {
			t.Errorf("--fresh: exit code %d\n%s", code, log)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "items.jsonl"))
		if n := len(jsonLines(t, string(data))); n != 26 {
			t.Errorf("--fresh with -o: %d items, want 26 (13 appended to 13)", n)
		}
		_ = os.WriteFile(filepath.Join(dir, "items.jsonl"), feedBefore, 0o644)
	})
	t.Run("damaged store", func(t *testing.T) {
		jd := filepath.Join(dir, "damaged")
		if err := os.MkdirAll(filepath.Join(jd, "frontier"), 0o755); err != nil {
			t.Fatal(err)
		}
		// Garbage in every file the store would read.
		code, log := runJobCrawl(t, dir, "tree.js", "--jobdir", "damaged", "-a", "baseUrl="+site.URL)
		if code != 0 {
			t.Fatalf("new job: exit code %d\n%s", code, log)
		}
		st := jobStatus(t, jd)
		st["state"] = "" // not read again
		entries, _ := os.ReadDir(filepath.Join(jd, "frontier"))
		for _, e := range entries {
			if !e.IsDir() {
				_ = os.WriteFile(filepath.Join(jd, "frontier", e.Name()), []byte("garbage, not a store"), 0o644)
			}
		}
		status, _ := os.ReadFile(filepath.Join(jd, "job.json"))
		_ = os.WriteFile(filepath.Join(jd, "job.json"), []byte(strings.Replace(string(status), `"finished"`, `"paused"`, 1)), 0o644)
		site.mu.Lock()
		hits = site.n
		site.mu.Unlock()
		code, log = runJobCrawl(t, dir, "tree.js", "--jobdir", "damaged", "-a", "baseUrl="+site.URL)
		if code != 1 || strings.Contains(log, "panic") || !strings.Contains(log, "damaged") {
			t.Errorf("damaged store: exit code %d, want 1 with a message:\n%s", code, log)
		}
		t.Log(log)
	})
	site.mu.Lock()
	if site.n != hits {
		t.Errorf("refused runs made %d requests", site.n-hits)
	}
	site.mu.Unlock()
	if data, _ := os.ReadFile(filepath.Join(dir, "items.jsonl")); string(data) != string(feedBefore) {
		t.Error("a refused run changed the feed")
	}
}

// TestJobLocked: a second run of a job that runs is refused, naming the running pid.
func TestJobLocked(t *testing.T) {
	t.Parallel()
	site, arrived := heldTreeSite(t, 13)
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	args := []string{"tree.js", "--jobdir", "job", "-a", "baseUrl=" + site.URL}
	p := startIn(t, dir, args...)
	<-arrived
	<-arrived // a held download: the first run is crawling
	code, log := runJobCrawl(t, dir, args...)
	want := fmt.Sprintf("job in job is running, pid %d", p.cmd.Process.Pid)
	if code != 2 || !strings.Contains(log, want) {
		t.Errorf("exit code %d, want 2 with %q:\n%s", code, want, log)
	}
	if st := jobStatus(t, filepath.Join(dir, "job")); st["state"] != "running" || st["pid"] != float64(p.cmd.Process.Pid) {
		t.Errorf("jscrawl job on a running job: %v", st)
	}
	close(site.hold)
	if code, _ := p.waitEnd(t, time.Now()); code != 0 {
		t.Errorf("the first run: exit code %d\n%s", code, p.Log())
	}
}

// TestJobEditedSpider: a resumed request whose callback the edited spider no longer has is
// an error, counted in jobdir/missing_callback, never silently dropped.
func TestJobEditedSpider(t *testing.T) {
	t.Parallel()
	site, arrived := heldTreeSite(t, 13)
	dir := t.TempDir()
	src := strings.Replace(treeSpider, `yield* r.followAll(r.css("a"));`, `yield* r.followAll(r.css("a"), { callback: this.parsePage });`, 1)
	src = strings.Replace(src, `  *parse(r) {`, `  *parsePage(r) { yield* this.parse(r); }
  *parse(r) {`, 1)
	writeFile(t, dir, "tree.js", src)
	args := []string{"tree.js", "--jobdir", "job", "-a", "baseUrl=" + site.URL, "--stats-json", "stats.json"}
	pauseJob(t, site, arrived, dir, args)
	writeFile(t, dir, "tree.js", strings.ReplaceAll(src, "parsePage", "parseItem"))
	code, log := runJobCrawl(t, dir, args...)
	if !strings.Contains(log, "names the method parsePage, which the spider no longer has") {
		t.Errorf("exit code %d; no error for the missing callback:\n%s", code, log)
	}
	stats := readStatsJSON(t, filepath.Join(dir, "stats.json"))
	if n, _ := stats["jobdir/missing_callback"].(float64); n < 1 {
		t.Errorf("jobdir/missing_callback = %v", stats["jobdir/missing_callback"])
	}
}

// TestJobDemoResume: a paused `run --demo` job resumes against a demo site at the address
// its requests name, and ends with the catalogue's 100 books once each.
func TestJobDemoResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	books, err := filepath.Abs("examples/books.ts")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--demo", books, "--jobdir", "job", "-o", "books.jsonl", "-L", "DEBUG"}
	p := startIn(t, dir, args...)
	for range 10 {
		p.waitLine(t, "Scraped from")
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code, _ := p.waitEnd(t, time.Now()); code != 130 {
		t.Fatalf("paused run: exit code %d\n%s", code, p.Log())
	}
	code, log := runJobCrawl(t, dir, args...)
	if code != 0 || strings.Contains(log, "ERROR") {
		t.Fatalf("resumed run: exit code %d\n%s", code, log)
	}
	eachTitleOnce(t, feedCounts(t, filepath.Join(dir, "books.jsonl"), "title"), 100)
}

// TestJobSitemapSpiderResumes: a SitemapSpider job killed several times (sitemaps are
// scheduled requests, so the frontier keeps them) ends with every page's item once.
func TestJobSitemapSpiderResumes(t *testing.T) {
	t.Parallel()
	const total = 1000
	site := newTreeSite(t, total)
	dir := t.TempDir()
	writeFile(t, dir, "sm.js", `import { SitemapSpider } from "jscrawl";
export default class extends SitemapSpider {
  name = "sm";
  customSettings = { ROBOTSTXT_OBEY: false, CONCURRENT_REQUESTS: 8, LOGSTATS_INTERVAL: 0 };
  get sitemapUrls() { return [this.baseUrl + "/sitemap_index.xml"]; }
  parse(r) { return { n: Number(r.css("h1::text").get()) }; }
}
`)
	args := []string{"sm.js", "--jobdir", "job", "-o", "items.jsonl", "-a", "baseUrl=" + site.URL, "-s", "JOBDIR_COMMIT_INTERVAL=0.02"}
	if kills, _ := killThenFinish(t, site, dir, args, 5); kills < 5 {
		t.Errorf("only %d kills happened", kills)
	}
	eachOnce(t, filepath.Join(dir, "items.jsonl"), total)
}

// TestJobSecondCtrlC: a second Ctrl-C stops at once, with the downloads held by the server
// cut off; what was done is committed and the job resumes to every item once.
func TestJobSecondCtrlC(t *testing.T) {
	t.Parallel()
	const total = 40
	site, arrived := heldTreeSite(t, total)
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	args := []string{"tree.js", "--jobdir", "job", "-o", "items.jsonl", "-a", "baseUrl=" + site.URL, "-s", "SHUTDOWN_TIMEOUT=600"}
	p := startIn(t, dir, args...)
	for range 4 {
		<-arrived
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	p.waitLine(t, "shutting down gracefully")
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code, _ := p.waitEnd(t, time.Now()); code != 130 {
		t.Fatalf("stopped run: exit code %d\n%s", code, p.Log())
	}
	st := jobStatus(t, filepath.Join(dir, "job"))
	if st["state"] != "paused" || st["done"] != 1.0 || st["leased"] != 3.0 {
		t.Errorf("job after a second Ctrl-C: %v (want paused, /p/0 done, its 3 children leased)", st)
	}
	close(site.hold)
	site.mu.Lock()
	site.onHit = nil
	site.mu.Unlock()
	if code, log := runJobCrawl(t, dir, args...); code != 0 {
		t.Fatalf("resumed run: exit code %d\n%s", code, log)
	}
	eachOnce(t, filepath.Join(dir, "items.jsonl"), total)
}

// TestJobItemCountAcrossRuns: CLOSESPIDER_ITEMCOUNT counts the items of a job's earlier
// runs too: a paused and resumed job ends with exactly that many.
func TestJobItemCountAcrossRuns(t *testing.T) {
	t.Parallel()
	site, arrived := heldTreeSite(t, 40)
	dir := t.TempDir()
	writeFile(t, dir, "tree.js", treeSpider)
	args := []string{"tree.js", "--jobdir", "job", "-o", "items.jsonl", "-a", "baseUrl=" + site.URL, "-s", "CLOSESPIDER_ITEMCOUNT=30"}
	pauseJob(t, site, arrived, dir, args)
	if code, log := runJobCrawl(t, dir, args...); code != 0 {
		t.Fatalf("resumed run: exit code %d\n%s", code, log)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if n := len(jsonLines(t, string(data))); n != 30 {
		t.Errorf("%d items over both runs, want 30", n)
	}
}
