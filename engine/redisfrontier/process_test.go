package redisfrontier_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
)

// TestMain runs the test binary as a crawl worker when RF_WORKER is set (see
// runWorkerProcess), and as the tests otherwise.
func TestMain(m *testing.M) {
	if os.Getenv("RF_WORKER") == "1" {
		os.Exit(runWorkerProcess())
	}
	os.Exit(m.Run())
}

// runWorkerProcess is one worker process of a shared crawl: it crawls RF_SITE's page graph
// through the frontier at RF_REDIS (crawl id RF_CRAWL) and appends the URL of every page
// it parses to RF_OUT, written before the page's lease is acknowledged. It exits 0 when
// its crawl finished, at once when the crawl was finished before it started.
func runWorkerProcess() int {
	out, err := os.OpenFile(os.Getenv("RF_OUT"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer out.Close()
	settings := crawlSettings()
	_ = settings.Set(types.ConcurrentRequests, 4, types.PriorityCmdline)
	_ = settings.Set(types.FrontierLeaseTimeout, 1, types.PriorityCmdline)
	opts := redisfrontier.OptionsFromSettings(settings, os.Getenv("RF_CRAWL"))
	opts.URL = os.Getenv("RF_REDIS")
	stats := engine.NewStats()
	opts.Stats, opts.Logger = stats, quiet
	f, err := redisfrontier.Open(context.Background(), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer f.Close(context.Background())
	if f.Finished() {
		fmt.Fprintf(os.Stderr, "crawl %s already finished\n", opts.CrawlID)
		return 0
	}
	spider := &enginetest.Spider{
		StartURLs: []string{os.Getenv("RF_SITE") + "/p/0"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			if _, err := out.WriteString(resp.URL + "\n"); err != nil {
				return err
			}
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
	if err := engine.New(spider, settings, engine.WithScheduler(f, f.Parts()), engine.WithStats(stats), engine.WithLogger(quiet)).Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// The leases this worker took over from a dead one (frontier/leases_recovered) and the
	// ones it lost itself, not renewed in time on a loaded machine (frontier/leases_lost):
	// the pages that may be downloaded twice.
	recovered, _ := stats.Get("frontier/leases_recovered").(int64)
	lost, _ := stats.Get("frontier/leases_lost").(int64)
	if err := os.WriteFile(os.Getenv("RF_OUT")+".twice", []byte(strconv.FormatInt(recovered, 10)+" "+strconv.FormatInt(lost, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if r := stats.Get("finish_reason"); r != "finished" {
		fmt.Fprintf(os.Stderr, "finish_reason %v\n", r)
		return 1
	}
	return 0
}

// pageSite serves a graph of total pages, /p/0 to /p/{total-1}, each linking to n+1, n+2
// and 2n (mod total) and taking 2 ms (a site's latency), and counts the hits per page.
type pageSite struct {
	*httptest.Server
	total int
	mu    sync.Mutex
	hits  map[string]int
}

func newPageSite(t *testing.T, total int) *pageSite {
	s := &pageSite{total: total, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		time.Sleep(2 * time.Millisecond) // the site's latency, not synchronisation
		fmt.Fprintf(w, `<html><a href="/p/%d">a</a><a href="/p/%d">b</a><a href="/p/%d">c</a></html>`,
			(n+1)%total, (n+2)%total, 2*n%total)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pageSite) served() (pages, hits int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.hits {
		hits += h
	}
	return len(s.hits), hits
}

// startWorker starts a worker process writing to out.
func startWorker(t *testing.T, r *enginetest.Redis, site, crawl, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RF_WORKER=1", "RF_REDIS="+r.URL(0), "RF_SITE="+site, "RF_CRAWL="+crawl, "RF_OUT="+out)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestWorkerProcessKilled crawls with three worker processes and kills one with SIGKILL
// in the middle: the others finish by themselves, every page is downloaded and its item
// written (the union of the workers' outputs), only the pages the killed worker held are
// downloaded twice (frontier/leases_recovered), and a worker started on the finished
// crawl exits at once without a request.
func TestWorkerProcessKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	const total = 1000
	site := newPageSite(t, total)
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for i := range 3 {
		cmds = append(cmds, startWorker(t, r, site.URL, "procs", fmt.Sprintf("%s/w%d.txt", dir, i)))
	}
	waitFor(t, "a quarter of the pages", func() bool { p, _ := site.served(); return p >= total/4 })
	if err := cmds[0].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmds[0].Wait()
	for i, cmd := range cmds[1:] {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker %d: %v", i+1, err)
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("worker %d did not finish", i+1)
		}
	}
	pages, hits := site.served()
	if pages != total {
		t.Errorf("%d pages downloaded, want %d", pages, total)
	}
	// Only the pages of recovered leases (the killed worker's: in flight, prefetched, or
	// downloaded and not yet acknowledged) and of leases a surviving worker lost by its own
	// 1 s clock on a loaded machine are downloaded twice.
	recovered, lost := 0, 0
	for i := 1; i < 3; i++ {
		b, err := os.ReadFile(fmt.Sprintf("%s/w%d.txt.twice", dir, i))
		var r, l int
		if _, serr := fmt.Sscan(string(b), &r, &l); err != nil || serr != nil {
			t.Errorf("worker %d wrote no lease counts: %v %v", i, err, serr)
		}
		recovered, lost = recovered+r, lost+l
	}
	t.Logf("%d pages downloaded twice; %d leases recovered, %d lost", hits-pages, recovered, lost)
	if recovered == 0 {
		t.Error("no lease of the killed worker was recovered")
	}
	if hits-pages > recovered+lost {
		t.Errorf("%d downloads for %d pages: more than the %d recovered and %d lost leases again", hits, pages, recovered, lost)
	}
	items := map[string]int{}
	for i := range 3 {
		b, err := os.ReadFile(fmt.Sprintf("%s/w%d.txt", dir, i))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Fields(string(b)) {
			items[line]++
		}
	}
	if len(items) != total {
		t.Errorf("%d pages in the workers' outputs, want %d", len(items), total)
	}
	cr, err := redisfrontier.Inspect(context.Background(), r.URL(0), "procs")
	if err != nil {
		t.Fatal(err)
	}
	if !cr.Finished || cr.Pending != 0 || cr.Leased != 0 {
		t.Errorf("crawl state after the end: %+v", cr)
	}
	if hits > pages && cr.Stats["frontier/leases_recovered"] == 0 {
		t.Errorf("pages downloaded again but frontier/leases_recovered is 0: %v", cr.Stats)
	}
	late := startWorker(t, r, site.URL, "procs", dir+"/late.txt")
	if err := late.Wait(); err != nil {
		t.Errorf("a worker on the finished crawl: %v", err)
	}
	if _, again := site.served(); again != hits {
		t.Errorf("a worker on the finished crawl made %d requests", again-hits)
	}
}
