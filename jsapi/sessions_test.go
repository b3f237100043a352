package jsapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// challengeSite answers each new visitor (no cookie) with a cookie; every third cookie gets
// a 200 challenge page ("Just a moment") instead of content, and so does any request to
// /trap. /login sets auth, /private echoes it.
func challengeSite(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	n := 0
	bad := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "auth", Value: "tok-" + r.URL.RawQuery, Path: "/"})
			fmt.Fprint(w, "logged in")
			return
		case "/private":
			c, _ := r.Cookie("auth")
			if c == nil {
				fmt.Fprint(w, "anonymous")
				return
			}
			fmt.Fprint(w, c.Value)
			return
		case "/trap":
			fmt.Fprint(w, "<title>Just a moment...</title>")
			return
		}
		c, _ := r.Cookie("sid")
		if c == nil {
			n++
			c = &http.Cookie{Name: "sid", Value: fmt.Sprint(n), Path: "/"}
			http.SetCookie(w, c)
			bad[c.Value] = n%3 == 0
		}
		if bad[c.Value] {
			fmt.Fprint(w, "<title>Just a moment...</title>")
			return
		}
		fmt.Fprintf(w, "<title>page %s</title>", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSessionsInSpider runs the session pool from JS: an async isBlocked that spots a 200
// challenge page rotates the request to another session (and a throwing one is logged and
// not a block), every page is crawled, response.session names the session that served it,
// meta.session keeps a log-in's cookie across requests, crawler.sessions lists the sessions
// and retires one, after which a request pinned to it fails with SessionBlockedError.
func TestSessionsInSpider(t *testing.T) {
	t.Parallel()
	site := challengeSite(t)
	res := crawl(t, newServer(t), spec{args: map[string]string{"site": site.URL}, src: `import { Request } from "jscrawl";
export default class S {
  name = "sessions";
  customSettings = { SESSION_POOL_ENABLED: true, SESSION_POOL_SIZE: 3, SESSION_MAX_USAGE: 0, RETRY_ENABLED: false, CONCURRENT_REQUESTS: 1 };
  *start() {
    yield new Request(this.site + "/login?1", { meta: { session: "acct" }, callback: "loggedIn" });
    for (let i = 0; i < 12; i++) yield new Request(this.site + "/p/" + i);
    yield new Request(this.site + "/boom");
  }
  async isBlocked(response) {
    await null;
    if (response.url.endsWith("/boom")) throw new Error("isBlocked exploded");
    return response.body.includes("Just a moment") ? 1 : 0;
  }
  parse(r) {
    return { url: r.url.replace(this.site, ""), session: r.session.name, blocked: r.session.blocked, body: r.body };
  }
  *loggedIn(r) {
    yield new Request(this.site + "/private?a", { meta: { session: "acct" }, callback: "secret" });
  }
  *secret(r) {
    yield { url: "secret", body: r.body, session: r.session.name, usage: r.session.usageCount };
    const list = this.crawler.sessions.list();
    const acct = list.find(s => s.name === "acct");
    yield { url: "list", pinned: acct.pinned, retired: acct.retired, date: acct.createdAt instanceof Date,
      autos: list.filter(s => !s.pinned).length > 0, profile: acct.profile, proxy: acct.proxy };
    yield { url: "retire", first: this.crawler.sessions.retire("acct"), again: this.crawler.sessions.retire("acct") };
    yield new Request(this.site + "/private?b", { meta: { session: "acct" }, callback: "secret", errback: "failed" });
  }
  failed(f) { return { url: "failed", name: f.error.name, message: f.error.message }; }
}
`})
	got := map[string]map[string]any{}
	for _, l := range res.lines(t) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		got[m["url"].(string)] = m
	}
	for i := range 12 {
		p := got[fmt.Sprintf("/p/%d", i)]
		if p == nil || !strings.Contains(p["body"].(string), "page") || p["session"] == "" || p["blocked"] != false {
			t.Errorf("/p/%d: %v", i, p)
		}
	}
	if b := res.stat("session/blocked_count"); b < 1 || b != res.stat("session/retired_count")-1 {
		// the manual retire is the one retirement that is not a block
		t.Errorf("blocked %d, retired %d", b, res.stat("session/retired_count"))
	}
	if got["/boom"] == nil || !strings.Contains(res.log, "isBlocked exploded") || !strings.Contains(res.log, "spider.ts:") {
		t.Errorf("a throwing isBlocked: item %v; the log lacks the error and its stack:\n%s", got["/boom"], res.log)
	}
	if s := got["secret"]; s == nil || s["body"] != "tok-1" || s["session"] != "acct" || s["usage"] != float64(2) {
		t.Errorf("pinned session: %v", s)
	}
	if l := got["list"]; l == nil || l["pinned"] != true || l["retired"] != false || l["date"] != true || l["autos"] != true || l["profile"] != "" || l["proxy"] != "" {
		t.Errorf("crawler.sessions.list(): %v", l)
	}
	if r := got["retire"]; r == nil || r["first"] != true || r["again"] != false {
		t.Errorf("crawler.sessions.retire(): %v", r)
	}
	if f := got["failed"]; f == nil || f["name"] != "SessionBlockedError" || !strings.Contains(f["message"].(string), "acct") {
		t.Errorf("a request pinned to a retired session: %v", f)
	}
}

// TestResponseSessionOff: without SESSION_POOL_ENABLED response.session is null,
// crawler.sessions.list() is empty and retire() throws.
func TestResponseSessionOff(t *testing.T) {
	t.Parallel()
	site := challengeSite(t)
	res := crawl(t, newServer(t), spec{args: map[string]string{"site": site.URL}, src: `import { Request } from "jscrawl";
export default class S {
  name = "nosessions";
  *start() { yield new Request(this.site + "/private"); }
  isBlocked() { throw new Error("called without a pool"); }
  parse(r) {
    let threw = false;
    try { this.crawler.sessions.retire("x"); } catch (e) { threw = e instanceof TypeError; }
    return { session: r.session, list: this.crawler.sessions.list().length, threw };
  }
}
`})
	if l := res.lines(t); len(l) != 1 || l[0] != `{"session":null,"list":0,"threw":true}` || strings.Contains(res.log, "called without a pool") {
		t.Errorf("items %v\n%s", l, res.log)
	}
}
