package robotstxt_test

// The cases of Scrapy's robots.txt parser, protego (github.com/scrapy/protego at 81f1b35,
// tests/test_protego.py and tests/test_on_google_spec.py, the latter derived from Google's
// robots.txt specification), ported as tables. Each case names its source test. The cases
// jscrawl does not port, and why, are listed in docs/from-scrapy.md.

import (
	"fmt"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/robotstxt"
)

// fetch is one can_fetch assertion: whether agent may fetch url.
type fetch struct {
	agent   string
	url     string
	allowed bool
}

// protegoCase is a robots.txt and the assertions made on it.
type protegoCase struct {
	source string // protego's file::class::test
	robots string
	checks []fetch
}

const site = "https://www.site.local"

var protegoCases = []protegoCase{
	// tests/test_protego.py::TestProtego::test_allowed
	{"test_protego.py::test_allowed#1", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10", []fetch{
		{"*", site + "/allowed", true},
		{"*", site + "/disallowed", false},
	}},
	{"test_protego.py::test_allowed#2", "User-agent: * \nDisallow: /d \nCrawl-delay: 10", []fetch{
		{"*", site + "/abc/d", true},
		{"*", site + "/disallowed", false},
	}},
	// tests/test_protego.py::TestProtego::test_malformed_disallow
	{"test_protego.py::test_malformed_disallow", "User-agent: * \nDisallow: /one \nDissallow: /two \nDissalow: /three \nDisalow: /four \nDiasllow: /five \nDisallaw: /six \n", []fetch{
		{"*", site + "/one", false},
		{"*", site + "/two", false},
		{"*", site + "/three", false},
		{"*", site + "/four", false},
		{"*", site + "/five", false},
		{"*", site + "/six", false},
	}},
	// tests/test_protego.py::TestProtego::test_length_based_precedence
	{"test_protego.py::test_length_based_precedence#1", "User-agent: * \nDisallow: / \nAllow: /page", []fetch{
		{"*", site + "/page", true},
		{"*", site + "/elsewhere", false},
	}},
	{"test_protego.py::test_length_based_precedence#2", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", []fetch{
		{"FooBot", "http://foo.bar/x/page.html", false},
	}},
	{"test_protego.py::test_length_based_precedence#3", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", []fetch{
		{"FooBot", "http://foo.bar/x/page.html", true},
		{"FooBot", "http://foo.bar/x/", false},
	}},
	{"test_protego.py::test_length_based_precedence#4", "user-agent: FooBot\ndisallow: \nallow: \n", []fetch{
		{"FooBot", "http://foo.bar/x/page.html", true},
	}},
	{"test_protego.py::test_length_based_precedence#5", "user-agent: FooBot\ndisallow: /\nallow: /\n", []fetch{
		{"FooBot", "http://foo.bar/x/page.html", true},
	}},
	{"test_protego.py::test_length_based_precedence#6", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", []fetch{
		{"FooBot", "http://foo.bar/x/", true},
		{"FooBot", "http://foo.bar/x", false},
	}},
	{"test_protego.py::test_length_based_precedence#7", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", []fetch{
		{"FooBot", "http://foo.bar/x/page.html", true},
	}},
	{"test_protego.py::test_length_based_precedence#8", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", []fetch{
		{"FooBot", "http://foo.bar/page", true},
		{"FooBot", "http://foo.bar/page.html", false},
	}},
	{"test_protego.py::test_length_based_precedence#9", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", []fetch{
		{"FooBot", "http://foo.bar/x/page.html", true},
		{"FooBot", "http://foo.bar/x/y.html", false},
	}},
	{"test_protego.py::test_length_based_precedence#10", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", []fetch{
		{"FooBot", "http://foo.bar/x/page", true},
		{"FooBot", "http://foo.bar/y/page", false},
	}},
	{"test_protego.py::test_length_based_precedence#11", "user-agent: FooBot\nallow: /p\ndisallow: /\n", []fetch{
		{"FooBot", "http://example.com/page", true},
	}},
	{"test_protego.py::test_length_based_precedence#12", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", []fetch{
		{"FooBot", "http://example.com/folder/page", true},
	}},
	{"test_protego.py::test_length_based_precedence#13", "user-agent: FooBot\ndisallow: /folder\nallow: /folder\n", []fetch{
		{"FooBot", "http://example.com/folder/page", true},
	}},
	{"test_protego.py::test_length_based_precedence#14", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", []fetch{
		{"FooBot", "http://example.com/page.htm", false},
	}},
	{"test_protego.py::test_length_based_precedence#15", "user-agent: FooBot\nallow: /$\ndisallow: /\n", []fetch{
		{"FooBot", "http://example.com/", true},
		{"FooBot", "http://example.com/page.html", false},
	}},
	// tests/test_protego.py::TestProtego::test_escaped_url
	{"test_protego.py::test_escaped_url#1", "User-agent: * \nDisallow: / \nAllow: /a%3cd.html", []fetch{
		{"*", site + "/a<d.html", true},
		{"*", site + "/a%3cd.html", true},
	}},
	{"test_protego.py::test_escaped_url#2", "User-agent: * \nDisallow: / \nAllow: /a%3c*", []fetch{
		{"*", site + "/a<d.html", true},
		{"*", site + "/a%3cd.html", true},
	}},
	// tests/test_protego.py::TestProtego::test_unescaped_url
	{"test_protego.py::test_unescaped_url#1", "User-agent: * \nDisallow: / \nAllow: /a<d.html", []fetch{
		{"*", site + "/a<d.html", true},
		{"*", site + "/a%3cd.html", true},
	}},
	{"test_protego.py::test_unescaped_url#2", "User-agent: * \nDisallow: / \nAllow: /a<*", []fetch{
		{"*", site + "/a<d.html", true},
		{"*", site + "/a%3cd.html", true},
	}},
	// tests/test_protego.py::TestProtego::test_url_parts
	{"test_protego.py::test_url_parts#1", "User-agent: * \nDisallow: /path;params?query \n", []fetch{
		{"*", "http://userinfo@exmaple.com:10/path;params?query#fragment", false},
	}},
	{"test_protego.py::test_url_parts#2", "User-agent: * \nDisallow: /? \n", []fetch{
		{"*", "/?query", false},
		{"*", "/", true},
	}},
	{"test_protego.py::test_url_parts#3", "User-agent: * \nDisallow: /; \n", []fetch{
		{"*", "/;params", false},
		{"*", "/", true},
	}},
	// tests/test_protego.py::TestProtego::test_empty_response
	{"test_protego.py::test_empty_response", "", []fetch{
		{"*", "https://site.local/", true},
		{"chrome", "https://site.local/", true},
		{"*", "https://site.local/index.html", true},
		{"*", "https://site.local/disallowed", true},
	}},
	// tests/test_protego.py::TestProtego::test_allowed_wildcards
	{"test_protego.py::test_allowed_wildcards#1", `User-agent: first
                     Disallow: /disallowed/*/end$
                     Disallow: /protego*work

                     User-agent: second
                     Allow: /*allowed
                     Disallow: /
                `, []fetch{
		{"first", site + "/disallowed", true},
		{"first", site + "/disallowed/xyz/end", false},
		{"first", site + "/disallowed/abc/end", false},
		{"first", site + "/disallowed/xyz/endinglater", true},
		{"first", site + "/protegoworks", false},
		{"first", site + "/protego_works", false},
		{"first", site + "/protego/works", false},
		{"first", site + "/protego_does_work", false},
		{"first", site + "/rotego_does_work", true},
		{"first", site + "/protego_does_wor", true},
		{"second", site + "/allowed", true},
		{"second", site + "/is_still_allowed", true},
		{"second", site + "/is_allowed_too", true},
	}},
	{"test_protego.py::test_allowed_wildcards#2", `
        # robots.txt for http://www.example.com/

        User-agent: Rule1TestBot
        Disallow:  /foo*

        User-agent: Rule2TestBot
        Disallow:  /foo*/bar.html

        # Disallows anything containing the letter m!
        User-agent: Rule3TestBot
        Disallow:  *m

        User-agent: Rule4TestBot
        Allow:  /foo/bar.html
        Disallow: *

        User-agent: Rule5TestBot
        Disallow:  /foo*/*bar.html

        User-agent: Rule6TestBot
        Allow:  /foo$
        Disallow:  /foo

        # Exercise excessive wildcards
        # https://bitbucket.org/philip_semanchuk/robotexclusionrulesparser/issues/1
        User-agent: Rule7TestBot
        Allow: *****************/****.js

        `, []fetch{
		{"Rule1TestBot", "/fo.html", true},
		{"Rule1TestBot", "/foo.html", false},
		{"Rule1TestBot", "/food", false},
		{"Rule1TestBot", "/foo/bar.html", false},

		{"Rule2TestBot", "/fo.html", true},
		{"Rule2TestBot", "/foo/bar.html", false},
		{"Rule2TestBot", "/food/bar.html", false},
		{"Rule2TestBot", "/foo/a/b/c/x/y/z/bar.html", false},
		{"Rule2TestBot", "/food/xyz.html", true},

		{"Rule3TestBot", "/foo.htm", false},
		{"Rule3TestBot", "/foo.html", false},
		{"Rule3TestBot", "/foo", true},
		{"Rule3TestBot", "/foom", false},
		{"Rule3TestBot", "/moo", false},
		{"Rule3TestBot", "/foo/bar.html", false},
		{"Rule3TestBot", "/foo/bar.txt", true},

		{"Rule4TestBot", "/fo.html", false},
		{"Rule4TestBot", "/foo.html", false},
		{"Rule4TestBot", "/foo", false},
		{"Rule4TestBot", "/foo/bar.html", true},
		{"Rule4TestBot", "/foo/bar.txt", false},

		{"Rule5TestBot", "/foo/bar.html", false},
		{"Rule5TestBot", "/food/rebar.html", false},
		{"Rule5TestBot", "/food/rebarf.html", true},
		{"Rule5TestBot", "/foo/a/b/c/rebar.html", false},
		{"Rule5TestBot", "/foo/a/b/c/bar.html", false},

		{"Rule6TestBot", "/foo", true},
		{"Rule6TestBot", "/foo/", false},
		{"Rule6TestBot", "/foo/bar.html", false},
		{"Rule6TestBot", "/fooey", false},

		{"Rule7TestBot", "xyz/foo.js", true},
		{"Rule7TestBot", "/inlife/daily/fashion-20160727/", true},
	}},
	{"test_protego.py::test_allowed_wildcards#3", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar/quz", false},
		{"FooBot", "http://foo.bar/foo/quz", true},
		{"FooBot", "http://foo.bar/foo//quz", true},
		{"FooBot", "http://foo.bar/foo/bax/quz", true},
	}},
	{"test_protego.py::test_allowed_wildcards#4", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar", false},
		{"FooBot", "http://foo.bar/foo/bar/qux", true},
		{"FooBot", "http://foo.bar/foo/bar/", true},
		{"FooBot", "http://foo.bar/foo/bar/baz", true},
	}},
	// tests/test_protego.py::TestProtego::test_unicode_url_and_useragent
	{"test_protego.py::test_unicode_url_and_useragent#1", `
        User-Agent: *
        Disallow: /admin/
        Disallow: /static/
        # taken from https://en.wikipedia.org/robots.txt
        Disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:
        Disallow: /wiki/Käyttäjä:
        Disallow: /wiki/Keskustelu_käyttäjästä:
        User-Agent: UnicödeBöt
        Disallow: /some/randome/page.html`, []fetch{
		{"*", "https://site.local/", true},
		{"*", "https://site.local/admin/", false},
		{"*", "https://site.local/static/", false},
		{"UnicödeBöt", "https://site.local/admin/", true},
		{"*", "https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", false},
		{"*", "https://site.local/wiki/Käyttäjä:", false},
		{"*", "https://site.local/wiki/Keskustelu_k%C3%A4ytt%C3%A4j%C3%A4st%C3%A4:", false},
		{"*", "https://site.local/wiki/Keskustelu_käyttäjästä:", false},
		{"*", "https://site.local/some/randome/page.html", true},
		{"UnicödeBöt", "https://site.local/some/randome/page.html", false},
	}},
	{"test_protego.py::test_unicode_url_and_useragent#2", `
        # robots.txt for http://www.example.com/

        User-Agent: Jävla-Foobot
        Disallow: /

        User-Agent: Львів-bot
        Disallow: /totalitarianism/

        `, []fetch{
		{"jävla-fanbot", "/foo/bar.html", true},
		{"jävla-foobot", "/foo/bar.html", false},
		{"foobot", "/", true},
		{"Mozilla/5.0 (compatible; Львів-bot/1.1)", "/", true},
		{"Mozilla/5.0 (compatible; Львів-bot/1.1)", "/totalitarianism/foo.htm", false},
	}},
	// tests/test_protego.py::TestProtego::test_no_leading_user_agent
	{"test_protego.py::test_no_leading_user_agent", `
        Disallow: /withoutUA
        Allow: /withoutUA/exception
        Crawl-delay: 5.2
        User-Agent: testbot
        Disallow: /withUA
        `, []fetch{
		{"mybot", "https://site.local/withoutUA", true},
		{"testbot", "https://site.local/withoutUA", true},
		{"*", "https://site.local/withoutUA", true},
		{"mybot", "https://site.local/withUA", true},
		{"testbot", "https://site.local/withUA", false},
	}},
	// tests/test_protego.py::TestProtego::test_default_user_agent
	{"test_protego.py::test_default_user_agent", `
        User-Agent: robot
        Disallow: /ro-bot

        User-Agent: *
        Disallow: /default-UA

        User-Agent: testbot
        Disallow: /testbot
        `, []fetch{
		{"mybot", "https://site.local/default-UA", false},
		{"testbot", "https://site.local/default-UA", true},
		{"robot", "https://site.local/default-UA", true},
	}},
	// tests/test_protego.py::TestProtego::test_user_agent_case_insensitivity
	{"test_protego.py::test_user_agent_case_insensitivity", `
        User-Agent: testbot
        Disallow: /testbot

        User-Agent: *
        Disallow: /default-UA
        `, []fetch{
		{"TESTbot", "https://site.local/testbot", false},
		{"TESTbot", "https://site.local/default-UA", true},
		{"testbot", "https://site.local/testbot", false},
		{"testbot", "https://site.local/default-UA", true},
		{"tEStbOt", "https://site.local/testbot", false},
		{"tEStbOt", "https://site.local/default-UA", true},
	}},
	// tests/test_protego.py::TestProtego::test_user_agent_grouping
	{"test_protego.py::test_user_agent_grouping#1", `
        User-Agent: one
        User-Agent: two
        Disallow: /success
        User-Agent: *
        Disallow: /failure
        `, []fetch{
		{"one", "https://site.local/success", false},
		{"two", "https://site.local/success", false},
		{"one", "https://site.local/failure", true},
		{"two", "https://site.local/failure", true},
	}},
	{"test_protego.py::test_user_agent_grouping#2", "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n", []fetch{
		{"FooBot", "http://foo.bar/x/b", true},
		{"FooBot", "http://foo.bar/z/d", true},
		{"FooBot", "http://foo.bar/y/c", false},
		{"BarBot", "http://foo.bar/y/c", true},
		{"BarBot", "http://foo.bar/w/a", true},
		{"BarBot", "http://foo.bar/z/d", false},
		{"BazBot", "http://foo.bar/z/d", true},
		{"FooBot", "http://foo.bar/foo/bar/", false},
		{"BarBot", "http://foo.bar/foo/bar/", false},
		{"BazBot", "http://foo.bar/foo/bar/", false},
	}},
	// tests/test_protego.py::TestProtego::test_comments
	{"test_protego.py::test_comments#1", `
        # comment 1
        User-Agent: one # comment 2
        # comment 3
        User-Agent: two
        Disallow: /one-two-bot
        # Disallow: /commented
        # comment 4
        User-Agent: *
        Disallow: /default-ua
        `, []fetch{
		{"one", "https://site.local/one-two-bot", false},
		{"two", "https://site.local/one-two-bot", false},
		{"one", "https://site.local/commented", true},
		{"two", "https://site.local/commented", true},
		{"one", "https://site.local/default-ua", true},
		{"two", "https://site.local/default-ua", true},
	}},
	{"test_protego.py::test_comments#2", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar", true},
		{"FooBot", "http://foo.bar/foo/quz", false},
	}},
	// tests/test_protego.py::TestProtego::test_skip_unknown_directives
	{"test_protego.py::test_skip_unknown_directives", `
        User-Agent: one
        Disallow: /bot-one
        Harry: Potter
        User-Agent: two
        Disallow: /bot-two
        `, []fetch{
		{"one", "https://site.local/bot-one", false},
		{"one", "https://site.local/bot-two", true},
		{"two", "https://site.local/bot-two", false},
		{"two", "https://site.local/bot-one", true},
	}},
	// tests/test_protego.py::TestProtego::test_skip_malformed_line
	{"test_protego.py::test_skip_malformed_line", `
        User-Agent: one
        Disallow: /bot-one
        Harry Potter
        User-Agent: two
        Disallow: /bot-two
        `, []fetch{
		{"one", "https://site.local/bot-one", false},
		{"one", "https://site.local/bot-two", true},
		{"two", "https://site.local/bot-two", false},
		{"two", "https://site.local/bot-one", true},
	}},
	// tests/test_protego.py::TestProtego::test_empty_disallow_allow_directives
	{"test_protego.py::test_empty_disallow_allow_directives", `
        User-Agent: one
        Disallow:

        User-Agent: two
        Allow:
        `, []fetch{
		{"one", "https://site.local/path1", true},
		{"one", "https://site.local/path2", true},
		{"two", "https://site.local/path1", true},
		{"two", "https://site.local/path2", true},
	}},
	// tests/test_protego.py::TestProtego::test_empty_record_group
	{"test_protego.py::test_empty_record_group", `
        User-Agent: harrybot
        Disallow: /
        User-Agent: testbot
        `, []fetch{
		{"testbot", "https://site.local/path1", true},
		{"testbot", "https://site.local/path2", true},
	}},
	// tests/test_protego.py::TestProtego::test_1994rfc_example
	{"test_protego.py::test_1994rfc_example", `
        # robots.txt for http://www.example.com/
        User-agent: *
        Disallow: /cyberworld/map/ # This is an infinite virtual URL space
        Disallow: /tmp/ # these will soon disappear
        Disallow: /foo.html
        `, []fetch{
		{"CrunchyFrogBot", "/", true},
		{"CrunchyFrogBot", "/foo.html", false},
		{"CrunchyFrogBot", "/foo.htm", true},
		{"CrunchyFrogBot", "/foo.shtml", true},
		{"CrunchyFrogBot", "/foo.htmlx", false},
		{"CrunchyFrogBot", "/cyberworld/index.html", true},
		{"CrunchyFrogBot", "/tmp/foo.html", false},
		{"CrunchyFrogBot", "http://example.com/foo.html", false},
		{"CrunchyFrogBot", "http://www.example.com/foo.html", false},
		{"CrunchyFrogBot", "http://www.example.org/foo.html", false},
		{"CrunchyFrogBot", "https://www.example.org/foo.html", false},
		{"CrunchyFrogBot", "ftp://example.net/foo.html", false},
	}},
	// tests/test_protego.py::TestProtego::test_1996rfc_examples
	{"test_protego.py::test_1996rfc_examples#1", `
        # robots.txt for http://www.example.com/

        User-agent: 1bot
        Allow: /tmp
        Disallow: /

        User-agent: 2bot
        Allow: /tmp/
        Disallow: /

        User-agent: 3bot
        Allow: /a%3cd.html
        Disallow: /

        User-agent: 4bot
        Allow: /a%3Cd.html
        Disallow: /

        User-agent: 5bot
        Allow: /a%2fb.html
        Disallow: /

        User-agent: 6bot
        Allow: /a/b.html
        Disallow: /

        User-agent: 7bot
        Allow: /%7ejoe/index.html
        Disallow: /

        User-agent: 8bot
        Allow: /~joe/index.html
        Disallow: /
        `, []fetch{
		{"1bot", "/tmp.html", true},
		{"1bot", "/tmp", true},
		{"1bot", "/tmp/a.html", true},
		{"2bot", "/tmp", false},
		{"2bot", "/tmp/", true},
		{"2bot", "/tmp/a.html", true},
		{"3bot", "/a%3cd.html", true},
		{"3bot", "/a%3Cd.html", true},
		{"4bot", "/a%3cd.html", true},
		{"4bot", "/a%3Cd.html", true},
		{"5bot", "/a%2fb.html", true},
		{"5bot", "/a/b.html", false},
		{"6bot", "/a%2fb.html", false},
		{"6bot", "/a/b.html", true},
		{"7bot", "/~joe/index.html", true},
		{"8bot", "/%7Ejoe/index.html", true},
	}},
	{"test_protego.py::test_1996rfc_examples#2", `
        # /robots.txt for http://www.example.org/
        # comments to webmaster@example.org

        User-agent: unhipbot
        Disallow: /

        User-agent: webcrawler
        User-agent: excite
        Disallow:

        User-agent: *
        Disallow: /org/plans.html
        Allow: /org/
        Allow: /serv
        Allow: /~mak
        Disallow: /
        `, rfc1996Checks()},
	// tests/test_protego.py::TestProtego::test_implicit_allow
	{"test_protego.py::test_implicit_allow", `
        # robots.txt for http://www.example.com/

        User-agent: *
        Disallow:    /

        User-agent: foobot
        Disallow:
        `, []fetch{
		{"foobot", "/", true},
		{"foobot", "/bar.html", true},
		{"SomeOtherBot", "/", false},
		{"SomeOtherBot", "/blahblahblah", false},
	}},
	// tests/test_protego.py::TestProtego::test_grouping_unknown_keys
	{"test_protego.py::test_grouping_unknown_keys", `
        User-agent: abc
        Disallow: /content/2/
        User-agent: *
        Invalid_directive: /gb.html
        Invalid_directive: /content/2/
        User-agent: ia_archiver
        Disallow: /
        `, []fetch{
		{"agent", "/foo", true},
		{"agent", "/foobar", true},
		{"agent", "/content/2", true},
		{"ia_archiver", "/bar", false},
		{"ia_archiver", "/foo", false},
		{"ia_archiver", "/foobar", false},
		{"ia_archiver", "/content/2", false},
	}},
	// tests/test_protego.py::TestProtego::test_generosity
	{"test_protego.py::test_generosity#1", "\n        Foo: Foobot\n        Bar: /", []fetch{
		{"FooBot", "http://foo.bar/x/y", true},
	}},
	{"test_protego.py::test_generosity#2", `
        user-agent foobot
        disallow /
        user agent harry potter
        disallow /horcrux
        request rate 1/10s 1820-1940
        `, []fetch{
		{"FooBot", "http://foo.bar/x/y", false},
		{"harry potter", "http://foo.bar/horcrux", false},
		{"harry potter", "http://foo.bar/abc", true},
	}},
	{"test_protego.py::test_generosity#3", `
        user-agent: foo*bot
        disallow: /myprofile
        `, []fetch{
		{"foo*bot", "http://foo.bar/myprofile", false},
		{"foobot", "http://foo.bar/myprofile", false},
	}},
	// tests/test_protego.py::TestProtego::test_directive_case_insensitivity
	{"test_protego.py::test_directive_case_insensitivity", `
        USER-AGENT: onebot
        ALLOW: /x
        DISALLOW: /

        user-agent: twobot
        allow: /x
        disallow: /

        uSEr-aGEnT: threeBot
        AlLoW: /x
        DIsALlOw: /
        `, []fetch{
		{"onebot", "http://foo.bar/x/y", true},
		{"onebot", "http://foo.bar/a/b", false},
		{"twobot", "http://foo.bar/x/y", true},
		{"threebot", "http://foo.bar/x/y", true},
	}},
	// tests/test_protego.py::TestProtego::test_line_endings (the can_fetch assertions; one
	// case per file flavour)
	{"test_protego.py::test_line_endings dos", "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n", lineEndingChecks},
	{"test_protego.py::test_line_endings unix", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n", lineEndingChecks},
	{"test_protego.py::test_line_endings mac", "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r", lineEndingChecks},
	{"test_protego.py::test_line_endings no final line ending", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /", lineEndingChecks},
	{"test_protego.py::test_line_endings mixed", "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /", lineEndingChecks},
	// tests/test_protego.py::TestProtego::test_index_html_is_directory
	{"test_protego.py::test_index_html_is_directory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", []fetch{
		{"footbot", "http://foo.com/allowed-slash/", true},
		{"footbot", "http://foo.com/allowed-slash/index.html", true},
		{"footbot", "http://foo.com/allowed-slash/index.htm", false},
		{"footbot", "http://foo.com/anyother-url", false},
	}},
	// tests/test_protego.py::TestProtego::test_percentage_encoding
	{"test_protego.py::test_percentage_encoding#1", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
	}},
	{"test_protego.py::test_percentage_encoding#2", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
		{"FooBot", "http://foo.bar/foo/bar/ツ", true},
	}},
	{"test_protego.py::test_percentage_encoding#3", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
		{"FooBot", "http://foo.bar/foo/bar/ツ", true},
	}},
	{"test_protego.py::test_percentage_encoding#4", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", []fetch{
		{"FooBot", "http://foo.bar/foo/bar/baz", true},
		{"FooBot", "http://foo.bar/foo/bar/%62%61%7A", true},
	}},
	// tests/test_protego.py::TestProtego::test_url_case_sensitivity
	{"test_protego.py::test_url_case_sensitivity#1", "user-agent: FooBot\ndisallow: /x/\n", []fetch{
		{"FooBot", "http://foo.bar/x/y", false},
	}},
	{"test_protego.py::test_url_case_sensitivity#2", "user-agent: FooBot\ndisallow: /X/\n", []fetch{
		{"FooBot", "http://foo.bar/x/y", true},
	}},
	// tests/test_protego.py::TestProtego::test_nonterminal_dollar
	{"test_protego.py::test_nonterminal_dollar", "user-agent: FooBot\ndisallow: /x$/abc\ndisallow: /y/abc$\ndisallow: /x*x$/abc\ndisallow: /y*y/abc$\n", []fetch{
		{"FooBot", "http://foo.bar/x$/abcdef", false},
		{"FooBot", "http://foo.bar/x%24/abcdef", false},
		{"FooBot", "http://foo.bar/y/abcdef", true},
		{"FooBot", "http://foo.bar/y/abc", false},
		{"FooBot", "http://foo.bar/xabcx$/abcdef", false},
		{"FooBot", "http://foo.bar/xabcx%24/abcdef", false},
		{"FooBot", "http://foo.bar/yabcy/abc", false},
		{"FooBot", "http://foo.bar/yabcy/abcdef", true},
	}},
	// tests/test_protego.py::TestProtego::test_escaped_special_symbols
	{"test_protego.py::test_escaped_special_symbols", "user-agent: FooBot\ndisallow: /x/abc%24\ndisallow: /x%2Ax/abc\n", []fetch{
		{"FooBot", "http://foo.bar/x/abc$abc", false},
		{"FooBot", "http://foo.bar/x/abc$", false},
		{"FooBot", "http://foo.bar/x/abc", true},
		{"FooBot", "http://foo.bar/x*x/abc", false},
		{"FooBot", "http://foo.bar/x*x/abcdef", false},
		{"FooBot", "http://foo.bar/xabcx/abc", true},
	}},
	// tests/test_protego.py::TestProtego::test_special_symbols_dual_behaviour. protego also
	// reads a final '$' as a literal character; RFC 9309 and Google's parser read it only as
	// the end anchor, as jscrawl does, so "/x/abc$" is allowed here (protego: disallowed).
	{"test_protego.py::test_special_symbols_dual_behaviour", "user-agent: FooBot\ndisallow: /x/abc$\ndisallow: /x*x/abc\n", []fetch{
		{"FooBot", "http://foo.bar/x*x/abc", false},
		{"FooBot", "http://foo.bar/x/abc$", true},   // protego: false (see above)
		{"FooBot", "http://foo.bar/x/abc%24", true}, // protego: false (see above)
		{"FooBot", "http://foo.bar/x/abc", false},   // the anchor itself (not in protego's test)
	}},
	// tests/test_protego.py::TestProtego::test_with_absolute_urls
	{"test_protego.py::test_with_absolute_urls", "user-agent: *\ndisallow: http://ms-web00.walkerplus.com/\n", []fetch{
		{"FooBot", "http://foo.bar/", true},
		{"FooBot", "http://foo.bar/http://ms-web00.walkerplus.com/", false},
	}},
	// tests/test_protego.py::TestProtego::test_disallow_target_url_path_is_missing
	{"test_protego.py::test_disallow_target_url_path_is_missing", "User-Agent: *\nDisallow: /\n", []fetch{
		{"FooBot", "http://example.com/", false},
		{"FooBot", "http://example.com", false},
	}},
	// tests/test_protego.py::TestProtego::test_leading_double_slash_in_pattern
	{"test_protego.py::test_leading_double_slash_in_pattern", "User-Agent: *\nDisallow: //folder/*\n", []fetch{
		{"FooBot", "http://example.com/", true},
		{"FooBot", "http://example.com/folder", true},
		{"FooBot", "http://example.com/folder/", true},
		{"FooBot", "http://example.com/folder/page", true},
		{"FooBot", "http://example.com//folder", true},
		{"FooBot", "http://example.com//folder/page", false},
	}},
	// tests/test_protego.py::TestProtego::test_disallow_query_wildcard
	{"test_protego.py::test_disallow_query_wildcard", "User-agent: * \nDisallow: /*s=", []fetch{
		{"*", site + "/", true},
		{"*", site + "/s/", true},
		{"*", site + "/?s=asd", false},
	}},
	// tests/test_protego.py::test_leading_asterisk (parametrized)
	{"test_protego.py::test_leading_asterisk[*/p]", "User-Agent: *\nallow: */p\ndisallow: /\n", []fetch{
		{"*", "http://example.com/page", true},
	}},
	{"test_protego.py::test_leading_asterisk[/page]", "User-Agent: *\nallow: /page\ndisallow: */*.htm\n", []fetch{
		{"*", "https://example.com/page.htm", false},
	}},
}

