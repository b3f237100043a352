package links_test

import (
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/links"
	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// The cases below are Scrapy's (github.com/scrapy/scrapy, tests/test_linkextractors.py,
// class TestLxmlLinkExtractor); each names the test it comes from. testdata/
// linkextractor.html is Scrapy's tests/sample_data/link_extractor/linkextractor.html.
// Differences: the zero Extractor drops fragments (the JS LinkExtractor sets KeepFragments
// unless canonicalize, as Scrapy keeps them in url: TestLinkExtractorLikeScrapy), so
// the cases whose expected URLs have a fragment set KeepFragments; Scrapy accepts ftp: and
// file: links, jscrawl the schemes of DOWNLOAD_SCHEMES (Schemes here). The cases jscrawl
// cannot state are listed in docs/from-scrapy.md.

// page is a response for the extractor: body, Content-Type and URL.
type page struct {
	body, ct, url string
	xml           bool // an XML response (Scrapy: XmlResponse)
}

// extract runs e on p as jsapi's extractLinks does: the document decoded by its
// Content-Type, the page's encoding for queries, the roots of xpaths (restrictXpaths).
func extract(t *testing.T, p page, e *links.Extractor, process links.ProcessFunc, xpaths ...string) []links.Link {
	t.Helper()
	ct := p.ct
	if ct == "" {
		ct = "text/html; charset=utf-8"
	}
	parse := selector.Parse
	if p.xml {
		parse = selector.ParseXML
	}
	doc, err := parse([]byte(p.body), ct)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(p.url)
	if err != nil {
		t.Fatal(err)
	}
	var roots []selector.Result
	for _, x := range xpaths {
		rs, err := doc.XPath(x)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, rs...)
	}
	e.Prepare()
	return e.Extract(doc, u, links.URLEncoding(selector.Encoding([]byte(p.body), ct)), roots, len(xpaths) > 0, process)
}

