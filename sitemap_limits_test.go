package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSitemapHugeGzipBounded: a SitemapSpider reading two gzipped sitemaps of 600 KB that
// decompress to 512 MiB (whitespace between two entries; a run of text) stays far below
// that in memory: the whitespace one is read up to DOWNLOAD_MAXSIZE (400 MB), which stops
// it with sitemap/maxsize and an error line, keeping the entry before the limit; the
// text one stops at its first oversized piece of XML (sitemap/broken).
func TestSitemapHugeGzipBounded(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`
	for path, fill := range map[string]byte{"/space.xml.gz": ' ', "/text.xml.gz": 'x'} {
		name := strings.TrimSuffix(path[1:], ".xml.gz")
		var b bytes.Buffer
		head := `<?xml version="1.0" encoding="UTF-8"?><urlset ` + ns + `><url><loc>` + srv.URL + `/` + name + `/1</loc></url>`
		tail := `<url><loc>` + srv.URL + `/` + name + `/2</loc></url></urlset>`
		if err := writeGzipFill(&b, []byte(head), fill, 512, []byte(tail)); err != nil {
			t.Fatal(err)
		}
		body := b.Bytes()
		if len(body) > 2<<20 {
			t.Fatalf("%s: %d bytes gzipped", path, len(body))
		}
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(body)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html><h1>" + r.URL.Path + "</h1></html>"))
	})
	spider := writeFile(t, t.TempDir(), "maps.js", `import { SitemapSpider } from "jscrawl";
export default class Maps extends SitemapSpider {
  name = "maps";
  sitemapUrls = ["`+srv.URL+`/space.xml.gz", "`+srv.URL+`/text.xml.gz"];
  *parse(response) { yield { page: response.css("h1::text").get() }; }
}
`)
	stdout, stderr, code, peak := runPeakRSS(t, "run", spider, "-o", "-:jsonl",
		"-s", "DOWNLOAD_MAXSIZE=400000000", "-s", "ROBOTSTXT_OBEY=false")
	t.Logf("peak RSS %d MB", peak>>20)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	items := jsonLines(t, stdout)
	for page, want := range map[string]bool{"/space/1": true, "/space/2": false, "/text/1": true, "/text/2": false} {
		if got := find(items, "page", page) != nil; got != want {
			t.Errorf("page %s crawled: %v, want %v\n%s", page, got, want, stdout)
		}
	}
	_, stats := statsDump(t, stderr)
	if stats["sitemap/maxsize"] != float64(1) || stats["sitemap/broken"] != float64(1) {
		t.Errorf("sitemap/maxsize = %v, sitemap/broken = %v, want 1 and 1", stats["sitemap/maxsize"], stats["sitemap/broken"])
	}
	if !strings.Contains(stderr, "ERROR") || !strings.Contains(stderr, "Cancelled sitemap "+srv.URL+"/space.xml.gz") ||
		!strings.Contains(stderr, "DOWNLOAD_MAXSIZE") {
		t.Errorf("no error line for the sitemap over DOWNLOAD_MAXSIZE:\n%s", stderr)
	}
	if peak == 0 {
		t.Fatal("no VmHWM read")
	}
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MB reading sitemaps of 512 MiB, want < 200 MB", peak>>20)
	}
}
