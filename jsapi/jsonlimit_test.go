package jsapi_test

import (
	"strings"
	"testing"
	"time"
)

// TestJSONMaxDepth: JSON.parse and response.json() refuse text nested deeper than
// JSON_MAX_DEPTH with a catchable SyntaxError naming the setting, and JSON.stringify a
// deeper value with a RangeError, while a cycle is still a TypeError and text and values
// within the limit go through unchanged. A spider's customSettings may tighten the limit.
func TestJSONMaxDepth(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 3_000_000) // 3 MB: goja's parser would overflow the stack
	srv := newLinksServer(t, map[string]string{"/deep": deep, "/ok": `{"a":[[1,"[[[["]],"b":{"c":{}}}`})
	start := time.Now()
	res := crawl(t, srv, spec{src: `export default class S {
  name = "jsondepth";
  startUrls = ["BASE/deep", "BASE/ok"];
  customSettings = { JSON_MAX_DEPTH: 500 };
  async *parse(r) {
    const caught = (f) => { try { f(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
    if (r.url.endsWith("/ok")) {
      yield { json: JSON.stringify(await r.json()), parse: JSON.stringify(JSON.parse(r.body, (k, v) => v)),
        len: JSON.parse.length + "," + JSON.stringify.length + "," + JSON.parse.name };
      return;
    }
    let jsonErr = "no error";
    try { await r.json(); } catch (e) { jsonErr = e.name + ": " + e.message; }
    let v = 1, w = 1;
    for (let i = 0; i < 100000; i++) v = { a: v };
    for (let i = 0; i < 499; i++) w = [w];
    const c = { x: [] }; c.x.push({ c });
    yield { jsonErr, parse: caught(() => JSON.parse(r.body)),
      notTooDeep: caught(() => JSON.parse("[".repeat(500) + "]".repeat(500))),
      tooDeep: caught(() => JSON.parse("[".repeat(501) + "]".repeat(501))),
      stringify: caught(() => JSON.stringify(v)), within: JSON.stringify(w).length,
      cycle: caught(() => JSON.stringify(c)),
      viaToJSON: caught(() => JSON.stringify({ x: { toJSON() { return v; } } })),
      viaReplacer: caught(() => JSON.stringify({ x: 1 }, (k, x) => (k === "x" ? v : x))),
      replaced: JSON.stringify({ a: 1, b: [2, { c: 3 }] }, (k, x) => (k === "a" ? undefined : x)),
      listed: JSON.stringify({ a: 1, b: 2, t: { toJSON() { return { a: 3, b: 4 }; } } }, ["b", "t"]),
      toJSON: JSON.stringify({ d: new Date(0), x: { toJSON() { return [1]; } } }) };
  }
}`})
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("the crawl took %s", d)
	}
	const syntax = "SyntaxError: JSON.parse: the text is nested deeper than JSON_MAX_DEPTH (500)"
	equalLines(t, "items", res.sorted(t), []string{
		`{"json":"{\"a\":[[1,\"[[[[\"]],\"b\":{\"c\":{}}}","parse":"{\"a\":[[1,\"[[[[\"]],\"b\":{\"c\":{}}}","len":"2,3,parse"}`,
		`{"jsonErr":"` + syntax + `","parse":"` + syntax + `","notTooDeep":"no error","tooDeep":"` + syntax + `",` +
			`"stringify":"RangeError: JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (500)","within":999,` +
			`"cycle":"TypeError: Converting circular structure to JSON",` +
			`"viaToJSON":"RangeError: JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (500)",` +
			`"viaReplacer":"RangeError: JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (500)",` +
			`"replaced":"{\"b\":[2,{\"c\":3}]}","listed":"{\"b\":2,\"t\":{\"b\":4}}",` +
			`"toJSON":"{\"d\":\"1970-01-01T00:00:00.000Z\",\"x\":[1]}"}`,
	}, res.log)
}

// TestJSONDeepPipelineItem: a JS pipeline that returns a 1,000,000-deep object fails the
// item with the export limit's error in bounded time; checking whether the result was a
// promise used to convert the whole tree to Go maps first, recursively in Go.
func TestJSONDeepPipelineItem(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/p": "x"})
	start := time.Now()
	res := crawl(t, srv, spec{src: `export class Deepen {
  processItem(item) { let v = 1; for (let i = 0; i < 1000000; i++) v = { a: v }; return { deep: v }; }
}
export const pipelines = [Deepen];
export default class S {
  name = "deeppipe";
  startUrls = ["BASE/p"];
  async *parse(r) { yield { ok: 1 }; }
}`})
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("the crawl took %s", d)
	}
	if len(res.items) != 0 || !strings.Contains(res.log, "is nested deeper than 64 levels (a cycle?)") {
		t.Errorf("items %v, log:\n%.3000s", res.items, res.log)
	}
}
