package links

import (
	"slices"
	"strings"
	"testing"
)

// globURLs and globURLCases pin URL globs of the kind Crawlee spiders use. Which URLs each
// glob matches was computed with minimatch 10.2.5 (the major version Crawlee depends on)
// as minimatch(url, glob, { nocase: true }), Crawlee's call; every other URL must not match.
var globURLs = []string{
	"https://crawlee.dev/",
	"https://crawlee.dev/docs",
	"https://crawlee.dev/docs/",
	"https://crawlee.dev/docs/quick-start",
	"https://crawlee.dev/js/docs/x",
	"https://crawlee.dev/a/b.html",
	"http://crawlee.dev/docs/x",
	"https://sub.example.com/a",
	"https://example.com/docs/a/b",
	"https://example.com/api",
	"https://example.com/p/123",
	"https://example.com/p/12a",
	"https://example.com/p/a.pdf",
	"https://example.com/p/a.html",
	"https://example.com/ab/x",
	"https://example.com/x",
	"https://example.com/abc",
	"https://example.com/.hidden",
	"https://example.com/pages/1",
	"https://example.com/page/1",
	"https://example.com/x/item/3",
	"https://example.com/admin/x",
	"https://example.com/a.html",
	"https://example.com/a.PHP",
	"https://example.com/*",
	"https://example.com/page2",
	"https://example.com/page4",
	"https://example.com/search?q=1",
	"https://example.com/admin",
	"https://example.com/admin/",
	"https://example.com/user/",
	"https://example.com/user",
	"https://example.com/",
	"https://EXAMPLE.com/DOCS/a",
}

var globURLCases = []struct {
	glob  string
	match []string
}{
	{"http?(s)://crawlee.dev/*/*", []string{"https://crawlee.dev/docs/quick-start", "https://crawlee.dev/a/b.html", "http://crawlee.dev/docs/x"}},
	{"https://crawlee.dev/**", []string{"https://crawlee.dev/", "https://crawlee.dev/docs", "https://crawlee.dev/docs/", "https://crawlee.dev/docs/quick-start", "https://crawlee.dev/js/docs/x", "https://crawlee.dev/a/b.html"}},
	{"https://crawlee.dev/**/*.html", []string{"https://crawlee.dev/a/b.html"}},
	{"https://*.example.com/**", []string{"https://sub.example.com/a"}},
	{"https://example.com/{docs,api}/**", []string{"https://example.com/docs/a/b", "https://EXAMPLE.com/DOCS/a"}},
	{"https://example.com/p/+([0-9])", []string{"https://example.com/p/123"}},
	{"https://example.com/p/!(*.pdf)", []string{"https://example.com/p/123", "https://example.com/p/12a", "https://example.com/p/a.html"}},
	{"https://example.com/*(a|b)/x", []string{"https://example.com/ab/x"}},
	{"https://example.com/@(js|python)/docs/**", []string{}},
	{"https://example.com/[a-c]*", []string{"https://example.com/api", "https://example.com/abc", "https://example.com/a.html", "https://example.com/a.PHP", "https://example.com/admin", "https://example.com/admin/"}},
	{"https://example.com/[!a-c]*", []string{"https://example.com/x", "https://example.com/*", "https://example.com/page2", "https://example.com/page4", "https://example.com/search?q=1", "https://example.com/user/", "https://example.com/user"}},
	{"https://example.com/page?(s)/*", []string{"https://example.com/pages/1", "https://example.com/page/1"}},
	{"https://example.com/**/item/*", []string{"https://example.com/x/item/3"}},
	{"!https://example.com/admin/**", []string{"https://crawlee.dev/", "https://crawlee.dev/docs", "https://crawlee.dev/docs/", "https://crawlee.dev/docs/quick-start", "https://crawlee.dev/js/docs/x", "https://crawlee.dev/a/b.html", "http://crawlee.dev/docs/x", "https://sub.example.com/a", "https://example.com/docs/a/b", "https://example.com/api", "https://example.com/p/123", "https://example.com/p/12a", "https://example.com/p/a.pdf", "https://example.com/p/a.html", "https://example.com/ab/x", "https://example.com/x", "https://example.com/abc", "https://example.com/.hidden", "https://example.com/pages/1", "https://example.com/page/1", "https://example.com/x/item/3", "https://example.com/a.html", "https://example.com/a.PHP", "https://example.com/*", "https://example.com/page2", "https://example.com/page4", "https://example.com/search?q=1", "https://example.com/admin", "https://example.com/user/", "https://example.com/user", "https://example.com/", "https://EXAMPLE.com/DOCS/a"}},
	{"https://example.com/*.{html,php}", []string{"https://example.com/a.html", "https://example.com/a.PHP"}},
	{"https://example.com/\\*", []string{"https://example.com/*"}},
	{"https://example.com/page{1..3}", []string{"https://example.com/page2"}},
	{"http*://**", []string{"https://crawlee.dev/", "https://crawlee.dev/docs", "https://crawlee.dev/docs/", "https://crawlee.dev/docs/quick-start", "https://crawlee.dev/js/docs/x", "https://crawlee.dev/a/b.html", "http://crawlee.dev/docs/x", "https://sub.example.com/a", "https://example.com/docs/a/b", "https://example.com/api", "https://example.com/p/123", "https://example.com/p/12a", "https://example.com/p/a.pdf", "https://example.com/p/a.html", "https://example.com/ab/x", "https://example.com/x", "https://example.com/abc", "https://example.com/pages/1", "https://example.com/page/1", "https://example.com/x/item/3", "https://example.com/admin/x", "https://example.com/a.html", "https://example.com/a.PHP", "https://example.com/*", "https://example.com/page2", "https://example.com/page4", "https://example.com/search?q=1", "https://example.com/admin", "https://example.com/admin/", "https://example.com/user/", "https://example.com/user", "https://example.com/", "https://EXAMPLE.com/DOCS/a"}},
	{"https://example.com/*?*", []string{"https://example.com/api", "https://example.com/x", "https://example.com/abc", "https://example.com/a.html", "https://example.com/a.PHP", "https://example.com/*", "https://example.com/page2", "https://example.com/page4", "https://example.com/search?q=1", "https://example.com/admin", "https://example.com/admin/", "https://example.com/user/", "https://example.com/user"}},
	{"https://example.com/!(admin)/**", []string{"https://example.com/docs/a/b", "https://example.com/p/123", "https://example.com/p/12a", "https://example.com/p/a.pdf", "https://example.com/p/a.html", "https://example.com/ab/x", "https://example.com/pages/1", "https://example.com/page/1", "https://example.com/x/item/3", "https://example.com/user/", "https://EXAMPLE.com/DOCS/a"}},
	{"https://example.com/*/", []string{"https://example.com/admin/", "https://example.com/user/"}},
	{"https://example.com/**/", []string{"https://example.com/admin/", "https://example.com/user/", "https://example.com/"}},
}