func re(t *testing.T, src string) links.Matcher {
	t.Helper()
	m, err := links.CompileJS(src, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func css(t *testing.T, q string) *selector.Query { return mustCompile(t, q) }

func ln(u, text string) links.Link { return links.Link{URL: u, Text: text} }

func TestScrapyLinkExtractor(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile("testdata/linkextractor.html")
	if err != nil {
		t.Fatal(err)
	}
	index := page{body: string(sample), url: "http://example.com/index"}
	all := []links.Link{
		ln("http://example.com/sample1.html", ""),
		ln("http://example.com/sample2.html", "sample 2"),
		ln("http://example.com/sample3.html", "sample 3 text"),
		ln("http://example.com/sample3.html#foo", "sample 3 repetition with fragment"),
		ln("http://www.google.com/something", ""),
		ln("http://example.com/innertag.html", "inner tag"),
		ln("http://example.com/page%204.html", "href with whitespaces"),
	}
	nofollowHTML := `<html><head><title>Page title</title></head>
        <body>
        <div class='links'>
        <p><a href="/about.html">About us</a></p>
        </div>
        <div>
        <p><a href="/follow.html">Follow this link</a></p>
        </div>
        <div>
        <p><a href="/nofollow.html" rel="nofollow">Dont follow this one</a></p>
        </div>
        <div>
        <p><a href="/nofollow2.html" rel="blah">Choose to follow or not</a></p>
        </div>
        <div>
        <p><a href="http://google.com/something" rel="external nofollow">External link not to follow</a></p>
        </div>
        </body></html>`
	nofollowWant := func(host string) []links.Link {
		return []links.Link{
			ln(host+"/about.html", "About us"),
			ln(host+"/follow.html", "Follow this link"),
			{URL: host + "/nofollow.html", Text: "Dont follow this one", NoFollow: true},
			ln(host+"/nofollow2.html", "Choose to follow or not"),
			{URL: "http://google.com/something", Text: "External link not to follow", NoFollow: true},
		}
	}
	tagsPage := page{body: `<html><area href="sample1.html"></area><a href="sample2.html">sample 2</a><img src="sample2.jpg"/></html>`, url: "http://example.com/index.html"}
	dataURLPage := page{body: `
        <html><body>
        <div id="item1" data-url="get?id=1"><a href="#">Item 1</a></div>
        <div id="item2" data-url="get?id=2"><a href="#">Item 2</a></div>
        </body></html>`, url: "http://example.com/index.html"}
	wildPage := page{body: `
        <html><body>
        <a href="a.html">a</a>
        <div data-url="div.html">div</div>
        <span href="span.html">span</span>
        <p data-url="p.html">p</p>
        </body></html>`, url: "http://example.com/index.html"}
	aggPage := page{body: `
                <div>
                    <a href="/a">a1</a>
                    <a href="/b?a=1&b=2">b1</a>
                </div>
                <div>
                    <a href="/a">a2</a>
                    <a href="/b?b=2&a=1">b2</a>
                </div>`, url: "https://example.com"}
	textPage := page{body: `
        <a href="http://example.org/item1.html">Pic of a cat</a>
        <a href="http://example.org/item2.html">Pic of a dog</a>
        <a href="http://example.org/item3.html">Pic of a cow</a>`, url: "http://example.org/index.html"}
	xhtml := `
<?xml version="1.0"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
<head>
    <title>XHTML document title</title>
</head>
<body>` + nofollowHTML[strings.Index(nofollowHTML, "<div"):strings.Index(nofollowHTML, "</body>")] + `</body>
</html>`
	var canonOnce strings.Builder
	for i := range 10 {
		canonOnce.WriteString(`<a href="/p?b=2&a=1#f` + string(rune('0'+i)) + `">x</a>`)
	}
	processJS := func(v string) (string, bool) {
		i := strings.Index(v, "javascript:goToPage('")
		if i < 0 {
			return "", false
		}
		rest := v[i+len("javascript:goToPage('"):]
		return rest[:strings.IndexByte(rest, '\'')], true
	}

	for _, tc := range []struct {
		name    string
		p       page
		e       links.Extractor
		xpaths  []string
		process links.ProcessFunc
		want    []links.Link
	}{
		{"test_extract_all_links", index, links.Extractor{Unique: true, KeepFragments: true}, nil, nil, all},
		{"test_extract_all_links (jscrawl default: no fragments)", index, links.Extractor{Unique: true}, nil, nil,
			[]links.Link{all[0], all[1], all[2], all[4], all[5], all[6]}},
		{"test_extract_filter_allow", index, links.Extractor{Unique: true, KeepFragments: true, Allow: []links.Matcher{re(t, "sample")}}, nil, nil, all[:4]},
		{"test_extract_filter_allow_with_duplicates", index, links.Extractor{KeepFragments: true, Allow: []links.Matcher{re(t, "sample")}}, nil, nil, []links.Link{
			all[0], all[1], all[2],
			ln("http://example.com/sample3.html", "sample 3 repetition"),
			ln("http://example.com/sample3.html", "sample 3 repetition"),
			all[3],
		}},
		{"test_extract_filter_allow_with_duplicates_canonicalize", index, links.Extractor{Canonicalize: true, Allow: []links.Matcher{re(t, "sample")}}, nil, nil, []links.Link{
			all[0], all[1], all[2],
			ln("http://example.com/sample3.html", "sample 3 repetition"),
			ln("http://example.com/sample3.html", "sample 3 repetition"),
			ln("http://example.com/sample3.html", "sample 3 repetition with fragment"),
		}},
		{"test_extract_filter_allow_no_duplicates_canonicalize", index, links.Extractor{Unique: true, Canonicalize: true, Allow: []links.Matcher{re(t, "sample")}}, nil, nil, all[:3]},
		{"test_extract_filter_allow_and_deny", index, links.Extractor{Unique: true, Allow: []links.Matcher{re(t, "sample")}, Deny: []links.Matcher{re(t, "3")}}, nil, nil, all[:2]},
		{"test_extract_filter_allowed_domains", index, links.Extractor{Unique: true, AllowDomains: []string{"google.com"}}, nil, nil, all[4:5]},
		{"test_extraction_using_single_values (deny_domains)", index, links.Extractor{Unique: true, DenyDomains: []string{"example.com"}}, nil, nil, all[4:5]},
		{"test_nofollow", page{body: nofollowHTML, url: "http://example.org/somepage/index.html"}, links.Extractor{Unique: true}, nil, nil, nofollowWant("http://example.org")},
		{"test_restrict_xpaths", index, links.Extractor{Unique: true}, []string{`//div[@id="subwrapper"]`}, nil, all[:2]},
		{"test_restrict_xpaths_encoding", page{body: "<html><head><title>Page title</title></head>\n<body><p><a href=\"item/12.html\">Item 12</a></p>\n<div class='links'>\n<p><a href=\"/about.html\">About us\xa3</a></p>\n</div>\n<div>\n<p><a href=\"/nofollow.html\">This shouldn't be followed</a></p>\n</div>\n</body></html>",
			ct: "text/html; charset=windows-1252", url: "http://example.org/somepage/index.html"},
			links.Extractor{Unique: true}, []string{"//div[@class='links']"}, nil, []links.Link{ln("http://example.org/about.html", "About us\u00a3")}},
		{"test_restrict_xpaths_with_html_entities", page{body: `<html><body><p><a href="/&hearts;/you?c=&euro;">text</a></p></body></html>`,
			ct: "text/html; charset=iso8859-15", url: "http://example.org/somepage/index.html"},
			links.Extractor{Unique: true}, []string{"//p"}, nil, []links.Link{ln("http://example.org/%E2%99%A5/you?c=%A4", "text")}},
		{"test_restrict_xpaths_concat_in_handle_data", page{body: "<html><body><div><a href=\"/foo\">&gt;\xbe\xa9&lt;\xb6\xab</a></body></html>",
			ct: "text/html; charset=gb18030", url: "http://example.org"},
			links.Extractor{Unique: true}, []string{"//div"}, nil, []links.Link{ln("http://example.org/foo", ">\u4eac<\u4e1c")}},
		{"test_restrict_css", index, links.Extractor{Unique: true, RestrictCSS: []*selector.Query{css(t, "#subwrapper a")}}, nil, nil, all[1:2]},
		{"test_restrict_css_and_restrict_xpaths_together", index, links.Extractor{Unique: true, RestrictCSS: []*selector.Query{css(t, "#subwrapper + a")}},
			[]string{`//div[@id="subwrapper"]`}, nil, all[:3]},
		{"test_area_tag_with_unicode_present", page{body: "<html><body>\xbe\xa9<map><area href=\"http://example.org/foo\" /></map></body></html>", url: "http://example.org"},
			links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://example.org/foo", "")}},
		{"test_encoded_url", page{body: `<html><body><div><a href="?page=2">BinB</a></body></html>`, url: "http://known.fm/AC%2FDC/"},
			links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://known.fm/AC%2FDC/?page=2", "BinB")}},
		{"test_encoded_url_in_restricted_xpath", page{body: `<html><body><div><a href="?page=2">BinB</a></body></html>`, url: "http://known.fm/AC%2FDC/"},
			links.Extractor{Unique: true}, []string{"//div"}, nil, []links.Link{ln("http://known.fm/AC%2FDC/?page=2", "BinB")}},
		{"test_ignored_extensions", page{body: `<a href="page.html">asd</a> and <a href="photo.jpg">`, url: "http://example.org/"},
			links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://example.org/page.html", "asd")}},
		{"test_ignored_extensions (override)", page{body: `<a href="page.html">asd</a> and <a href="photo.jpg">`, url: "http://example.org/"},
			links.Extractor{Unique: true, DenyExtensions: []string{"html"}}, nil, nil, []links.Link{ln("http://example.org/photo.jpg", "")}},
		{"test_process_value", page{body: `
<a href="javascript:goToPage('../other/page.html','photo','width=600,height=540,scrollbars'); return false">Text</a>
<a href="/about.html">About us</a>`, ct: "text/html; charset=windows-1252", url: "http://example.org/somepage/index.html"},
			links.Extractor{Unique: true, Schemes: []string{"http", "https", "javascript"}}, nil, processJS, []links.Link{ln("http://example.org/other/page.html", "Text")}},
		{"test_base_url_with_restrict_xpaths", page{body: `<html><head><title>Page title</title><base href="http://otherdomain.com/base/" /></head>
        <body><p><a href="item/12.html">Item 12</a></p>
        </body></html>`, url: "http://example.org/somepage/index.html"},
			links.Extractor{Unique: true}, []string{"//p"}, nil, []links.Link{ln("http://otherdomain.com/base/item/12.html", "Item 12")}},
		{"test_attrs", index, links.Extractor{Unique: true, KeepFragments: true, Attrs: []string{"href"}}, nil, nil, all},
		{"test_attrs (href, src)", index, links.Extractor{Unique: true, KeepFragments: true, Attrs: []string{"href", "src"}, Tags: []string{"a", "area", "img"}, DenyExtensions: []string{}}, nil, nil,
			[]links.Link{all[0], all[1], ln("http://example.com/sample2.jpg", ""), all[2], all[3], all[4], all[5], all[6]}},
		{"test_attrs (none)", index, links.Extractor{Unique: true, Attrs: []string{}}, nil, nil, nil},
		{"test_tags (none)", tagsPage, links.Extractor{Unique: true, Tags: []string{}}, nil, nil, nil},
		{"test_tags (default)", tagsPage, links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://example.com/sample1.html", ""), ln("http://example.com/sample2.html", "sample 2")}},
		{"test_tags (area)", tagsPage, links.Extractor{Unique: true, Tags: []string{"area"}}, nil, nil, []links.Link{ln("http://example.com/sample1.html", "")}},
		{"test_tags (a)", tagsPage, links.Extractor{Unique: true, Tags: []string{"a"}}, nil, nil, []links.Link{ln("http://example.com/sample2.html", "sample 2")}},
		{"test_tags (a, img)", tagsPage, links.Extractor{Unique: true, Tags: []string{"a", "img"}, Attrs: []string{"href", "src"}, DenyExtensions: []string{}}, nil, nil,
			[]links.Link{ln("http://example.com/sample2.html", "sample 2"), ln("http://example.com/sample2.jpg", "")}},
		{"test_tags_attrs", dataURLPage, links.Extractor{Unique: true, Tags: []string{"div"}, Attrs: []string{"data-url"}}, nil, nil,
			[]links.Link{ln("http://example.com/get?id=1", "Item 1"), ln("http://example.com/get?id=2", "Item 2")}},
		{"test_xhtml (HtmlResponse)", page{body: xhtml, url: "http://example.com/index.xhtml"}, links.Extractor{Unique: true}, nil, nil, nofollowWant("http://example.com")},
		{"test_xhtml (XmlResponse)", page{body: xhtml, ct: "text/xml", url: "http://example.com/index.xhtml", xml: true}, links.Extractor{Unique: true}, nil, nil, nofollowWant("http://example.com")},
		{"test_link_wrong_href", page{body: `
        <a href="http://example.org/item1.html">Item 1</a>
        <a href="http://[example.org/item2.html">Item 2</a>
        <a href="http://example.org/item3.html">Item 3</a>`, url: "http://example.org/index.html"},
			links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://example.org/item1.html", "Item 1"), ln("http://example.org/item3.html", "Item 3")}},
		{"test_ftp_links", page{body: `
        <html><body>
        <div><a href="ftp://www.external.com/">An Item</a></div>
        </body></html>`, url: "http://www.example.com/index.html"},
			links.Extractor{Unique: true, Schemes: []string{"http", "https", "ftp", "file"}}, nil, nil, []links.Link{ln("ftp://www.external.com/", "An Item")}},
		{"test_link_extractor_aggregation (unique)", aggPage, links.Extractor{Unique: true, RestrictCSS: []*selector.Query{css(t, "div")}}, nil, nil,
			[]links.Link{ln("https://example.com/a", "a1"), ln("https://example.com/b?a=1&b=2", "b1"), ln("https://example.com/b?b=2&a=1", "b2")}},
		{"test_link_extractor_aggregation (unique, canonicalize)", aggPage, links.Extractor{Unique: true, Canonicalize: true, RestrictCSS: []*selector.Query{css(t, "div")}}, nil, nil,
			[]links.Link{ln("https://example.com/a", "a1"), ln("https://example.com/b?a=1&b=2", "b1")}},
		{"test_link_extractor_aggregation (not unique)", aggPage, links.Extractor{RestrictCSS: []*selector.Query{css(t, "div")}}, nil, nil,
			[]links.Link{ln("https://example.com/a", "a1"), ln("https://example.com/b?a=1&b=2", "b1"), ln("https://example.com/a", "a2"), ln("https://example.com/b?b=2&a=1", "b2")}},
		{"test_link_extractor_aggregation (not unique, canonicalize)", aggPage, links.Extractor{Canonicalize: true, RestrictCSS: []*selector.Query{css(t, "div")}}, nil, nil,
			[]links.Link{ln("https://example.com/a", "a1"), ln("https://example.com/b?a=1&b=2", "b1"), ln("https://example.com/a", "a2"), ln("https://example.com/b?a=1&b=2", "b2")}},
		{"test_canonicalize_once_per_link (result)", page{body: canonOnce.String(), url: "https://example.com"}, links.Extractor{Unique: true, Canonicalize: true}, nil, nil,
			[]links.Link{ln("https://example.com/p?a=1&b=2", "x")}},
		{"test_link_restrict_text", textPage, links.Extractor{Unique: true, RestrictText: []links.Matcher{re(t, "dog")}}, nil, nil, []links.Link{ln("http://example.org/item2.html", "Pic of a dog")}},
		{"test_link_restrict_text (regex)", textPage, links.Extractor{Unique: true, RestrictText: []links.Matcher{re(t, "of.*dog")}}, nil, nil, []links.Link{ln("http://example.org/item2.html", "Pic of a dog")}},
		{"test_link_restrict_text (several)", textPage, links.Extractor{Unique: true, RestrictText: []links.Matcher{re(t, "of.*dog"), re(t, "of.*cat")}}, nil, nil,
			[]links.Link{ln("http://example.org/item1.html", "Pic of a cat"), ln("http://example.org/item2.html", "Pic of a dog")}},
		{"test_skip_bad_links", page{body: `
        <a href="http://example.org:non-port">Why would you do this?</a>
        <a href="http://example.org/item2.html">Good Link</a>
        <a href="http://example.org/item3.html">Good Link 2</a>`, url: "http://example.org/index.html"},
			links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://example.org/item2.html", "Good Link"), ln("http://example.org/item3.html", "Good Link 2")}},
		// test_tags_attrs_wildcard_and_deny
		{"test_tags_attrs_wildcard_and_deny (default)", wildPage, links.Extractor{Unique: true}, nil, nil, []links.Link{ln("http://example.com/a.html", "a")}},
		{"test_tags_attrs_wildcard_and_deny (tags *)", wildPage, links.Extractor{Unique: true, Tags: []string{"*"}}, nil, nil,
			[]links.Link{ln("http://example.com/a.html", "a"), ln("http://example.com/span.html", "span")}},
		{"test_tags_attrs_wildcard_and_deny (tags *, attrs *)", wildPage, links.Extractor{Unique: true, Tags: []string{"*"}, Attrs: []string{"*"}}, nil, nil,
			[]links.Link{ln("http://example.com/a.html", "a"), ln("http://example.com/div.html", "div"), ln("http://example.com/span.html", "span"), ln("http://example.com/p.html", "p")}},
		{"test_tags_attrs_wildcard_and_deny (denyTags div)", wildPage, links.Extractor{Unique: true, Tags: []string{"*"}, Attrs: []string{"*"}, DenyTags: []string{"div"}}, nil, nil,
			[]links.Link{ln("http://example.com/a.html", "a"), ln("http://example.com/span.html", "span"), ln("http://example.com/p.html", "p")}},
		{"test_tags_attrs_wildcard_and_deny (denyAttrs data-url)", wildPage, links.Extractor{Unique: true, Tags: []string{"*"}, Attrs: []string{"*"}, DenyAttrs: []string{"data-url"}}, nil, nil,
			[]links.Link{ln("http://example.com/a.html", "a"), ln("http://example.com/span.html", "span")}},
		{"test_tags_attrs_wildcard_and_deny (denyTags with listed tags)", wildPage, links.Extractor{Unique: true, Tags: []string{"a", "span"}, Attrs: []string{"*"}, DenyTags: []string{"span"}}, nil, nil,
			[]links.Link{ln("http://example.com/a.html", "a")}},
		{"test_tags_attrs_wildcard_and_deny (tags a, attrs *)", wildPage, links.Extractor{Unique: true, Tags: []string{"a"}, Attrs: []string{"*"}}, nil, nil,
			[]links.Link{ln("http://example.com/a.html", "a")}},
		// jscrawl's own, for the issue: WHATWG href cleaning, empty port, punycode.
		{"href with tab and newline", page{body: "<a href=\"/a\tb\n/c\r\n.html\">x</a><a href=\"http://example.org:/d\">d</a><a href=\"http://www.B\xfccher.de/e?q=\xe9\">e</a>", ct: "text/html; charset=iso-8859-1", url: "http://example.org/"},
			links.Extractor{Unique: true}, nil, nil,
			[]links.Link{ln("http://example.org/ab/c.html", "x"), ln("http://example.org/d", "d"), ln("http://www.xn--bcher-kva.de/e?q=%E9", "e")}},
	} {
		got := extract(t, tc.p, &tc.e, tc.process, tc.xpaths...)
		if !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("%s:\n got  %v\n want %v", tc.name, got, tc.want)
		}
	}
}

// TestScrapyMatches: test_linkextractors.py test_matches.
func TestScrapyMatches(t *testing.T) {
	t.Parallel()
	url1, url2 := "http://lotsofstuff.com/stuff1/index", "http://evenmorestuff.com/uglystuff/index"
	for _, tc := range []struct {
		e    links.Extractor
		urls []string
		want []bool
	}{
		{links.Extractor{Allow: []links.Matcher{re(t, "stuff1")}}, []string{url1, url2}, []bool{true, false}},
		{links.Extractor{Deny: []links.Matcher{re(t, "uglystuff")}}, []string{url1, url2}, []bool{true, false}},
		{links.Extractor{AllowDomains: []string{"evenmorestuff.com"}}, []string{url1, url2}, []bool{false, true}},
		{links.Extractor{DenyDomains: []string{"lotsofstuff.com"}}, []string{url1, url2}, []bool{false, true}},
		{links.Extractor{Allow: []links.Matcher{re(t, "blah1")}, Deny: []links.Matcher{re(t, "blah2")}, AllowDomains: []string{"blah1.com"}, DenyDomains: []string{"blah2.com"}},
			[]string{"http://blah1.com/blah1", "http://blah1.com/blah2", "http://blah2.com/blah1", "http://blah2.com/blah2"}, []bool{true, false, false, false}},
		// jscrawl: a domain written in Unicode matches its punycode host.
		{links.Extractor{AllowDomains: []string{"bücher.de"}}, []string{"http://www.xn--bcher-kva.de/", "http://www.bücher.de/", "http://buecher.de/"}, []bool{true, true, false}},
	} {
		tc.e.Prepare()
		for i, u := range tc.urls {
			if got := tc.e.Matches(u); got != tc.want[i] {
				t.Errorf("%+v matches %s = %v", tc.e, u, got)
			}
		}
	}
}
