package demosite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/html"

	"github.com/jscrawl/jscrawl/examples/demosite"
)

func get(t *testing.T, base, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", path, err)
	}
	return resp, body
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demosite.Handler())
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path        string
		status      int
		contentType string
		contains    string
	}{
		{"/", 200, "text/html; charset=utf-8", `href="catalogue/category/books/travel_2/index.html"`},
		{"/index.html", 200, "text/html; charset=utf-8", "Welcome"},
		{"/catalogue/page-1.html", 200, "text/html; charset=utf-8", `<li class="next"><a href="page-2.html">`},
		{"/catalogue/page-1.html", 200, "text/html; charset=utf-8", `title="Tipping the Velvet &amp; Co"`},
		{"/catalogue/page-5.html", 200, "text/html; charset=utf-8", `<li class="previous"><a href="page-4.html">`},
		{"/catalogue/page-0.html", 404, "", ""},
		{"/catalogue/page-6.html", 404, "", ""},
		{"/catalogue/page-01.html", 404, "", ""},
		{"/catalogue/page-x.html", 404, "", ""},
		{"/catalogue/tipping-the-velvet-co_1/index.html", 200, "text/html; charset=utf-8", "<h1>Tipping the Velvet &amp; Co</h1>"},
		{"/catalogue/tokyo-nights_13/index.html", 200, "text/html; charset=utf-8", "<h1>東京の夜 (Tokyo Nights)</h1>"},
		{"/catalogue/the-answer-revised-edition_42/index.html", 200, "text/html; charset=utf-8", "The Answer &lt;Revised Edition&gt;"},
		{"/catalogue/wrong-slug_1/index.html", 404, "", ""},
		{"/catalogue/tipping-the-velvet-co_101/index.html", 404, "", ""},
		{"/catalogue/category/books/travel_2/index.html", 200, "text/html; charset=utf-8", "<strong>11</strong> results"},
		{"/catalogue/category/books/mystery_3/index.html", 200, "text/html; charset=utf-8", `<li class="next"><a href="page-2.html">`},
		{"/catalogue/category/books/mystery_3/page-2.html", 200, "text/html; charset=utf-8", `<li class="previous"><a href="index.html">`},
		{"/catalogue/category/books/mystery_3/page-3.html", 404, "", ""},
		{"/catalogue/category/books/travel_9/index.html", 404, "", ""},
		{"/quotes/", 200, "text/html; charset=utf-8", `<li class="next"><a href="/quotes/page/2/">`},
		{"/quotes/page/4/", 200, "text/html; charset=utf-8", `<li class="previous"><a href="/quotes/page/3/">`},
		{"/quotes/page/5/", 404, "", ""},
		{"/quotes/author/ada-whitlock/", 200, "text/html; charset=utf-8", `<h3 class="author-title">Ada Whitlock</h3>`},
		{"/quotes/author/nobody/", 404, "", ""},
		{"/quotes/tag/sea/", 200, "text/html; charset=utf-8", `class="quote"`},
		{"/quotes/tag/none/", 404, "", ""},
		{"/api/books?page=2", 200, "application/json", `"page": 2`},
		{"/api/books?page=0", 400, "application/json", `"error"`},
		{"/api/books?page=6", 404, "application/json", `"error"`},
		{"/api/books/7", 200, "application/json", `"title": "Der Zauberberg — Über die Zeit"`},
		{"/api/books/0", 404, "application/json", `"error"`},
		{"/api/books/x", 404, "application/json", `"error"`},
		{"/", 200, "text/html; charset=utf-8", `href="js/"`},
		{"/js/", 200, "text/html; charset=utf-8", `href="/js/scroll/"`},
		{"/js/catalogue/page-1.html", 200, "text/html; charset=utf-8", `data-view="catalogue" data-api="" data-page="1"`},
		{"/js/catalogue/page-5.html", 200, "text/html; charset=utf-8", `<script src="/js/app.js"></script>`},
		{"/js/catalogue/page-6.html", 404, "", ""},
		{"/js/catalogue/page-01.html", 404, "", ""},
		{"/js/catalogue/tipping-the-velvet-co_1/index.html", 200, "text/html; charset=utf-8", `data-view="book" data-api="/api/books/1"`},
		{"/js/catalogue/wrong-slug_1/index.html", 404, "", ""},
		{"/js/scroll/", 200, "text/html; charset=utf-8", `data-view="scroll"`},
		{"/js/more/", 200, "text/html; charset=utf-8", `data-view="more"`},
		{"/js/app.js", 200, "text/javascript; charset=utf-8", `getJSON("/api/books?page=" + n)`},
		{"/api/quotes?page=1", 200, "application/json", `"next": "/api/quotes?page=2"`},
		{"/api/quotes?page=4", 200, "application/json", `"next": null`},
		{"/api/quotes?page=0", 400, "application/json", `"error"`},
		{"/api/quotes?page=5", 404, "application/json", `"error"`},
		{"/media/covers/1.png", 200, "image/png", "\x89PNG"},
		{"/media/covers/101.png", 404, "", ""},
		{"/media/covers/01.png", 404, "", ""},
		{"/media/covers/1.jpg", 404, "", ""},
		{"/robots.txt", 200, "text/plain; charset=utf-8", "Disallow: /private/"},
		{"/private/", 200, "text/html; charset=utf-8", "robots.txt"},
		{"/robots.txt", 200, "text/plain; charset=utf-8", "\nSitemap: http://127.0.0.1:"},
		{"/sitemap.xml", 200, "application/xml", "/sitemaps/books.xml.gz</loc>"},
		{"/sitemaps/books.xml.gz", 200, "application/gzip", "\x1f\x8b"},
		{"/sitemaps/categories.xml.gz", 200, "application/gzip", "\x1f\x8b"},
		{"/sitemaps/quotes.xml", 200, "application/xml", "/quotes/author/ada-whitlock/</loc>"},
		{"/sitemaps/nope.xml", 404, "", ""},
		{"/feeds/books.rss", 200, "application/rss+xml; charset=utf-8", "<title>Tipping the Velvet &amp; Co</title>"},
		{"/feeds/books.csv", 200, "text/csv; charset=utf-8", "1,Tipping the Velvet & Co,52.98,1,Poetry,http://127.0.0.1:"},
		{"/status/404", 404, "text/plain; charset=utf-8", "404 Not Found"},
		{"/status/503", 503, "text/plain; charset=utf-8", "503 Service Unavailable"},
		{"/status/200", 200, "text/plain; charset=utf-8", "200 OK"},
		{"/status/99", 400, "", ""},
		{"/status/abc", 400, "", ""},
		{"/delay?ms=0", 200, "text/plain; charset=utf-8", "waited 0 ms"},
		{"/delay?ms=-1", 400, "", ""},
		{"/delay", 400, "", ""},
		{"/nowhere", 404, "", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			resp, body := get(t, srv.URL, tc.path)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("Content-Type"); tc.contentType != "" && got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			if !bytes.Contains(body, []byte(tc.contains)) {
				t.Errorf("body lacks %q:\n%s", tc.contains, body)
			}
		})
	}
}

