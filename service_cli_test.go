package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPipelineServiceCLI runs the binary on a spider whose pipeline POSTs each item to a
// local sink with spider.crawler.http.fetch, ROBOTSTXT_OBEY on and the sink answering 500
// to what it does not know (robots.txt included): every insert arrives and the crawl's
// stats count its pages only.
func TestPipelineServiceCLI(t *testing.T) {
	t.Parallel()
	var inserts, robots atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/insert" && r.Method == http.MethodPost {
			_, _ = io.Copy(io.Discard, r.Body)
			inserts.Add(1)
			w.WriteHeader(http.StatusCreated)
			return
		}
		if r.URL.Path == "/robots.txt" {
			robots.Add(1)
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(sink.Close)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "<html><body><h1>page</h1></body></html>")
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	spider := writeFile(t, dir, "svc.ts", `
import { Spider, Request } from "jscrawl";
export default class extends Spider {
  name = "svc";
  customSettings = { ROBOTSTXT_OBEY: true };
  *start() { for (let i = 0; i < 3; i++) yield new Request("`+site.URL+`/p/" + i); }
  *parse(r) { yield { url: r.url }; }
}
export const pipelines = [{
  async processItem(item, spider) {
    const resp = await spider.crawler.http.fetch("`+sink.URL+`/insert", { method: "POST", body: JSON.stringify(item) });
    if (resp.status !== 201) throw new Error("insert: " + resp.status);
    return item;
  },
}];
`)
	_, log, code := jscrawl(t, "run", spider, "-o", filepath.Join(dir, "items.jsonl"), "-s", "LOG_LEVEL=INFO")
	if code != 0 || strings.Contains(log, "] ERROR:") {
		t.Fatalf("exit code %d, or errors logged:\n%s", code, log)
	}
	if inserts.Load() != 3 || robots.Load() != 0 {
		t.Errorf("%d inserts, the sink's robots.txt asked %d times; want 3 and 0\n%s", inserts.Load(), robots.Load(), log)
	}
	for key, want := range map[string]int{
		"item_scraped_count":                    3,
		"downloader/request_count":              4, // the pages and the site's robots.txt
		"response_received_count":               3,
		"http_client/request_count":             3,
		"http_client/response_status_count/201": 3,
	} {
		if got := statInt(t, log, key); got != want {
			t.Errorf("%s = %d, want %d\n%s", key, got, want, log)
		}
	}
}
