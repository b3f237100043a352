package jsapi_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/internal/dtsgen"
)

// TestGeneratedDefinitionsAreCurrent: jscrawl_gen.d.ts is what `go generate ./jsapi` writes
// from the Go-backed classes' methods and doc comments.
func TestGeneratedDefinitionsAreCurrent(t *testing.T) {
	t.Parallel()
	want, err := dtsgen.Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("jscrawl_gen.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Error("jsapi/jscrawl_gen.d.ts is stale: run `go generate ./jsapi`")
	}
}

// instanceOf is, for each generated class, a JS expression in a parse callback that gives
// one of its objects, o, and the class o must be an instance of (Page is not exported).
var instanceOf = map[string][2]string{
	"Headers":       {"response.headers", "jscrawl.Headers"},
	"Response":      {"response", "jscrawl.Response"},
	"Page":          {"response.page", `(o.constructor.name === "Page" ? o.constructor : null)`},
	"Selector":      {`response.css("p")[0]`, "jscrawl.Selector"},
	"SelectorList":  {`response.css("p")`, "jscrawl.SelectorList"},
	"Settings":      {"this.crawler.settings", "Object"},
	"Stats":         {"this.crawler.stats", "Object"},
	"CrawlerEngine": {"this.crawler.engine", "Object"},
	"Sessions":      {"this.crawler.sessions", "Object"},
	"Signals":       {"this.crawler.signals", "Object"},
	"Logger":        {"this.logger", "Object"},
}

// TestGeneratedMembersAreBound: every member the generator declares from a Go method is a
// property of the class's JS objects, named as the generator names it (the first letter
// lowered, as runtime.FieldNameMapper does), and the object is an instance of the class.
func TestGeneratedMembersAreBound(t *testing.T) {
	t.Parallel()
	classes, err := dtsgen.Classes(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(classes) == 0 {
		t.Fatal("no generated classes")
	}
	for _, c := range classes {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			expr, ok := instanceOf[c.Name]
			if !ok {
				t.Fatalf("no instance expression for %s in instanceOf", c.Name)
			}
			names, _ := json.Marshal(c.Members)
			sp := boundSpider(t, `import * as jscrawl from "jscrawl";
export default class S {
  name = "bound";
  *parse(response) {
    const o = `+expr[0]+`;
    const missing = `+string(names)+`.filter((m) => !(m in o));
    yield { missing, instance: o instanceof `+expr[1]+` };
  }
}`)
			o := parsePageFirst(t, sp, "<p>x</p>")
			if o.Item == nil {
				t.Fatalf("output %+v", o)
			}
			b, _ := json.Marshal(o.Item)
			if s := string(b); s != `{"missing":[],"instance":true}` {
				t.Errorf("%s (members %s): %s", c.Name, strings.Join(c.Members, ", "), s)
			}
		})
	}
}
