package jsapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/jsapi"
)

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const (
	sitemapNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"`
)

// newSitemapServer serves a sitemap tree: robots.txt with two Sitemap: lines → an index
// (listing itself, gzipped children with and without the .gz extension, a broken sitemap
// and an old one) → urlsets → pages. Every page answers with its path in an <h1>.
func newSitemapServer(t *testing.T) *server {
	t.Helper()
	mux := http.NewServeMux()
	srv := &server{Server: httptest.NewUnstartedServer(mux)}
	srv.Start()
	t.Cleanup(srv.Close)
	b := srv.URL
	xml := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, body)
		})
	}
	gzipped := func(path, body string) {
		data := gz(t, body)
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(data)
		})
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\n  sitemap: /sitemap_index.xml\nSitemap: %s/extra.xml\n", b)
	})
	xml("/sitemap_index.xml", `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex `+sitemapNS+`>
  <sitemap><loc>`+b+`/sitemaps/products.xml.gz</loc><lastmod>2026-01-05</lastmod></sitemap>
  <sitemap><loc>`+b+`/sitemaps/blog</loc><lastmod>2026-01-04</lastmod></sitemap>
  <sitemap><loc>`+b+`/sitemap_index.xml</loc></sitemap>
  <sitemap><loc>`+b+`/sitemaps/broken.xml</loc></sitemap>
  <sitemap><loc>`+b+`/sitemaps/old.xml</loc><lastmod>2019-05-01</lastmod></sitemap>
</sitemapindex>`)
	gzipped("/sitemaps/products.xml.gz", `<?xml version="1.0" encoding="UTF-8"?>
<urlset `+sitemapNS+`>
  <url><loc>`+b+`/product/1</loc><lastmod>2026-01-01</lastmod><changefreq>daily</changefreq><priority>0.8</priority></url>
  <url><loc> `+b+`/product/2 </loc><lastmod>2026-01-02</lastmod></url>
  <url><loc>`+b+`/product/3?a=1&amp;b=2</loc><lastmod>2026-01-03</lastmod></url>
</urlset>`)
	gzipped("/sitemaps/blog", `<?xml version="1.0" encoding="UTF-8"?>
<urlset `+sitemapNS+`>
  <url><loc>`+b+`/blog/a</loc><xhtml:link rel="alternate" hreflang="fr" href="`+b+`/fr/blog/a"/></url>
  <url><loc>`+b+`/blog/b</loc><lastmod>2026-01-09</lastmod></url>
</urlset>`)
	xml("/sitemaps/broken.xml", `<?xml version="1.0"?><urlset `+sitemapNS+`><url><loc>`+b+`/product/9</loc></url><url><loc>`+b+`/product/10</loc></url><url><lo`)
	xml("/sitemaps/old.xml", `<urlset `+sitemapNS+`><url><loc>`+b+`/old/1</loc></url></urlset>`)
	xml("/extra.xml", `<urlset `+sitemapNS+`><url><loc>`+b+`/other/1</loc></url></urlset>`)
	for _, p := range []string{"/product/{n}", "/blog/{x}", "/fr/blog/{x}", "/other/{n}", "/old/{n}"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<h1>%s</h1>", r.URL.Path)
		})
	}
	return srv
}

func TestSitemapSpider(t *testing.T) {
	t.Parallel()
	srv := newSitemapServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"ROBOTSTXT_OBEY": "false"}, src: `import { SitemapSpider, type Response } from "jscrawl";
const path = (u: string) => u.replace(/^http:\/\/[^/]+/, "");
export default class S extends SitemapSpider {
  name = "sitemap";
  sitemapUrls = ["BASE/robots.txt"];
  sitemapRules = [[/\/product\//, "parseProduct"], ["/blog/", this.parseBlog], ["", "parse"]] as [RegExp | string, any][];
  sitemapFollow = [/products|blog|broken|sitemap_index/g];
  parseProduct(r: Response) { return { product: path(r.url) }; }
  parseBlog(r: Response) { return { blog: path(r.url) }; }
  parse(r: Response) { return { other: path(r.url) }; }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"blog":"/blog/a"}`,
		`{"blog":"/blog/b"}`,
		`{"other":"/other/1"}`,
		`{"product":"/product/1"}`,
		`{"product":"/product/10"}`,
		`{"product":"/product/2"}`,
		`{"product":"/product/3?a=1&b=2"}`,
		`{"product":"/product/9"}`,
	}, res.log)
	if n := res.stat("sitemap/broken"); n != 1 {
		t.Errorf("sitemap/broken = %d, want 1", n)
	}
	if n := res.stat("dupefilter/filtered"); n != 1 {
		t.Errorf("dupefilter/filtered = %d, want 1 (the index listing itself)", n)
	}
	if !strings.Contains(res.log, "Broken sitemap "+srv.URL+"/sitemaps/broken.xml") {
		t.Errorf("no warning about the broken sitemap\n%s", res.log)
	}
}

