package jsapi_test

import (
	"strings"
	"testing"
)

// crawleeSite is a small site shaped like crawlee.dev for Crawlee's crawl_some_links
// example (docs/examples/crawl_some_links.ts: enqueueLinks({ include:
// ['http?(s)://crawlee.dev/*/*'] })): nine pages two segments deep (three of them with a
// trailing "/"), and links the glob must not take (one segment, three segments, a "."
// segment).
var crawleeSite = map[string]string{
	"/{$}": `<a href="/docs/quick-start">Quick start</a> <a href="/docs/examples/">Examples</a>
<a href="/docs/guides/">Guides</a> <a href="/api/core">Core</a> <a href="/api/utils">Utils</a>
<a href="/js/docs/">JS</a> <a href="/blog/2024/">Blog</a> <a href="/docs/a/b">deep</a>
<a href="/about">About</a> <a href="/.well-known/x">dot</a>`,
	"/docs/{p}":      `<a href="/docs/introduction">Introduction</a> <a href="/api/browser">Browser</a> <a href="/">Home</a>`,
	"/docs/{p}/":     `<a href="/docs/introduction">Introduction</a>`,
	"/docs/a/b":      `deep`,
	"/api/{p}":       `<a href="/api/core">Core</a>`,
	"/js/docs/":      `<a href="/">Home</a>`,
	"/blog/2024/":    `blog`,
	"/about":         `about`,
	"/.well-known/x": `dot`,
}

// TestGlobEnqueueLinksCrawlSomeLinks runs Crawlee's crawl_some_links example on a real
// server: its extglob ?(s) and its */* (which takes a URL ending in "/" one segment
// deeper) visit the root and the nine pages, as Crawlee does; before minimatch semantics
// the glob matched nothing and the crawl stopped at the root. Crawlee 4's include and
// Crawlee 3's globs behave alike.
func TestGlobEnqueueLinksCrawlSomeLinks(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, crawleeSite)
	want := []string{"/", "/api/browser", "/api/core", "/api/utils", "/blog/2024/", "/docs/examples/",
		"/docs/guides/", "/docs/introduction", "/docs/quick-start", "/js/docs/"}
	for _, option := range []string{"include", "globs"} {
		t.Run(option, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `export default class S {
  name = "crawl_some_links";
  startUrls = ["BASE/"];
  *parse(r) {
    yield { page: r.url.replace(/^http:\/\/[^/]+/, "") };
    yield* r.enqueueLinks({ ` + option + `: ["http?(s)://" + new URL(r.url).host + "/*/*"] });
  }
}`})
			var got []string
			for _, l := range res.sorted(t) {
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(l, `{"page":"`), `"}`))
			}
			equalLines(t, "pages", got, want, res.log)
		})
	}
}

// TestGlobEnqueueLinksInclude: Crawlee 4's include takes globs (strings or { glob }) and
// regexps (RegExp or { regexp }) together, adds to Crawlee 3's globs and regexps, is
// combined with the strategy, and is refused when empty (which would match nothing).
func TestGlobEnqueueLinksInclude(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, nil)
	const (
		a = "http://www.example.com/dir/a.html"
		b = "http://www.example.com/dir/sub/b.html"
		c = "https://www.example.com/c"
		e = "http://shop.example.com/e"
		x = "http://www.example.com/x1"
	)
	for _, tc := range []struct {
		name, opts string
		want       string
	}{
		{"globs and regexps in one list", `{ include: ["http://www.example.com/dir/*", /\/x\d$/, { glob: "https://**" }, { regexp: /sub/ }] }`, quoteJoin([]string{a, b, c, x})},
		{"one string", `{ include: "**/dir/**" }`, quoteJoin([]string{a, b})},
		{"extglob", `{ include: "http?(s)://www.example.com/@(c|x+([0-9]))" }`, quoteJoin([]string{c, x})},
		{"negated extglob", `{ include: "http://www.example.com/dir/!(*.html)/**" }`, quoteJoin([]string{b})},
		{"with globs", `{ include: "**/c", globs: ["**/x1"] }`, quoteJoin([]string{c, x})},
		{"and the strategy", `{ include: "http://*.example.com/e" }`, ``},
		{"and a wider strategy", `{ include: "http://*.example.com/e", strategy: "same-domain" }`, quoteJoin([]string{e})},
		{"empty is refused", `{ include: [] }`, `"enqueueLinks(): include is empty, so no link would match (Crawlee refuses it too); leave it out to keep links by strategy alone"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := crawl(t, srv, spec{src: `import { Response } from "jscrawl";
export default class S {
  name = "include";
  startUrls = ["BASE/links"];
  parse(r) {
    const page = new Response(` + "`" + strategyPage + "`" + `, { url: "http://www.example.com/dir/page.html", headers: { "Content-Type": "text/html" } });
    try {
      return { urls: page.enqueueLinks(` + tc.opts + `).map((q) => q.url) };
    } catch (e) {
      return { urls: [e.message] };
    }
  }
}`})
			equalLines(t, "items", res.lines(t), []string{`{"urls":[` + tc.want + `]}`}, res.log)
		})
	}
}
