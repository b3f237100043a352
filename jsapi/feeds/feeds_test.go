package feeds

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hugeSitemap(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://shop.example/product/%d</loc><lastmod>2026-01-01</lastmod><priority>0.5</priority></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func readAll(r *SitemapReader, batch int) []Entry {
	var all []Entry
	for {
		b := r.Next(nil, batch)
		if len(b) == 0 {
			return all
		}
		all = append(all, b...)
	}
}

func TestSitemapReader(t *testing.T) {
	t.Parallel()
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"`
	for _, tc := range []struct {
		name, body string
		gzip       bool
		typ        string
		locs       []string
		broken     bool
	}{
		{"urlset", `<urlset ` + ns + `><url><loc> http://a/1 </loc><lastmod>2026</lastmod></url><url><loc>http://a/2?x=1&amp;y=2</loc></url></urlset>`,
			false, URLSet, []string{"http://a/1", "http://a/2?x=1&y=2"}, false},
		{"gzipped index", `<?xml version="1.0"?><sitemapindex ` + ns + `><sitemap><loc>http://a/s1.xml</loc></sitemap></sitemapindex>`,
			true, SitemapIndex, []string{"http://a/s1.xml"}, false},
		{"stray ampersand is kept", `<urlset><url><loc>http://a/?x=1&y=2</loc></url></urlset>`, false, URLSet, []string{"http://a/?x=1&y=2"}, false},
		{"entries without loc are skipped", `<urlset><url><lastmod>x</lastmod></url><url><loc>http://a/3</loc></url></urlset>`, false, URLSet, []string{"http://a/3"}, false},
		{"truncated", `<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</loc></url><url><loc>http://a/`, false, URLSet, []string{"http://a/1", "http://a/2"}, true},
		{"garbage after entries", `<urlset><url><loc>http://a/1</loc></url><<<>></urlset>`, false, URLSet, []string{"http://a/1"}, true},
		{"not xml", `hello`, false, "", nil, false},
		{"empty", ``, false, "", nil, false},
		{"latin-1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://a/caf\xe9</loc></url></urlset>", false, URLSet, []string{"http://a/café"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := []byte(tc.body)
			if tc.gzip {
				body = gzipped(t, tc.body)
			}
			r := NewSitemapReader(body, 0)
			var locs []string
			for _, e := range readAll(r, 1) {
				locs = append(locs, e.Loc)
			}
			if r.Type() != tc.typ || !slices.Equal(locs, tc.locs) || (r.Err() != nil) != tc.broken {
				t.Errorf("type %q locs %q err %v; want %q %q broken=%v", r.Type(), locs, r.Err(), tc.typ, tc.locs, tc.broken)
			}
		})
	}
}

func TestSitemapEntryFields(t *testing.T) {
	t.Parallel()
	r := NewSitemapReader([]byte(`<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>http://a/1</loc><lastmod>2026-01-01</lastmod>
<changefreq>daily</changefreq><priority>0.8</priority><xhtml:link rel="alternate" hreflang="de" href="http://a/de/1"/>
<xhtml:link rel="alternate" hreflang="fr" href="http://a/fr/1"/><image:image xmlns:image="x"><image:loc>http://a/i.png</image:loc></image:image></url></urlset>`), 0)
	got := readAll(r, 10)
	want := []Entry{{Loc: "http://a/1", LastMod: "2026-01-01", ChangeFreq: "daily", Priority: "0.8", Alternate: []string{"http://a/de/1", "http://a/fr/1"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) || r.Err() != nil {
		t.Errorf("got %+v (%v), want %+v", got, r.Err(), want)
	}
}

func TestSitemapTooLarge(t *testing.T) {
	t.Parallel()
	r := NewSitemapReader(gzipped(t, hugeSitemap(1000)), 10_000)
	readAll(r, 100)
	if !errors.Is(r.Err(), ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", r.Err())
	}
}

// TestSitemapStreams reads a gzipped 50,000-URL sitemap (about 5 MB of XML) in batches and
// checks that the live heap never grows by more than a fraction of the document: the
// parser keeps one batch, not the document or a tree of it.
func TestSitemapStreams(t *testing.T) {
	const n = 50000
	doc := hugeSitemap(n)
	body := gzipped(t, doc)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	r := NewSitemapReader(body, 0)
	var buf []Entry
	count, peak := 0, uint64(0)
	for i := 0; ; i++ {
		buf = r.Next(buf[:0], 1000)
		if len(buf) == 0 {
			break
		}
		count += len(buf)
		if i%10 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
		}
	}
	if count != n || r.Err() != nil {
		t.Fatalf("%d entries, err %v", count, r.Err())
	}
	if limit := uint64(len(doc) / 5); peak > limit {
		t.Errorf("live heap grew by %d bytes while streaming a %d-byte sitemap (limit %d)", peak, len(doc), limit)
	}
	t.Logf("sitemap %d bytes (%d gzipped), peak live heap growth %d bytes", len(doc), len(body), peak)
}

func BenchmarkSitemapReader(b *testing.B) {
	body := gzipped(b, hugeSitemap(50000))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := NewSitemapReader(body, 0)
		var buf []Entry
		n := 0
		for {
			buf = r.Next(buf[:0], 1000)
			if len(buf) == 0 {
				break
			}
			n += len(buf)
		}
		if n != 50000 {
			b.Fatal(n)
		}
	}
}

