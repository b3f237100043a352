package jsapi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// newREPL loads a small spider, binds it to an engine and returns its REPL and what
// console printed.
func newREPL(t *testing.T) (*jsapi.REPL, func() []string) {
	t.Helper()
	prog, err := runtime.BundleSource("s.js", `export default class S { name = "s"; twice(x) { return 2 * x; } }`,
		runtime.BundleOptions{External: jsapi.NativeModules})
	if err != nil {
		t.Fatal(err)
	}
	settings := types.NewSettings()
	_ = settings.Set(types.RetryEnabled, false, types.PriorityCmdline)
	sp := bindProgram(t, prog, settings)
	var mu sync.Mutex
	var printed []string
	r, err := sp.Dev().NewREPL(func(s string) { mu.Lock(); printed = append(printed, s); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	return r, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), printed...) }
}

func TestREPLEval(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r, printed := newREPL(t)
	ctx := context.Background()
	for _, tc := range []struct{ src, want string }{
		{`1 + 1`, `2`},
		{`"it's"`, `'it\'s'`},
		{`undefined`, `undefined`},
		{`let x = [1, "a", null, true, {k: [1, {deep: {deeper: 1}}]}]`, `undefined`},
		{`x`, `[ 1, 'a', null, true, { k: [ 1, [Object] ] } ]`},
		{`let x = 5; x`, `5`}, // declared again
		{`spider.twice(21)`, `42`},
		{`Promise.resolve("later")`, `'later'`},
		{`new Map([["a", 1]])`, `Map(1) { 'a' => 1 }`},
		{`(() => { const o = {}; o.self = o; return o; })()`, `{ self: [Circular] }`},
		{`class Point { constructor() { this.x = 1; } }; new Point()`, `Point { x: 1 }`},
		{`[Point, function named() {}, () => 1]`, `[ [class Point], [Function: named], [Function: (anonymous)] ]`},
		{`({ "a-b": 1, list: Array.from({length: 30}, (_, i) => i) })`, "{\n  'a-b': 1,\n  list: [\n    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,\n    21, 22, 23, 24, 25, 26, 27, 28, 29\n  ]\n}"},
		{`console.log("a", {b: 1}, [2])`, `undefined`},
		{`response`, `undefined`},
		{`const r = await fetch("` + srv.URL + `/")`, `undefined`},
		{`r === response && request.url === "` + srv.URL + `/"`, `true`},
		{`response.css("li a::text").getall()`, `[ 'One', 'Two', 'Three' ]`},
		{`response.css("h1")[0]`, `<Selector data='<h1 class="t">Hello <b>world</b></h1>'>`},
		{`await fetch("` + srv.URL + `/p/7"); response.css("h1::text").get()`, `'Page 7'`},
		{`(await fetch("` + srv.URL + `/json")).headers.get("x-test")`, `'yes'`},
		{`1; ((await Promise.resolve(2)))`, `2`},
		{`const [a, b] = [1, 2], c = await Promise.resolve(3); let d; a + b + c`, `6`},
		{`[a, b, c, typeof d]`, `[ 1, 2, 3, 'undefined' ]`},
		{"const { x: px } = await Promise.resolve({ x: 'p' })\npx", `'p'`},
	} {
		got, err := r.Eval(ctx, tc.src)
		if err != nil || got != tc.want {
			t.Errorf("%s\n got %q, %v\nwant %q", tc.src, got, err, tc.want)
		}
	}
	if p := printed(); len(p) != 1 || p[0] != "a { b: 1 } [ 2 ]" {
		t.Errorf("console.log printed %q", p)
	}
	if resp := r.Response(); resp == nil || resp.URL != srv.URL+"/json" {
		t.Errorf("Response() = %v", resp)
	}
	for _, tc := range []struct{ src, want string }{
		{`nope`, "ReferenceError: nope is not defined"},
		{`throw new TypeError("bad")`, "TypeError: bad"},
		{`Promise.reject(new Error("rejected"))`, "Error: rejected"},
		{`fetch("` + closedURL(t) + `")`, "ConnectionRefusedError"},
		{`1 +* 2`, "SyntaxError: <shell>: Line 1:4 Unexpected token *"},
	} {
		_, err := r.Eval(ctx, tc.src)
		var se *runtime.ScriptError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a ScriptError with %q", tc.src, err, tc.want)
		}
	}
	// The REPL goes on after errors.
	if got, err := r.Eval(ctx, `x + 1`); err != nil || got != "6" {
		t.Errorf("after errors: %q, %v", got, err)
	}
}

func TestREPLSetResponse(t *testing.T) {
	t.Parallel()
	r, _ := newREPL(t)
	ctx := context.Background()
	resp := &types.Response{URL: "http://example.com/a", Status: 203, Body: []byte("<p>hi</p>"),
		Request: &types.Request{URL: "http://example.com/a"}}
	if err := r.SetResponse(ctx, resp); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Eval(ctx, `[response.status, response.css("p::text").get(), request.url, String(response)]`); err != nil ||
		got != `[ 203, 'hi', 'http://example.com/a', '<203 http://example.com/a>' ]` {
		t.Errorf("got %q, %v", got, err)
	}
}
