package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/examples/demosite"
)

// browserBenchSpider crawls the demo site's catalogue, 5 listings and their 100 detail
// pages: with mode=browser the rendered one under /js/ (every page a browser request that
// waits for the content the page's script adds; resources=all loads the covers too), with
// mode=http the plain HTML one, for the cost of a browser against HTTP.
const browserBenchSpider = `import { Request } from "jscrawl";
export default class BrowserBench {
  name = "browserbench";
  baseUrl = "http://127.0.0.1:1";
  mode = "browser";
  resources = "blocked";
  customSettings = { CONCURRENT_REQUESTS: 16, CONCURRENT_REQUESTS_PER_DOMAIN: 16, ROBOTSTXT_OBEY: false, RETRY_TIMES: 0 };
  opts(waitFor) {
    if (this.mode === "http") return {};
    const browser = { waitFor };
    if (this.resources === "all") browser.blockResources = [];
    return { browser };
  }
  *start() {
    const path = this.mode === "http" ? "/catalogue/page-1.html" : "/js/catalogue/page-1.html";
    yield new Request(this.baseUrl + path, this.opts("article.product_pod"));
  }
  *parse(response) {
    for (const href of response.css("article.product_pod h3 a::attr(href)").getall()) {
      yield response.follow(href, { callback: this.parseBook, ...this.opts("article h1") });
    }
    const next = response.css("li.next a::attr(href)").get();
    if (next) yield response.follow(next, this.opts("article.product_pod"));
  }
  parseBook(response) {
    return { title: response.css("article h1::text").get(), price: response.css("article .price_color::text").get() };
  }
}
`

