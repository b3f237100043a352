package jsapi_test

import (
	"strings"
	"testing"
)

// huge lets "a".repeat(2 ** 53 - 1) through the allocation guard to goja, where it is a Go
// panic (makeslice: len out of range).
const huge = "1000000000000"

// TestPanicInCallbackRerunsOthers: a callback whose code makes goja panic fails alone
// with a RangeError (spider_exceptions/RangeError); the callback that was awaiting a
// download on the same VM, which is discarded, runs again on a fresh one and yields its
// item once (spider/callback_rerun_count).
func TestPanicInCallbackRerunsOthers(t *testing.T) {
	t.Parallel()
	// /hold answers once it was requested twice: by the first run of wait's callback, then
	// by its run on the fresh VM; /boom answers once wait's callback awaits /hold.
	src := newRerunGate().serve(t, "wait", "boom", `import { Request } from "jscrawl";
export default class S {
  name = "boom";
  *start() {
    yield new Request("SITE/wait");
    yield new Request("SITE/boom", { callback: this.boom });
  }
  async *parse(r) {
    const held = await (await fetch("SITE/hold")).text();
    yield { page: r.css("h1::text").get(), held };
  }
  *boom(r) {
    try { "a".repeat(2 ** 53 - 1); } catch (e) { yield { caught: String(e) }; }
    yield { page: "boom" };
  }
}
`)
	res := crawl(t, newServer(t), spec{settings: map[string]string{"JS_VMS": "1", "JS_MAX_ALLOCATION_MB": huge, "RETRY_ENABLED": "false", "ROBOTSTXT_OBEY": "false"}, src: src})
	equalLines(t, "items", res.lines(t), []string{`{"page":"wait","held":"held"}`}, res.log)
	if n := res.stat("spider_exceptions/RangeError"); n != 1 {
		t.Errorf("spider_exceptions/RangeError = %d, want 1\n%s", n, res.log)
	}
	if n := res.stat("spider/callback_rerun_count"); n != 1 {
		t.Errorf("spider/callback_rerun_count = %d, want 1\n%s", n, res.log)
	}
	if !strings.Contains(res.log, "Invalid string length in String.prototype.repeat (runtime error: makeslice: len out of range) in boom") {
		t.Errorf("the log does not name the panic and the callback:\n%s", res.log)
	}
}

// TestPanicInPipeline: a pipeline call whose code makes goja panic fails that item
// (item_error_count) with a RangeError naming the pipeline; the other items go through the
// pipeline on the fresh VM, opened again.
func TestPanicInPipeline(t *testing.T) {
	t.Parallel()
	src := `import { Request } from "jscrawl";
export default class S {
  name = "pipeboom";
  *start() { yield new Request(this.baseUrl + "/"); }
  *parse(r) { for (const n of [1, 2, 3]) yield { n }; }
}
class P {
  opened = 0;
  open() { this.opened++; }
  processItem(item) {
    if (item.n === 2) "a".repeat(2 ** 53 - 1);
    return { ...item, opened: this.opened };
  }
}
export const pipelines = [P];
`
	srv := newServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"JS_VMS": "1", "JS_MAX_ALLOCATION_MB": huge, "ROBOTSTXT_OBEY": "false"},
		args: map[string]string{"baseUrl": srv.URL}, src: src})
	equalLines(t, "items", res.sorted(t), []string{`{"n":1,"opened":1}`, `{"n":3,"opened":1}`}, res.log)
	if n := res.stat("item_error_count"); n != 1 {
		t.Errorf("item_error_count = %d, want 1\n%s", n, res.log)
	}
	if !strings.Contains(res.log, "Invalid string length in String.prototype.repeat (runtime error: makeslice: len out of range) in pipelines[0].processItem") {
		t.Errorf("the log does not name the panic and the pipeline:\n%s", res.log)
	}
}

// TestPanicInDownloaderMiddleware: a processRequest hook whose code makes goja panic fails
// that download with a RangeError naming the hook; the other pages are scraped.
func TestPanicInDownloaderMiddleware(t *testing.T) {
	t.Parallel()
	src := `import { Request } from "jscrawl";
export default class S {
  name = "mwboom";
  *start() { for (const p of ["/a", "/b", "/c"]) yield new Request(this.baseUrl + p); }
  parse(r) { return { path: new URL(r.url).pathname }; }
}
export const downloaderMiddlewares = [{
  processRequest(request) { if (request.url.endsWith("/b")) "a".repeat(2 ** 53 - 1); },
}];
`
	srv := newServer(t)
	res := crawl(t, srv, spec{settings: map[string]string{"JS_VMS": "1", "JS_MAX_ALLOCATION_MB": huge, "ROBOTSTXT_OBEY": "false", "RETRY_ENABLED": "false", "HTTPERROR_ALLOW_ALL": "true"},
		args: map[string]string{"baseUrl": srv.URL}, src: src})
	equalLines(t, "items", res.sorted(t), []string{`{"path":"/a"}`, `{"path":"/c"}`}, res.log)
	if !strings.Contains(res.log, "Invalid string length in String.prototype.repeat (runtime error: makeslice: len out of range) in downloaderMiddlewares[0].processRequest") {
		t.Errorf("the log does not name the panic and the hook:\n%s", res.log)
	}
}
