package selector_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// TestXPathFunctions ports parsel's tests of its XPath extension functions:
// tests/test_xpathfuncs.py (has-class) and the TestExslt class of tests/test_selector.py
// (github.com/scrapy/parsel at 05b3d37). They run through xpath1's extension
// function registry (xpathfuncs.go).
func TestXPathFunctions(t *testing.T) {
	t.Parallel()
	const hasClass = `
    <p class="foo bar-baz">First</p>
    <p class="foo">Second</p>
    <p class="bar">Third</p>
    <p>Fourth</p>`
	const exslt = `
        <p><input name='a' value='1'/><input name='b' value='2'/></p>
        <div class="links">
        <a href="/first.html">first link</a>
        <a href="/second.html">second link</a>
        <a href="http://www.bayes.co.uk/xml/index.xml?/xml/utils/rechecker.xml">EXSLT match example</a>
        </div>`
	const event = `
        <div itemscope itemtype="http://schema.org/Event">
          <a itemprop="url" href="nba-miami-philidelphia-game3.html">
          NBA Eastern Conference First Round Playoff Tickets:
          <span itemprop="name"> Miami Heat at Philadelphia 76ers - Game 3 (Home Game 1) </span>
          </a>
          <meta itemprop="startDate" content="2016-04-21T20:00">
            Thu, 04/21/16
            8:00 p.m.
          <div itemprop="location" itemscope itemtype="http://schema.org/Place">
            <a itemprop="url" href="wells-fargo-center.html">
            Wells Fargo Center
            </a>
            <div itemprop="address" itemscope itemtype="http://schema.org/PostalAddress">
              <span itemprop="addressLocality">Philadelphia</span>,
              <span itemprop="addressRegion">PA</span>
            </div>
          </div>
          <div itemprop="offers" itemscope itemtype="http://schema.org/AggregateOffer">
            Priced from: <span itemprop="lowPrice">$35</span>
            <span itemprop="offerCount">1938</span> tickets left
          </div>
        </div>`
	for _, tc := range []struct {
		src, body, expr string
		want            []string
		err             string
	}{
		{"test_xpathfuncs.py::test_has_class_simple", hasClass, `//p[has-class("foo")]/text()`, []string{"First", "Second"}, ""},
		{"test_xpathfuncs.py::test_has_class_simple", hasClass, `//p[has-class("bar")]/text()`, []string{"Third"}, ""},
		{"test_xpathfuncs.py::test_has_class_simple", hasClass, `//p[has-class("foo","bar")]/text()`, nil, ""},
		{"test_xpathfuncs.py::test_has_class_simple", hasClass, `//p[has-class("foo","bar-baz")]/text()`, []string{"First"}, ""},
		{"test_xpathfuncs.py::test_has_class_error_no_args", `<p CLASS="foo">First</p>`, `has-class()`, nil, "has-class must have at least 1 argument"},
		{"test_xpathfuncs.py::test_has_class_error_invalid_arg_type", `<p CLASS="foo">First</p>`, `has-class(.)`, nil, "has-class arguments must be strings"},
		{"test_xpathfuncs.py::test_has_class_unicode", `<p CLASS="fóó">First</p>`, `//p[has-class("fóó")]/text()`, []string{"First"}, ""},
		{"test_xpathfuncs.py::test_has_class_uppercase", `<p CLASS="foo">First</p>`, `//p[has-class("foo")]/text()`, []string{"First"}, ""},
		{"test_xpathfuncs.py::test_has_class_newline", "<p CLASS=\"foo\n    bar\">First</p>", `//p[has-class("foo")]/text()`, []string{"First"}, ""},
		{"test_xpathfuncs.py::test_has_class_tab", "<p CLASS=\"foo\tbar\">First</p>", `//p[has-class("foo")]/text()`, []string{"First"}, ""},
		{"test_xpathfuncs.py::test_set_xpathfunc (unregistered)", `<p CLASS="foo">First</p>`, `myfunc()`, nil, "myfunc"},
		{"test_selector.py::TestExslt::test_regexp", exslt, `//input[re:test(@name, "[A-Z]+", "i")]`, []string{`<input name="a" value="1">`, `<input name="b" value="2">`}, ""},
		{"test_selector.py::TestExslt::test_regexp", exslt, `//a[re:test(@href, "\.html$")]/text()`, []string{"first link", "second link"}, ""},
		{"test_selector.py::TestExslt::test_regexp", exslt, `//a[re:test(@href, "first")]/text()`, []string{"first link"}, ""},
		{"test_selector.py::TestExslt::test_regexp", exslt, `//a[re:test(@href, "second")]/text()`, []string{"second link"}, ""},
		{"test_selector.py::TestExslt::test_regexp", exslt, `re:match(//a[re:test(@href, "\.xml$")]/@href,"(\w+):\/\/([^/:]+)(:\d*)?([^# ]*)")/text()`,
			[]string{"http://www.bayes.co.uk/xml/index.xml?/xml/utils/rechecker.xml", "http", "www.bayes.co.uk", "", "/xml/index.xml?/xml/utils/rechecker.xml"}, ""},
		{"test_selector.py::TestExslt::test_regexp", exslt, `re:replace(//a[re:test(@href, "\.xml$")]/@href,"(\w+)://(.+)(\.xml)", "","https://\2.html")`,
			[]string{"https://www.bayes.co.uk/xml/index.xml?/xml/utils/rechecker.html"}, ""},
		{"test_selector.py::TestExslt::test_set", event, `//div[@itemtype="http://schema.org/Event"]//@itemprop`,
			[]string{"url", "name", "startDate", "location", "url", "address", "addressLocality", "addressRegion", "offers", "lowPrice", "offerCount"}, ""},
		{"test_selector.py::TestExslt::test_set", event, `set:difference(
            //div[@itemtype="http://schema.org/Event"]//@itemprop,
            //div[@itemtype="http://schema.org/Event"]//*[@itemscope]/*/@itemprop
            )`, []string{"url", "name", "startDate", "location", "offers"}, ""},
		{"test_selector.py::TestExslt::test_set", event, `set:intersection(
            //div[@itemtype="http://schema.org/Event"]//@itemprop,
            //div[@itemtype="http://schema.org/Event"]//*[@itemscope]/*/@itemprop
            )`, []string{"url", "address", "addressLocality", "addressRegion", "lowPrice", "offerCount"}, ""},
		// Not parsel's: re:match with "g", re:replace with "g", set:has-same-node.
		{"jscrawl", "<p>a1 b2</p>", `re:match(//p, "[a-z]\d", "g")/text()`, []string{"a1", "b2"}, ""},
		{"jscrawl", "<p>a1 b2</p>", `re:replace(//p, "\d", "g", "#")`, []string{"a# b#"}, ""},
		{"jscrawl", "<p>a1 b2</p>", `re:replace(//p, "\d", "", "#")`, []string{"a# b2"}, ""},
		{"jscrawl", "<p>a</p><b>c</b>", `set:has-same-node(//p, //*)`, []string{"1"}, ""},
		{"jscrawl", "<p>a</p>", `nope:test(//p, "a")`, nil, "Undefined namespace prefix"},
		// set:leading and set:trailing (EXSLT; lxml has them too).
		{"jscrawl", "<i>1</i><i>2</i><i>3</i>", `set:leading(//i, //i[2])/text()`, []string{"1"}, ""},
		{"jscrawl", "<i>1</i><i>2</i><i>3</i>", `set:trailing(//i, //i[2])/text()`, []string{"3"}, ""},
		{"jscrawl", "<i>1</i><i>2</i><b>3</b>", `count(set:leading(//i, //b))`, []string{"0.0"}, ""},
		{"jscrawl", "<i>1</i><i>2</i>", `count(set:trailing(//i, //nope))`, []string{"2.0"}, ""},
		// The namespace:: axis (an HTML element has only xml in scope, as in lxml).
		{"jscrawl", "<p>a</p>", `//p/namespace::*`, []string{"http://www.w3.org/XML/1998/namespace"}, ""},
		{"jscrawl", "<p>a</p>", `name(//p/namespace::*)`, []string{"xml"}, ""},
		{"jscrawl", "<p>a</p>", `count(//p/namespace::nope)`, []string{"0.0"}, ""},
	} {
		d, err := selector.ParseText(tc.body)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := d.XPath(tc.expr)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %s: error %v, want one containing %q", tc.src, tc.expr, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s: %v", tc.src, tc.expr, err)
			continue
		}
		if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %s\n got %q\nwant %q", tc.src, tc.expr, got, tc.want)
		}
	}
}