// TestLinkIntegrity crawls the whole site from / and checks that every internal link answers
// 200, that all 100 books are reachable, and that each listing's title attribute matches the
// detail page's h1 and the API's title.
func TestLinkIntegrity(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demosite.Handler())
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	bookPath := regexp.MustCompile(`^/catalogue/[a-z0-9-]+_(\d+)/index\.html$`)
	seen := map[string]bool{base.String(): true}
	queue := []*url.URL{base}
	listed := map[string]string{} // detail page URL → title attribute on a listing
	books, authors, pages := 0, 0, 0
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		resp, body := get(t, "", u.String())
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", u, resp.StatusCode)
			continue
		}
		pages++
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("parse %s: %v", u, err)
		}
		if m := bookPath.FindStringSubmatch(u.Path); m != nil {
			books++
			h1 := find(doc, func(n *html.Node) bool { return n.Data == "h1" })
			if len(h1) != 1 {
				t.Fatalf("%s: %d h1 elements", u, len(h1))
			}
			if want := listed[u.String()]; text(h1[0]) != want {
				t.Errorf("%s: h1 %q, listed as %q", u, text(h1[0]), want)
			}
			var api demosite.APIBook
			_, b := get(t, srv.URL, "/api/books/"+m[1])
			if err := json.Unmarshal(b, &api); err != nil {
				t.Fatalf("/api/books/%s: %v", m[1], err)
			}
			if api.Title != text(h1[0]) || api.URL != u.Path {
				t.Errorf("%s: API has title %q and url %q", u, api.Title, api.URL)
			}
		}
		if strings.HasPrefix(u.Path, "/quotes/author/") {
			authors++
		}
		for _, a := range find(doc, func(n *html.Node) bool { return n.Data == "a" }) {
			ref, err := u.Parse(attr(a, "href"))
			if err != nil {
				t.Errorf("%s: bad href %q: %v", u, attr(a, "href"), err)
				continue
			}
			if ref.Host != base.Host {
				continue
			}
			if title := attr(a, "title"); title != "" {
				if prev, ok := listed[ref.String()]; ok && prev != title {
					t.Errorf("%s listed as %q and %q", ref, prev, title)
				}
				listed[ref.String()] = title
			}
			if !seen[ref.String()] {
				seen[ref.String()] = true
				queue = append(queue, ref)
			}
		}
	}
	if books != 100 || len(listed) != 100 {
		t.Errorf("reached %d book pages, %d listed titles; want 100", books, len(listed))
	}
	if authors != 6 {
		t.Errorf("reached %d author pages, want 6", authors)
	}
	t.Logf("crawled %d pages", pages)
}