func TestRobotsSitemaps(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://a.test/robots.txt")
	got := RobotsSitemaps("User-agent: *\nDisallow: /x\n  SITEMAP: /s1.xml\r\nSitemap:http://b.test/s2.xml.gz\nsitemaps: no\n# Sitemap: /c\n", base)
	want := []string{"http://a.test/s1.xml", "http://b.test/s2.xml.gz"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func render(n *html.Node) string {
	var b strings.Builder
	_ = html.Render(&b, n)
	return b.String()
}

func TestXMLNodes(t *testing.T) {
	t.Parallel()
	const feed = `<?xml version="1.0"?><rss xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
<item><title>A &amp; B</title><dc:creator>Ann</dc:creator><pubDate>x</pubDate></item>
<item><title><![CDATA[<b>C</b>]]></title></item></channel></rss>`
	for _, tc := range []struct {
		tag  string
		ns   map[string]string
		want []string
	}{
		{"item", nil, []string{"<item><title>A &amp; B</title><dc:creator>Ann</dc:creator><pubdate>x</pubdate></item>", "<item><title>&lt;b&gt;C&lt;/b&gt;</title></item>"}},
		{"dc:creator", nil, []string{"<dc:creator>Ann</dc:creator>"}},
		{"x:creator", map[string]string{"x": "http://purl.org/dc/elements/1.1/"}, []string{"<dc:creator>Ann</dc:creator>"}},
		{"x:creator", map[string]string{"x": "urn:other"}, nil},
		{"creator", nil, []string{"<dc:creator>Ann</dc:creator>"}},
	} {
		nodes, err := XMLNodes([]byte(feed), tc.tag, tc.ns)
		var got []string
		for _, n := range nodes {
			got = append(got, render(n))
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %q (%v), want %q", tc.tag, tc.ns, got, err, tc.want)
		}
	}
	nodes, err := XMLNodes([]byte(feed[:strings.Index(feed, "<item><title><!")+20]), "item", nil)
	if len(nodes) != 1 || !errors.Is(err, io.ErrUnexpectedEOF) && err == nil {
		t.Errorf("truncated: %d nodes, err %v", len(nodes), err)
	}
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		delim, q   rune
		headers    []string
		want       string
	}{
		{"header row", "a,b\n1,2\n3\n4,5\n", 0, 0, nil, "[a b] [[1 2] [4 5]] [{3 1}]"},
		{"quoted", "a,b\n\"x,1\",\"say \"\"hi\"\"\"\n", 0, 0, nil, `[a b] [[x,1 say "hi"]] []`},
		{"other quote", "a;b\n'x;1';'it''s \"ok\"'\n", ';', '\'', nil, `[a b] [[x;1 it's "ok"]] []`},
		{"headers given", "1|2\n", '|', 0, []string{"x", "y"}, "[x y] [[1 2]] []"},
	} {
		c := ReadCSV(tc.text, tc.delim, tc.q, tc.headers)
		if got := fmt.Sprint(c.Headers, " ", c.Rows, " ", c.Skipped); got != tc.want || c.Err != nil {
			t.Errorf("%s: %s (%v), want %s", tc.name, got, c.Err, tc.want)
		}
	}
}

// TestSitemapBounds: runs of whitespace longer than maxSpaceRun, in a <loc> and between
// entries, are cut and the entries read as they are; a run of text or a tag larger than
// maxToken stops the reading with ErrTokenTooLarge, the entries before it kept.
func TestSitemapBounds(t *testing.T) {
	t.Parallel()
	space := strings.Repeat(" \n", maxToken)
	head := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
	for _, tc := range []struct {
		name string
		doc  string
		want []string
		err  error
	}{
		{"space", head + `<url><loc>` + space + `https://a.example/1` + space + `</loc></url>` + space +
			`<url><loc>https://a.example/2</loc></url></urlset>`, []string{"https://a.example/1", "https://a.example/2"}, nil},
		{"text", head + `<url><loc>https://a.example/1</loc></url>` + strings.Repeat("x", 2*maxToken) +
			`<url><loc>https://a.example/2</loc></url></urlset>`, []string{"https://a.example/1"}, ErrTokenTooLarge},
		{"loc", head + `<url><loc>https://a.example/1</loc></url><url><loc>https://a.example/` + strings.Repeat("yyyy<b/>", maxToken/2) +
			`</loc></url></urlset>`, []string{"https://a.example/1"}, ErrTokenTooLarge},
		{"tag", head + `<url><loc>https://a.example/1</loc></url><url a="` + strings.Repeat("z", 2*maxToken) +
			`"><loc>https://a.example/2</loc></url></urlset>`, []string{"https://a.example/1"}, ErrTokenTooLarge},
	} {
		r := NewSitemapReader(gzipped(t, tc.doc), 0)
		var got []string
		for _, e := range readAll(r, 100) {
			got = append(got, e.Loc[:min(len(e.Loc), 80)])
		}
		if !slices.Equal(got, tc.want) || !errors.Is(r.Err(), tc.err) {
			t.Errorf("%s: %q, err %v; want %q, %v", tc.name, got, r.Err(), tc.want, tc.err)
		}
	}
}
