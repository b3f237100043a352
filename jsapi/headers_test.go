package jsapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestResponseHeaders pins what JS sees of response.headers: a live, case-insensitive view
// of the response's headers, iterable, JSON-able and an instance of Headers.
func TestResponseHeaders(t *testing.T) {
	t.Parallel()
	sp := boundSpider(t, `import { Headers } from "jscrawl";
const cases = {
  get: (h) => [h.get("content-type"), h.get("X-MULTI"), h.get("x-none")],
  has: (h) => [h.has("X-Multi"), h.has("x-none")],
  getAll: (h) => h.getAll("x-multi"),
  entries: (h) => [...h.entries()],
  keys: (h) => [...h.keys()],
  iterate: (h) => { const out = []; for (const [k, v] of h) out.push(k + "=" + v); return out; },
  // A sloppy function called with this undefined gets globalThis.
  forEach: (h) => { const out = []; h.forEach(function (v, k, self) { out.push([k, v, self === h, this === undefined]); }); return out; },
  forEachThrows: (h) => { try { h.forEach(() => { throw new RangeError("stop"); }); } catch (e) { return e instanceof RangeError && e.message; } },
  toJSON: (h) => h.toJSON(),
  stringify: (h) => JSON.stringify(h),
  spread: (h) => ({ ...h }),
  ownKeys: (h) => [Object.keys(h), Object.getOwnPropertyNames(h)],
  instance: (h) => [h instanceof Headers, h.constructor === Headers, Headers.name, Object.keys(Headers.prototype)],
  sameObject: (h, r) => r.headers === h,
  set: (h) => { h.set("X-New", 1); h.set("x-multi", "z"); return [h.get("x-new"), h.getAll("X-Multi")]; },
  append: (h) => { h.append("x-multi", "c"); return h.getAll("x-multi"); },
  delete: (h) => { h.delete("X-MULTI"); return [h.has("x-multi"), h.get("x-multi")]; },
  newHeaders: () => { try { new Headers(); return "made"; } catch (e) { return e instanceof TypeError; } },
  notHeaders: (h) => { try { h.get.call({}, "a"); return "called"; } catch (e) { return e instanceof TypeError; } },
};
export default class S {
  name = "headers";
  *parse(response) {
    const h = response.headers;
    yield { name: response.meta.case, got: cases[response.meta.case](h, response) };
  }
}`)
	for _, tc := range []struct{ name, want string }{
		{"get", `["text/html","a, b",null]`},
		{"has", `[true,false]`},
		{"getAll", `["a","b"]`},
		{"entries", `[["content-type","text/html"],["x-multi","a, b"]]`},
		{"keys", `["content-type","x-multi"]`},
		{"iterate", `["content-type=text/html","x-multi=a, b"]`},
		{"forEach", `[["content-type","text/html",true,false],["x-multi","a, b",true,false]]`},
		{"forEachThrows", `"stop"`},
		{"toJSON", `{"content-type":"text/html","x-multi":"a, b"}`},
		{"stringify", `"{\"content-type\":\"text/html\",\"x-multi\":\"a, b\"}"`},
		{"spread", `{}`},
		{"ownKeys", `[[],[]]`},
		{"instance", `[true,true,"Headers",[]]`},
		{"sameObject", `true`},
		{"set", `["1",["z"]]`},
		{"append", `["a","b","c"]`},
		{"delete", `[false,null]`},
		{"newHeaders", `true`}, // a Headers comes from a response only
		{"notHeaders", `true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp := &types.Response{URL: "http://127.0.0.1:1/p", Status: 200, Body: []byte("<p>x</p>"),
				Headers: http.Header{"Content-Type": {"text/html"}, "X-Multi": {"a", "b"}},
				Request: &types.Request{URL: "http://127.0.0.1:1/p", Meta: types.Item{{Key: "case", Value: tc.name}}}}
			b, _ := json.Marshal(onlyItemField(t, parseResponse(t, sp, resp), "got"))
			if string(b) != tc.want {
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}