func TestAPIPagination(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demosite.Handler())
	t.Cleanup(srv.Close)
	ids := map[int]bool{}
	next, pages := "/api/books?page=1", 0
	for next != "" {
		resp, body := get(t, srv.URL, next)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d", next, resp.StatusCode)
		}
		var p demosite.APIBookPage
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("GET %s: %v", next, err)
		}
		pages++
		if p.Page != pages || p.Pages != 5 || p.Count != 100 || len(p.Books) != 20 {
			t.Fatalf("GET %s: page %d of %d, count %d, %d books", next, p.Page, p.Pages, p.Count, len(p.Books))
		}
		for _, b := range p.Books {
			if ids[b.ID] || b.Price < 10 || b.Price >= 60 || b.Title == "" || b.API == "" || b.URL == "" {
				t.Errorf("bad or repeated entry %+v", b)
			}
			ids[b.ID] = true
		}
		next = ""
		if p.Next != nil {
			next = *p.Next
		}
	}
	if pages != 5 || len(ids) != 100 {
		t.Errorf("%d pages, %d distinct books; want 5 and 100", pages, len(ids))
	}

	var b demosite.APIBook
	_, body := get(t, srv.URL, "/api/books/1")
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if b.ID != 1 || b.Title != "Tipping the Velvet & Co" || b.Currency != "GBP" || b.Rating < 1 || b.Rating > 5 ||
		b.Stock < 1 || len(b.UPC) != 16 || b.Category == "" || b.Description == "" {
		t.Errorf("unexpected /api/books/1: %+v", b)
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		ms     string
		cancel bool
		want   time.Duration
		status int
	}{
		{"waits", "250", false, 250 * time.Millisecond, 200},
		{"capped", "60000", false, demosite.MaxDelay, 200},
		{"cancelled", "5000", true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := demosite.Handler()
				ctx, cancel := context.WithCancel(t.Context())
				if tc.cancel {
					cancel()
				}
				defer cancel()
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/delay?ms="+tc.ms, nil)
				rec := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(rec, req)
				if got := time.Since(start); got != tc.want {
					t.Errorf("handler took %v, want %v", got, tc.want)
				}
				if tc.status != 0 && rec.Code != tc.status {
					t.Errorf("status %d, want %d", rec.Code, tc.status)
				}
				if tc.cancel && rec.Body.Len() != 0 {
					t.Errorf("cancelled request got a body: %q", rec.Body)
				}
			})
		})
	}
}