// lineEndingChecks are the assertions of test_protego.py::test_line_endings.
var lineEndingChecks = []fetch{
	{"foo", "http://site.local/some/path/", true},
	{"bar", "http://site.local/some/path/", false},
}

// rfc1996Checks are the assertions of the second robots.txt of
// test_protego.py::test_1996rfc_examples: for each URL, the verdicts for unhipbot,
// webcrawler, excite and OtherBot.
func rfc1996Checks() []fetch {
	var out []fetch
	for _, c := range []struct {
		path    string
		verdict [4]bool
	}{
		{"/", [4]bool{false, true, true, false}},
		{"/index.html", [4]bool{false, true, true, false}},
		{"/server.html", [4]bool{false, true, true, true}},
		{"/services/fast.html", [4]bool{false, true, true, true}},
		{"/services/slow.html", [4]bool{false, true, true, true}},
		{"/orgo.gif", [4]bool{false, true, true, false}},
		{"/org/about.html", [4]bool{false, true, true, true}},
		{"/org/plans.html", [4]bool{false, true, true, false}},
		{"/%7Ejim/jim.html", [4]bool{false, true, true, false}},
		{"/%7Emak/mak.html", [4]bool{false, true, true, true}},
	} {
		for i, agent := range []string{"unhipbot", "webcrawler", "excite", "OtherBot"} {
			out = append(out, fetch{agent, "http://www.example.org" + c.path, c.verdict[i]})
		}
	}
	return out
}

