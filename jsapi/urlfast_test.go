package jsapi

import (
	"net/url"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// slowJoin is the slow path of urljoin and follow (urlsClass.resolve with a UTF-8 page):
// the reference fastJoin must agree with.
func slowJoin(base, href string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	ref, err := types.ParseURL(href)
	if err != nil {
		return "", false
	}
	abs := b.ResolveReference(ref)
	types.MakeSafe(abs, nil)
	return abs.String(), true
}

// fastJoinOf runs fastJoin of href against base, as urlsClass does.
func fastJoinOf(base, href string) (abs, scheme string, ok bool) {
	b, err := url.Parse(base)
	if err != nil {
		return "", "", false
	}
	fb := newFastBase(b)
	return fb.fastJoin(href)
}

// TestFastJoin pins what urljoin and follow make of links: RFC 3986's examples (section
// 5.4), what browsers and w3lib do to unsafe characters, and the shapes of links crawls
// follow. Each is joined by the slow path and, where it applies, the fast path: both must
// give want, and fast says which links the fast path takes.
func TestFastJoin(t *testing.T) {
	t.Parallel()
	const rfc = "http://a/b/c/d;p?q" // RFC 3986's base: ";" keeps relative paths on the slow path
	const rfcPlain = "http://a/b/c/d?q"
	const page = "http://example.com/a/b.html"
	cases := []struct {
		base, href, want string
		fast             bool
	}{
		// RFC 3986 5.4.1, normal examples.
		{rfc, "g:h", "g:h", false},
		{rfc, "g", "http://a/b/c/g", false},
		{rfc, "./g", "http://a/b/c/g", false},
		{rfc, "g/", "http://a/b/c/g/", false},
		{rfc, "/g", "http://a/g", true},
		{rfc, "//g", "http://g", false},
		{rfc, "?y", "http://a/b/c/d;p?y", false},
		{rfc, "g?y", "http://a/b/c/g?y", false},
		{rfc, "#s", "http://a/b/c/d;p?q#s", false},
		{rfc, "g#s", "http://a/b/c/g#s", false},
		{rfc, "g?y#s", "http://a/b/c/g?y#s", false},
		{rfc, ";x", "http://a/b/c/;x", false},
		{rfc, "g;x", "http://a/b/c/g;x", false},
		{rfc, "g;x?y#s", "http://a/b/c/g;x?y#s", false},
		{rfc, "", "http://a/b/c/d;p?q", false},
		{rfc, ".", "http://a/b/c/", false},
		{rfc, "./", "http://a/b/c/", false},
		{rfc, "..", "http://a/b/", false},
		{rfc, "../", "http://a/b/", false},
		{rfc, "../g", "http://a/b/g", false},
		{rfc, "../..", "http://a/", false},
		{rfc, "../../", "http://a/", false},
		{rfc, "../../g", "http://a/g", false},
		// RFC 3986 5.4.2, abnormal examples.
		{rfc, "../../../g", "http://a/g", false},
		{rfc, "../../../../g", "http://a/g", false},
		{rfc, "/./g", "http://a/g", false},
		{rfc, "/../g", "http://a/g", false},
		{rfc, "g.", "http://a/b/c/g.", false},
		{rfc, ".g", "http://a/b/c/.g", false},
		{rfc, "g..", "http://a/b/c/g..", false},
		{rfc, "..g", "http://a/b/c/..g", false},
		{rfc, "./../g", "http://a/b/g", false},
		{rfc, "./g/.", "http://a/b/c/g/", false},
		{rfc, "g/./h", "http://a/b/c/g/h", false},
		{rfc, "g/../h", "http://a/b/c/h", false},
		{rfc, "g;x=1/./y", "http://a/b/c/g;x=1/y", false},
		{rfc, "g;x=1/../y", "http://a/b/c/y", false},
		{rfc, "g?y/./x", "http://a/b/c/g?y/./x", false},
		{rfc, "g?y/../x", "http://a/b/c/g?y/../x", false},
		{rfc, "g#s/./x", "http://a/b/c/g#s/./x", false},
		{rfc, "g#s/../x", "http://a/b/c/g#s/../x", false},
		{rfc, "http:g", "http:g", false},
		// The same against a base the fast path merges with.
		{rfcPlain, "g", "http://a/b/c/g", true},
		{rfcPlain, "g/", "http://a/b/c/g/", true},
		{rfcPlain, "?y", "http://a/b/c/d?y", true},
		{rfcPlain, "g?y", "http://a/b/c/g?y", true},
		{rfcPlain, "g#s", "http://a/b/c/g#s", true},
		{rfcPlain, "g?y#s", "http://a/b/c/g?y#s", true},
		{rfcPlain, "g.", "http://a/b/c/g.", true},
		{rfcPlain, ".g", "http://a/b/c/.g", true},
		{rfcPlain, "..g", "http://a/b/c/..g", true},
		{rfcPlain, "g/./h", "http://a/b/c/g/h", false},
		{rfcPlain, "g?y/./x", "http://a/b/c/g?y/./x", false},
		{rfcPlain, "g#s/./x", "http://a/b/c/g#s/./x", true},
		{rfcPlain, "#s", "http://a/b/c/d?q#s", false},
		{rfcPlain, "", "http://a/b/c/d?q", false},
		// What a crawl follows: the kit's site, pagination, absolute links.
		{"http://127.0.0.1:18081/page/0", "/page/7", "http://127.0.0.1:18081/page/7", true},
		{"http://127.0.0.1:18081/page/0", "/page/7#p3", "http://127.0.0.1:18081/page/7#p3", true},
		{"http://127.0.0.1:18081/page/0", "https://example.invalid/elsewhere", "https://example.invalid/elsewhere", true},
		{page, "c.html", "http://example.com/a/c.html", true},
		{page, "?page=2&sort=asc", "http://example.com/a/b.html?page=2&sort=asc", true},
		{page, "/", "http://example.com/", true},
		{page, "/a//b", "http://example.com/a//b", true},
		{page, "/p?", "http://example.com/p?", true},
		{page, "/p?#f", "http://example.com/p?#f", true},
		{"https://example.com", "x", "https://example.com/x", false},
		{"https://example.com", "/x", "https://example.com/x", true},
		{"https://example.com/", "x/y", "https://example.com/x/y", true},
		// What browsers and w3lib's safe_url_string change (all on the slow path).
		{page, " /x ", "http://example.com/x", false},
		{page, "/a\tb\n", "http://example.com/ab", false},
		{page, "/x y", "http://example.com/x%20y", false},
		{page, "/ü", "http://example.com/%C3%BC", false},
		{page, `\x`, "http://example.com/x", false},
		{page, "HTTP://Example.COM/x", "http://example.com/x", false},
		{page, "http://Example.com/x", "http://example.com/x", false},
		{page, "http://bücher.de/x", "http://xn--bcher-kva.de/x", false},
		{page, "/a?b c", "http://example.com/a?b%20c", false},
		{page, "/a?x='1'", "http://example.com/a?x=%271%27", false},
		{page, "/a/%7e", "http://example.com/a/%7e", false},
		{page, "/a%zz", "http://example.com/a%25zz", false},
		{page, "//other.org/p", "http://other.org/p", false},
		{page, "https://h:8080/p", "https://h:8080/p", true},
		{page, "https://h:/p", "https://h/p", false},
		{page, "https://h?q=1", "https://h/?q=1", false},
		{page, "http://example.com", "http://example.com", false},
		{page, "https://u:p@h/x", "https://u:p@h/x", false},
		{page, "/p#", "http://example.com/p", false},
		{page, "/p#a b", "http://example.com/p#a%20b", false},
		{page, "mailto:x@y", "mailto:x@y", false},
		{page, "ftp://h/x", "ftp://h/x", false},
		{"http://Example.com/a/", "b", "http://example.com/a/b", false},
		{"http://example.com/a%20b/", "c", "http://example.com/a%20b/c", false},
		{"http://example.com/a/../b/", "c", "http://example.com/b/c", false},
		{"file:///tmp/a.html", "/b", "file:///b", false},
	}
	for _, tc := range cases {
		t.Run(tc.base+" + "+tc.href, func(t *testing.T) {
			got, ok := slowJoin(tc.base, tc.href)
			if !ok || got != tc.want {
				t.Errorf("slow path = %q (ok %v), want %q", got, ok, tc.want)
			}
			fast, scheme, fok := fastJoinOf(tc.base, tc.href)
			if fok != tc.fast {
				t.Errorf("fast path taken = %v, want %v", fok, tc.fast)
			}
			if fok && (fast != tc.want || scheme+":" != tc.want[:len(scheme)+1]) {
				t.Errorf("fast path = %q (scheme %q), want %q", fast, scheme, tc.want)
			}
		})
	}
}

// FuzzFastJoin checks that whatever link the fast path answers, it answers as the slow
// path does, and only for links follow's checks let through.
func FuzzFastJoin(f *testing.F) {
	for _, s := range []struct{ base, href string }{
		{"http://a/b/c/d?q", "g"}, {"http://a/b/c/d;p?q", "../g"}, {"http://127.0.0.1:18081/page/0", "/page/7#p3"},
		{"https://example.com/a/b.html", "?page=2&x=1"}, {"http://h/", "https://h:8080/p"}, {"http://h/a/", "./x"},
		{"http://h/a", "/p?#f"}, {"http://h/a", "g..#/"}, {"http://H/a", "b"}, {"http://h", "x"},
	} {
		f.Add(s.base, s.href)
	}
	f.Fuzz(func(t *testing.T, base, href string) {
		fast, scheme, ok := fastJoinOf(base, href)
		if !ok {
			return
		}
		want, sok := slowJoin(base, href)
		if !sok || fast != want {
			t.Fatalf("join(%q, %q): fast %q, slow %q (ok %v)", base, href, fast, want, sok)
		}
		// follow()'s checks, which the fast path skips, must pass.
		u, err := url.Parse(want)
		if err != nil || u.Scheme != scheme || u.Host == "" || !u.IsAbs() {
			t.Fatalf("join(%q, %q) = %q: scheme %q, host %q, err %v", base, href, want, scheme, u.Host, err)
		}
		if types.CleanURL(href) != href || href[0] == '#' || (hrefScheme(href) != "" && hrefScheme(href) != scheme) {
			t.Fatalf("fast path took %q, which follow() checks", href)
		}
	})
}
