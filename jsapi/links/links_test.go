package links_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/jscrawl/jscrawl/examples/demosite"
	"github.com/jscrawl/jscrawl/jsapi/links"
	"github.com/jscrawl/jscrawl/jsapi/selector"
)

func TestCompileGlob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		glob  string
		match []string
		miss  []string
	}{
		{"https://shop.test/*", []string{"https://shop.test/a", "https://shop.test/a/", "HTTPS://SHOP.TEST/A"}, []string{"https://shop.test/", "https://shop.test/a/b", "http://shop.test/a"}},
		{"https://shop.test/**", []string{"https://shop.test/a/b/c", "https://shop.test/"}, []string{"https://other.test/a"}},
		{"https://shop.test/**/item", []string{"https://shop.test/item", "https://shop.test/x/y/item"}, []string{"https://shop.test/xitem"}},
		{"http?://shop.test/p/[0-9]*", []string{"https://shop.test/p/12", "https://shop.test/p/1x"}, []string{"https://shop.test/p/x1", "http://shop.test/p/1"}},
		{"http://shop.test/p/[!0-9]*", []string{"http://shop.test/p/x"}, []string{"http://shop.test/p/1"}},
		{"http://shop.test/{a,b/c}.html", []string{"http://shop.test/a.html", "http://shop.test/b/c.html"}, []string{"http://shop.test/d.html"}},
		{"http://shop.test/a+b(c).html?x=1", []string{"http://shop.test/a+b(c).html?x=1", "http://shop.test/a+b(c).htmlxx=1"}, []string{"http://shop.test/aab(c).html?x=1"}},
		{`http://shop.test/\*`, []string{"http://shop.test/*"}, []string{"http://shop.test/a"}},
	} {
		m, err := links.CompileGlob(tc.glob)
		if err != nil {
			t.Errorf("%s: %v", tc.glob, err)
			continue
		}
		for _, u := range tc.match {
			if !m.MatchString(u) {
				t.Errorf("%s does not match %s", tc.glob, u)
			}
		}
		for _, u := range tc.miss {
			if m.MatchString(u) {
				t.Errorf("%s matches %s", tc.glob, u)
			}
		}
	}
	// As minimatch: an unclosed brace is literal text.
	if m, err := links.CompileGlob("http://x/{a,b"); err != nil || !m.MatchString("http://x/{a,b") || m.MatchString("http://x/a") {
		t.Errorf("an unclosed brace is not literal: %v", err)
	}
}