func TestProtego(t *testing.T) {
	t.Parallel()
	for _, tc := range protegoCases {
		r := robotstxt.Parse([]byte(tc.robots))
		for _, c := range tc.checks {
			if got := r.Allowed(c.agent, c.url); got != c.allowed {
				t.Errorf("%s: Allowed(%q, %q) = %v, want %v", tc.source, c.agent, c.url, got, c.allowed)
			}
		}
	}
}

// TestGoogleSpecUserAgentPrecedence ports tests/test_on_google_spec.py::test_user_agent_precedence:
// the first of /group1, /group2, /group3 that the agent may fetch tells the group chosen.
func TestGoogleSpecUserAgentPrecedence(t *testing.T) {
	t.Parallel()
	r := robotstxt.Parse([]byte(`
    user-agent: hedwig-news
    disallow: /
    allow: /group1
    user-agent: *
    disallow: /
    allow: /group2
    user-agent: hedwig
    disallow: /
    allow: /group3
    `))
	for _, tc := range []struct{ path, agent string }{
		{"/group1", "hedwig-news"},
		{"/group1", "hedwig-news2"},
		{"/group2", "hedwi"},
		{"/group2", "a"},
		{"/group3", "hedwig-new"},
		{"/group3", "hedwig-images"},
	} {
		got := ""
		for _, p := range []string{"/group1", "/group2", "/group3"} {
			if r.Allowed(tc.agent, p) {
				got = p
				break
			}
		}
		if got != tc.path {
			t.Errorf("test_on_google_spec.py::test_user_agent_precedence[%s]: group %q, want %q", tc.agent, got, tc.path)
		}
	}
}

