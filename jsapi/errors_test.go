package jsapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// goNames are what must never reach a spider's author: Go error and type names, Go symbols
// and fmt's complaints.
var goNames = []string{"GoError", "*big.Int", "big.Int", "int64", "float64", "[]string", "map[", "github.com",
	"jsapi.", "(*", ".func", "goja", "%!", `parse "`}

func checkNoGoNames(t *testing.T, what, s string) {
	t.Helper()
	for _, g := range goNames {
		if strings.Contains(s, g) {
			t.Errorf("%s contains %q:\n%s", what, g, s)
		}
	}
}

// TestErrorsNameJSTypes: errors that Go functions throw to JS are JS errors (TypeError,
// Error) whose messages name JS types and the value or URL at fault, never a GoError or a
// Go type name; e.stack names no Go function either.
func TestErrorsNameJSTypes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct {
		name, body string
		wantName   string   // "" means no error
		contains   []string // in the message
	}{
		{name: "Symbol as a URL", body: `new Request(Symbol("u"))`, wantName: "TypeError", contains: []string{"Request() needs a URL string", "Symbol"}},
		{name: "BigInt as a URL", body: `new Request(10n)`, wantName: "TypeError", contains: []string{"BigInt 10n"}},
		{name: "object as a URL", body: `new Request({})`, wantName: "TypeError", contains: []string{"needs a URL string", "Object"}},
		{name: "Symbol in fetch", body: `fetch(Symbol("u"))`, wantName: "TypeError", contains: []string{"fetch() needs a URL string"}},
		// A "%" that starts no escape is read as "%25" (as browsers and w3lib keep such URLs), so
		// this one fails for being relative.
		{name: "percent in a URL", body: `new Request("%zz")`, wantName: "TypeError", contains: []string{`"%zz"`, "relative URL"}},
		{name: "invalid URL", body: `new Request("http://[x.test/")`, wantName: "TypeError", contains: []string{`"http://[x.test/"`, "invalid URL"}},
		{name: "BigInt priority", body: `if (new Request("BASE/p/1", { priority: 10n }).priority !== 10) throw new Error("priority")`},
		{name: "Symbol method", body: `new Request("BASE/p/1", { method: Symbol("m") })`, wantName: "TypeError", contains: []string{"Symbol"}},
		{name: "Symbol body", body: `new Request("BASE/p/1", { method: "POST", body: Symbol("b") })`, wantName: "TypeError", contains: []string{"body", "Symbol"}},
		{name: "Symbol header", body: `new Request("BASE/p/1", { headers: { "X-A": Symbol("s") } })`, wantName: "TypeError", contains: []string{"Symbol"}},
		{name: "css with a number", body: `r.css(123)`, wantName: "TypeError", contains: []string{`invalid CSS selector "123"`}},
		{name: "invalid css", body: `r.css("a[")`, wantName: "TypeError", contains: []string{`"a["`}},
		{name: "invalid xpath", body: `r.xpath("//a[")`, wantName: "TypeError", contains: []string{"XPath", "//a["}},
		{name: "invalid URL in follow", body: `r.follow("http://[::1/x")`, wantName: "TypeError", contains: []string{`"http://[::1/x"`, "missing ']' in host"}},
		{name: "BigInt in follow", body: `r.follow(10n)`, wantName: "TypeError", contains: []string{"follow() needs a URL", "BigInt 10n"}},
		{name: "object in follow", body: `r.follow({})`, wantName: "TypeError", contains: []string{"follow() needs a URL"}},
		{name: "function in stats", body: `this.crawler.stats.set("x", () => 1)`, wantName: "TypeError", contains: []string{"function"}},
		{name: "BigInt in stats.inc", body: `this.crawler.stats.inc("x", 5n)`, wantName: "TypeError", contains: []string{"BigInt"}},
		{name: "not JSON for jmespath", body: `r.jmespath("a")`, wantName: "TypeError", contains: []string{"not JSON", "BASE/"}},
		{name: "scheme not enabled", body: `new Request("mailto:a@b.example")`, wantName: "TypeError",
			contains: []string{`"mailto:a@b.example"`, `scheme "mailto" is not enabled (DOWNLOAD_SCHEMES is http,https)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "errors";
  startUrls = ["BASE/"];
  *parse(r) {
    try {
      ` + tc.body + `;
      yield { ok: true };
    } catch (e) {
      yield { name: e.name, message: e.message, stack: e.stack, isError: e instanceof Error };
    }
  }
}`})
			contains := make([]string, len(tc.contains))
			for i, c := range tc.contains {
				contains[i] = strings.ReplaceAll(c, "BASE", srv.URL)
			}
			got := checkCaught(t, res, tc.wantName, contains)
			if got == nil {
				return
			}
			msg, _ := got["message"].(string)
			checkNoGoNames(t, "the message", msg)
			stack, _ := got["stack"].(string)
			checkNoGoNames(t, "e.stack", stack)
		})
	}
}