// BenchmarkBrowser renders the demo site's catalogue (105 pages, browserBenchSpider) with
// BROWSER_CONCURRENCY 1, 4 and 8, with the default blocked resources and with every
// resource loaded, and crawls the plain HTML catalogue over HTTP for comparison. It
// reports pages/s (wall clock, Chromium's start included), the CPU per page of jscrawl (or
// node) and the Chromium processes it waited for, and of jscrawl (or node) alone (sampled
// every 100 ms, so a little short), and the peak memory of the process tree (jscrawl
// and Chromium, sampled every 100 ms from /proc): the sum of the processes' RSS and of their
// PSS (shared pages counted once, split between the processes that map them).
//
// With JSCRAWL_BENCH_CRAWLEE=DIR, a folder where `npm install crawlee playwright` was done,
// the same crawl runs in Crawlee's PlaywrightCrawler too (testdata/browserbench/crawlee.mjs,
// copied there), interleaved with jscrawl's. Run it alone, on a quiet machine if the
// absolute figures matter:
//
//	go test -run '^$' -bench Browser -benchtime 1x .
//	JSCRAWL_BENCH_CRAWLEE=/tmp/crawleebench go test -run '^$' -bench Browser -benchtime 1x -timeout 30m .
func BenchmarkBrowser(b *testing.B) {
	chromium := os.Getenv("BROWSER_EXECUTABLE")
	if chromium == "" {
		chromium = enginetest.RequireBrowser(b)
	}
	srv, err := demosite.Start("")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dir := b.TempDir()
	writeFile(b, dir, "bench.js", browserBenchSpider)
	crawlee := os.Getenv("JSCRAWL_BENCH_CRAWLEE")
	if crawlee != "" {
		script, err := os.ReadFile("testdata/browserbench/crawlee.mjs")
		if err != nil {
			b.Fatal(err)
		}
		writeFile(b, crawlee, "jscrawl-browserbench.mjs", string(script))
	}
	type run struct {
		name      string
		conc      int
		resources string // "blocked" or "all"
		reuse     int    // BROWSER_PAGE_REUSE; 0: the default
	}
	runs := []run{{"http", 0, "", 0}}
	for _, c := range []int{1, 4, 8} {
		runs = append(runs, run{fmt.Sprintf("c=%d/blocked", c), c, "blocked", 0})
	}
	runs = append(runs, run{"c=4/all", 4, "all", 0})
	// A new tab and incognito context for every page, as before tabs were reused.
	for _, c := range []int{1, 4} {
		runs = append(runs, run{fmt.Sprintf("c=%d/blocked/page-reuse=1", c), c, "blocked", 1})
	}
	for _, r := range runs {
		peers := []string{"jscrawl"}
		if crawlee != "" && r.conc > 0 && r.reuse == 0 {
			peers = append(peers, "crawlee")
		}
		for _, peer := range peers {
			b.Run(peer+"/"+r.name, func(b *testing.B) {
				newCmd := func() *exec.Cmd {
					if peer == "crawlee" {
						c := exec.Command("node", "jscrawl-browserbench.mjs", srv.URL(), strconv.Itoa(r.conc), r.resources)
						c.Dir = crawlee
						c.Env = append(os.Environ(), "CRAWLEE_LOG_LEVEL=WARNING", "BROWSER_EXECUTABLE="+chromium)
						return c
					}
					args := []string{"run", "bench.js", "-a", "baseUrl=" + srv.URL(), "-o", "items.jsonl:jsonl", "-L", "WARNING",
						"-s", "BROWSER_EXECUTABLE=" + chromium}
					if r.conc == 0 {
						args = append(args, "-a", "mode=http")
					} else {
						args = append(args, "-s", fmt.Sprintf("BROWSER_CONCURRENCY=%d", r.conc), "-a", "resources="+r.resources)
					}
					if r.reuse > 0 {
						args = append(args, "-s", fmt.Sprintf("BROWSER_PAGE_REUSE=%d", r.reuse))
					}
					c := exec.Command(bin, args...)
					c.Dir = dir
					return c
				}
				var wall, cpu, own time.Duration
				var peak treeMemory
				for range b.N {
					_ = os.Remove(filepath.Join(dir, "items.jsonl"))
					c := newCmd()
					var out bytes.Buffer
					c.Stdout, c.Stderr = &out, &out
					start := time.Now()
					if err := c.Start(); err != nil {
						b.Fatal(err)
					}
					stop := make(chan struct{})
					var wg sync.WaitGroup
					var m treeMemory
					wg.Go(func() { m = sampleTreeMemory(c.Process.Pid, stop) })
					err := c.Wait()
					wall += time.Since(start)
					close(stop)
					wg.Wait()
					if err != nil {
						b.Fatalf("%s: %v\n%s", peer, err, out.String())
					}
					cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
					own += m.ownCPU
					peak.rss, peak.pss = max(peak.rss, m.rss), max(peak.pss, m.pss)
					if got := benchItems(b, peer, dir, out.Bytes()); got != 100 {
						b.Fatalf("%s: %d items, want 100\n%s", peer, got, out.String())
					}
				}
				const pages = 105
				total := float64(pages * b.N)
				b.ReportMetric(total/wall.Seconds(), "pages/s")
				b.ReportMetric(float64(cpu.Milliseconds())/total, "cpu-ms/page")
				b.ReportMetric(float64(own.Milliseconds())/total, "own-cpu-ms/page")
				b.ReportMetric(float64(peak.rss)/(1<<20), "peak-rss-MiB")
				b.ReportMetric(float64(peak.pss)/(1<<20), "peak-pss-MiB")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// benchItems counts the items of one crawl: jscrawl's feed, or Crawlee's printed count.
func benchItems(b *testing.B, peer, dir string, out []byte) int {
	if peer == "crawlee" {
		var res struct{ Items int }
		lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
		if err := json.Unmarshal(lines[len(lines)-1], &res); err != nil {
			b.Fatalf("crawlee: %v\n%s", err, out)
		}
		return res.Items
	}
	data, err := os.ReadFile(filepath.Join(dir, "items.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// treeMemory is the memory of a process tree in bytes, and the CPU time of its root
// process alone (without the children it waited for).
type treeMemory struct {
	rss, pss int64
	ownCPU   time.Duration
}

// sampleTreeMemory samples the memory of pid and its descendants, and pid's own CPU
// time, every 100 ms until stop is closed, and returns the peaks (the last CPU time).
func sampleTreeMemory(pid int, stop <-chan struct{}) treeMemory {
	var peak treeMemory
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		m := readTreeMemory(pid)
		peak.rss, peak.pss = max(peak.rss, m.rss), max(peak.pss, m.pss)
		if cpu, ok := ownCPU(pid); ok {
			peak.ownCPU = cpu
		}
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

// ownCPU returns the user and system time pid has used itself (/proc/PID/stat's utime
// and stime, in clock ticks of 10 ms: USER_HZ is 100 on Linux).
func ownCPU(pid int) (time.Duration, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// After "pid (comm) ": state is field 0, utime field 11, stime field 12.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// readTreeMemory sums Rss and Pss (/proc/PID/smaps_rollup) over pid and its descendants.
func readTreeMemory(root int) treeMemory {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], pid)
	}
	var m treeMemory
	for todo := []int{root}; len(todo) > 0; {
		pid := todo[0]
		todo = append(todo[1:], children[pid]...)
		f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ":")
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			switch k {
			case "Rss":
				m.rss += kb << 10
			case "Pss":
				m.pss += kb << 10
			}
		}
		f.Close()
	}
	return m
}