// TestGoogleSpecPathMatching ports tests/test_on_google_spec.py::test_path_matching: whether
// "disallow: pattern" matches path.
func TestGoogleSpecPathMatching(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, path string
		match         bool
	}{
		{"/", "/harry", true},
		{"/", "/device/time-turner", true},
		{"/", "/hogwards.html", true},
		{"/*", "/harry", true},
		{"/*", "/device/time-turner", true},
		{"/*", "/hogwards.html", true},
		{"/phoenix", "/phoenix", true},
		{"/phoenix", "/phoenix.html", true},
		{"/phoenix", "/phoenix/sparky.html", true},
		{"/phoenix", "/phoenixheads", true},
		{"/phoenix", "/phoenixheads/yummy.html", true},
		{"/phoenix", "/phoenix.php?id=anything", true},
		{"/phoenix", "/Phoenix.asp", false},
		{"/phoenix", "/redphoenix", false},
		{"/phoenix", "/?id=phoenix", false},
		{"/phoenix*", "/phoenix", true},
		{"/phoenix*", "/phoenix.html", true},
		{"/phoenix*", "/phoenix/sparky.html", true},
		{"/phoenix*", "/phoenixheads", true},
		{"/phoenix*", "/phoenixheads/yummy.html", true},
		{"/phoenix*", "/phoenix.php?id=anything", true},
		{"/phoenix*", "/Phoenix.asp", false},
		{"/phoenix*", "/redphoenix", false},
		{"/phoenix*", "/?id=phoenix", false},
		{"/phoenix/", "/phoenix/", true},
		{"/phoenix/", "/phoenix/?id=anything", true},
		{"/phoenix/", "/phoenix/sparky.htm", true},
		{"/phoenix/", "/phoenix", false},
		{"/phoenix/", "/phoenix.html", false},
		{"/phoenix/", "/Phoenix/Sparky.asp", false},
		{"/*.php", "/filename.php", true},
		{"/*.php", "/folder/filename.php", true},
		{"/*.php", "/folder/filename.php?parameters", true},
		{"/*.php", "/folder/any.php.file.html", true},
		{"/*.php", "/filename.php/", true},
		{"/*.php", "/windows.PHP", false},
		{"/*.php", "/", false},
		{"/*.php", "/index?f=filename.php/", true},
		{"/*.php", "/index?php", false},
		{"/*.php$", "/filename.php", true},
		{"/*.php$", "/folder/filename.php", true},
		{"/*.php$", "/filename.php?parameters", false},
		{"/*.php$", "/filename.php/", false},
		{"/*.php$", "/filename.php5", false},
		{"/*.php$", "/windows.PHP", false},
		{"/*.php$", "/filename?php", false},
		{"/fish*.php", "/fish.php", true},
		{"/fish*.php", "/fishheads/catfish.php?parameters", true},
		{"/fish*.php", "/Fish.PHP", false},
	} {
		r := robotstxt.Parse([]byte("\n    User-Agent: *\n    disallow: " + tc.pattern + "\n    "))
		if got := !r.Allowed("*", tc.path); got != tc.match {
			t.Errorf("test_on_google_spec.py::test_path_matching[%s-%s]: match = %v, want %v", tc.pattern, tc.path, got, tc.match)
		}
	}
}

