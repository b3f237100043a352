package jsapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// httpServer is a site for the HTTP-behaviour tests: /cookie echoes the Cookie header as
// text, /setcookie sets one, /r1 → 301 /r2 → 302 /cookie.
func httpServer(t *testing.T) *server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/cookie", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, r.Header.Get("Cookie"))
	})
	mux.HandleFunc("/setcookie", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "srv=1; Path=/")
		fmt.Fprint(w, "set")
	})
	mux.HandleFunc("/r1", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/r2", http.StatusMovedPermanently) })
	mux.HandleFunc("/r2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/cookie", http.StatusFound) })
	s := &server{Server: enginetest.StartWith(t, mux).Server}
	return s
}

func TestRequestCookiesAndRedirectMeta(t *testing.T) {
	t.Parallel()
	srv := httpServer(t)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "http";
  *start() {
    yield new Request("BASE/cookie?obj", { cookies: { a: "1", b: "x y" }, meta: { cookiejar: "obj" } });
    const list = new Request("BASE/cookie?list", { cookies: [{ name: "c", value: "3", path: "/" }, { name: "d", value: "4", domain: "127.0.0.1" }], meta: { cookiejar: 2 } });
    yield list.replace({ url: "BASE/cookie?replaced" });
    yield new Request("BASE/setcookie", { callback: this.afterSet, meta: { cookiejar: "srv" } });
    yield new Request("BASE/r1", { cookies: { r: "1" }, callback: this.redirected, meta: { cookiejar: "redir", tag: "t" } });
  }
  *parse(response) {
    yield { kind: "cookies", url: new URL(response.url).search, sent: response.body,
      reqCookies: response.request.cookies };
  }
  *afterSet(response) {
    yield new Request("BASE/cookie?afterSet", { meta: { cookiejar: "srv" }, callback: this.parse });
  }
  *redirected(response) {
    yield { kind: "redirect", path: new URL(response.url).pathname, sent: response.body,
      urls: response.request.meta.redirectUrls.map((u) => new URL(u).pathname),
      reasons: response.meta.redirectReasons, times: response.meta.redirectTimes, tag: response.meta.tag };
  }
}`})
	equalLines(t, "items", res.sorted(t), []string{
		`{"kind":"cookies","url":"?afterSet","sent":"srv=1","reqCookies":null}`,
		`{"kind":"cookies","url":"?obj","sent":"a=1; b=x y","reqCookies":[{"name":"a","value":"1"},{"name":"b","value":"x y"}]}`,
		`{"kind":"cookies","url":"?replaced","sent":"c=3; d=4","reqCookies":[{"name":"c","value":"3","path":"/"},{"name":"d","value":"4","domain":"127.0.0.1"}]}`,
		`{"kind":"redirect","path":"/cookie","sent":"r=1","urls":["/r1","/r2"],"reasons":[301,302],"times":2,"tag":"t"}`,
	}, res.log)
}

func TestRequestCookiesOptionErrors(t *testing.T) {
	t.Parallel()
	srv := httpServer(t)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "bad";
  *start() {
    for (const cookies of ["a=1", [{ value: "1" }], [3]]) {
      yield new Request("BASE/cookie", { cookies, dontFilter: true });
    }
  }
  *parse(response) { yield { sent: response.body }; }
}`})
	for _, want := range []string{
		"TypeError: start: cookies must be an object {name: value} or an array of {name, value, domain, path}",
		"TypeError: start: cookies[0] has no name",
		"TypeError: start: cookies[0] must be an object {name, value, domain, path}",
	} {
		if !strings.Contains(res.log, want) {
			t.Errorf("log lacks %q:\n%s", want, res.log)
		}
	}
	if res.stat("response_received_count") != 0 {
		t.Errorf("bad cookies options downloaded:\n%s", res.log)
	}
}

// TestMiddlewaresSeeRedirects: a JS downloader middleware sees the redirected request go
// through it again, never the 3xx, and a redirect is not an exception.
func TestMiddlewaresSeeRedirects(t *testing.T) {
	t.Parallel()
	srv := httpServer(t)
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
const seen = [];
export const downloaderMiddlewares = [{
  processRequest(request) { seen.push("req " + new URL(request.url).pathname); },
  processResponse(request, response) { seen.push("resp " + response.status + " " + new URL(response.url).pathname); return response; },
  processException(request, error) { seen.push("exc " + error.name); },
}];
export default class S {
  name = "mw";
  startUrls = ["BASE/r1"];
  *parse(response) { yield { seen: seen.join(", ") }; }
}`})
	equalLines(t, "items", res.lines(t), []string{
		`{"seen":"req /r1, req /r2, req /cookie, resp 200 /cookie"}`,
	}, res.log)
}
