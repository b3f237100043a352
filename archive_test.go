package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// archiveSite serves siteServer's pages and /price, counting hits.
func archiveSite(t *testing.T) *enginetest.Server {
	t.Helper()
	mux := siteMux()
	mux.HandleFunc("GET /price", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"price": "12.5"}`)
	})
	return enginetest.StartWith(t, mux)
}

// archiveSpider follows /list/N, yields its items and, from /list/1, the inline fetch of
// /price; a request that fails yields its error's name.
const archiveSpider = `import { Request } from "jscrawl";
export default class Lists {
  name = "lists";
  baseUrl = "http://127.0.0.1:1";
  *start() {
    yield new Request(this.baseUrl + "/list/1", { errback: "failed" });
    yield new Request(this.baseUrl + "/redirect/1", { errback: "failed" });
  }
  async *parse(response) {
    const path = response.url.replace(this.baseUrl, "");
    for (const p of response.css("p.item::text").getall()) yield { path, item: p };
    if (path === "/list/1") {
      const r = await fetch(this.baseUrl + "/price");
      yield { path: "/price", price: (await r.json()).price };
    }
    for (const a of response.css("a")) yield response.follow(a, { errback: "failed" });
  }
  *failed(failure) { yield { failed: failure.request.url.replace(this.baseUrl, ""), name: failure.error.name }; }
}
`

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return lines
}

// TestRunRecordReplay: run --warc records a crawl (robots.txt, a redirect hop, an inline
// fetch); run --replay yields the same items while the server sees no request; a page the
// archive lacks fails with NotInArchive (replay/miss_count) unless --replay-fallback.
func TestRunRecordReplay(t *testing.T) {
	t.Parallel()
	srv := archiveSite(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "lists.js", archiveSpider)
	archive := filepath.Join(dir, "crawl.warc.gz")
	run := func(args ...string) (items []string, stats map[string]any) {
		t.Helper()
		args = append([]string{"run", spider, "-a", "baseUrl=" + srv.URL, "-o", "-:jsonl"}, args...)
		stdout, stderr, code := jscrawl(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit code %d\n%s", args, code, stderr)
		}
		_, stats = statsDump(t, stderr)
		return sortedLines(stdout), stats
	}
	recorded, stats := run("--warc", archive)
	hits := srv.TotalHits()
	if len(recorded) != 5*3+1 || slices.ContainsFunc(recorded, func(s string) bool { return strings.Contains(s, "failed") }) {
		t.Fatalf("recorded items:\n%s", strings.Join(recorded, "\n"))
	}
	for _, p := range []string{"/robots.txt", "/redirect/1", "/redirect/0", "/price"} {
		if srv.Hits(p) != 1 {
			t.Errorf("%s downloaded %d times while recording", p, srv.Hits(p))
		}
	}
	if stats["warc/record_count"] != float64(2*hits) {
		t.Errorf("warc/record_count = %v, want %d", stats["warc/record_count"], 2*hits)
	}
	if _, err := os.Stat(archive); err != nil {
		t.Fatal(err)
	}

	replayed, stats := run("--replay", archive)
	if srv.TotalHits() != hits {
		t.Errorf("the replay sent %d requests to the server", srv.TotalHits()-hits)
	}
	if !slices.Equal(replayed, recorded) {
		t.Errorf("replayed items:\n%s\nrecorded:\n%s", strings.Join(replayed, "\n"), strings.Join(recorded, "\n"))
	}
	if stats["replay/response_count"] != float64(hits) || stats["replay/miss_count"] != nil {
		t.Errorf("replay/response_count = %v (want %d), replay/miss_count = %v", stats["replay/response_count"], hits, stats["replay/miss_count"])
	}

	// A crawl of a page the archive lacks: /list/6 exists on the server only.
	lists6 := strings.Replace(archiveSpider, `yield new Request(this.baseUrl + "/redirect/1", { errback: "failed" });`,
		`yield new Request(this.baseUrl + "/list/6", { errback: "failed" });`, 1)
	spider6 := writeFile(t, dir, "lists6.js", lists6)
	for _, tc := range []struct {
		args []string
		want string
		hits int
	}{
		{[]string{"-s", "REPLAY_FILES=" + archive}, `{"failed":"/list/6","name":"NotInArchive"}`, 0},
		{[]string{"--replay", archive, "--replay-fallback"}, `{"path":"/list/6","item":"item 6.1"}`, 1},
	} {
		before := srv.Hits("/list/6")
		args := append([]string{"run", spider6, "-a", "baseUrl=" + srv.URL, "-o", "-:jsonl"}, tc.args...)
		stdout, stderr, code := jscrawl(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit code %d\n%s", tc.args, code, stderr)
		}
		if !slices.Contains(sortedLines(stdout), tc.want) {
			t.Errorf("%v: no %s in\n%s", tc.args, tc.want, stdout)
		}
		if _, stats := statsDump(t, stderr); stats["replay/miss_count"] != float64(1) {
			t.Errorf("%v: replay/miss_count = %v, want 1", tc.args, stats["replay/miss_count"])
		}
		if got := srv.Hits("/list/6") - before; got != tc.hits {
			t.Errorf("%v: the server served /list/6 %d times, want %d", tc.args, got, tc.hits)
		}
	}
}

// TestFetchReplayMiss: jscrawl fetch --replay of a URL the archive lacks says so and how
// to go on, not that the site may be unreachable; a URL it has prints its body.
func TestFetchReplayMiss(t *testing.T) {
	t.Parallel()
	srv := archiveSite(t)
	dir := t.TempDir()
	archive := filepath.Join(dir, "one.warc.gz")
	if _, stderr, code := jscrawl(t, "fetch", srv.URL+"/price", "-s", "WARC_FILE="+archive); code != 0 {
		t.Fatalf("fetch --warc: exit code %d\n%s", code, stderr)
	}
	hits := srv.TotalHits()
	stdout, stderr, code := jscrawl(t, "fetch", srv.URL+"/price", "--replay", archive)
	if code != 0 || stdout == "" {
		t.Fatalf("fetch --replay of a recorded URL: exit code %d, stdout %q\n%s", code, stdout, stderr)
	}
	_, stderr, code = jscrawl(t, "fetch", srv.URL+"/list/6", "--replay", archive)
	if code != 1 {
		t.Fatalf("fetch --replay of a URL not recorded: exit code %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"not in the replayed archive", "replaying " + archive, "--replay-fallback"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "reachable") {
		t.Errorf("stderr gives the network hint on a replay miss:\n%s", stderr)
	}
	if srv.TotalHits() != hits {
		t.Errorf("the replays sent %d requests to the server", srv.TotalHits()-hits)
	}
}

// TestJobWARCResume: a job recording with --warc is SIGKILLed mid-crawl and resumed with
// the same command. The resumed run keeps what the first recorded (its file, left as
// NAME.open by the kill, is recovered) and writes the next file of the rotation; the
// archives together hold a response for every page, and replay whole.
func TestJobWARCResume(t *testing.T) {
	t.Parallel()
	const total = 400
	site, dir, args := treeJob(t, total, "--warc", "crawl.warc.gz")
	if kills := killRuns(t, site, dir, args, 1); kills != 1 {
		t.Fatalf("the first run finished before it was killed")
	}
	site.mu.Lock()
	firstRun := len(site.hits)
	site.mu.Unlock()
	if code, log := runJobCrawl(t, dir, args...); code != 0 {
		t.Fatalf("the resumed run: exit code %d\n%s", code, log)
	}
	names, err := filepath.Glob(filepath.Join(dir, "crawl*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	if !slices.Equal(names, []string{"crawl-00001.warc.gz", "crawl.warc.gz"}) {
		t.Fatalf("archive files %v, want crawl.warc.gz (the first run) and crawl-00001.warc.gz (the resumed one)", names)
	}
	// The first run's file alone (copied, so that its rotation is not read with it).
	first := filepath.Join(t.TempDir(), "first.warc.gz")
	data, err := os.ReadFile(filepath.Join(dir, "crawl.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(first), "first.warc.gz", string(data))
	a, err := warc.Open(first)
	if err != nil {
		t.Fatalf("the first run's archive: %v", err)
	}
	// Up to CONCURRENT_REQUESTS (8) downloads were in flight when it was killed.
	if a.Len() < firstRun-8 {
		t.Errorf("the first run's archive has %d responses; it downloaded %d pages", a.Len(), firstRun)
	}
	a.Close()
	a, err = warc.Open(filepath.Join(dir, "crawl.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for n := range total {
		if _, ok, err := a.Lookup(&types.Request{URL: fmt.Sprintf("%s/p/%d", site.URL, n)}); !ok || err != nil {
			t.Errorf("/p/%d: no response in the archives (%v)", n, err)
		}
	}
}
