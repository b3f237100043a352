package jsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// fakePage is a types.Page that records its calls.
type fakePage struct {
	mu    sync.Mutex
	calls []string
}

func (p *fakePage) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprintf(format, args...))
}

func (p *fakePage) URL() string { return "http://127.0.0.1:1/now" }
func (p *fakePage) Click(_ context.Context, css string) error {
	p.note("click %s", css)
	return nil
}
func (p *fakePage) Fill(_ context.Context, css, text string) error {
	p.note("fill %s %s", css, text)
	return nil
}
func (p *fakePage) WaitForSelector(_ context.Context, css string, timeout time.Duration) error {
	p.note("wait %s %v", css, timeout)
	return nil
}
func (p *fakePage) Scroll(_ context.Context, times int, delay time.Duration) error {
	p.note("scroll %d %v", times, delay)
	return nil
}
func (p *fakePage) Evaluate(_ context.Context, source string, args []byte) ([]byte, error) {
	p.note("evaluate %s %s", source, args)
	return []byte(`{"ok":true}`), nil
}
func (p *fakePage) Content(context.Context) (string, error) { return "<p>now</p>", nil }
func (p *fakePage) Screenshot(context.Context) ([]byte, error) {
	return []byte{0x89, 'P', 'N', 'G'}, nil
}
func (p *fakePage) Goto(_ context.Context, u string) error {
	p.note("goto %s", u)
	return nil
}
func (p *fakePage) Response(context.Context) (*types.Response, error) {
	return &types.Response{URL: "http://127.0.0.1:1/now", Status: 200, Body: []byte("<p>now</p>"), Headers: http.Header{}}, nil
}
func (p *fakePage) Close() error { return nil }

// TestPageObject pins what JS sees of response.page (without a browser): each method's
// arguments as the page gets them, its results, and the object's shape.
func TestPageObject(t *testing.T) {
	t.Parallel()
	sp := boundSpider(t, `export default class S {
  name = "pages";
  async *parse(response) {
    const p = response.page;
    const out = [p.url(), String(p), p === response.page, Object.keys(p), p.constructor.name, Object.keys(Object.getPrototypeOf(p))];
    out.push(await p.click("#a"), await p.fill("#q", 42), await p.waitForSelector(".x", { timeout: 1500 }), await p.waitForSelector(".y"));
    await p.scroll(); await p.scroll({ times: 2, delay: 5 });
    out.push(await p.evaluate((a, b) => a + b, 1, "two"), await p.evaluate("() => 1"));
    out.push(await p.content(), Array.from(await p.screenshot()), String(await p.response()));
    await p.goto("http://127.0.0.1:1/next");
    for (const bad of [() => p.evaluate(3), () => p.goto("nope"), () => p.click.call({}, "a")]) {
      try { bad(); out.push("no error"); } catch (e) { out.push(e.name); }
    }
    try { new p.constructor(); } catch (e) { out.push(e.name); }
    yield { out };
  }
}`)
	page := &fakePage{}
	resp := &types.Response{URL: "http://127.0.0.1:1/p", Status: 200, Body: []byte("<p>x</p>"), Headers: http.Header{}, Page: page,
		Request: &types.Request{URL: "http://127.0.0.1:1/p"}}
	var o types.Output
	if outs := parseResponse(t, sp, resp); len(outs) > 0 {
		o = outs[0]
	}
	if o.Item == nil {
		t.Fatalf("output %+v", o)
	}
	v, _ := o.Item.Get("out")
	want := `["http://127.0.0.1:1/now","<Page http://127.0.0.1:1/now>",true,[],"Page",[],null,null,null,null,` +
		`{"ok":true},{"ok":true},"<p>now</p>",[137,80,78,71],"<200 http://127.0.0.1:1/now>","TypeError","TypeError","TypeError","TypeError"]`
	if got := rawJSON(v); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	calls, _ := json.Marshal(page.calls)
	wantCalls := `["click #a","fill #q 42","wait .x 1.5s","wait .y 0s","scroll 10 500ms","scroll 2 5ms",` +
		`"evaluate (a, b) =\u003e a + b [1,\"two\"]","evaluate () =\u003e 1 []","goto http://127.0.0.1:1/next"]`
	if string(calls) != wantCalls {
		t.Errorf("calls %s\nwant  %s", calls, wantCalls)
	}
}
