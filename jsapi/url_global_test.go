package jsapi_test

import (
	"testing"

	"github.com/jscrawl/jscrawl/runtime/vmtest"
)

// TestURLGlobal pins the URL and URLSearchParams a spider sees against what browsers and
// Node give (the WHATWG URL Standard); goja_nodejs's resolved "page2.html" against the site
// root.
func TestURLGlobal(t *testing.T) {
	t.Parallel()
	vmtest.Run(t, `
		function eq(got, want, what) {
			if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(what + ": got " + JSON.stringify(got) + ", want " + JSON.stringify(want));
		}
		function throws(f, what) {
			try { f(); } catch (e) { if (e instanceof TypeError) return; throw new Error(what + ": threw " + e); }
			throw new Error(what + ": did not throw");
		}
		export default function () {
			eq(new URL("page2.html", "http://example.com/dir/page1.html").href, "http://example.com/dir/page2.html", "path-relative");
			eq(new URL("../a?b#c", new URL("http://example.com/x/y/z")).href, "http://example.com/x/a?b#c", "URL base");
			eq(new URL("http:foo.com", "http://example.org/foo/bar").href, "http://example.org/foo/foo.com", "same scheme");
			eq(new URL(":foo", "http://example.org/foo/bar").href, "http://example.org/foo/:foo", "leading colon");
			eq(new URL("\\\\host\\x", "http://example.org/").href, "http://host/x", "backslashes");
			eq(new URL("HTTP://EXAMPLE.com:80/a b?q=1 2#f g").href, "http://example.com/a%20b?q=1%202#f%20g", "canonical");

			const u = new URL("https://user:pw@b\u00fccher.example:8080/p/q?x=1&y=2#h");
			eq([u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash, u.origin],
				["https:", "user", "pw", "xn--bcher-kva.example:8080", "xn--bcher-kva.example", "8080", "/p/q", "?x=1&y=2", "#h", "https://xn--bcher-kva.example:8080"], "getters");
			u.protocol = "http"; u.username = ""; u.password = ""; u.hostname = "h.test"; u.port = "80";
			u.pathname = "/new path"; u.hash = "";
			eq(u.href, "http://h.test/new%20path?x=1&y=2", "setters");
			eq(JSON.stringify({ u }), '{"u":"http://h.test/new%20path?x=1&y=2"}', "toJSON");
			eq(String(u), u.href, "toString");
			eq(Object.prototype.toString.call(u), "[object URL]", "toStringTag");
			eq(u instanceof URL, true, "instanceof");

			// searchParams is live, both ways.
			const sp = u.searchParams;
			eq(sp === u.searchParams, true, "same object");
			sp.append("z", "a b&c");
			eq(u.search, "?x=1&y=2&z=a+b%26c", "params to URL");
			u.search = "?k=v&k=w";
			eq([sp.get("k"), sp.getAll("k"), sp.has("x"), sp.size], ["v", ["v", "w"], false, 2], "URL to params");
			u.href = "http://h.test/?only=1";
			eq(sp.get("only"), "1", "href to params");
			sp.delete("only");
			eq(u.href, "http://h.test/", "empty params drop the ?");
			throws(() => { u.href = "not a url"; }, "href setter");

			// URLSearchParams from a string, a record, pairs and another URLSearchParams.
			const p = new URLSearchParams("?b=2&a=1&b=3&c=%E2%82%AC+x&d");
			eq([...p], [["b", "2"], ["a", "1"], ["b", "3"], ["c", "\u20ac x"], ["d", ""]], "string");
			eq([...p.keys()], ["b", "a", "b", "c", "d"], "keys");
			eq([...p.values()].length, 5, "values");
			eq(p.get("nope"), null, "get missing");
			p.set("b", "9");
			eq(p.toString(), "b=9&a=1&c=%E2%82%AC+x&d=", "set keeps the first");
			p.sort();
			eq(p.toString(), "a=1&b=9&c=%E2%82%AC+x&d=", "sort");
			p.delete("a", "2");
			eq(p.has("a"), true, "delete with another value");
			eq(p.has("a", "1"), true, "has with value");
			eq(new URLSearchParams({ q: "x y", n: 1 }).toString(), "q=x+y&n=1", "record");
			eq(new URLSearchParams([["a", "1"], ["a", "2"]]).getAll("a"), ["1", "2"], "pairs");
			eq(new URLSearchParams(new Map([["m", "1"]])).get("m"), "1", "iterable");
			eq(new URLSearchParams(p).toString(), p.toString(), "copy");
			throws(() => new URLSearchParams([["a"]]), "short pair");
			const seen = [];
			new URLSearchParams("a=1&b=2").forEach((v, k) => seen.push(k + v));
			eq(seen, ["a1", "b2"], "forEach");
			eq(Array.from(new URLSearchParams("x=1").entries()), [["x", "1"]], "entries");

			eq(URL.canParse("x", "http://a/"), true, "canParse relative");
			eq(URL.canParse("x"), false, "canParse no base");
			eq(URL.parse("nope"), null, "parse");
			eq(URL.parse("/p", "http://a/").href, "http://a/p", "parse ok");
			throws(() => new URL("x"), "relative without base");
			throws(() => new URL("/x", "also relative"), "bad base");
			const req = (m) => require(m); // a name esbuild leaves to the runtime
			eq(req("url").URL === URL && req("node:url").URLSearchParams === URLSearchParams, true, "require(url)");
		}`, nil)
}
