package main

// Crawlee code under jscrawl run (jsapi/crawlee.js): named datasets in their own feeds,
// and key-value stores kept in the job folder across a kill -9 and a resume.

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// TestCrawleeNamedDataset: the default dataset's items go to -o items.jsonl, a named
// dataset's to the FEEDS entry whose option dataset names it, without the field that
// marks them.
func TestCrawleeNamedDataset(t *testing.T) {
	t.Parallel()
	srv := siteServer(t)
	dir := t.TempDir()
	spider := writeFile(t, dir, "lists.ts", `import { CheerioCrawler, Dataset } from "crawlee";
const links = await Dataset.open("links");
const crawler = new CheerioCrawler({
  async requestHandler({ request, pushData, enqueueLinks }) {
    await pushData({ page: request.url });
    await links.pushData({ from: request.url });
    await Dataset.pushData({ again: request.url });
  },
});
await crawler.run(["`+srv.URL+`/list/4"]);
`)
	items, named := filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "links.jsonl")
	feeds := `{"` + named + `": {"format": "jsonl", "dataset": "links"}}`
	stdout, stderr, code := jscrawl(t, "run", spider, "-o", items, "-s", "FEEDS="+feeds)
	if code != 0 {
		t.Fatalf("exit code %d\n%s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(items)
	want := `{"page":"` + srv.URL + `/list/4"}` + "\n" + `{"again":"` + srv.URL + `/list/4"}` + "\n"
	if string(got) != want {
		t.Errorf("items.jsonl:\n%s\nwant:\n%s\n%s", got, want, stderr)
	}
	got, _ = os.ReadFile(named)
	if want := `{"from":"` + srv.URL + `/list/4"}` + "\n"; string(got) != want {
		t.Errorf("links.jsonl:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(stderr, "spider name") && !strings.Contains(stderr, "[lists]") {
		t.Errorf("the spider is not named after its file (lists):\n%s", stderr)
	}
}

// TestCrawleeKeyValueStoreJob: with --jobdir a record whose setValue resolved survives a
// kill -9, and the resumed job reads it (the store is in the job folder).
func TestCrawleeKeyValueStoreJob(t *testing.T) {
	t.Parallel()
	var hold atomic.Bool
	hold.Store(true)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux := http.NewServeMux()
	// /n/{i}: links to /n/{i+1} up to 3; /n/3 hangs while hold is set.
	mux.HandleFunc("GET /n/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.PathValue("i"))
		if i == 3 && hold.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>%d</p>", i)
		if i < 3 {
			fmt.Fprintf(w, `<a href="/n/%d">next</a>`, i+1)
		}
		fmt.Fprint(w, "</body></html>")
	})
	srv := enginetest.StartWith(t, mux).Server
	dir := t.TempDir()
	spider := writeFile(t, dir, "kv.ts", `import { CheerioCrawler, KeyValueStore } from "crawlee";
export default new CheerioCrawler({
  startUrls: ["`+srv.URL+`/n/1"],
  async requestHandler({ request, enqueueLinks, pushData }) {
    const n = request.url.split("/").pop();
    const runs = (await KeyValueStore.getValue("runs")) ?? 0;
    await KeyValueStore.setValue("page-" + n, { n: Number(n), runs });
    if (n === "3") {
      const keys = [];
      const store = await KeyValueStore.open();
      await store.forEachKey((k) => { keys.push(k); });
      await pushData({ keys, page1: await store.getValue("page-1") });
    }
    await enqueueLinks();
  },
});
`)
	job := filepath.Join(dir, "job")
	out := filepath.Join(dir, "items.jsonl")
	cmd := exec.Command(bin, "run", spider, "--jobdir", job, "-o", out, "-s", "LOG_LEVEL=INFO")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(job, "key_value_stores", "default", "page-2.record")
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(record); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("no %s in a minute\n%s", record, stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // polling the file, not synchronising
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	hold.Store(false)
	stdout, log, code := jscrawl(t, "run", "--jobdir", job)
	if code != 0 {
		t.Fatalf("resume: exit code %d\n%s%s", code, stdout, log)
	}
	items := readLines(t, out)
	if len(items) != 1 || !strings.Contains(items[0], `"keys":["page-1","page-2","page-3"]`) || !strings.Contains(items[0], `"page1":{"n":1,"runs":0}`) {
		t.Fatalf("items %q\n%s", items, log)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