// TestGlobURLs checks whole-URL globs (Crawlee's crawl_some_links "http?(s)://crawlee.dev/*/*"
// among them) against minimatch's answers.
func TestGlobURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range globURLCases {
		g, err := CompileGlob(tc.glob)
		if err != nil {
			t.Fatalf("%s: %v", tc.glob, err)
		}
		for _, u := range globURLs {
			if got, want := g.MatchString(u), slices.Contains(tc.match, u); got != want {
				t.Errorf("%s on %s: %v, minimatch says %v", tc.glob, u, got, want)
			}
		}
	}
}

// TestGlobRedos ports minimatch's test/redos.js (a pattern of 15,361 backslashes inside
// "!(...)" or "[!(" matches as a literal, one past 64 KiB is refused) and checks that stars
// on a long segment are matched without exponential backtracking.
func TestGlobRedos(t *testing.T) {
	t.Parallel()
	bs := strings.Repeat("\\", 15*1024+1)
	if g, err := compileGlob("!("+bs+"A)", false); err != nil || !g.MatchString("A") {
		t.Errorf(`"!(\\...A)" does not match "A" (%v)`, err)
	}
	if g, err := compileGlob("[!("+bs+"A", false); err != nil || g.MatchString("A") {
		t.Errorf(`"[!(\\...A" matches "A" (%v)`, err)
	}
	if _, err := compileGlob("!("+strings.Repeat("\\", 64*1024+1)+"A)", false); err == nil {
		t.Error("a pattern past 64 KiB compiled")
	}
	long := "https://example.com/" + strings.Repeat("a", 5000)
	for _, p := range []string{"https://example.com/*a*a*a*a*a*a*a*b", "https://example.com/?*?*?*?*?*?*b"} {
		g, _ := CompileGlob(p)
		if g.MatchString(long) {
			t.Errorf("%s matches %d a's", p, 5000)
		}
		if !g.MatchString(long + "b") {
			t.Errorf("%s does not match a's and a b", p)
		}
	}
}
