package jsapi_test

import (
	"os"
	"strings"
	"testing"
)

// TestURLJoinLikeScrapy: response.urljoin and follow resolve a reference with the page's
// own scheme and no "//" ("http:foo.com") as a relative path, and a reference that starts
// with ":" as a path, as Scrapy's urljoin (urllib.parse.urljoin) and browsers do; the
// expected URLs are web-platform-tests' (urltestdata.json, base
// http://example.org/foo/bar), with the test server as the host. Before, urljoin left
// "http:foo.com" as it was, follow threw "no host" and ":foo.com" threw.
func TestURLJoinLikeScrapy(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{"/foo/bar": `<p>page</p>`})
	res := crawl(t, srv, spec{src: `import { Request } from "jscrawl";
export default class S {
  name = "join";
  startUrls = ["BASE/foo/bar"];
  parse(r) {
    const refs = ["http:foo.com", ":foo.com", ":foo.com/", "::", ":23", "http::@c:29", "http:/x", "https:other.test/p", "\\\\x\\hello", "  \t:foo.com \n"];
    return {
      join: refs.map((h) => r.urljoin(h)),
      follow: refs.map((h) => r.follow(h).url),
      followAll: r.followAll(refs).map((q) => q.url).length,
      browser: refs.map((h) => new URL(h, r.url).href),
    };
  }
}`})
	lines := res.lines(t)
	if len(lines) != 1 {
		t.Fatalf("items %v\n%s", lines, res.log)
	}
	b := srv.URL
	want := []string{b + "/foo/foo.com", b + "/foo/:foo.com", b + "/foo/:foo.com/", b + "/foo/::", b + "/foo/:23", b + "/foo/:@c:29", b + "/x",
		"https://other.test/p", "http://x/hello", b + "/foo/:foo.com"}
	wantJSON := `{"join":[` + quoteJoin(want) + `],"follow":[` + quoteJoin(want) + `],"followAll":10,"browser":[` + quoteJoin(want) + `]}`
	if lines[0] != wantJSON {
		t.Errorf("got  %s\nwant %s\n%s", lines[0], wantJSON, res.log)
	}
}

// TestLinkExtractorLikeScrapy ports Scrapy's tests/test_linkextractors.py
// (TestLxmlLinkExtractor, on tests/sample_data/link_extractor/linkextractor.html) through the
// JS LinkExtractor a spider uses: test_extract_all_links (the "#foo" fragment kept in url by
// default), test_extract_filter_allow_no_duplicates_canonicalize (canonicalize drops it),
// test_link_wrong_href and test_skip_bad_links (an invalid href is skipped, the page's other
// links kept), with the skipped ones counted in linkextractor/skipped_invalid.
func TestLinkExtractorLikeScrapy(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("links/testdata/linkextractor.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := newLinksServer(t, map[string]string{
		"/sample": string(page),
		"/wrong": `<a href="http://example.org/item1.html">Item 1</a>
        <a href="http://[example.org/item2.html">Item 2</a>
        <a href="http://example.org/item3.html">Item 3</a>`,
		"/bad": `<a href="http://example.org:non-port">Why would you do this?</a>
        <a href="http://example.org/item2.html">Good Link</a>
        <a href="http://example.org/item3.html">Good Link 2</a>`,
	})
	res := crawl(t, srv, spec{src: `import { LinkExtractor } from "jscrawl";
export default class S {
  name = "scrapy";
  startUrls = ["BASE/sample"];
  *parse(r) {
    const urls = (le, resp) => le.extractLinks(resp).map((l) => l.url + "|" + l.text);
    if (r.url.endsWith("/sample")) {
      yield { test: "test_extract_all_links", links: urls(new LinkExtractor(), r) };
      yield { test: "test_extract_filter_allow_no_duplicates_canonicalize", links: urls(new LinkExtractor({ allow: "sample", canonicalize: true }), r) };
      yield r.follow("BASE/wrong");
      yield r.follow("BASE/bad");
      return;
    }
    yield { test: r.url.endsWith("/wrong") ? "test_link_wrong_href" : "test_skip_bad_links", links: urls(new LinkExtractor(), r) };
  }
}`})
	got := strings.Join(res.sorted(t), "\n")
	want := strings.Join([]string{
		`{"test":"test_extract_all_links","links":["http://example.com/sample1.html|","http://example.com/sample2.html|sample 2","http://example.com/sample3.html|sample 3 text","http://example.com/sample3.html#foo|sample 3 repetition with fragment","http://www.google.com/something|","http://example.com/innertag.html|inner tag","http://example.com/page%204.html|href with whitespaces"]}`,
		`{"test":"test_extract_filter_allow_no_duplicates_canonicalize","links":["http://example.com/sample1.html|","http://example.com/sample2.html|sample 2","http://example.com/sample3.html|sample 3 text"]}`,
		`{"test":"test_link_wrong_href","links":["http://example.org/item1.html|Item 1","http://example.org/item3.html|Item 3"]}`,
		`{"test":"test_skip_bad_links","links":["http://example.org/item2.html|Good Link","http://example.org/item3.html|Good Link 2"]}`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s\n%s", got, want, res.log)
	}
	if n := res.stat("linkextractor/skipped_invalid"); n != 2 {
		t.Errorf("linkextractor/skipped_invalid = %d, want 2 (one per bad href)", n)
	}
}