func TestStartAndClose(t *testing.T) {
	t.Parallel()
	s, err := demosite.Start("")
	if err != nil {
		t.Fatal(err)
	}
	u := s.URL()
	if !strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasSuffix(u, "/") {
		t.Errorf("URL() = %q, want http://127.0.0.1:<port> without a trailing slash", u)
	}
	if resp, _ := get(t, u, "/robots.txt"); resp.StatusCode != http.StatusOK {
		t.Errorf("robots.txt: status %d", resp.StatusCode)
	}
	if _, err := demosite.Start(strings.TrimPrefix(u, "http://")); err == nil {
		t.Error("Start on a port in use succeeded")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if resp, err := http.Get(u + "/"); err == nil {
		resp.Body.Close()
		t.Error("GET after Close succeeded")
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, b := httptest.NewServer(demosite.Handler()), httptest.NewServer(demosite.Handler())
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	for _, p := range []string{"/catalogue/page-3.html", "/catalogue/category/books/poetry_4/index.html", "/api/books/55", "/quotes/page/2/",
		"/api/quotes?page=3", "/media/covers/5.png"} {
		_, x := get(t, a.URL, p)
		_, y := get(t, b.URL, p)
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two handlers", p)
		}
	}
}

func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// TestBrowserPagesHideContentFromHTTP checks that the pages that need a browser give a plain
// HTTP client none of the content: no product, book title, price or quote is in their HTML,
// while the JSON API they render from has all of it, and every detail page app.js links to
// (the API's url under /js) answers.
func TestBrowserPagesHideContentFromHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demosite.Handler())
	t.Cleanup(srv.Close)

	var secrets []string // what only a browser may see
	var shells []string  // the browser pages
	for p := 1; p <= 5; p++ {
		var page demosite.APIBookPage
		_, body := get(t, srv.URL, fmt.Sprintf("/api/books?page=%d", p))
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, b := range page.Books {
			secrets = append(secrets, b.Title, html.EscapeString(b.Title), fmt.Sprintf("%.2f", b.Price))
			shells = append(shells, "/js"+b.URL)
		}
		shells = append(shells, fmt.Sprintf("/js/catalogue/page-%d.html", p))
	}
	quotes := 0
	for next := "/api/quotes?page=1"; next != ""; {
		var page demosite.APIQuotePage
		_, body := get(t, srv.URL, next)
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, q := range page.Quotes {
			secrets = append(secrets, q.Text, q.Author)
			quotes++
		}
		next = ""
		if page.Next != nil {
			next = *page.Next
		}
	}
	if len(shells) != 105 || quotes != 32 {
		t.Fatalf("%d browser pages and %d quotes, want 105 and 32", len(shells), quotes)
	}
	secrets = append(secrets, "product_pod", `class="quote`, `class="book`, "load-more", "the-end")
	shells = append(shells, "/js/scroll/", "/js/more/")
	for _, p := range shells {
		resp, body := get(t, srv.URL, p)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", p, resp.StatusCode)
			continue
		}
		if !bytes.Contains(body, []byte(`<script src="/js/app.js">`)) {
			t.Errorf("%s does not load app.js", p)
		}
		for _, s := range secrets {
			if bytes.Contains(body, []byte(s)) {
				t.Errorf("%s shows %q to a plain HTTP client", p, s)
			}
		}
	}
}

func TestCoverImage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demosite.Handler())
	t.Cleanup(srv.Close)
	a, b := fetchCover(t, srv.URL, 1), fetchCover(t, srv.URL, 2)
	if a.Bounds().Dx() != 120 || a.Bounds().Dy() != 180 {
		t.Errorf("cover is %v, want 120x180", a.Bounds())
	}
	if a.At(0, 0) == b.At(0, 0) {
		t.Errorf("covers 1 and 2 have the same colour %v", a.At(0, 0))
	}
}

func fetchCover(t *testing.T, base string, id int) image.Image {
	t.Helper()
	_, body := get(t, base, fmt.Sprintf("/media/covers/%d.png", id))
	if len(body) < 10_000 {
		t.Errorf("cover %d has %d bytes, want an image worth blocking (10 kB or more)", id, len(body))
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("cover %d: %v", id, err)
	}
	return img
}
