package jsapi_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// encodeText returns s encoded with enc.
func encodeText(t *testing.T, enc encoding.Encoding, s string) string {
	t.Helper()
	b, err := enc.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTextEncodings checks that response.body, text() and selectors see the page's text
// whatever its encoding: the precedence is byte order mark, Content-Type charset, <meta>,
// then sniffing (UTF-8 if valid, else windows-1252); invalid UTF-8 becomes U+FFFD.
func TestTextEncodings(t *testing.T) {
	t.Parallel()
	sjis := func(s string) string { return encodeText(t, japanese.ShiftJIS, s) }
	utf16 := func(s string) string { return encodeText(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), s) }
	pages := map[string][2]string{ // path → Content-Type, body
		"/latin1-header": {"text/html; charset=iso-8859-1", "<p>caf\xe9 na\xefve</p>"},
		"/sjis-meta":     {"text/html", `<html><head><meta charset="shift_jis"></head><body><p>` + sjis("日本語のページ") + `</p></body></html>`},
		"/sjis-equiv":    {"text/html", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body><p>` + sjis("東京") + `</p></body></html>`},
		"/bom-wins":      {"text/html; charset=iso-8859-1", "\xef\xbb\xbf<p>café ✓</p>"},
		"/utf16-bom":     {"text/html", utf16("<p>ünïcode</p>")},
		"/header-wins":   {"text/html; charset=utf-8", `<meta charset="shift_jis"><p>żółw</p>`},
		"/invalid-utf8":  {"text/html; charset=utf-8", "<p>ok \xff\xfe bad</p>"},
		"/sniff-cp1252":  {"text/html", "<p>\x93quoted\x94 caf\xe9</p>"},
		"/sniff-utf8":    {"text/html", "<p>naïve</p>"},
	}
	mux := http.NewServeMux()
	for p, v := range pages {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", v[0])
			w.Write([]byte(v[1]))
		})
	}
	srv := &server{Server: enginetest.StartWith(t, mux).Server}
	res := crawl(t, srv, spec{src: `export default class S {
  name = "encodings";
  *start() {
    for (const p of ["/latin1-header", "/sjis-meta", "/sjis-equiv", "/bom-wins", "/utf16-bom", "/header-wins", "/invalid-utf8", "/sniff-cp1252", "/sniff-utf8"]) {
      yield new (require("jscrawl").Request)("BASE" + p);
    }
  }
  async parse(r) {
    const css = r.css("p::text").get();
    const text = await r.text();
    return { path: new URL(r.url).pathname, css, inBody: r.body.includes("<p>" + css + "</p>"), same: text === r.body, enc: r.encoding, proto: r.protocol, flags: r.flags };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"path":"/bom-wins","css":"café ✓","inBody":true,"same":true,"enc":"utf-8","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/header-wins","css":"żółw","inBody":true,"same":true,"enc":"utf-8","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/invalid-utf8","css":"ok ` + "\uFFFD" + ` bad","inBody":true,"same":true,"enc":"utf-8","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/latin1-header","css":"café naïve","inBody":true,"same":true,"enc":"windows-1252","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/sjis-equiv","css":"東京","inBody":true,"same":true,"enc":"shift_jis","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/sjis-meta","css":"日本語のページ","inBody":true,"same":true,"enc":"shift_jis","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/sniff-cp1252","css":"“quoted” café","inBody":true,"same":true,"enc":"windows-1252","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/sniff-utf8","css":"naïve","inBody":true,"same":true,"enc":"utf-8","proto":"HTTP/1.1","flags":[]}`,
		`{"path":"/utf16-bom","css":"ünïcode","inBody":true,"same":true,"enc":"utf-16le","proto":"HTTP/1.1","flags":[]}`,
	}, res.log)
}

// TestMadeResponseText checks that a Response built in JS keeps its text as given, whatever
// charset its headers name, and that a 10 MB single-line page downloads and selects.
func TestMadeResponseTextAndHugeLine(t *testing.T) {
	t.Parallel()
	line := "<html><body><p>" + strings.Repeat("word ", 2<<20) + "</p><a class=end href=/end>end</a></body></html>"
	mux := http.NewServeMux()
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, line)
	})
	srv := &server{Server: enginetest.StartWith(t, mux).Server}
	res := crawl(t, srv, spec{src: `import { Response } from "jscrawl";
export default class S {
  name = "made";
  startUrls = ["BASE/huge"];
  parse(r) {
    const made = new Response("<p>café</p>", { headers: { "Content-Type": "text/html; charset=iso-8859-1" }, url: "http://x.test/" });
    return { huge: r.body.length, end: r.css("a.end::attr(href)").get(), made: made.body, madeCss: made.css("p::text").get(), enc: made.encoding };
  }
}`})
	equalLines(t, "items", res.lines(t), []string{
		fmt.Sprintf(`{"huge":%d,"end":"/end","made":"<p>café</p>","madeCss":"café","enc":"utf-8"}`, len(line)),
	}, res.log)
}

// TestHTTPCacheFromJS runs a JS spider twice with HTTPCACHE_ENABLED: the second run is
// served from the cache (response.flags is ["cached"]) and yields the same items.
func TestHTTPCacheFromJS(t *testing.T) {
	t.Parallel()
	hits := 0
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<h1>Page %s</h1><a href="/p/2">next</a>`, r.PathValue("n"))
	})
	srv := &server{Server: enginetest.StartWith(t, mux).Server}
	sp := spec{settings: map[string]string{"HTTPCACHE_ENABLED": "true", "HTTPCACHE_DIR": t.TempDir()}, src: `export default class S {
  name = "cached";
  startUrls = ["BASE/p/1"];
  *parse(r) {
    yield { h1: r.css("h1::text").get(), cached: r.flags.includes("cached") };
    yield r.follow("/p/2");
  }
}`}
	first := crawl(t, srv, sp)
	second := crawl(t, srv, sp)
	equalLines(t, "first run", first.sorted(t), []string{`{"h1":"Page 1","cached":false}`, `{"h1":"Page 2","cached":false}`}, first.log)
	equalLines(t, "second run", second.sorted(t), []string{`{"h1":"Page 1","cached":true}`, `{"h1":"Page 2","cached":true}`}, second.log)
	mu.Lock()
	defer mu.Unlock()
	if hits != 2 || second.stat("httpcache/hit") != 2 {
		t.Errorf("server hits = %d (want 2, all in the first run), httpcache/hit = %d (want 2)", hits, second.stat("httpcache/hit"))
	}
}

