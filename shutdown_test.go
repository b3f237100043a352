package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopServer serves the pages of the stop tests: /fast?i=N answers at once; /hang and
// /held answer only when the test ends or releases them (/held); each of /hang and /held
// reports its arrival on arrived.
type stopServer struct {
	*httptest.Server
	arrived chan string
	release chan struct{}
}

func newStopServer(t *testing.T) *stopServer {
	t.Helper()
	s := &stopServer{arrived: make(chan string, 100), release: make(chan struct{})}
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fast", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><body><p>%s</p></body></html>", r.URL.Query().Get("i"))
	})
	mux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
		s.arrive(r)
		select {
		case <-done:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("GET /held", func(w http.ResponseWriter, r *http.Request) {
		s.arrive(r)
		select {
		case <-done:
		case <-r.Context().Done():
		case <-s.release:
			fmt.Fprint(w, `{"ok": true}`)
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(func() { close(done); s.Close() })
	return s
}

// waitEnd waits for the crawl's exit; it returns the exit code and the time since since.
func (p *crawlProc) waitEnd(t *testing.T, since time.Time) (int, time.Duration) {
	t.Helper()
	return p.wait(t), time.Since(since)
}

// waitExit waits for the crawl's exit and reports an exit code other than want; it returns
// the time since since and the crawl's log.
func (p *crawlProc) waitExit(t *testing.T, since time.Time, want int) (time.Duration, string) {
	t.Helper()
	code, took := p.waitEnd(t, since)
	log := p.Log()
	if code != want {
		t.Errorf("exit code %d, want %d:\n%s", code, want, log)
	}
	return took, log
}

// arrive reports r's arrival unless arrived is full (a crawl that retries without end).
func (s *stopServer) arrive(r *http.Request) {
	select {
	case s.arrived <- r.URL.String():
	default:
	}
}

// TestStopDeadline: a stop always ends. The first SIGINT or SIGTERM stops retrying at once,
// lets callbacks finish, and aborts the downloads still running after SHUTDOWN_TIMEOUT;
// callbacks still running abortGrace after that are stopped. SIGTERM exits 143, SIGINT 130,
// with no "jscrawl:" line, and the feed keeps every item scraped.
func TestStopDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		sig      syscall.Signal
		code     int
		path     string   // the request held by the server
		settings []string // -s values
		callback string   // the held request's callback
		release  bool     // release the held request after the signal
		within   time.Duration
		items    int
		stats    map[string]float64
	}{
		{
			// One slow download in flight took 541 s before: the stop retried it.
			name: "SIGTERM aborts a hung download at SHUTDOWN_TIMEOUT", sig: syscall.SIGTERM, code: 143,
			path: "/hang", settings: []string{"SHUTDOWN_TIMEOUT=1", "DOWNLOAD_TIMEOUT=600"},
			within: 20 * time.Second, items: 2,
			stats: map[string]float64{"shutdown/aborted_downloads": 1},
		},
		{
			// The held try times out after 1 s; without the stop's check it would be
			// retried a thousand times.
			name: "SIGINT stops retrying", sig: syscall.SIGINT, code: 130,
			path: "/hang", settings: []string{"SHUTDOWN_TIMEOUT=600", "DOWNLOAD_TIMEOUT=1", "RETRY_TIMES=1000", "RETRY_BACKOFF_BASE=0"},
			within: 20 * time.Second, items: 2,
			stats: map[string]float64{"retry/shutdown": 1},
		},
		{
			// A callback awaiting an inline download when the signal comes finishes and its
			// item is exported.
			name: "callbacks in flight finish", sig: syscall.SIGTERM, code: 143,
			path: "/fast?i=held", callback: "awaitHeld", release: true, settings: []string{"SHUTDOWN_TIMEOUT=600"},
			within: 20 * time.Second, items: 3,
		},
		{
			// A callback that never settles is stopped abortGrace after SHUTDOWN_TIMEOUT.
			name: "a callback that never ends is stopped", sig: syscall.SIGINT, code: 130,
			path: "/fast?i=forever", callback: "forever", settings: []string{"SHUTDOWN_TIMEOUT=1"},
			within: 20 * time.Second, items: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newStopServer(t)
			dir := t.TempDir()
			cb := ""
			if tc.callback != "" {
				cb = ", callback: this." + tc.callback
			}
			spider := writeFile(t, dir, "stop.js", `export default class {
  name = "stop";
  *start() {
    yield new Request("`+srv.URL+`/fast?i=0", { priority: 2 });
    yield new Request("`+srv.URL+`/fast?i=1", { priority: 2 });
    yield new Request("`+srv.URL+tc.path+`", { priority: 1`+cb+` });
  }
  parse(r) { return { url: r.url }; }
  async awaitHeld(r) {
    this.logger.info("awaiting held");
    const got = await fetch("`+srv.URL+`/held");
    return { url: r.url, held: (await got.json()).ok };
  }
  async forever(r) {
    this.logger.info("awaiting forever");
    await new Promise(() => {});
  }
}
`)
			out := filepath.Join(dir, "items.jsonl")
			args := []string{spider, "-o", out, "-L", "DEBUG", "-s", "CONCURRENT_REQUESTS=1", "-s", "ROBOTSTXT_OBEY=false", "--stats-json", filepath.Join(dir, "stats.json")}
			for _, s := range tc.settings {
				args = append(args, "-s", s)
			}
			p := startCrawl(t, nil, args...)
			if tc.callback == "forever" {
				// The callback's log line may come before the second item's.
				p.waitLines(t, "Scraped from", "Scraped from", "awaiting forever")
			} else {
				p.waitLines(t, "Scraped from", "Scraped from")
				<-srv.arrived // the held download reached the server
			}
			sent := time.Now()
			p.signal(t, tc.sig)
			if tc.release {
				p.waitLine(t, "shutting down gracefully")
				close(srv.release)
			}
			took, log := p.waitExit(t, sent, tc.code)
			if took > tc.within {
				t.Errorf("took %v after the signal, want < %v", took, tc.within)
			}
			name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig]
			if !strings.Contains(log, "Received "+name+", shutting down gracefully") {
				t.Errorf("the log does not name %s:\n%s", name, log)
			}
			for _, l := range strings.Split(log, "\n") {
				if strings.HasPrefix(l, "jscrawl:") {
					t.Errorf("stray line at exit: %q", l)
				}
			}
			items, data := readFeed(t, out)
			if len(items) != tc.items {
				t.Errorf("feed has %d items, want %d:\n%s\n%s", len(items), tc.items, data, log)
			}
			stats := readStatsJSON(t, filepath.Join(dir, "stats.json"))
			if stats["finish_reason"] != "shutdown" {
				t.Errorf("finish_reason %v, want shutdown", stats["finish_reason"])
			}
			for k, want := range tc.stats {
				if stats[k] != want {
					t.Errorf("stat %s = %v, want %v", k, stats[k], want)
				}
			}
		})
	}
}