// TestGoogleSpecRecordPrecedence ports tests/test_on_google_spec.py::test_record_precedence.
func TestGoogleSpecRecordPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rules, url string
		allowed    bool
	}{
		{"allow: /p \n disallow: /", "http://example.com/page", true},
		{"allow: /folder \n disallow: /folder", "http://example.com/folder/page", true},
		{"allow: /$ \n disallow: /", "http://example.com/", true},
		{"allow: /$ \n disallow: /", "http://example.com/page.htm", false},
	} {
		r := robotstxt.Parse([]byte("\n    User-Agent: *\n    " + tc.rules + "\n    "))
		if got := r.Allowed("*", tc.url); got != tc.allowed {
			t.Errorf("test_on_google_spec.py::test_record_precedence[%q %s]: %v, want %v", tc.rules, tc.url, got, tc.allowed)
		}
	}
}

// TestSitemaps ports the Sitemap cases of tests/test_protego.py.
func TestSitemaps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		source, robots string
		want           []string
	}{
		// tests/test_protego.py::TestProtego::test_sitemaps
		{"test_sitemaps", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nSitemap: https://site.local/sitemap.xml \nAllow: /another_allowed \nUser-agent: testbot \nSitemap: https://site.local/sitemap2.xml",
			[]string{"https://site.local/sitemap.xml", "https://site.local/sitemap2.xml"}},
		// tests/test_protego.py::TestProtego::test_no_sitemaps
		{"test_no_sitemaps", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10", nil},
		// tests/test_protego.py::TestProtego::test_sitemaps_come_first
		{"test_sitemaps_come_first", "Sitemap: https://www.foo.bar/sitmap.xml\nUser-Agent: FootBot\nDisallow: /something", []string{"https://www.foo.bar/sitmap.xml"}},
	} {
		if got := robotstxt.Parse([]byte(tc.robots)).Sitemaps(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("test_protego.py::%s: sitemaps %q, want %q", tc.source, got, tc.want)
		}
	}
}