// TestCrawlSpiderSkipsBadLinks: in a CrawlSpider a link that cannot be requested costs the
// page nothing but itself. "http:foo.com" resolves as Scrapy does, an href that does not
// parse is skipped by the extractor (linkextractor/skipped_invalid), and a URL a
// processLinks hook made unusable is skipped by the rule (crawlspider/skipped_invalid),
// while the valid links of the same page and of the later rules are still requested.
// Before, the first of these stopped the page's rules.
func TestCrawlSpiderSkipsBadLinks(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{
		"/dir/start":   `<a href="http:foo.com">relative</a> <a href="http://[bad/">bad</a> <a href="/item/1">one</a> <a href="/other/1">other</a>`,
		"/dir/foo.com": `<h1>foo</h1>`,
		"/item/{n}":    `<h1>item</h1>`,
		"/other/{n}":   `<h1>other</h1>`,
	})
	res := crawl(t, srv, spec{settings: map[string]string{"ROBOTSTXT_OBEY": "false"}, src: `import { CrawlSpider, LinkExtractor } from "jscrawl";
export default class S extends CrawlSpider {
  name = "rules";
  startUrls = ["BASE/dir/start"];
  rules = [
    { link: new LinkExtractor({ allow: /item|foo/ }), callback: "parseItem",
      processLinks: (links) => [{ url: "http://", text: "made bad" }, ...links] },
    { link: new LinkExtractor({ allow: /other/ }), callback: "parseItem" },
  ];
  parseItem(r) { return { page: new URL(r.url).pathname }; }
}`})
	got := strings.Join(res.sorted(t), "\n")
	want := `{"page":"/dir/foo.com"}` + "\n" + `{"page":"/item/1"}` + "\n" + `{"page":"/other/1"}`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s\n%s", got, want, res.log)
	}
	if n := res.stat("linkextractor/skipped_invalid"); n != 2 {
		t.Errorf("linkextractor/skipped_invalid = %d, want 2 (the bad href, once per rule)", n)
	}
	if n := res.stat("crawlspider/skipped_invalid"); n != 1 {
		t.Errorf("crawlspider/skipped_invalid = %d, want 1", n)
	}
}

// TestFollowAllSkipsBadLinks: followAll({ css }) and enqueueLinks skip an href that is
// not a valid URL, keep the page's other links and count the skipped ones in
// follow/skipped_invalid, as followAll(hrefs) does; "http:x" resolves as a relative path.
func TestFollowAllSkipsBadLinks(t *testing.T) {
	t.Parallel()
	srv := newLinksServer(t, map[string]string{
		"/dir/start": `<a href="http://[bad/">bad</a> <a href="http://h.test:port/">port</a> <a href="http:x">rel</a> <a href="/ok">ok</a>`,
	})
	res := crawl(t, srv, spec{src: `export default class S {
  name = "all";
  startUrls = ["BASE/dir/start"];
  parse(r) {
    const path = (q) => new URL(q.url).pathname;
    return { css: r.followAll({ css: "a" }).map(path), enqueue: r.enqueueLinks({ strategy: "all" }).map(path) };
  }
}`})
	lines := res.lines(t)
	if want := `{"css":["/dir/x","/ok"],"enqueue":["/dir/x","/ok"]}`; len(lines) != 1 || lines[0] != want {
		t.Errorf("got %v, want %s\n%s", lines, want, res.log)
	}
	if n := res.stat("follow/skipped_invalid"); n != 4 {
		t.Errorf("follow/skipped_invalid = %d, want 4 (2 bad hrefs, twice)", n)
	}
}
