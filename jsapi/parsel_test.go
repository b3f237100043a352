package jsapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// newSelectorREPL returns a REPL whose globals include Selector and SelectorList, for
// table tests that state parsel's cases as JS expressions.
func newSelectorREPL(t *testing.T) *jsapi.REPL {
	t.Helper()
	prog, err := runtime.BundleSource("s.js", `import { Selector, SelectorList } from "jscrawl";
globalThis.Selector = Selector;
globalThis.SelectorList = SelectorList;
globalThis.S = (text, type) => new Selector({ text, type });
export default class S { name = "s"; }`,
		runtime.BundleOptions{External: jsapi.NativeModules})
	if err != nil {
		t.Fatal(err)
	}
	sp := bindProgram(t, prog, types.NewSettings())
	r, err := sp.Dev().NewREPL(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// parselCase is one assertion of parsel's test suite stated in JS: expr is evaluated
// with JSON.stringify and compared with want, or must throw an error whose text contains
// throws.
type parselCase struct {
	src    string // parsel test file and test name
	expr   string
	want   string
	throws string
}

func runParselCases(t *testing.T, cases []parselCase) {
	t.Helper()
	r := newSelectorREPL(t)
	for _, tc := range cases {
		if tc.throws != "" {
			_, err := r.Eval(context.Background(), tc.expr)
			if err == nil || !strings.Contains(err.Error(), tc.throws) {
				t.Errorf("%s: %s\n got error %v\nwant one containing %q", tc.src, tc.expr, err, tc.throws)
			}
			continue
		}
		got, err := r.Eval(context.Background(), "JSON.stringify("+tc.expr+")")
		if err != nil {
			t.Errorf("%s: %s: %v", tc.src, tc.expr, err)
			continue
		}
		// The REPL shows the string quoted the JS way.
		if got != quoteJS(tc.want) {
			t.Errorf("%s: %s\n got %s\nwant %s", tc.src, tc.expr, got, quoteJS(tc.want))
		}
	}
}

// quoteJS quotes s as the REPL shows a string.
func quoteJS(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return "'" + r.Replace(s) + "'"
}

// TestParselSelector ports the cases of parsel's tests/test_selector.py that jscrawl's
// API can state (github.com/scrapy/parsel at 05b3d37); docs/from-scrapy.md lists the
// others.
func TestParselSelector(t *testing.T) {
	t.Parallel()
	const simple = `"<p><input name='a'value='1'/><input name='b'value='2'/></p>"`
	const ul = `'<ul><li id="1">1</li><li id="2">2</li></ul>'`
	const ul3 = `'<ul><li id="1">1</li><li id="2">2</li><li id="3">3</li></ul>'`
	const nested = "`<body>\n <div class='one'>\n  <ul>\n   <li>one</li><li>two</li>\n  </ul>\n </div>\n <div class='two'>\n  <ul>\n   <li>four</li><li>five</li><li>six</li>\n  </ul>\n </div>\n</body>`"
	const reBody = "`<div>Name: Mary\n <ul>\n  <li>Name: John</li>\n  <li>Age: 10</li>\n  <li>Name: Paul</li>\n  <li>Age: 20</li>\n </ul>\n Age: 20\n</div>`"
	const script = `'<script>{"foo":"bar &amp; &quot;baz&quot;"}</script>'`
	runParselCases(t, []parselCase{
		// test_selector.py::test_simple_selection
		{src: "test_simple_selection", expr: `S(` + simple + `).xpath("//input").length`, want: "2"},
		{src: "test_simple_selection", expr: `S(` + simple + `).xpath("//input").extract().join() === S(` + simple + `).xpath("//input").map(x => x.extract()).join()`, want: "true"},
		{src: "test_simple_selection", expr: `S(` + simple + `).xpath("//input[@name='a']/@name").map(x => x.extract())`, want: `["a"]`},
		{src: "test_simple_selection", expr: `S(` + simple + `).xpath("number(concat(//input[@name='a']/@value, //input[@name='b']/@value))").map(x => x.extract())`, want: `["12.0"]`},
		{src: "test_simple_selection", expr: `S(` + simple + `).xpath("concat('xpath', 'rules')").extract()`, want: `["xpathrules"]`},
		{src: "test_simple_selection", expr: `S(` + simple + `).xpath("concat(//input[@name='a']/@value, //input[@name='b']/@value)").map(x => x.extract())`, want: `["12"]`},
		// test_selector.py::test_accessing_attributes
		{src: "test_accessing_attributes", expr: "S(`<html lang=\"en\" version=\"1.0\"><body><ul id=\"some-list\" class=\"list-cls\" class=\"list-cls\"><li class=\"item-cls\" id=\"list-item-1\"><li class=\"item-cls active\" id=\"list-item-2\"><li class=\"item-cls\" id=\"list-item-3\"></ul></body></html>`).attrib", want: `{"lang":"en","version":"1.0"}`},
		{src: "test_accessing_attributes", expr: "S(`<ul id=\"some-list\" class=\"list-cls\" class=\"list-cls\"><li class=\"item-cls\" id=\"list-item-1\"><li class=\"item-cls active\" id=\"list-item-2\"></ul>`).css(\"ul\")[0].attrib", want: `{"id":"some-list","class":"list-cls"}`},
		{src: "test_accessing_attributes", expr: "S(`<ul id=\"some-list\" class=\"list-cls\"><li class=\"item-cls\" id=\"list-item-1\"><li class=\"item-cls active\" id=\"list-item-2\"></ul>`).css(\"li\").attrib", want: `{"class":"item-cls","id":"list-item-1"}`},
		{src: "test_accessing_attributes", expr: "S(`<ul><li></ul>`).css(\"body\").attrib", want: `{}`},
		{src: "test_accessing_attributes", expr: "S(`<ul><li></ul>`).css(\"non-existing-element\").attrib", want: `{}`},
		{src: "test_accessing_attributes", expr: "S(`<ul id=\"some-list\"><li class=\"item-cls\" id=\"list-item-1\"><li class=\"item-cls active\" id=\"list-item-2\"></ul>`).css(\"li\").map(e => e.attrib)", want: `[{"class":"item-cls","id":"list-item-1"},{"class":"item-cls active","id":"list-item-2"}]`},
		// test_selector.py::test_extract_first
		{src: "test_extract_first", expr: `S(` + ul + `).xpath("//ul/li/text()").extract_first() === S(` + ul + `).xpath("//ul/li/text()").extract()[0]`, want: "true"},
		{src: "test_extract_first", expr: `S(` + ul + `).xpath('//ul/li[@id="1"]/text()').extract_first()`, want: `"1"`},
		{src: "test_extract_first", expr: `S(` + ul + `).xpath("//ul/li[2]/text()").extract_first()`, want: `"2"`},
		{src: "test_extract_first", expr: `S(` + ul + `).xpath('/ul/li[@id="doesnt-exist"]/text()').extract_first()`, want: `null`},
		{src: "test_extract_first", expr: `S(` + ul + `).xpath('/ul/li[@id="doesnt-exist"]/text()').extractFirst()`, want: `null`},
		// test_selector.py::test_extract_first_default
		{src: "test_extract_first_default", expr: `S(` + ul + `).xpath("//div/text()").extract_first("missing")`, want: `"missing"`},
		// test_selector.py::test_selector_get_alias
		{src: "test_selector_get_alias", expr: `S(` + ul3 + `).xpath("//ul/li[position()>1]")[0].get()`, want: `"<li id=\"2\">2</li>"`},
		{src: "test_selector_get_alias", expr: `S(` + ul3 + `).xpath("//ul/li[position()>1]/text()")[0].get()`, want: `"2"`},
		// test_selector.py::test_selector_getall_alias
		{src: "test_selector_getall_alias", expr: `S(` + ul3 + `).xpath("//ul/li[position()>1]")[0].getall()`, want: `["<li id=\"2\">2</li>"]`},
		{src: "test_selector_getall_alias", expr: `S(` + ul3 + `).xpath("//ul/li[position()>1]/text()")[0].getall()`, want: `["2"]`},
		// test_selector.py::test_selectorlist_get_alias
		{src: "test_selectorlist_get_alias", expr: `S(` + ul3 + `).xpath("//ul/li").get()`, want: `"<li id=\"1\">1</li>"`},
		{src: "test_selectorlist_get_alias", expr: `S(` + ul3 + `).xpath("//ul/li/text()").get()`, want: `"1"`},
		// test_selector.py::test_re_first
		{src: "test_re_first", expr: `S(` + ul + `).xpath("//ul/li/text()").re_first("\\d") === S(` + ul + `).xpath("//ul/li/text()").re("\\d")[0]`, want: "true"},
		{src: "test_re_first", expr: `S(` + ul + `).xpath('//ul/li[@id="1"]/text()').re_first("\\d")`, want: `"1"`},
		{src: "test_re_first", expr: `S(` + ul + `).xpath("//ul/li[2]/text()").re_first("\\d")`, want: `"2"`},
		{src: "test_re_first", expr: `S(` + ul + `).xpath("/ul/li/text()").re_first("\\w+")`, want: `null`},
		{src: "test_re_first", expr: `S(` + ul + `).xpath('/ul/li[@id="doesnt-exist"]/text()').re_first("\\d")`, want: `null`},
		{src: "test_re_first", expr: `S(` + ul + `).re_first('id="(\\d+)')`, want: `"1"`},
		{src: "test_re_first", expr: `S(` + ul + `).re_first("foo")`, want: `null`},
		{src: "test_re_first", expr: `S(` + ul + `).re_first("foo", "bar")`, want: `"bar"`},
		{src: "test_re_first", expr: `S(` + ul + `).reFirst("foo", "bar")`, want: `"bar"`},
		// test_selector.py::test_extract_first_re_default
		{src: "test_extract_first_re_default", expr: `S(` + ul + `).xpath("//div/text()").re_first("\\w+", "missing")`, want: `"missing"`},
		{src: "test_extract_first_re_default", expr: `S(` + ul + `).xpath("/ul/li/text()").re_first("\\w+", "missing")`, want: `"missing"`},
		// test_selector.py::test_select_unicode_query
		{src: "test_select_unicode_query", expr: `S("<p><input name='\xa9' value='1'/></p>").xpath('//input[@name="©"]/@value').extract()`, want: `["1"]`},
		// test_selector.py::test_list_elements_type
		{src: "test_list_elements_type", expr: `S("<p>test<p>").xpath("//p")[0] instanceof Selector && S("<p>test<p>").css("p")[0] instanceof Selector`, want: "true"},
		// test_selector.py::test_boolean_result
		{src: "test_boolean_result", expr: `S(` + simple + `).xpath("//input[@name='a']/@name='a'").extract()`, want: `["1"]`},
		{src: "test_boolean_result", expr: `S(` + simple + `).xpath("//input[@name='a']/@name='n'").extract()`, want: `["0"]`},
		// test_selector.py::test_differences_parsing_xml_vs_html
		{src: "test_differences_parsing_xml_vs_html", expr: `S('<div><img src="a.jpg"><p>Hello</div>', "html").xpath("//div").extract()`, want: `["<div><img src=\"a.jpg\"><p>Hello</p></div>"]`},
		{src: "test_differences_parsing_xml_vs_html", expr: `S('<div><img src="a.jpg"><p>Hello</div>', "xml").xpath("//div").extract()`, want: `["<div><img src=\"a.jpg\"><p>Hello</p></img></div>"]`},
		// test_selector.py::test_error_for_unknown_selector_type, test_invalid_type
		{src: "test_error_for_unknown_selector_type", expr: `S("", "_na_")`, throws: `type must be`},
		{src: "test_invalid_type", expr: `S("", "xhtml")`, throws: `type must be`},
		// test_selector.py::test_bool
		{src: "test_bool", expr: `S('<a href="" >false</a><a href="nonempty">true</a>').xpath("//a/@href").map(s => s.extract())`, want: `["","nonempty"]`},
		// test_selector.py::test_slicing
		{src: "test_slicing", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p")[2] instanceof Selector`, want: "true"},
		{src: "test_slicing", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").slice(2, 3) instanceof SelectorList`, want: "true"},
		{src: "test_slicing", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").slice(0, 2) instanceof SelectorList`, want: "true"},
		{src: "test_slicing", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").slice(2, 3).extract()`, want: `["<p>3</p>"]`},
		{src: "test_slicing", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").slice(1, 3).extract()`, want: `["<p>2</p>","<p>3</p>"]`},
		// jscrawl (issue 12): the other ways to take part of a list keep a SelectorList.
		{src: "issue 12 (slices)", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").slice(-2).css("::text").getall()`, want: `["2","3"]`},
		{src: "issue 12 (slices)", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").at(-1).get()`, want: `"<p>3</p>"`},
		{src: "issue 12 (slices)", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").filter((s, i) => i !== 1).xpath("text()").getall()`, want: `["1","3"]`},
		{src: "issue 12 (slices)", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").map(s => s.css("::text")[0]).get()`, want: `"1"`},
		{src: "issue 12 (slices)", expr: `S("<div><p>1</p><p>2</p><p>3</p></div>").css("p").map(s => s.css("::text").get())`, want: `["1","2","3"]`},
		{src: "issue 12 (slices)", expr: `S("<div><p>1</p></div>").css("p").filter(() => false) instanceof SelectorList`, want: "true"},
		// test_selector.py::test_nested_selectors, test_selectorlist_getall_alias
		{src: "test_nested_selectors", expr: `S(` + nested + `).xpath('//div[@class="two"]').xpath("//li").extract()`, want: `["<li>one</li>","<li>two</li>","<li>four</li>","<li>five</li>","<li>six</li>"]`},
		{src: "test_nested_selectors", expr: `S(` + nested + `).xpath('//div[@class="two"]').xpath("./ul/li").extract()`, want: `["<li>four</li>","<li>five</li>","<li>six</li>"]`},
		{src: "test_nested_selectors", expr: `S(` + nested + `).xpath('//div[@class="two"]').xpath(".//li").getall()`, want: `["<li>four</li>","<li>five</li>","<li>six</li>"]`},
		{src: "test_nested_selectors", expr: `S(` + nested + `).xpath('//div[@class="two"]').xpath("./li").getall()`, want: `[]`},
		// test_selector.py::test_mixed_nested_selectors
		{src: "test_mixed_nested_selectors", expr: "S(`<body><div id=1>not<span>me</span></div><div class=\"dos\"><p>text</p><a href='#'>foo</a></div></body>`).xpath('//div[@id=\"1\"]').css(\"span::text\").extract()", want: `["me"]`},
		{src: "test_mixed_nested_selectors", expr: "S(`<body><div id=1>not<span>me</span></div></body>`).css(\"#1\").xpath(\"./span/text()\").extract()", want: `["me"]`},
		// test_selector.py::test_dont_strip
		{src: "test_dont_strip", expr: `S('<div>fff: <a href="#">zzz</a></div>').xpath("//text()").extract()`, want: `["fff: ","zzz"]`},
		// test_selector.py::test_re
		{src: "test_re", expr: `S(` + reBody + `).xpath("//ul/li").re(/Name: (\w+)/)`, want: `["John","Paul"]`},
		{src: "test_re", expr: `S(` + reBody + `).xpath("//ul/li").re("Age: (\\d+)")`, want: `["10","20"]`},
		{src: "test_re", expr: `S("foobar").re("(?P<extract>foo)")`, want: `["foo"]`},
		{src: "test_re", expr: `S("foobar").re("(?P<extract>baz)")`, want: `[]`},
		{src: "test_re", expr: `S("baz").re("(?P<extract>foo)|(?P<bar>baz)")`, want: `[]`},
		// test_selector.py::test_re_replace_entities
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script/text()").re('{"foo":(.*)}')`, want: `["\"bar &amp; \"baz\"\""]`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script").re('{"foo":(.*)}')`, want: `["\"bar &amp; \"baz\"\""]`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script/text()")[0].re('{"foo":(.*)}')`, want: `["\"bar &amp; \"baz\"\""]`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script")[0].re('{"foo":(.*)}')`, want: `["\"bar &amp; \"baz\"\""]`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script").re_first('{"foo":(.*)}')`, want: `"\"bar &amp; \"baz\"\""`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script")[0].re_first('{"foo":(.*)}')`, want: `"\"bar &amp; \"baz\"\""`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script/text()").re('{"foo":(.*)}', false)`, want: `["\"bar &amp; &quot;baz&quot;\""]`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script")[0].re('{"foo":(.*)}', false)`, want: `["\"bar &amp; &quot;baz&quot;\""]`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script/text()").re_first('{"foo":(.*)}', null, false)`, want: `"\"bar &amp; &quot;baz&quot;\""`},
		{src: "test_re_replace_entities", expr: `S(` + script + `).xpath("//script")[0].re_first('{"foo":(.*)}', null, false)`, want: `"\"bar &amp; &quot;baz&quot;\""`},
		// test_selector.py::test_re_intl
		{src: "test_re_intl", expr: `S("<div>Evento: cumplea\xf1os</div>").xpath("//div").re("Evento: (\\w+)")`, want: `["cumpleaños"]`},
		// test_selector.py::test_selector_over_text
		{src: "test_selector_over_text", expr: `S("<root>lala</root>").extract()`, want: `"<html><body><root>lala</root></body></html>"`},
		{src: "test_selector_over_text", expr: `S("<root>lala</root>", "xml").extract()`, want: `"<root>lala</root>"`},
		{src: "test_selector_over_text", expr: `S("<root>lala</root>", "xml").xpath(".").extract()`, want: `["<root>lala</root>"]`},
		// test_selector.py::test_invalid_xpath, test_invalid_xpath_unicode
		{src: "test_invalid_xpath", expr: `S("<html></html>").xpath("//test[@foo='bar]")`, throws: "//test[@foo='bar]"},
		{src: "test_invalid_xpath_unicode", expr: `S("<html></html>").xpath("//test[@foo='\u0431ar]")`, throws: "//test[@foo='\u0431ar]"},
		// test_selector.py::test_http_header_encoding_precedence
		{src: "test_http_header_encoding_precedence", expr: "S(`<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"></head><body><span id=\"blank\">\u00a3</span></body></html>`).xpath(\"//span[@id='blank']/text()\").extract()", want: `["£"]`},
		// test_selector.py::test_empty_bodies_shouldnt_raise_errors
		{src: "test_empty_bodies_shouldnt_raise_errors", expr: `S("").xpath("//text()").extract()`, want: `[]`},
		// test_selector.py::test_null_bytes_shouldnt_raise_errors
		{src: "test_null_bytes_shouldnt_raise_errors", expr: `S("<root>pre\x00post</root>").xpath("//text()").extract().length`, want: `1`},
		// test_selector.py::test_replacement_char_from_badly_encoded_body
		{src: "test_replacement_char_from_badly_encoded_body", expr: `S("<html><p>an Jos\ufffd de</p><html>").xpath("//text()").extract()`, want: `["an Jos` + "\ufffd" + ` de"]`},
		// test_selector.py::test_select_on_unevaluable_nodes
		{src: "test_select_on_unevaluable_nodes", expr: `S('<span class="big">some text</span>').xpath("//text()").extract()`, want: `["some text"]`},
		{src: "test_select_on_unevaluable_nodes", expr: `S('<span class="big">some text</span>').xpath("//text()").xpath(".//b").extract()`, want: `[]`},
		{src: "test_select_on_unevaluable_nodes", expr: `S('<span class="big">some text</span>').xpath("//span/@class").extract()`, want: `["big"]`},
		{src: "test_select_on_unevaluable_nodes", expr: `S('<span class="big">some text</span>').xpath("//span/@class").xpath(".//text()").extract()`, want: `[]`},
		// test_selector.py::test_select_on_text_nodes
		{src: "test_select_on_text_nodes", expr: `S("<div><b>Options:</b>opt1</div><div><b>Other</b>opt2</div>").xpath("//div/descendant::text()[preceding-sibling::b[contains(text(), 'Options')]]").extract()`, want: `["opt1"]`},
		{src: "test_select_on_text_nodes", expr: `S("<div><b>Options:</b>opt1</div><div><b>Other</b>opt2</div>").xpath("//div/descendant::text()/preceding-sibling::b[contains(text(), 'Options')]").extract()`, want: `["<b>Options:</b>"]`},
		// test_selector.py::test_replacement_null_char_from_body
		{src: "test_replacement_null_char_from_body", expr: `S("<html>\x00<body><p>Grainy</p></body></html>").extract()`, want: `"<html><body><p>Grainy</p></body></html>"`},
		// test_selector.py::test_deep_nesting (282 nested spans, then a table)
		{src: "test_deep_nesting", expr: "(() => { const s = S(`<html><body>${\"<span>\".repeat(282)}hello world${\"</span>\".repeat(282)}<table><tr><td>some test</td></tr></table></body></html>`); return [s.css(\"span\").length, s.css(\"td\").length]; })()", want: `[282,1]`},
	})
}

// TestParselSelectorTypes ports the cases of parsel's tests/test_selector.py about
// selector types (JSON, text) and invalid CSS (tests/test_selector_csstranslator.py) that
// jscrawl's API can state.
func TestParselSelectorTypes(t *testing.T) {
	t.Parallel()
	runParselCases(t, []parselCase{
		// test_selector.py::test_default_type: "foo" is HTML (css works on it).
		{src: "test_default_type", expr: `S("foo").css("*").length > 0`, want: "true"},
		// test_selector.py::test_text_or_root_is_required, test_check_text_argument_type
		{src: "test_text_or_root_is_required", expr: `new Selector()`, throws: "new Selector({ text, type })"},
		{src: "test_check_text_argument_type", expr: `new Selector({ text: 12 })`, throws: "new Selector({ text, type })"},
		// test_selector.py::test_xml_entity_expansion: an undefined entity stays a reference.
		{src: "test_xml_entity_expansion", expr: `S('<?xml version="1.0" encoding="ISO-8859-1"?><!DOCTYPE foo [ <!ELEMENT foo ANY > <!ENTITY xxe SYSTEM "file:///etc/passwd" >]><foo>&xxe;</foo>', "xml").extract()`, want: `"<foo>&xxe;</foo>"`},
		{src: "issue 12 (XML undefined entities)", expr: `S('<foo a="x&yy;z">1 &yy; 2 &amp;yy;</foo>', "xml").get()`, want: `"<foo a=\"x&amp;yy;z\">1 &yy; 2 &amp;yy;</foo>"`},
		{src: "issue 12 (XML undefined entities)", expr: `S('<foo a="x&yy;z">1 &yy; 2 &amp;yy;</foo>', "xml").xpath("//text() | //@a").getall()`, want: `["x&yy;z","1 "," 2 &yy;"]`},
		{src: "issue 12 (HTML undefined entities)", expr: `S("<p>&foo; x &bar</p>").css("p::text").get()`, want: `"&foo; x &bar"`},
		// test_selector.py::test_json_type
		{src: "test_json_type", expr: `S("1", "json").jmespath("@")`, want: "1"},
		// test_selector.py::test_json_xpath, test_json_css
		{src: "test_json_xpath", expr: `S("1").xpath("//*")`, throws: `cannot use xpath on a Selector of type "json"`},
		{src: "test_json_css", expr: `S("1").css("*")`, throws: `cannot use css on a Selector of type "json"`},
		// test_selector.py::test_invalid_json
		{src: "test_invalid_json", expr: `S("<html/>", "json").jmespath("@")`, want: "null"},
		// test_selector.py::test_remove_namespace_json
		{src: "test_remove_namespace_json", expr: `(S('{"key": "value"}', "json").removeNamespaces(), "ok")`, want: `"ok"`},
		// test_selector.py::test_attrib_empty_json
		{src: "test_attrib_empty_json", expr: `S('{"key": "value"}', "json").attrib`, want: "{}"},
		// jscrawl: JSON text without a type is JSON, its strings' markup untouched.
		{src: "issue 12", expr: `S('{"a": "<b>x</b>", "n": [1, {"k": true}]}').jmespath("a")`, want: `"<b>x</b>"`},
		{src: "issue 12", expr: `S('{"a": "<b>x</b>", "n": [1, {"k": true}]}').jmespath("n[1]")`, want: `{"k":true}`},
		{src: "issue 12", expr: `S('{"a": 1}', "text").jmespath("a")`, want: "1"},
		// test_selector_csstranslator.py::test_attr_function_exception
		{src: "test_attr_function_exception", expr: `S("<p>").css("::attr(12)")`, throws: `::attr(12)`},
		{src: "test_attr_function_exception", expr: `S("<p>").css("::attr(34test)")`, throws: `::attr(34test)`},
		{src: "test_attr_function_exception", expr: `S("<p>").css("::attr(@href)")`, throws: `::attr(@href)`},
		// test_selector_csstranslator.py::test_pseudo_function_exception
		{src: "test_pseudo_function_exception", expr: `S("<p>").css("::attribute(12)")`, throws: `unknown`},
		{src: "test_pseudo_function_exception", expr: `S("<p>").css("::text()")`, throws: `unknown`},
		// test_selector_csstranslator.py::test_unknown_pseudo_element
		{src: "test_unknown_pseudo_element", expr: `S("<p>").css("::text-node")`, throws: `::text-node is unknown`},
		// test_selector_csstranslator.py::test_unknown_pseudo_class
		{src: "test_unknown_pseudo_class", expr: `S("<p>").css(":text")`, throws: `invalid CSS selector`},
		{src: "test_unknown_pseudo_class", expr: `S("<p>").css(":attribute(name)")`, throws: `invalid CSS selector`},
	})
}

// TestParselNamespaces ports the namespace cases of parsel's tests/test_selector.py.
func TestParselNamespaces(t *testing.T) {
	t.Parallel()
	const simple = "`<test xmlns:somens=\"http://scrapy.org\">\n <somens:a id=\"foo\">take this</a>\n <a id=\"bar\">found</a>\n</test>`"
	const multiple = "`<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<BrowseNode xmlns=\"http://webservices.amazon.com/AWSECommerceService/2005-10-05\"\n xmlns:b=\"http://somens.com\"\n xmlns:p=\"http://www.scrapy.org/product\" >\n <b:Operation>hello</b:Operation>\n <TestTag b:att=\"value\"><Other>value</Other></TestTag>\n <p:SecondTestTag><material>iron</material><price>90</price><p:name>Dried Rose</p:name></p:SecondTestTag>\n</BrowseNode>`"
	// x(body, ...calls) is the selector of body with xmlns (and in "all" also p and b)
	// registered, as the tests do before their assertions.
	const x = `((all) => { const x = S(` + multiple + `, "xml"); x.registerNamespace("xmlns", "http://webservices.amazon.com/AWSECommerceService/2005-10-05"); if (all) { x.registerNamespace("p", "http://www.scrapy.org/product"); x.registerNamespace("b", "http://somens.com"); } return x; })`
	const remove = "`<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"en-US\" xmlns:media=\"http://search.yahoo.com/mrss/\">\n  <link type=\"text/html\"/>\n  <entry>\n    <link type=\"text/html\"/>\n  </entry>\n  <link type=\"application/atom+xml\"/>\n</feed>`"
	const removeAttrs = "`<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns:atom=\"http://www.w3.org/2005/Atom\" xml:lang=\"en-US\" xmlns:media=\"http://search.yahoo.com/mrss/\">\n  <link atom:type=\"text/html\"/>\n  <entry>\n    <link atom:type=\"text/html\"/>\n  </entry>\n  <link atom:type=\"application/atom+xml\"/>\n</feed>`"
	const embedded = "`<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  <link type=\"text/html\"/>\n  <entry>\n    <link type=\"text/html\"/>\n  </entry>\n  <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" viewBox=\"0 0 100 100\">\n    <linearGradient id=\"gradient\">\n      <stop class=\"begin\" offset=\"0%\" style=\"stop-color:yellow;\"/>\n      <stop class=\"end\" offset=\"80%\" style=\"stop-color:green;\"/>\n    </linearGradient>\n    <circle cx=\"50\" cy=\"50\" r=\"30\" style=\"fill:url(#gradient)\" />\n  </svg>\n</feed>`"
	runParselCases(t, []parselCase{
		// test_selector.py::test_namespaces_simple
		{src: "test_namespaces_simple", expr: `(() => { const x = S(` + simple + `, "xml"); x.registerNamespace("somens", "http://scrapy.org"); return x.xpath("//somens:a/text()").extract(); })()`, want: `["take this"]`},
		// test_selector.py::test_namespaces_adhoc
		{src: "test_namespaces_adhoc", expr: `S(` + simple + `, "xml").xpath("//somens:a/text()", {somens: "http://scrapy.org"}).extract()`, want: `["take this"]`},
		// test_selector.py::test_namespaces_multiple
		{src: "test_namespaces_multiple", expr: x + `(true).xpath("//xmlns:TestTag").length`, want: `1`},
		{src: "test_namespaces_multiple", expr: x + `(true).xpath("//b:Operation/text()").extract()[0]`, want: `"hello"`},
		{src: "test_namespaces_multiple", expr: x + `(true).xpath("//xmlns:TestTag/@b:att").extract()[0]`, want: `"value"`},
		{src: "test_namespaces_multiple", expr: x + `(true).xpath("//p:SecondTestTag/xmlns:price/text()").extract()[0]`, want: `"90"`},
		{src: "test_namespaces_multiple", expr: x + `(true).xpath("//p:SecondTestTag").xpath("./xmlns:price/text()")[0].extract()`, want: `"90"`},
		{src: "test_namespaces_multiple", expr: x + `(true).xpath("//p:SecondTestTag/xmlns:material/text()").extract()[0]`, want: `"iron"`},
		// test_selector.py::test_namespaces_multiple_adhoc
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//xmlns:TestTag").length`, want: `1`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//xmlns:TestTag/@b:att")`, throws: `b`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//b:Operation/text()", {b: "http://somens.com"}).extract()[0]`, want: `"hello"`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//xmlns:TestTag/@b:att", {b: "http://somens.com"}).extract()[0]`, want: `"value"`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//p:SecondTestTag", {p: "http://www.scrapy.org/product"}).xpath("./xmlns:price/text()")[0].extract()`, want: `"90"`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//p:SecondTestTag", {p: "http://www.scrapy.org/product"}).xpath("p:name/text()")`, throws: `p`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//p:SecondTestTag", {p: "http://www.scrapy.org/product"}).xpath("p:name/text()", {p: "http://www.scrapy.org/product"}).extract_first()`, want: `"Dried Rose"`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("string(//b:Operation/following-sibling::xmlns:TestTag/following-sibling::*//p:name)", {b: "http://somens.com", p: "http://www.scrapy.org/product"}).extract_first()`, want: `"Dried Rose"`},
		{src: "test_namespaces_multiple_adhoc", expr: x + `(false).xpath("//p:SecondTestTag/xmlns:price/text()")`, throws: `p`},
		// test_selector.py::test_remove_namespaces
		{src: "test_remove_namespaces", expr: `S(` + remove + `, "xml").xpath("//link").length`, want: `0`},
		{src: "test_remove_namespaces", expr: `S(` + remove + `, "xml").xpath("./namespace::*").length`, want: `3`},
		{src: "test_remove_namespaces", expr: `(() => { const s = S(` + remove + `, "xml"); s.removeNamespaces(); return [s.xpath("//link").length, s.xpath("./namespace::*").length]; })()`, want: `[3,1]`},
		// test_selector.py::test_remove_namespaces_embedded
		{src: "test_remove_namespaces_embedded", expr: `S(` + embedded + `, "xml").xpath("//link").length + S(` + embedded + `, "xml").xpath("//stop").length`, want: `0`},
		{src: "test_remove_namespaces_embedded", expr: `S(` + embedded + `, "xml").xpath("./namespace::*").length`, want: `2`},
		{src: "test_remove_namespaces_embedded", expr: `S(` + embedded + `, "xml").xpath("//f:link", {f: "http://www.w3.org/2005/Atom"}).length`, want: `2`},
		{src: "test_remove_namespaces_embedded", expr: `S(` + embedded + `, "xml").xpath("//s:stop", {s: "http://www.w3.org/2000/svg"}).length`, want: `2`},
		{src: "test_remove_namespaces_embedded", expr: `(() => { const s = S(` + embedded + `, "xml"); s.removeNamespaces(); return [s.xpath("//link").length, s.xpath("//stop").length, s.xpath("./namespace::*").length]; })()`, want: `[2,2,1]`},
		// test_selector.py::test_remove_attributes_namespaces
		{src: "test_remove_attributes_namespaces", expr: `S(` + removeAttrs + `, "xml").xpath("//link/@type").length`, want: `0`},
		{src: "test_remove_attributes_namespaces", expr: `(() => { const s = S(` + removeAttrs + `, "xml"); s.removeNamespaces(); return s.xpath("//link/@type").length; })()`, want: `3`},
	})
}