func TestCompileJS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, flags, s string
		want          bool
	}{
		{`\/item\/\d+$`, "", "http://a/item/12", true},
		{`ITEM`, "i", "http://a/item", true},
		{`ITEM`, "g", "http://a/item", false},
		{`(?<=/p/)\d`, "", "http://a/p/1", true}, // lookbehind: RE2 has none
		{`^a.b$`, "s", "a\nb", true},
		{`^a.b$`, "", "a\nb", false},
	} {
		m, err := links.CompileJS(tc.src, tc.flags)
		if err != nil {
			t.Errorf("/%s/%s: %v", tc.src, tc.flags, err)
			continue
		}
		if got := m.MatchString(tc.s); got != tc.want {
			t.Errorf("/%s/%s on %q = %v", tc.src, tc.flags, tc.s, got)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"HTTP://Shop.Test":                     "http://shop.test/",
		"http://shop.test/a?b=2&a=1&a=0#frag":  "http://shop.test/a?a=0&a=1&b=2",
		"http://shop.test/%7euser/a%2fb?q=a+b": "http://shop.test/~user/a%2Fb?q=a+b",
		"http://shop.test/?x=&y":               "http://shop.test/?x=&y=",
	} {
		u, _ := url.Parse(in)
		if got := links.Canonicalize(u, false); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

func TestStrategy(t *testing.T) {
	t.Parallel()
	page, _ := url.Parse("http://www.shop.co.uk/a")
	for _, tc := range []struct {
		target string
		want   [4]bool // same-hostname, same-domain, same-origin, all
	}{
		{"http://www.shop.co.uk/b", [4]bool{true, true, true, true}},
		{"https://www.shop.co.uk/b", [4]bool{true, true, false, true}},
		{"http://www.shop.co.uk:80/b", [4]bool{true, true, true, true}},
		{"http://www.shop.co.uk:81/b", [4]bool{true, true, false, true}},
		{"http://img.shop.co.uk/b", [4]bool{false, true, false, true}},
		{"http://other.co.uk/b", [4]bool{false, false, false, true}},
	} {
		u, _ := url.Parse(tc.target)
		for i, s := range []links.Strategy{links.SameHostname, links.SameDomain, links.SameOrigin, links.All} {
			if got := s.Allows(page, u); got != tc.want[i] {
				t.Errorf("strategy %d on %s = %v", i, tc.target, got)
			}
		}
	}
	if links.RegistrableDomain("127.0.0.1") != "127.0.0.1" || links.RegistrableDomain("localhost") != "localhost" {
		t.Error("IPs and single labels are their own domain")
	}
}

// demoPage returns the demo site's first catalogue page (20 books, a category sidebar and
// pagination: 73 links), a realistic listing.
func demoPage(tb testing.TB) (*selector.Document, *url.URL) {
	tb.Helper()
	rec := httptest.NewRecorder()
	demosite.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/catalogue/page-1.html", nil))
	doc, err := selector.Parse(rec.Body.Bytes(), rec.Header().Get("Content-Type"))
	if err != nil {
		tb.Fatal(err)
	}
	u, _ := url.Parse("http://127.0.0.1:8000/catalogue/page-1.html")
	return doc, u
}

func TestExtractDemoPage(t *testing.T) {
	t.Parallel()
	doc, u := demoPage(t)
	e := &links.Extractor{Unique: true}
	e.Prepare()
	ls := e.Extract(doc, u, nil, nil, false, nil)
	if len(ls) < 30 {
		t.Fatalf("%d links", len(ls))
	}
	allow, _ := links.CompileJS(`_\d+/index\.html$`, "")
	e = &links.Extractor{Unique: true, Allow: []links.Matcher{allow}, RestrictCSS: []*selector.Query{mustCompile(t, "article.product_pod")}}
	e.Prepare()
	if ls = e.Extract(doc, u, nil, nil, false, nil); len(ls) != 20 || ls[0].URL != "http://127.0.0.1:8000/catalogue/tipping-the-velvet-co_1/index.html" {
		t.Errorf("%d book links: %v", len(ls), ls)
	}
}

func mustCompile(tb testing.TB, q string) *selector.Query {
	c, err := selector.Compile(q)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkExtractLinks extracts the links of the demo catalogue page, as a CrawlSpider
// rule does per page (the page is parsed once, outside the loop, as the engine does).
func BenchmarkExtractLinks(b *testing.B) {
	doc, u := demoPage(b)
	allow, _ := links.CompileJS(`/catalogue/[^/]+_\d+/index\.html$`, "")
	deny, _ := links.CompileJS(`/category/`, "i")
	for _, bc := range []struct {
		name string
		e    *links.Extractor
	}{
		{"all", &links.Extractor{Unique: true}},
		{"allow-deny", &links.Extractor{Unique: true, Allow: []links.Matcher{allow}, Deny: []links.Matcher{deny}}},
		{"restrictCss", &links.Extractor{Unique: true, RestrictCSS: []*selector.Query{mustCompile(b, "article.product_pod h3")}}},
		{"canonicalize", &links.Extractor{Unique: true, Canonicalize: true}},
	} {
		bc.e.Prepare()
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(bc.e.Extract(doc, u, nil, nil, false, nil))
			}
			b.ReportMetric(float64(n), "links/page")
		})
	}
}
