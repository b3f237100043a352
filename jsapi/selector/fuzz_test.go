package selector_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// fuzzQueries are the CSS and XPath queries every fuzzed page is put through, besides the
// fuzzer's own: the shapes spiders use (pseudo-elements, attributes, tbody, the parsel
// extension functions, axes).
var fuzzCSS = []string{
	"*", "a::attr(href)", "p::text", "div *::text", "table tr td", "ul > li:nth-child(2n+1)",
	"head meta[charset]", "[class~=x] + b ~ i", ":not(p)", "title::text", "*::attr(*)",
}

var fuzzXPath = []string{
	"//*", "//a/@href", "//text()", "//table/tbody/tr", "//p[has-class('x')]",
	"string(//title)", "count(//*)", "//*[re:test(@id, '^a')]", "//li[last()]/preceding-sibling::*",
	"//*[contains(normalize-space(.), 'x')]", "set:distinct(//@*)", "name(/*)", "//comment()",
	"//processing-instruction()", "string(//processing-instruction()/following::node()[1])",
}

// fuzzBudget is how long one page may take through the parsers and every query: far above
// what a page of at most fuzzMaxPage bytes costs (milliseconds), below a hang.
const (
	fuzzBudget  = 10 * time.Second
	fuzzMaxPage = 16 << 10
)

// FuzzSelectors feeds arbitrary bytes as a page (HTML and XML, with and without a charset)
// and arbitrary CSS and XPath text through the parser and the selectors that
// response.css()/xpath() use, and asserts no panic and a bounded time. CI runs it for a
// bounded time (.ci/run).
func FuzzSelectors(f *testing.F) {
	for _, seed := range []struct{ page, css, xpath string }{
		{`<html><head><title>T</title></head><body><p class="x">a<b>b</b></p><a href="/u">l</a></body></html>`, "p.x", "//p/b"},
		{`<table><tr><td>1<td>2</table><ul><li>a<li>b<li>c</ul>`, "td::text", "//td[2]"},
		{`<meta charset="iso-8859-1"><p>caf` + "\xe9" + `</p>`, "p", "//p/text()"},
		{`<?xml version="1.0"?><r xmlns:x="urn:x"><x:a id="a1">t</x:a><!-- c --></r>`, "a", "//*[local-name()='a']"},
		{`<?xml version="1.0"?><?xml-stylesheet href="s.xsl"?><r><?pi  d ?>t<?e ?></r><?z?>`, "r", "//processing-instruction('pi')"},
		// Deep nesting: 300 levels, already slow for the XPath engine of today
		// (antchfx's last() is cubic here: 700 levels took 3–12 s under -race, and its
		// mutations kept the fuzz's workers past -fuzztime in CI).
		{strings.Repeat("<div>", 300) + "deep" + strings.Repeat("</div>", 300), "div div", "//div[last()]"},
		{"<p <a href='\x00'>&#x0;&amp&unknown;</p></a><svg><foreignObject><p>x</svg><template><b>t</template>", "b", "//svg//p"},
		{"\xef\xbb\xbf<frameset><frame src=x></frameset><noscript><i>n</i></noscript>", "i::text", "//noscript"},
		{"", "", ""},
	} {
		f.Add([]byte(seed.page), seed.css, seed.xpath)
	}
	f.Fuzz(func(t *testing.T, page []byte, css, xp string) {
		if len(page) > fuzzMaxPage || len(css) > 200 || len(xp) > 200 {
			t.Skip()
		}
		start := time.Now()
		// A page past the budget is a hang: stop the process with the input, which the
		// fuzzer saves as a crasher (a fuzz worker stuck in one input is never reported).
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(2 * fuzzBudget):
				panic(fmt.Sprintf("a %d-byte page with %q and %q ran past %s: %q", len(page), css, xp, 2*fuzzBudget, page))
			}
		}()
		for _, ct := range []string{"text/html", "text/html; charset=windows-1252", "application/xml"} {
			var doc *selector.Document
			var err error
			if ct == "application/xml" {
				doc, err = selector.ParseXML(page, ct)
			} else {
				doc, err = selector.Parse(page, ct)
			}
			if err != nil {
				continue // an error is fine: a panic or a hang is not
			}
			root := []selector.Result{doc.Root()}
			for _, q := range append([]string{css}, fuzzCSS...) {
				rs, err := selector.Select(root, q)
				if err != nil {
					continue
				}
				use(rs)
				if len(rs) > 0 {
					rs2, _ := selector.Select(rs[:1], q)
					use(rs2)
				}
			}
			for _, q := range append([]string{xp}, fuzzXPath...) {
				rs, err := selector.XPath(root, q, nil)
				if err != nil {
					continue
				}
				use(rs)
			}
		}
		if d := time.Since(start); d > fuzzBudget {
			t.Fatalf("a %d-byte page with %q and %q took %s", len(page), css, xp, d)
		}
	})
}

// use reads every result as jsapi does: get(), the text and the attributes.
func use(rs []selector.Result) {
	_ = selector.GetAll(rs)
	for _, r := range rs {
		_ = r.Text()
		r.EachAttr(func(string, string) {})
	}
}
