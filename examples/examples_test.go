// Package examples_test checks that every example spider bundles with the same esbuild
// options as the runtime and that its start() yields the expected requests when run on goja
// with a stub "jscrawl" module. Crawling the demo site with the real runtime is tested
// where the CLI is.
package examples_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/jscrawl/jscrawl/examples/demosite"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/types"
)

// bundle builds entry the way runtime.Bundle does: one CommonJS program, "jscrawl" external,
// async generators lowered for goja.
func bundle(t *testing.T, entry string) (code string, inputs []string) {
	t.Helper()
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{entry},
		Bundle:      true,
		Write:       false,
		Metafile:    true,
		Format:      api.FormatCommonJS,
		Platform:    api.PlatformNeutral,
		MainFields:  []string{"module", "main"},
		External:    []string{"jscrawl", "cheerio"},
		Target:      api.ESNext,
		Supported:   map[string]bool{"async-generator": false, "for-await": false},
		Charset:     api.CharsetUTF8,
		LogLevel:    api.LogLevelSilent,
	})
	for _, m := range res.Errors {
		loc := ""
		if m.Location != nil {
			loc = fmt.Sprintf("%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column+1)
		}
		t.Errorf("%s%s", loc, m.Text)
	}
	if len(res.Errors) > 0 || len(res.OutputFiles) != 1 {
		t.FailNow()
	}
	var meta struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		t.Fatal(err)
	}
	for in := range meta.Inputs {
		inputs = append(inputs, filepath.ToSlash(in))
	}
	return string(res.OutputFiles[0].Contents), inputs
}

// stub stands in for the runtime's "jscrawl" module: just enough for start() and parse().
const stub = `
var module = { exports: {} }, exports = module.exports;
function require(name) {
  if (name !== "jscrawl") throw new Error("unexpected require " + name);
  return {
    Request: class Request { constructor(url, opts) { this.url = url; Object.assign(this, opts || {}); } },
    Spider: class Spider {},
  };
}
`

// run loads code, builds the spider with args, awaits driver(spider) and returns its result
// as JSON.
func run(t *testing.T, code string, args map[string]string, driver string) string {
	t.Helper()
	vm := goja.New()
	if _, err := vm.RunScript("stub.js", stub); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.RunScript("bundle.js", code); err != nil {
		t.Fatalf("load bundle: %v", err)
	}
	argJSON, _ := json.Marshal(args)
	script := `(async () => {
  const mod = module.exports.default;
  const spider = typeof mod === "function" ? new mod() : mod;
  Object.assign(spider, ` + string(argJSON) + `);
  const methods = [...Object.getOwnPropertyNames(Object.getPrototypeOf(spider)), ...Object.keys(spider)];
  const nameOf = (fn) => typeof fn === "function" ? methods.find((k) => spider[k] === fn) : (fn || "");
  const drain = async (it) => { const out = []; for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value); return out; };
  return (` + driver + `)(spider, drain, nameOf);
})().then((v) => { globalThis.result = JSON.stringify(v); }, (e) => { globalThis.failure = String(e && e.stack || e); });`
	if _, err := vm.RunScript("driver.js", script); err != nil {
		t.Fatal(err)
	}
	if f := vm.Get("failure"); f != nil {
		t.Fatalf("driver failed: %s", f)
	}
	r := vm.Get("result")
	if r == nil {
		t.Fatal("driver did not settle")
	}
	return r.String()
}

const startDriver = `async (spider, drain, nameOf) => ({
  name: spider.name,
  allowedDomains: spider.allowedDomains,
  requests: (await drain(spider.start())).map((r) => ({ url: r.url, callback: nameOf(r.callback) })),
})`