// TestSpiderErrorLog: what the log shows for a callback's uncaught error and for a value a
// callback yields that is neither an item nor a Request, and for an error the spider logs:
// the URL processed, the spider's file:line (the JS stack without jscrawl's own or Go
// frames) and JS type names.
func TestSpiderErrorLog(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	src := `import { Request } from "jscrawl";
function helper(r) {
  return r.css("a["); // HELPER
}
export default class S {
  name = "errlog";
  startUrls = ["BASE/"];
  *parse(r) {
    yield 10n;
    yield new Request("BASE/p/1", { meta: { f: () => 1 } });
    yield r.follow("mailto:x@y.example");
    try { r.xpath("//a["); } catch (e) { this.logger.warn(e); console.log("STACK " + e.stack); } // LOGGED
    helper(r); // PARSE
  }
}`
	res := crawl(t, srv, spec{src: src})
	file := res.file
	for _, want := range []string{
		fmt.Sprintf("Spider error processing <GET %s/>", srv.URL),
		"TypeError: invalid CSS selector \"a[\": unclosed '['\n" +
			fmt.Sprintf("\tat helper (%s:%d:", file, lineOf(t, src, "HELPER")),
		fmt.Sprintf("\tat parse (%s:%d:", file, lineOf(t, src, "PARSE")),
		fmt.Sprintf("TypeError: parse processing <%s/>: yielded BigInt 10n", srv.URL),
		fmt.Sprintf("TypeError: parse processing <%s/>: meta.f is a function", srv.URL),
		fmt.Sprintf("TypeError: XPath error: Invalid expression in //a[\n\tat parse (%s:%d:", file, lineOf(t, src, "LOGGED")),
		// console.log of a raw e.stack shows the spider's frames only too.
		fmt.Sprintf("STACK TypeError: XPath error: Invalid expression in //a[\n\tat parse (%s:%d:", file, lineOf(t, src, "LOGGED")),
	} {
		if !strings.Contains(res.log, want) {
			t.Errorf("the log does not contain %q:\n%s", want, res.log)
		}
	}
	for _, internal := range []string{"(native)", "prelude.js", "jscrawl-spiders.js"} {
		if strings.Contains(res.log, internal) {
			t.Errorf("the log shows internal frames (%s):\n%s", internal, res.log)
		}
	}
	checkNoGoNames(t, "the log", res.log)
	if n := res.stat("spider_exceptions/TypeError"); n != 3 {
		t.Errorf("spider_exceptions/TypeError = %d, want 3\n%s", n, res.log)
	}
}

// TestListSettingErrors: startUrls and allowedDomains that are not arrays of strings are
// refused with a message naming the JS type at fault, not a Go type ([]string).
func TestListSettingErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, tc := range []struct{ name, field, want string }{
		{"a string", `startUrls = "BASE/"`, `startUrls must be an array of strings, got string "BASE/"`},
		{"a number inside", `startUrls = ["BASE/", 2]`, "startUrls[1] must be a string, got number 2"},
		{"an object", `startUrls = { a: 1 }`, "startUrls must be an array of strings, got an object (Object)"},
		{"a Set works", `startUrls = new Set(["BASE/p/1"])`, ""},
		{"allowedDomains", `allowedDomains = "example.com"; startUrls = []`, `allowedDomains must be an array of strings, got string "example.com"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp := spec{src: `export default class S {
  name = "lists";
  ` + tc.field + ` as any;
  parse(r) { return { url: r.url }; }
}`}
			want := strings.ReplaceAll(tc.want, "BASE", srv.URL)
			if strings.HasPrefix(tc.field, "allowedDomains") {
				_, _, err := load(t, sp, srv.URL, nil)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("load error = %v, want one containing %q", err, want)
				}
				return
			}
			res := crawl(t, srv, sp)
			if want == "" {
				equalLines(t, "items", res.lines(t), []string{fmt.Sprintf(`{"url":"%s/p/1"}`, srv.URL)}, res.log)
				return
			}
			if !strings.Contains(res.log, want) {
				t.Errorf("the log does not contain %q:\n%s", want, res.log)
			}
			checkNoGoNames(t, "the log", res.log)
		})
	}
}
