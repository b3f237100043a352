package selector_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// parselHTMLBody is HTMLBODY of parsel's tests/test_selector_csstranslator.py.
const parselHTMLBody = `
<html>
<body>
<div>
 <a id="name-anchor" name="foo"></a>
 <a id="tag-anchor" rel="tag" href="http://localhost/foo">link</a>
 <a id="nofollow-anchor" rel="nofollow" href="https://example.org"> link</a>
 <p id="paragraph">
   lorem ipsum text
   <b id="p-b">hi</b> <em id="p-em">there</em>
   <b id="p-b2">guy</b>
   <input type="checkbox" id="checkbox-unchecked" />
   <input type="checkbox" id="checkbox-disabled" disabled="" />
   <input type="text" id="text-checked" checked="checked" />
   <input type="hidden" />
   <input type="hidden" disabled="disabled" />
   <input type="checkbox" id="checkbox-checked" checked="checked" />
   <input type="checkbox" id="checkbox-disabled-checked"
          disabled="disabled" checked="checked" />
   <fieldset id="fieldset" disabled="disabled">
     <input type="checkbox" id="checkbox-fieldset-disabled" />
     <input type="hidden" />
   </fieldset>
 </p>
 <map name="dummymap">
   <area shape="circle" coords="200,250,25" href="foo.html" id="area-href" />
   <area shape="default" id="area-nohref" />
 </map>
</div>
<div class="cool-footer" id="foobar-div" foobar="ab bc cde">
    <span id="foobar-span">foo ter</span>
</div>
</body></html>
`

// TestParselCSSTranslation ports the translation tables of parsel's
// tests/test_selector_csstranslator.py (test_attr_function, test_text_pseudo_element of
// TestTranslatorBase): jscrawl does not translate CSS to XPath, so each case checks that
// the CSS selects what parsel's XPath translation selects, on HTMLBODY.
func TestParselCSSTranslation(t *testing.T) {
	t.Parallel()
	d, err := selector.ParseText(parselHTMLBody)
	if err != nil {
		t.Fatal(err)
	}
	root := []selector.Result{d.Root()}
	for _, tc := range []struct {
		src, css, xpath string
		empty           bool // nothing matches on HTMLBODY
	}{
		{"test_attr_function", "::attr(name)", "descendant-or-self::*/@name", false},
		{"test_attr_function", "a::attr(href)", "descendant-or-self::a/@href", false},
		{"test_attr_function", "a ::attr(img)", "descendant-or-self::a/descendant-or-self::*/@img", true},
		{"test_attr_function", "a > ::attr(class)", "descendant-or-self::a/*/@class", true},
		{"test_attr_function (on HTMLBODY's attributes)", "div ::attr(id)", "descendant-or-self::div/descendant-or-self::*/@id", false},
		{"test_text_pseudo_element", "::text", "descendant-or-self::text()", false},
		{"test_text_pseudo_element", "p::text", "descendant-or-self::p/text()", false},
		{"test_text_pseudo_element", "p ::text", "descendant-or-self::p/descendant-or-self::text()", false},
		{"test_text_pseudo_element", "#paragraph::text", "descendant-or-self::*[@id = 'paragraph']/text()", false},
		{"test_text_pseudo_element", "p#paragraph::text", "descendant-or-self::p[@id = 'paragraph']/text()", false},
		{"test_text_pseudo_element", "p#paragraph ::text", "descendant-or-self::p[@id = 'paragraph']/descendant-or-self::text()", false},
		{"test_text_pseudo_element", "div#foobar-div > ::text", "descendant-or-self::div[@id = 'foobar-div']/*/text()", false},
		{"test_text_pseudo_element", "a#tag-anchor ~ ::text", "descendant-or-self::a[@id = 'tag-anchor']/following-sibling::*/text()", false},
		{"test_text_pseudo_element", "a[href]::text", "descendant-or-self::a[@href]/text()", false},
		{"test_text_pseudo_element", "a[href] ::text", "descendant-or-self::a[@href]/descendant-or-self::text()", false},
		{"test_text_pseudo_element", "p::text, a::text", "descendant-or-self::p/text() | descendant-or-self::a/text()", false},
		{"test_css2xpath", ".cool-footer", "descendant-or-self::*[@class and contains(concat(' ', normalize-space(@class), ' '), ' cool-footer ')]", false},
	} {
		css, err := selector.Select(root, tc.css)
		if err != nil {
			t.Errorf("%s: %s: %v", tc.src, tc.css, err)
			continue
		}
		xp, err := selector.XPath(root, tc.xpath, nil)
		if err != nil {
			t.Errorf("%s: %s: %v", tc.src, tc.xpath, err)
			continue
		}
		if got, want := selector.GetAll(css), selector.GetAll(xp); !slices.Equal(got, want) || len(want) == 0 && !tc.empty {
			t.Errorf("%s: %s\n got %q\nwant %q (%s)", tc.src, tc.css, got, want, tc.xpath)
		}
	}
}

// TestParselCSSSelector ports TestCSSSelector of parsel's
// tests/test_selector_csstranslator.py (results stripped and blanks dropped, as its x()).
func TestParselCSSSelector(t *testing.T) {
	t.Parallel()
	d, err := selector.ParseText(parselHTMLBody)
	if err != nil {
		t.Fatal(err)
	}
	root := []selector.Result{d.Root()}
	x := func(q string) []string {
		rs, err := selector.Select(root, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, s := range selector.GetAll(rs) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	for _, tc := range []struct {
		src, css string
		want     []string
	}{
		{"test_text_pseudo_element", "#p-b2", []string{`<b id="p-b2">guy</b>`}},
		{"test_text_pseudo_element", "#p-b2::text", []string{"guy"}},
		{"test_text_pseudo_element", "#p-b2 ::text", []string{"guy"}},
		{"test_text_pseudo_element", "#paragraph::text", []string{"lorem ipsum text"}},
		{"test_text_pseudo_element", "#paragraph ::text", []string{"lorem ipsum text", "hi", "there", "guy"}},
		{"test_text_pseudo_element", "p::text", []string{"lorem ipsum text"}},
		{"test_text_pseudo_element", "p ::text", []string{"lorem ipsum text", "hi", "there", "guy"}},
		{"test_attribute_function", "#p-b2::attr(id)", []string{"p-b2"}},
		{"test_attribute_function", ".cool-footer::attr(class)", []string{"cool-footer"}},
		{"test_attribute_function", ".cool-footer ::attr(id)", []string{"foobar-div", "foobar-span"}},
		{"test_attribute_function", `map[name="dummymap"] ::attr(shape)`, []string{"circle", "default"}},
		{"test_pseudoclass_has", "p:has(b)::text", []string{"lorem ipsum text"}},
	} {
		if got := x(tc.css); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %s\n got %q\nwant %q", tc.src, tc.css, got, tc.want)
		}
	}
	// test_selector_simple
	rs, _ := selector.Select(root, "input")
	if len(rs) != 9 {
		t.Errorf("test_selector_simple: %d inputs", len(rs))
	}
	// test_nested_selector
	ps, _ := selector.Select(root, "p")
	if got, _ := selector.Select(ps, "b::text"); !slices.Equal(selector.GetAll(got), []string{"hi", "guy"}) {
		t.Errorf("test_nested_selector: p b::text = %q", selector.GetAll(got))
	}
	divs, _ := selector.Select(root, "div")
	if got, _ := selector.Select(divs, "area:last-child"); !slices.Equal(selector.GetAll(got), []string{`<area shape="default" id="area-nohref">`}) {
		t.Errorf("test_nested_selector: area:last-child = %q", selector.GetAll(got))
	}
}