// TestSitemapFilterAndAlternates: sitemapFilter gets the entries of indexes and urlsets
// alike, as { loc, lastmod, changefreq, priority, alternate }; alternates are followed
// with sitemapAlternateLinks.
func TestSitemapFilterAndAlternates(t *testing.T) {
	t.Parallel()
	srv := newSitemapServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"ROBOTSTXT_OBEY": "false"}, src: `import { SitemapSpider, type Response, type SitemapEntry } from "jscrawl";
const path = (u: string) => u.replace(/^http:\/\/[^/]+/, "");
export default class S extends SitemapSpider {
  name = "sitemap";
  sitemapUrls = ["BASE/sitemap_index.xml"];
  sitemapAlternateLinks = true;
  *sitemapFilter(entries: SitemapEntry[]) {
    for (const e of entries) {
      if (e.loc.endsWith("/product/1") || e.loc.endsWith("/blog/a")) this.crawler.stats.set("entry" + path(e.loc), JSON.stringify(e).split("` + srv.URL + `").join(""));
      if (!e.lastmod || e.lastmod >= "2026-01-02") yield e;
    }
  }
  parse(r: Response) { return { page: path(r.url) }; }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"page":"/blog/a"}`,
		`{"page":"/blog/b"}`,
		`{"page":"/fr/blog/a"}`,
		`{"page":"/product/10"}`,
		`{"page":"/product/2"}`,
		`{"page":"/product/3?a=1&b=2"}`,
		`{"page":"/product/9"}`,
	}, res.log)
	for k, want := range map[string]string{
		"entry/product/1": `{"loc":"/product/1","lastmod":"2026-01-01","changefreq":"daily","priority":"0.8"}`,
		"entry/blog/a":    `{"loc":"/blog/a","alternate":["/fr/blog/a"]}`,
	} {
		if got := res.stats[k]; got != want {
			t.Errorf("%s = %v, want %s", k, got, want)
		}
	}
}

// TestSitemapHuge crawls a gzipped 50,000-URL sitemap (generated here) whose URLs are all
// off-site, so OffsiteMiddleware counts them instead of downloading them (10,000 under the
// race detector; the Go parser's streaming is tested on 50,000 in package feeds).
func TestSitemapHuge(t *testing.T) {
	t.Parallel()
	n := int64(50000)
	if raceEnabled {
		n = 10000
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset ` + sitemapNS + ">\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>http://offsite.example/p/%d</loc><lastmod>2026-01-01</lastmod></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	data := gz(t, b.String())
	mux := http.NewServeMux()
	mux.HandleFunc("/big.xml.gz", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(data) })
	srv := &server{Server: enginetest.StartWith(t, mux).Server}
	res := crawl(t, srv, spec{settings: map[string]string{"ROBOTSTXT_OBEY": "false"}, src: `import { SitemapSpider } from "jscrawl";
export default class S extends SitemapSpider {
  name = "big";
  allowedDomains = ["127.0.0.1"];
  sitemapUrls = ["BASE/big.xml.gz"];
  parse() {}
}`})
	if got := res.stat("offsite/filtered"); got != n {
		t.Errorf("offsite/filtered = %d, want %d\n%s", got, n, res.log)
	}
	if res.stat("sitemap/broken") != 0 || res.stat("spider_exceptions/count") != 0 {
		t.Errorf("errors:\n%s", res.log)
	}
}

// TestSitemapSpiderSchedulesSitemaps: SitemapSpider downloads no sitemap inline: robots.txt,
// the index and every sitemap are scheduled as requests with the callback _parseSitemap,
// like the pages, so a job's frontier holds them and a resumed job continues the crawl
// where it stopped (Scrapy #4479). Every download is a scheduled request.
func TestSitemapSpiderSchedulesSitemaps(t *testing.T) {
	t.Parallel()
	srv := newSitemapServer(t)
	var mu sync.Mutex
	scheduled := map[string]string{} // path -> callback
	res := crawl(t, srv, spec{settings: map[string]string{"ROBOTSTXT_OBEY": "false"}, src: `import { SitemapSpider, type Response } from "jscrawl";
export default class S extends SitemapSpider {
  name = "sitemap";
  sitemapUrls = ["BASE/robots.txt"];
  sitemapFollow = [/products|blog|broken|sitemap_index/];
  parse(r: Response) { return { page: r.url }; }
}`, bound: func(s *jsapi.Spider, eng *engine.Engine) {
		eng.Connect(engine.RequestScheduled, func(_ context.Context, ev engine.SignalEvent) error {
			req := ev.Request
			mu.Lock()
			scheduled[strings.TrimPrefix(req.URL, srv.URL)] = req.Callback
			mu.Unlock()
			return nil
		})
	}})
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/robots.txt", "/sitemap_index.xml", "/extra.xml", "/sitemaps/products.xml.gz", "/sitemaps/blog", "/sitemaps/broken.xml"} {
		if cb, ok := scheduled[p]; !ok || cb != "_parseSitemap" {
			t.Errorf("%s: scheduled %v with callback %q, want _parseSitemap", p, ok, cb)
		}
	}
	if len(res.items) != 8 {
		t.Errorf("%d items, want 8\n%s", len(res.items), res.log)
	}
	if got := res.stat("downloader/request_count"); got != int64(len(scheduled)) {
		t.Errorf("downloader/request_count = %d, %d requests scheduled: some download was not scheduled\n%s", got, len(scheduled), res.log)
	}
}
