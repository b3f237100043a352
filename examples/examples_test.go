// Package examples_test checks that every example spider bundles with the same esbuild
// options as the runtime and that its start() yields the expected requests when run on goja
// with a stub "jscrawl" module. Crawling the demo site with the real runtime is tested
// where the CLI is.
package examples_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
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
		External:    []string{"jscrawl"},
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
  return { Request: class Request { constructor(url, opts) { this.url = url; Object.assign(this, opts || {}); } } };
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
