package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/internal/broadsite"
	"github.com/redis/go-redis/v9"
)

// broadDelay is the DOWNLOAD_DELAY of the broad-crawl tests, and broadSlack how much
// sooner than it the site may see a host's next request: the slot times a download's start,
// the site its arrival, and on a loaded machine the two can be tens of milliseconds apart
// for one request and not for the next.
const (
	broadDelay = 300 * time.Millisecond
	broadSlack = 100 * time.Millisecond
)

// TestBroadCrawl crawls 20 loopback hosts × 6 pages (127.0.1.1 to 127.0.1.20, one
// listener each, a 20 ms answer) with broadSpider, CONCURRENT_REQUESTS_PER_DOMAIN=1 and a
// 0.3 s DOWNLOAD_DELAY, with each scheduler, and checks what must hold whatever the
// scheduler, as the site sees it: every page requested exactly once and nothing else;
// at each host no request in flight beside another, no gap between two requests shorter
// than the delay less broadSlack, and the host's first to last request at least its pages
// less one times the delay, less broadSlack.
func TestBroadCrawl(t *testing.T) {
	t.Parallel()
	const hosts, pages = 20, 6
	for _, tc := range []struct {
		name    string
		jobdir  bool
		workers int // worker processes on one Redis frontier (0: no frontier)
	}{
		{name: "memory"},
		{name: "jobdir", jobdir: true},
		{name: "redis 3 workers", workers: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, err := broadsite.NewGraph(hosts, pages)
			if err != nil {
				t.Fatal(err)
			}
			site, err := broadsite.Start(g, broadsite.Options{Latency: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = site.Close() })
			dir := t.TempDir()
			writeFile(t, dir, "broad.js", broadSpider)
			args := []string{"broad.js", "-a", "port=" + strconv.Itoa(site.Port), "-a", "hosts=" + strconv.Itoa(hosts),
				"-s", "CONCURRENT_REQUESTS=16", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1", "-s", "RANDOMIZE_DOWNLOAD_DELAY=false", "-s", "ROBOTSTXT_OBEY=false",
				"-s", fmt.Sprintf("DOWNLOAD_DELAY=%g", broadDelay.Seconds()), "-L", "INFO"}
			if tc.jobdir {
				args = append(args, "--jobdir", filepath.Join(dir, "job"))
			}
			n := 1
			if tc.workers > 0 {
				n = tc.workers
				args = append(args, "--frontier", enginetest.StartRedis(t, enginetest.RedisOptions{}).URL(0))
			}
			var procs []*crawlProc
			for range n {
				procs = append(procs, startCrawlIn(t, dir, nil, args...))
			}
			for i, p := range procs {
				if code := p.wait(t); code != 0 {
					t.Fatalf("worker %d: exit code %d\n%s", i, code, p.Log())
				}
			}
			checkBroadCrawl(t, site, 1)
		})
	}
}

// checkBroadCrawl checks what the site saw of a finished crawl of all its pages at
// broadDelay with at most perHost requests at once per host.
func checkBroadCrawl(t *testing.T, site *broadsite.Site, perHost int) {
	t.Helper()
	g := site.Graph
	for h := range g.Hosts {
		for n := range g.Pages {
			if hits := site.Hits(broadsite.Page{Host: h, N: n}); hits != 1 {
				t.Errorf("host %d page %d: requested %d times, want once", h+1, n, hits)
			}
		}
		arrivals := site.Arrivals(h)
		if len(arrivals) != g.Pages {
			t.Errorf("host %d: %d requests, want %d (its pages)", h+1, len(arrivals), g.Pages)
		}
		if gaps := broadsite.GapsOf(arrivals, broadDelay-broadSlack); gaps.Short > 0 {
			t.Errorf("host %d: %d of %d gaps between two requests under %v, the smallest %v", h+1, gaps.Short, gaps.N, broadDelay-broadSlack, gaps.Min)
		}
		if len(arrivals) > 1 {
			span, want := arrivals[len(arrivals)-1].Sub(arrivals[0]), time.Duration(len(arrivals)-1)*broadDelay-broadSlack
			if span < want {
				t.Errorf("host %d: %d requests in %v from the first to the last, want at least %v", h+1, len(arrivals), span, want)
			}
		}
		if in := site.MaxInFlight(h); in > perHost {
			t.Errorf("host %d: %d requests in flight at once, want at most %d", h+1, in, perHost)
		}
	}
}