func TestExamplesStart(t *testing.T) {
	t.Parallel()
	type request struct{ URL, Callback string }
	type result struct {
		Name           string
		AllowedDomains []string
		Requests       []request
	}
	for _, tc := range []struct {
		entry string
		args  map[string]string
		want  result
	}{
		{"books.ts", map[string]string{"baseUrl": "http://127.0.0.1:1"},
			result{"books", []string{"127.0.0.1"}, []request{{"http://127.0.0.1:1/catalogue/page-1.html", "parse"}}}},
		{"books.ts", map[string]string{"baseUrl": "http://127.0.0.1:1", "category": "travel"},
			result{"books", []string{"127.0.0.1"}, []request{{"http://127.0.0.1:1/catalogue/page-1.html", "parseSidebar"}}}},
		{"quotes.js", map[string]string{"baseUrl": "http://127.0.0.1:1"},
			result{"quotes", []string{"127.0.0.1"}, []request{{"http://127.0.0.1:1/quotes/", ""}}}},
		{"browser.ts", map[string]string{"baseUrl": "http://127.0.0.1:1"},
			result{"browser", []string{"127.0.0.1"}, []request{
				{"http://127.0.0.1:1/js/catalogue/page-1.html", ""},
				{"http://127.0.0.1:1/js/scroll/", "parseScroll"},
				{"http://127.0.0.1:1/js/more/", "parseMore"},
			}}},
		{"inline.ts", nil,
			result{"inline", []string{"127.0.0.1"}, []request{{"http://127.0.0.1:8000/catalogue/page-1.html", ""}}}},
		{"npm-import/spider.ts", map[string]string{"baseUrl": "http://127.0.0.1:1"},
			result{"slugs", []string{"127.0.0.1"}, []request{{"http://127.0.0.1:1/catalogue/page-1.html", ""}}}},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			t.Parallel()
			code, _ := bundle(t, tc.entry)
			var got result
			if err := json.Unmarshal([]byte(run(t, code, tc.args, startDriver)), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestNpmImport checks that the committed node_modules fixture is bundled from its "module"
// entry and that its slugify runs on goja.
func TestNpmImport(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("npm-import/node_modules/slugify-lite/index.js"); err != nil {
		t.Fatalf("the CommonJS build of the fixture is missing: %v", err)
	}
	code, inputs := bundle(t, "npm-import/spider.ts")
	want := "npm-import/node_modules/slugify-lite/index.mjs"
	found := false
	for _, in := range inputs {
		found = found || strings.HasSuffix(in, want)
	}
	if !found {
		t.Errorf("bundle inputs %v lack %s", inputs, want)
	}
	got := run(t, code, nil, `async (spider, drain) => drain(spider.parse({
  css: () => [{ attrib: { title: "Les Misérables: Été à Paris" } }, { attrib: { title: "Tipping the Velvet & Co" } }],
}))`)
	const wantItems = `[{"title":"Les Misérables: Été à Paris","slug":"les-miserables-ete-a-paris"},` +
		`{"title":"Tipping the Velvet & Co","slug":"tipping-the-velvet-co"}]`
	if got != wantItems {
		t.Errorf("items %s\nwant %s", got, wantItems)
	}
}

// TestSelectorsMatchDemoSite runs the selectors the examples use against the demo site with
// the selector engine behind response.css, so a change to either side that breaks the
// examples fails here.
func TestSelectorsMatchDemoSite(t *testing.T) {
	t.Parallel()
	h := demosite.Handler()
	const book1 = "/catalogue/tipping-the-velvet-co_1/index.html"
	for _, tc := range []struct {
		path    string
		queries []string // applied in turn, as chained css() calls
		count   int      // -1: any
		want    []string // the first results
	}{
		{"/catalogue/page-1.html", []string{"article.product_pod h3 a::attr(href)"}, 20, []string{"tipping-the-velvet-co_1/index.html"}},
		{"/catalogue/page-1.html", []string{"article.product_pod h3 a", "::attr(title)"}, 20, []string{"Tipping the Velvet & Co"}},
		{"/catalogue/page-1.html", []string{"li.next a::attr(href)"}, 1, []string{"page-2.html"}},
		{"/catalogue/page-5.html", []string{"li.next a::attr(href)"}, 0, nil},
		{"/catalogue/page-1.html", []string{".side_categories ul ul a", "::text"}, 6, []string{"Travel", "Mystery"}},
		{"/catalogue/page-1.html", []string{".side_categories ul ul a::attr(href)"}, 6, []string{"category/books/travel_2/index.html"}},
		{book1, []string{"h1::text"}, 1, []string{"Tipping the Velvet & Co"}},
		{book1, []string{".product_main .price_color::text"}, 1, []string{"£52.98"}},
		{book1, []string{".product_main .star-rating::attr(class)"}, 1, []string{"star-rating One"}},
		{book1, []string{"table tr", "th::text"}, 7, []string{"UPC", "Product Type"}},
		{book1, []string{"table tr", "td::text"}, 7, []string{"19a16980fc0cfe1a"}},
		{book1, []string{".breadcrumb li:nth-child(3) a::text"}, 1, []string{"Poetry"}},
		{book1, []string{"#product_description + p::text"}, 1, nil},
		{"/quotes/", []string{"div.quote"}, 10, nil},
		{"/quotes/", []string{"div.quote", "span.text::text"}, 10, []string{"“A map is a promise that the road will still be there.”"}},
		{"/quotes/", []string{"div.quote", "small.author::text"}, 10, []string{"Émile Durand", "Mei Tanaka"}},
		{"/quotes/", []string{"div.quote", "div.tags a.tag::text"}, -1, []string{"maps", "travel", "reading"}},
		{"/quotes/", []string{"div.quote", "span a::attr(href)"}, 10, []string{"/quotes/author/emile-durand/"}},
		{"/quotes/", []string{"li.next a::attr(href)"}, 1, []string{"/quotes/page/2/"}},
		{"/quotes/author/emile-durand/", []string{"h3.author-title::text"}, 1, []string{"Émile Durand"}},
		{"/quotes/author/emile-durand/", []string{".author-born-date::text"}, 1, []string{"December 2, 1823"}},
		{"/quotes/author/emile-durand/", []string{".author-born-location::text"}, 1, []string{"in Lyon, France"}},
	} {
		t.Run(tc.path+" "+strings.Join(tc.queries, " → "), func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: status %d", tc.path, rec.Code)
			}
			doc, err := selector.Parse(rec.Body.Bytes(), rec.Header().Get("Content-Type"))
			if err != nil {
				t.Fatal(err)
			}
			rs := []selector.Result{doc.Root()}
			for _, q := range tc.queries {
				if rs, err = selector.Select(rs, q); err != nil {
					t.Fatal(err)
				}
			}
			got := selector.GetAll(rs)
			if tc.count >= 0 && len(got) != tc.count {
				t.Errorf("%d results, want %d: %q", len(got), tc.count, got)
			}
			if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
				t.Errorf("results %q, want them to start with %q", got, tc.want)
			}
		})
	}
}

// TestGuideSettingsTable checks that docs/guide.md's settings table lists exactly the settings
// of types.Defs, with their kinds.
func TestGuideSettingsTable(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile("../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(guide), "\n## Settings\n")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| ([a-z]+) \\|")
	kinds := map[types.Kind]string{types.KindInt: "integer", types.KindFloat: "number", types.KindBool: "boolean",
		types.KindString: "string", types.KindDuration: "seconds", types.KindList: "list", types.KindMap: "object"}
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	for _, d := range types.Defs {
		want = append(want, d.Key+" "+kinds[d.Kind])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("guide settings table (sorted by key) is\n%q\nwant\n%q", got, want)
	}
}
