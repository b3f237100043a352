package robotstxt_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/robotstxt"
)

// TestRFC9309 checks the examples of RFC 9309 and the behaviours issue 12 names.
func TestRFC9309(t *testing.T) {
	t.Parallel()
	// RFC 9309 section 5.1, the example robots.txt.
	const example = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`
	for _, tc := range []struct {
		name, robots, agent, url string
		allowed                  bool
	}{
		{"5.1 foobot page", example, "foobot", "/example/page.html", true},
		{"5.1 foobot gif", example, "foobot", "/example/allowed.gif", true},
		{"5.1 foobot other", example, "foobot", "/other", false},
		{"5.1 barbot page", example, "barbot", "/example/page.html", false},
		{"5.1 bazbot page", example, "bazbot", "/example/page.html", false},
		{"5.1 bazbot other", example, "bazbot", "/example/other.gif", true},
		{"5.1 quxbot", example, "quxbot", "/example/page.html", true},
		{"5.1 any gif", example, "otherbot", "/a/b.gif", false},
		{"5.1 any gif with query", example, "otherbot", "/a/b.gif?x", true},
		{"5.1 any example", example, "otherbot", "/example/x", false},
		{"5.1 any publications", example, "otherbot", "/publications/x", true},
		// 5.2: the longest match wins.
		{"5.2 longest", "User-agent: *\nallow: /example/page/\ndisallow: /example/page/disallowed.gif", "x", "/example/page/disallowed.gif", false},
		// 2.2.2: percent-encoding.
		{"2.2.2 query", "User-agent: *\nDisallow: /foo/bar?baz=quz", "x", "/foo/bar?baz=quz", false},
		{"2.2.2 url in query", "User-agent: *\nDisallow: /foo/bar?baz=https://foo.bar", "x", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", false},
		{"2.2.2 utf-8", "User-agent: *\nDisallow: /foo/bar/ツ", "x", "/foo/bar/%E3%83%84", false},
		{"2.2.2 encoded", "User-agent: *\nDisallow: /foo/bar/%E3%83%84", "x", "/foo/bar/%E3%83%84", false},
		{"2.2.2 unreserved", "User-agent: *\nDisallow: /foo/bar/%62%61%7A", "x", "/foo/bar/baz", false},
		// 2.2.3: special characters.
		{"2.2.3 comment", "User-agent: *\nDisallow: / # comment in line\nallow: /x", "x", "/y", false},
		{"2.2.3 dollar", "User-agent: *\nDisallow: /this/path/exactly$", "x", "/this/path/exactly", false},
		{"2.2.3 dollar, longer path", "User-agent: *\nDisallow: /this/path/exactly$", "x", "/this/path/exactly/not", true},
		{"2.2.3 star", "User-agent: *\nDisallow: /this/*/exactly", "x", "/this/a/b/exactly", false},
		{"2.2.3 literal star", "User-agent: *\nDisallow: /path/file-with-a-%2A.html", "x", "/path/file-with-a-*.html", false},
		{"2.2.3 literal star, other char", "User-agent: *\nDisallow: /path/file-with-a-%2A.html", "x", "/path/file-with-a-b.html", true},
		{"2.2.3 literal dollar", "User-agent: *\nDisallow: /path/foo-%24", "x", "/path/foo-$", false},

		// Issue 12's list.
		{"rules before the first user-agent", "Disallow: /\nUser-agent: *\nDisallow: /private", "x", "/public", true},
		{"rules before the first user-agent, rest applies", "Disallow: /\nUser-agent: *\nDisallow: /private", "x", "/private/1", false},
		{"stray text before the first user-agent", "<html>oops</html>\nUser-agent: *\nDisallow: /private", "x", "/private/1", false},
		{"Dissallow", "User-agent: *\nDissallow: /private", "x", "/private/1", false},
		{"Disallow: * without slash", "User-agent: *\nDisallow: *", "x", "/anything", false},
		{"comment glued to the path", "User-agent: *\nDisallow: /private#secret", "x", "/private/1", false},
		{"byte order mark", "\uFEFFUser-agent: *\nDisallow: /private", "x", "/private/1", false},
		{"unknown lines", "User-agent: *\nNoindex: /x\nthis is not a directive\nDisallow: /private", "x", "/private/1", false},
		{"%3c = %3C", "User-agent: *\nDisallow: /a%3cb", "x", "/a%3Cb", false},
		{"%7E = ~", "User-agent: *\nDisallow: /%7Ejoe", "x", "/~joe/x", false},
		{"~ = %7e", "User-agent: *\nDisallow: /~joe", "x", "/%7ejoe/x", false},
		{"raw UTF-8 rule, encoded request", "User-agent: *\nDisallow: /wiki/Käyttäjä:", "x", "/wiki/K%C3%A4ytt%C3%A4j%C3%A4:Foo", false},
		{"lower-case escapes in the request", "User-agent: *\nDisallow: /wiki/Käyttäjä:", "x", "/wiki/K%c3%a4ytt%c3%a4j%c3%a4:Foo", false},
		{"%2F is not /", "User-agent: *\nDisallow: /a/b", "x", "/a%2Fb", true},
		{"$ inside a pattern is literal", "User-agent: *\nDisallow: /a$b", "x", "/a$b/c", false},
		{"tie: Allow wins", "User-agent: *\nDisallow: /a\nAllow: /a", "x", "/a", true},
		{"wildcards count as written", "User-agent: *\nAllow: /a*\nDisallow: /abc", "x", "/abcd", false},
		{"wildcards count as written, longer", "User-agent: *\nAllow: /a***\nDisallow: /abc", "x", "/abcd", true},
		{"user agent case-insensitive", "User-agent: MYBOT\nDisallow: /", "mybot", "/x", false},
		{"compatible User-Agent", "User-agent: MyBot\nDisallow: /\n\nUser-agent: *\nAllow: /", "Mozilla/5.0 (compatible; MyBot/1.0)", "/x", false},
		{"another bot's group", "User-agent: MyBot\nDisallow: /", "jscrawl", "/x", true},
	} {
		if got := robotstxt.Parse([]byte(tc.robots)).Allowed(tc.agent, tc.url); got != tc.allowed {
			t.Errorf("%s: Allowed(%q, %q) = %v, want %v", tc.name, tc.agent, tc.url, got, tc.allowed)
		}
	}
}

func TestAllowAllDisallowAll(t *testing.T) {
	t.Parallel()
	if !robotstxt.AllowAll().Allowed("x", "/a") {
		t.Error("AllowAll disallows")
	}
	if robotstxt.DisallowAll().Allowed("x", "/a") {
		t.Error("DisallowAll allows")
	}
	var nilRobots *robotstxt.Robots
	if !nilRobots.Allowed("x", "/a") || nilRobots.Group("x") != nil {
		t.Error("nil Robots is not allow-all")
	}
}

func TestRequestRateDelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate robotstxt.RequestRate
		want time.Duration
	}{
		{robotstxt.RequestRate{Requests: 1, Seconds: 10}, 10 * time.Second},
		{robotstxt.RequestRate{Requests: 100, Seconds: 900}, 9 * time.Second},
		{robotstxt.RequestRate{Requests: 4, Seconds: 1}, 250 * time.Millisecond},
		{robotstxt.RequestRate{Requests: 0, Seconds: 10}, 0},
		{robotstxt.RequestRate{Requests: 1, Seconds: 0}, 0},
	} {
		if got := tc.rate.Delay(); got != tc.want {
			t.Errorf("%+v.Delay() = %v, want %v", tc.rate, got, tc.want)
		}
	}
}

// TestLongPatterns: a pattern full of wildcards against a long path stays quick to match
// (no backtracking blow-up); the test only has to finish.
func TestLongPatterns(t *testing.T) {
	t.Parallel()
	robots := "User-agent: *\nDisallow: /" + strings.Repeat("*a", 500) + "b\n"
	path := "/" + strings.Repeat("a", 5000)
	if !robotstxt.Parse([]byte(robots)).Allowed("x", path) {
		t.Error("disallowed")
	}
}

// FuzzParse: parsing and matching any input neither panics nor hangs. (protego's
// tests/test_on_fetched_robotstxt.py parses a thousand real robots.txt files for the same
// purpose; the seeds stand in for them.)
func FuzzParse(f *testing.F) {
	for _, c := range protegoCases {
		f.Add(c.robots, "/a?b=c")
	}
	f.Add("User-agent: *\nDisallow: /%\nAllow: /%Z%\nRequest-rate: 1/0\nCrawl-delay: -1", "/%%%")
	f.Fuzz(func(t *testing.T, robots, path string) {
		r := robotstxt.Parse([]byte(robots))
		r.Allowed("jscrawl", path)
		r.Group("Mozilla/5.0 (compatible; MyBot/1.0)").CrawlDelay()
	})
}