// TestBroadBench runs jscrawl bench --hosts with each scheduler: every page crawled once,
// the limit of the graph (2 pages after the first at 0.1 s), and the politeness line; a
// shared crawl leaves no key in Redis.
func TestBroadBench(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		redis bool
		how   string
	}{
		{name: "memory", how: "memory scheduler"},
		{name: "jobdir", args: []string{"--jobdir", "JOB"}, how: "job scheduler in .*"},
		{name: "frontier", redis: true, how: "shared frontier, 1 worker"},
		{name: "workers", args: []string{"--workers", "2"}, redis: true, how: "shared frontier, 2 worker processes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"bench", "--hosts", "4", "--pages", "3", "-s", "DOWNLOAD_DELAY=0.1"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "JOB", filepath.Join(t.TempDir(), "job")))
			}
			var rdb *enginetest.Redis
			if tc.redis {
				rdb = enginetest.StartRedis(t, enginetest.RedisOptions{})
				args = append(args, "--frontier", rdb.URL(0))
			}
			stdout, stderr, code := jscrawl(t, args...)
			crawled := `(?m)^Crawled: 12 of 12 pages \(0 twice or more, 0 missing, 12 requests\) in [\d.]+ s at the site, from its first request to its last`
			if !strings.Contains(tc.how, "worker processes") { // the engine's figures are in this process
				crawled += `; .*finish reason finished`
			}
			for _, re := range []string{
				`(?m)^Broad bench: 4 hosts × 3 pages \(12 pages\), CONCURRENT_REQUESTS=16 CONCURRENT_REQUESTS_PER_DOMAIN=1 DOWNLOAD_DELAY=0.1 RANDOMIZE_DOWNLOAD_DELAY=false, ` + tc.how + `$`,
				crawled + `$`,
				`(?m)^Limit: 12 pages in 0\.2 s \(.*\); the crawl took [\d.]+× the limit's span$`,
				`(?m)^Politeness at the site: 8 gaps between two requests to one host, \d+ under 0\.09 s .*, the smallest [\d.]+ s; the most requests in flight at once at one host: 1$`,
			} {
				if !regexp.MustCompile(re).MatchString(stdout) {
					t.Errorf("bench --hosts: exit code %d, stdout does not match %s:\n%s\n%s", code, re, stdout, stderr)
				}
			}
			if rdb != nil {
				keys, err := redis.NewClient(&redis.Options{Addr: rdb.Addr}).Keys(context.Background(), "*").Result()
				if err != nil || len(keys) > 0 {
					t.Errorf("Redis keys after the bench: %v %v", keys, err)
				}
			}
		})
	}
}

// TestBroadBenchUsage: the broad options are checked before anything is served.
func TestBroadBenchUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosts", "0"}, "0 hosts: want 1 to 64516"},
		{[]string{"--hosts", "2", "--pages", "0"}, "0 pages per host"},
		{[]string{"--hosts", "2", "--workers", "3"}, "--workers 3 needs --frontier"},
		{[]string{"--hosts", "2", "--serve-only", "--jobdir", "x"}, "--serve-only serves the site alone"},
		{[]string{"--pages", "3"}, "--pages is an option of the broad crawl"},
	} {
		_, stderr, code := jscrawl(t, append([]string{"bench"}, tc.args...)...)
		if code != 2 || !regexp.MustCompile(regexp.QuoteMeta(tc.want)).MatchString(stderr) {
			t.Errorf("bench %v: exit code %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestBroadBenchServeOnly: bench --serve-only serves the site and prints the jscrawl run
// command that crawls it; after that crawl, Ctrl-C makes it report what the site saw and
// exit 0.
func TestBroadBenchServeOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bench := exec.CommandContext(ctx, bin, "bench", "--hosts", "3", "--pages", "2", "--serve-only", "-s", "DOWNLOAD_DELAY=0.1")
	out, benchErr := enginetest.StartStdout(t, bench)
	sc := bufio.NewScanner(out)
	var run []string
	for run == nil && sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "jscrawl run ") {
			run = strings.Fields(strings.TrimPrefix(l, "jscrawl "))
		}
	}
	if run == nil {
		_ = bench.Process.Kill()
		_ = bench.Wait()
		t.Fatalf("bench --serve-only printed no jscrawl run command\n%s", benchErr.String())
	}
	if _, stderr, code := jscrawl(t, run...); code != 0 {
		t.Errorf("jscrawl %v: exit code %d\n%s", run, code, stderr)
	}
	if err := bench.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	for sc.Scan() {
		report.WriteString(sc.Text() + "\n")
	}
	if err := bench.Wait(); err != nil {
		t.Errorf("bench --serve-only after Ctrl-C: %v\n%s", err, benchErr.String())
	}
	for _, want := range []string{
		"Crawled: 6 of 6 pages (0 twice or more, 0 missing, 6 requests)",
		"Limit: 6 pages in 0.1 s",
		"Politeness at the site: 3 gaps between two requests to one host",
	} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("bench --serve-only's report has no %q:\n%s", want, report.String())
		}
	}
}

// TestBroadBenchJSON: bench --hosts --json prints the report as one JSON object.
func TestBroadBenchJSON(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := jscrawl(t, "bench", "--hosts", "4", "--pages", "3", "-s", "DOWNLOAD_DELAY=0.1", "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 {
		t.Fatalf("bench --json: exit code %d, not JSON (%v):\n%s\n%s", code, err, stdout, stderr)
	}
	for k, want := range map[string]any{
		"hosts": 4.0, "pages_per_host": 3.0, "pages": 12.0, "missing": 0.0, "duplicates": 0.0, "requests": 12.0,
		"limit_pages": 12.0, "limit_span": 0.2, "gaps": 8.0, "short_gap_below": 0.09, "max_in_flight_per_host": 1.0,
		"download_delay": 0.1, "crawl": "memory scheduler", "finish_reason": "finished",
	} {
		if rep[k] != want {
			t.Errorf("bench --json: %s = %v, want %v\n%s", k, rep[k], want, stdout)
		}
	}
	if r, ok := rep["ratio"].(float64); !ok || r <= 0 {
		t.Errorf("bench --json: ratio %v\n%s", rep["ratio"], stdout)
	}
}
