package jsapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/types"
)

// TestResponseObject pins what JS sees of a Response: url and status as own enumerable
// properties (JSON.stringify, spread), the getters and methods on Response.prototype, not
// enumerable, instanceof and subclassing, properties a spider adds, and new Response().
func TestResponseObject(t *testing.T) {
	t.Parallel()
	sp := boundSpider(t, `import { Response, Request, Headers, Selector } from "jscrawl";
const cases = {
  ownKeys: (r) => [Object.keys(r), Object.getOwnPropertyNames(r)],
  stringify: (r) => JSON.stringify(r),
  spread: (r) => ({ ...r }),
  forIn: (r) => { const out = []; for (const k in r) out.push(k); return out; },
  protoKeys: () => Object.keys(Response.prototype),
  instance: (r) => [r instanceof Response, r.constructor === Response, Response.name, typeof Response.handleOf, Object.keys(Response)],
  toString: (r) => [String(r), r.toString(), "" + r],
  getters: (r) => [r.url, r.status, r.body, r.encoding, r.protocol, r.flags, r.session, r.page, r.screenshot, r.baseUrl,
    r.headers instanceof Headers, r.headers === r.headers, r.request instanceof Request, r.request === r.request, r.meta.case,
    r.selector instanceof Selector, r.selector === r.selector],
  css: (r) => [r.css("p::text").get(), r.xpath("//p/text()").get(), r.selector.css("p::text").getall()],
  urljoin: (r) => [r.urljoin("a/b"), r.urljoin("/c")],
  follow: (r) => [r.follow("x").url, r.follow("x") instanceof Request, Object.keys(r.follow("x")), r.follow("mailto:a@b.example"),
    r.follow("y", { meta: { a: 1 } }).meta.a, r.follow("z", "parse").callback, r.follow(r.css("a")[0]).url],
  followAll: (r) => r.followAll(["a", null, "b"]).map((q) => q.url),
  jsonLd: (r) => r.jsonLd(),
  setOwn: (r) => { r.extra = 1; r.url = "changed"; return [Object.keys(r), r.extra, r.url, String(r), JSON.stringify(r)]; },
  deleteOwn: (r) => { r.a = 1; delete r.url; delete r.a; return [Object.keys(r), r.url, "url" in r, "css" in r]; },
  // The bundle is sloppy code: assigning a getter is ignored.
  setGetter: (r) => { try { r.headers = 1; return r.headers instanceof Headers; } catch (e) { return e instanceof TypeError; } },
  text: async (r) => [await r.text(), await r.replace({ body: '{"a":1}' }).json()],
  made: () => { const q = new Request("http://127.0.0.1:1/q"); const r = new Response("<p>m</p>", { status: 201, headers: { "X-A": "1" }, request: q });
    return [r.url, r.status, r.request === q, r.headers.get("x-a"), r.body, r.css("p::text").get(), JSON.stringify(r), r instanceof Response]; },
  madeEmpty: () => { const r = new Response(); return [r.url, r.status, r.request, r.body]; },
  replace: (r) => { const c = r.replace({ status: 404 }); return [c.status, c.url, c.body === r.body, c.headers.get("content-type"), c !== r]; },
  subclass: () => { class R extends Response { hi() { return "hi " + this.status; } } const r = new R("x", { status: 202 });
    return [r instanceof R, r instanceof Response, r.hi(), r.body]; },
  noNew: () => { try { Response("x"); return "called"; } catch (e) { return e instanceof TypeError; } },
  notResponse: () => { try { Response.prototype.css.call({}, "p"); return "called"; } catch (e) { return e instanceof TypeError; } },
};
export default class S {
  name = "responses";
  async *parse(response) {
    yield { got: await cases[response.meta.case](response) };
  }
}`)
	page := `<html><head><script type="application/ld+json">{"@type":"A"}</script><script type="application/ld+json">{bad</script></head>` +
		`<body><p>hi</p><a href="l">l</a></body></html>`
	for _, tc := range []struct{ name, want string }{
		{"ownKeys", `[["url","status"],["url","status"]]`},
		{"stringify", `"{\"url\":\"http://127.0.0.1:1/d/p\",\"status\":200}"`},
		{"spread", `{"url":"http://127.0.0.1:1/d/p","status":200}`},
		{"forIn", `["url","status"]`},
		{"protoKeys", `[]`},
		{"instance", `[true,true,"Response","function",[]]`},
		{"toString", `["<200 http://127.0.0.1:1/d/p>","<200 http://127.0.0.1:1/d/p>","<200 http://127.0.0.1:1/d/p>"]`},
		{"getters", `["http://127.0.0.1:1/d/p",200,"` + strings.ReplaceAll(page, `"`, `\"`) + `","utf-8","HTTP/1.1",[],null,null,null,"http://127.0.0.1:1/d/p",true,true,true,true,"getters",true,true]`},
		{"css", `["hi","hi",["hi"]]`},
		{"urljoin", `["http://127.0.0.1:1/d/a/b","http://127.0.0.1:1/c"]`},
		{"follow", `["http://127.0.0.1:1/d/x",true,["url"],null,1,"parse","http://127.0.0.1:1/d/l"]`},
		{"followAll", `["http://127.0.0.1:1/d/a","http://127.0.0.1:1/d/b"]`},
		{"jsonLd", `[{"@type":"A"}]`},
		{"setOwn", `[["url","status","extra"],1,"changed","<200 changed>","{\"url\":\"changed\",\"status\":200,\"extra\":1}"]`},
		{"deleteOwn", `[["status"],null,false,true]`},
		{"setGetter", `true`},
		{"text", `["` + strings.ReplaceAll(page, `"`, `\"`) + `",{"a":1}]`},
		{"made", `["http://127.0.0.1:1/q",201,true,"1","<p>m</p>","m","{\"url\":\"http://127.0.0.1:1/q\",\"status\":201}",true]`},
		{"madeEmpty", `["",200,null,""]`},
		{"replace", `[404,"http://127.0.0.1:1/d/p",true,"text/html",true]`},
		{"subclass", `[true,true,"hi 202","x"]`},
		{"noNew", `true`},
		{"notResponse", `true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp := &types.Response{URL: "http://127.0.0.1:1/d/p", Status: 200, Body: []byte(page), Protocol: "HTTP/1.1",
				Headers: http.Header{"Content-Type": {"text/html"}},
				Request: &types.Request{URL: "http://127.0.0.1:1/d/p", Meta: types.Item{{Key: "case", Value: tc.name}}}}
			if b := rawJSON(onlyItemField(t, parseResponse(t, sp, resp), "got")); b != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestPrototypeMethodsAreNotEnumerable: the Go-backed classes' prototypes bind their
// methods, aliases and getters as a JS class's are: not enumerable (Object.keys and for-in
// skip them; a for-in over a SelectorList gives its indexes only), writable and
// configurable.
func TestPrototypeMethodsAreNotEnumerable(t *testing.T) {
	t.Parallel()
	sp := boundSpider(t, `import { Response, Headers, Selector, SelectorList } from "jscrawl";
export default class S {
  name = "protos";
  *parse(response) {
    const out = {};
    const list = response.css("p");
    const protos = { Response: Response.prototype, Headers: Headers.prototype, Selector: Selector.prototype,
      SelectorList: SelectorList.prototype, Page: Object.getPrototypeOf(response.page) };
    for (const [name, p] of Object.entries(protos)) {
      const bad = Object.getOwnPropertyNames(p).filter((k) => {
        const d = Object.getOwnPropertyDescriptor(p, k);
        return k !== "constructor" && (d.enumerable || !d.configurable || ("value" in d && !d.writable));
      });
      out[name] = [Object.keys(p).length, bad, Object.getOwnPropertyNames(p).length > 1];
    }
    const forIn = [];
    for (const k in list) forIn.push(k);
    const sel = list[0];
    const selIn = [];
    for (const k in sel) selIn.push(k);
    out.forIn = [forIn, selIn, Object.keys(sel)];
    yield out;
  }
}`)
	o := parsePageFirst(t, sp, "<p>x</p><p>y</p>")
	b, _ := json.Marshal(o.Item)
	want := `{"Response":[0,[],true],"Headers":[0,[],true],"Selector":[0,[],true],"SelectorList":[0,[],true],"Page":[0,[],true],"forIn":[["0","1"],[],[]]}`
	if got := string(b); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// parsePageFirst runs sp's parse on an HTML page with body and a fake browser page, and
// returns its first output.
func parsePageFirst(t *testing.T, sp *jsapi.Spider, body string) types.Output {
	t.Helper()
	resp := &types.Response{URL: "http://127.0.0.1:1/p", Status: 200, Body: []byte(body), Headers: http.Header{},
		Page: &fakePage{}, Request: &types.Request{URL: "http://127.0.0.1:1/p"}}
	if outs := parseResponse(t, sp, resp); len(outs) > 0 {
		return outs[0]
	}
	return types.Output{}
}