// TestCrawlDelay ports the Crawl-delay cases of tests/test_protego.py (0: none).
func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		source, robots, agent string
		want                  time.Duration
	}{
		// tests/test_protego.py::TestProtego::test_crawl_delay
		{"test_crawl_delay", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10 \nUser-agent: testbot\nCrawl-delay: 15 \n", "*", 10 * time.Second},
		{"test_crawl_delay", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10 \nUser-agent: testbot\nCrawl-delay: 15 \n", "testbot", 15 * time.Second},
		// tests/test_protego.py::TestProtego::test_malformed_crawl_delay
		{"test_malformed_crawl_delay", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: random_word", "*", 0},
		// tests/test_protego.py::TestProtego::test_no_crawl_delay
		{"test_no_crawl_delay", "User-agent: * \nDisallow: /disallowed \nAllow: /allowed", "*", 0},
		// tests/test_protego.py::TestProtego::test_no_leading_user_agent
		{"test_no_leading_user_agent", "Disallow: /withoutUA\nAllow: /withoutUA/exception\nCrawl-delay: 5.2\nUser-Agent: testbot\nDisallow: /withUA\n", "testbot", 0},
		{"test_no_leading_user_agent", "Disallow: /withoutUA\nAllow: /withoutUA/exception\nCrawl-delay: 5.2\nUser-Agent: testbot\nDisallow: /withUA\n", "*", 0},
	} {
		if got := robotstxt.Parse([]byte(tc.robots)).Group(tc.agent).CrawlDelay(); got != tc.want {
			t.Errorf("test_protego.py::%s[%s]: crawl delay %v, want %v", tc.source, tc.agent, got, tc.want)
		}
	}
}

// TestRequestRate ports the Request-rate cases of tests/test_protego.py.
func TestRequestRate(t *testing.T) {
	t.Parallel()
	const rates = `
        User-agent: one
        Request-rate: 1/10s
        User-agent: two
        Request-rate: 100/15m
        User-agent: three
        Request-rate: 400/1h
        User-agent: four
        Request-rate: 9000/1d
        User-agent: five
        Request-rate: 1/10s 1820-1940
        `
	const bare = `
        User-agent: one
        Request-rate: 1/60
        User-agent: two
        Request-rate: 10/60
        User-agent: three
        Request-rate: 90/180
        User-agent: four
        Request-rate: 1/5
        User-agent: five
        Request-rate: 1/10 0600-0845
        `
	const none = `
        User-agent: one
        Request-rate: 1/10s
        User-agent: two
        Disallow: /
        `
	const generous = `
        user-agent foobot
        disallow /
        user agent harry potter
        disallow /horcrux
        request rate 1/10s 1820-1940
        `
	rr := func(req, sec int) *robotstxt.RequestRate {
		return &robotstxt.RequestRate{Requests: req, Seconds: sec}
	}
	window := func(req, sec, start, end int) *robotstxt.RequestRate {
		return &robotstxt.RequestRate{Requests: req, Seconds: sec, HasWindow: true, Start: start, End: end}
	}
	for _, tc := range []struct {
		source, robots, agent string
		want                  *robotstxt.RequestRate // nil: none
	}{
		// tests/test_protego.py::TestProtego::test_request_rate
		{"test_request_rate", rates, "one", rr(1, 10)},
		{"test_request_rate", rates, "two", rr(100, 900)},
		{"test_request_rate", rates, "three", rr(400, 3600)},
		{"test_request_rate", rates, "four", rr(9000, 86400)},
		{"test_request_rate", rates, "five", window(1, 10, 18*60+20, 19*60+40)},
		// tests/test_protego.py::TestProtego::test_request_rate_bare_number
		{"test_request_rate_bare_number", bare, "one", rr(1, 60)},
		{"test_request_rate_bare_number", bare, "two", rr(10, 60)},
		{"test_request_rate_bare_number", bare, "three", rr(90, 180)},
		{"test_request_rate_bare_number", bare, "four", rr(1, 5)},
		{"test_request_rate_bare_number", bare, "five", window(1, 10, 6*60, 8*60+45)},
		// tests/test_protego.py::TestProtego::test_no_request_rate
		{"test_no_request_rate", none, "two", nil},
		// tests/test_protego.py::TestProtego::test_generosity
		{"test_generosity", generous, "harry potter", window(1, 10, 18*60+20, 19*60+40)},
	} {
		got, ok := robotstxt.Parse([]byte(tc.robots)).Group(tc.agent).RequestRate()
		switch {
		case tc.want == nil && ok:
			t.Errorf("test_protego.py::%s[%s]: request rate %+v, want none", tc.source, tc.agent, got)
		case tc.want != nil && (!ok || got != *tc.want):
			t.Errorf("test_protego.py::%s[%s]: request rate %+v (%v), want %+v", tc.source, tc.agent, got, ok, *tc.want)
		}
	}
}