// TestClosespiderPagecountExact: CLOSESPIDER_PAGECOUNT=3 downloads three pages, not three
// plus the downloads in flight (22 before).
func TestClosespiderPagecountExact(t *testing.T) {
	t.Parallel()
	srv := newStopServer(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "pages.js", `export default class {
  name = "pages";
  *start() { for (let i = 0; i < 50; i++) yield new Request("`+srv.URL+`/fast?i=" + i); }
  parse(r) { return { url: r.url }; }
}
`)
	_, stderr, code := jscrawlIn(t, dir, "", "run", spider, "-o", "items.jsonl", "-s", "CLOSESPIDER_PAGECOUNT=3",
		"-s", "CONCURRENT_REQUESTS=16", "-s", "ROBOTSTXT_OBEY=false", "--stats-json", "stats.json")
	if code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr)
	}
	stats := readStatsJSON(t, filepath.Join(dir, "stats.json"))
	if stats["finish_reason"] != "closespider_pagecount" || stats["response_received_count"] != 3.0 {
		t.Errorf("finish_reason %v, response_received_count %v; want closespider_pagecount, 3", stats["finish_reason"], stats["response_received_count"])
	}
	items, _ := readFeed(t, filepath.Join(dir, "items.jsonl"))
	if n := len(items); n != 3 {
		t.Errorf("%d items, want 3", n)
	}
}

// readStatsJSON reads the stats a run wrote with --stats-json.
func readStatsJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return m
}