// TestEncodingSniffing crawls pages whose encoding only the web's sniffing finds: a <meta
// charset> inside <script> or <style> in the first 1024 bytes (the HTML prescan reads every
// tag alike), a comma-joined Content-Type (Fetch's "extract a MIME type" keeps the charset
// of a value of the same type) and two Content-Type headers, and a <meta> after 1024 bytes
// of comment that the parser acts on; one inside a <script> after 1024 bytes is not a
// declaration. response.encoding, text() and selectors agree.
func TestEncodingSniffing(t *testing.T) {
	t.Parallel()
	sjis := func(s string) string { return encodeText(t, japanese.ShiftJIS, s) }
	type page struct {
		ct   []string // Content-Type headers
		body string
	}
	filler := "<!-- " + strings.Repeat("x", 1100) + " -->"
	pages := map[string]page{
		"/script-meta": {[]string{"text/html"}, `<html><head><script>var tpl = '<meta charset="shift_jis">';</script></head><body><p>` + sjis("日本語") + `</p></body></html>`},
		"/style-meta":  {[]string{"text/html"}, `<html><head><style>/* <meta charset="windows-1251"> */ p { color: red }</style></head><body><p>` + "\xea\xe8\xf0\xe8\xeb\xeb\xe8\xf6\xe0" + `</p></body></html>`},
		"/comma-utf8":  {[]string{"text/html;charset=utf-8, text/html"}, "<p>żółw</p><p>bad \xff byte</p>"},
		"/comma-sjis":  {[]string{`text/html; charset="shift_jis", text/html`}, `<p>` + sjis("東京") + `</p>`},
		"/two-headers": {[]string{"text/html", "text/html; charset=shift_jis"}, `<p>` + sjis("大阪") + `</p>`},
		"/late-meta":   {[]string{"text/html"}, filler + `<meta charset="shift_jis"><p>` + sjis("京都") + `</p>`},
		"/late-script": {[]string{"text/html"}, filler + `<script>document.write('<meta charset="shift_jis">')</script><p>caf` + "\xe9" + `</p>`},
	}
	mux := http.NewServeMux()
	var paths []string
	for p, v := range pages {
		paths = append(paths, `"`+p+`"`)
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			for _, ct := range v.ct {
				w.Header().Add("Content-Type", ct)
			}
			io.WriteString(w, v.body)
		})
	}
	srv := &server{Server: enginetest.StartWith(t, mux).Server}
	res := crawl(t, srv, spec{src: `export default class S {
  name = "sniffing";
  *start() {
    for (const p of [` + strings.Join(paths, ", ") + `]) yield new (require("jscrawl").Request)("BASE" + p);
  }
  async parse(r) {
    const text = await r.text();
    const p = r.css("p::text").get();
    return { path: new URL(r.url).pathname, p, inText: text.includes(p), enc: r.encoding };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"path":"/comma-sjis","p":"東京","inText":true,"enc":"shift_jis"}`,
		`{"path":"/comma-utf8","p":"żółw","inText":true,"enc":"utf-8"}`,
		`{"path":"/late-meta","p":"京都","inText":true,"enc":"shift_jis"}`,
		`{"path":"/late-script","p":"café","inText":true,"enc":"windows-1252"}`,
		`{"path":"/script-meta","p":"日本語","inText":true,"enc":"shift_jis"}`,
		`{"path":"/style-meta","p":"кириллица","inText":true,"enc":"windows-1251"}`,
		`{"path":"/two-headers","p":"大阪","inText":true,"enc":"shift_jis"}`,
	}, res.log)
}
