package xpath1

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Cases ported from scrapy/parsel's tests/test_selector.py and tests/test_xpathfuncs.py
// (commit 05b3d37; the XPath parts, test names in the comments), run on HTML parsed by x/net/html from the
// root element, as parsel's Selector does. Results are written as render does: elements
// as HTML, attributes and text nodes as their values, other values as "number:12",
// "boolean:true" or the string itself. parsel itself turns numbers into "12.0" and
// booleans into "1"/"0": that is the selector's job, not the engine's.

const (
	parselInputs = "<p><input name='a'value='1'/><input name='b'value='2'/></p>"
	parselQuotes = `<p>I'm mixing single and <input name='a' value='I say "Yeah!"'/>
        "double quotes" and I don't care :)</p>`
	parselNested = `<body>
                    <div class='one'>
                      <ul>
                        <li>one</li><li>two</li>
                      </ul>
                    </div>
                    <div class='two'>
                      <ul>
                        <li>four</li><li>five</li><li>six</li>
                      </ul>
                    </div>
                  </body>`
	parselList    = `<ul><li id="1">1</li><li id="2">2</li><li id="3">3</li></ul>`
	parselOptions = "<div><b>Options:</b>opt1</div><div><b>Other</b>opt2</div>"
	parselClasses = `
    <p class="foo bar-baz">First</p>
    <p class="foo">Second</p>
    <p class="bar">Third</p>
    <p>Fourth</p>
    `
	parselEvent = `
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
        </div>
        `
)

var parselCases = []struct {
	name, body, expr string
	vars             map[string]Value
	want             []string
	err              error
}{
	// test_simple_selection
	{"simple_selection", parselInputs, "//input", nil, []string{`<input name="a" value="1"/>`, `<input name="b" value="2"/>`}, nil},
	{"simple_selection", parselInputs, "//input[@name='a']/@name", nil, []string{"a"}, nil},
	{"simple_selection", parselInputs, "number(concat(//input[@name='a']/@value, //input[@name='b']/@value))", nil, []string{"number:12"}, nil},
	{"simple_selection", parselInputs, "concat('xpath', 'rules')", nil, []string{"xpathrules"}, nil},
	{"simple_selection", parselInputs, "concat(//input[@name='a']/@value, //input[@name='b']/@value)", nil, []string{"12"}, nil},
	// test_simple_selection_with_variables
	{"with_variables", parselInputs, "//input[@value=$number]/@name", map[string]Value{"number": NumberValue(1)}, []string{"a"}, nil},
	{"with_variables", parselInputs, "//input[@name=$letter]/@value", map[string]Value{"letter": StringValue("b")}, []string{"2"}, nil},
	{"with_variables", parselInputs, "count(//input[@value=$number or @name=$letter])", map[string]Value{"number": NumberValue(2), "letter": StringValue("a")}, []string{"number:2"}, nil},
	{"with_variables", parselInputs, "boolean(count(//input)=$cnt)=$test", map[string]Value{"cnt": NumberValue(2), "test": BooleanValue(true)}, []string{"boolean:true"}, nil},
	{"with_variables", parselInputs, "boolean(count(//input)=$cnt)=$test", map[string]Value{"cnt": NumberValue(4), "test": BooleanValue(true)}, []string{"boolean:false"}, nil},
	{"with_variables", parselInputs, "boolean(count(//input)=$cnt)=$test", map[string]Value{"cnt": NumberValue(4), "test": BooleanValue(false)}, []string{"boolean:true"}, nil},
	{"with_variables", parselInputs, "boolean(count(//*[name()=$tag])=$cnt)=$test", map[string]Value{"tag": StringValue("input"), "cnt": NumberValue(2), "test": BooleanValue(true)}, []string{"boolean:true"}, nil},
	// test_simple_selection_with_variables_escape_friendly
	{"escape_friendly", parselQuotes, `//input[@value="I say "Yeah!""]/@name`, nil, nil, ErrInvalidPredicate},
	{"escape_friendly", parselQuotes, "//input[@value=$text]/@name", map[string]Value{"text": StringValue(`I say "Yeah!"`)}, []string{"a"}, nil},
	{"escape_friendly", parselQuotes, `//p[normalize-space()='I'm mixing single and "double quotes" and I don't care :)']//@name`, nil, nil, ErrInvalidPredicate},
	{"escape_friendly", parselQuotes, "//p[normalize-space()=$lng]//@name", map[string]Value{"lng": StringValue(`I'm mixing single and "double quotes" and I don't care :)`)}, []string{"a"}, nil},
	// test_extract_first, test_extract_first_default, test_re_first
	{"extract_first", parselList, "//ul/li/text()", nil, []string{"1", "2", "3"}, nil},
	{"extract_first", parselList, `//ul/li[@id="1"]/text()`, nil, []string{"1"}, nil},
	{"extract_first", parselList, "//ul/li[2]/text()", nil, []string{"2"}, nil},
	{"extract_first", parselList, `/ul/li[@id="doesnt-exist"]/text()`, nil, nil, nil},
	{"extract_first_default", parselList, "//div/text()", nil, nil, nil},
	{"selector_get_alias", parselList, "//ul/li[position()>1]", nil, []string{`<li id="2">2</li>`, `<li id="3">3</li>`}, nil},
	{"selector_get_alias", parselList, "//ul/li[position()>1]/text()", nil, []string{"2", "3"}, nil},
	{"re_first", parselList, "/ul/li/text()", nil, nil, nil},
	// test_boolean_result
	{"boolean_result", parselInputs, "//input[@name='a']/@name='a'", nil, []string{"boolean:true"}, nil},
	{"boolean_result", parselInputs, "//input[@name='a']/@name='n'", nil, []string{"boolean:false"}, nil},
	// test_nested_selectors: from the second div
	{"nested_selectors", parselNested, `//div[@class="two"]/ancestor::*[last()]//li`, nil, []string{"<li>one</li>", "<li>two</li>", "<li>four</li>", "<li>five</li>", "<li>six</li>"}, nil},
	{"nested_selectors", parselNested, `//div[@class="two"]/ul/li`, nil, []string{"<li>four</li>", "<li>five</li>", "<li>six</li>"}, nil},
	{"nested_selectors", parselNested, `//div[@class="two"]//li`, nil, []string{"<li>four</li>", "<li>five</li>", "<li>six</li>"}, nil},
	{"nested_selectors", parselNested, `//div[@class="two"]/li`, nil, nil, nil},
	// test_mixed_nested_selectors
	{"mixed_nested", `<body><div id=1>not<span>me</span></div><div class="dos"><p>text</p><a href='#'>foo</a></div></body>`, `//div[@id="1"]/span/text()`, nil, []string{"me"}, nil},
	// test_dont_strip
	{"dont_strip", `<div>fff: <a href="#">zzz</a></div>`, "//text()", nil, []string{"fff: ", "zzz"}, nil},
	// test_select_on_unevaluable_nodes
	{"unevaluable_nodes", `<span class="big">some text</span>`, "//text()", nil, []string{"some text"}, nil},
	{"unevaluable_nodes", `<span class="big">some text</span>`, "//text()//b", nil, nil, nil},
	{"unevaluable_nodes", `<span class="big">some text</span>`, "//span/@class", nil, []string{"big"}, nil},
	{"unevaluable_nodes", `<span class="big">some text</span>`, "//span/@class//text()", nil, nil, nil},
	// test_select_on_text_nodes
	{"select_on_text_nodes", parselOptions, "//div/descendant::text()[preceding-sibling::b[contains(text(), 'Options')]]", nil, []string{"opt1"}, nil},
	{"select_on_text_nodes", parselOptions, "//div/descendant::text()/preceding-sibling::b[contains(text(), 'Options')]", nil, []string{"<b>Options:</b>"}, nil},
	// test_nested_select_on_text_nodes (skipped in parsel for lxml's sake; right here)
	{"nested_select_on_text_nodes", parselOptions, "(//div/descendant::text())/preceding-sibling::b[contains(text(), 'Options')]", nil, []string{"<b>Options:</b>"}, nil},
	// test_accessing_attributes: unicode attribute names and values
	{"unicode_attrs", `<input name="©" value="1">`, `//input[@name="©"]/@value`, nil, []string{"1"}, nil},
	// test_set (EXSLT set:difference through the extension registry)
	{"set", parselEvent, `//div[@itemtype="http://schema.org/Event"]//@itemprop`, nil, []string{"url", "name", "startDate", "location", "url", "address", "addressLocality", "addressRegion", "offers", "lowPrice", "offerCount"}, nil},
	{"set", parselEvent, `set:difference(
            //div[@itemtype="http://schema.org/Event"]//@itemprop,
            //div[@itemtype="http://schema.org/Event"]//*[@itemscope]/*/@itemprop
            )`, nil, []string{"url", "name", "startDate", "location", "offers"}, nil},
	// test_xpathfuncs.py: test_has_class_simple, _uppercase, _newline, _tab, _unicode,
	// _error_no_args, _error_invalid_arg_type; test_set_xpathfunc
	{"has_class_simple", parselClasses, `//p[has-class("foo")]/text()`, nil, []string{"First", "Second"}, nil},
	{"has_class_simple", parselClasses, `//p[has-class("bar")]/text()`, nil, []string{"Third"}, nil},
	{"has_class_simple", parselClasses, `//p[has-class("foo","bar")]/text()`, nil, nil, nil},
	{"has_class_simple", parselClasses, `//p[has-class("foo","bar-baz")]/text()`, nil, []string{"First"}, nil},
	{"has_class_uppercase", `<p CLASS="foo">First</p>`, `//p[has-class("foo")]/text()`, nil, []string{"First"}, nil},
	{"has_class_newline", "<p CLASS=\"foo\n    bar\">First</p>", `//p[has-class("foo")]/text()`, nil, []string{"First"}, nil},
	{"has_class_tab", "<p CLASS=\"foo\tbar\">First</p>", `//p[has-class("foo")]/text()`, nil, []string{"First"}, nil},
	{"has_class_unicode", `<p CLASS="fóó">First</p>`, `//p[has-class("fóó")]/text()`, nil, []string{"First"}, nil},
	{"has_class_error_no_args", `<p CLASS="foo">First</p>`, "has-class()", nil, nil, errHasClassArgs},
	{"has_class_error_invalid_arg_type", `<p CLASS="foo">First</p>`, "has-class(.)", nil, nil, errHasClassType},
	{"set_xpathfunc", `<p CLASS="foo">First</p>`, "myfunc()", nil, nil, ErrUnknownFunction},
	// test_namespaces_prefixes_no_default and friends: an unbound prefix
	{"undefined_prefix", parselInputs, "//somens:a/text()", nil, nil, ErrUndefinedPrefix},
}

var (
	errHasClassArgs = errors.New("has-class must have at least 1 argument")
	errHasClassType = errors.New("has-class arguments must be strings")
)

const exsltSets = "http://exslt.org/sets"

// testFunctions are test versions of the selector's extension functions, written against
// the registry: parsel's has-class and EXSLT's set:difference.
var testFunctions = map[QName]Function{
	{"", "has-class"}: {Result: TypeBoolean, Call: func(c *Context, args []Value) (Value, error) {
		if len(args) == 0 {
			return Value{}, errHasClassArgs
		}
		for _, a := range args {
			if a.Type != TypeString {
				return Value{}, errHasClassType
			}
		}
		n := c.Node
		if n.IsAttr() || n.IsNamespace() || c.Model.Kind(n.N) != KindElement {
			return BooleanValue(false), nil
		}
		for _, a := range n.N.Attr {
			if strings.EqualFold(a.Key, "class") {
				have := strings.Fields(a.Val)
				for _, w := range args {
					found := false
					for _, h := range have {
						found = found || h == w.Str
					}
					if !found {
						return BooleanValue(false), nil
					}
				}
				return BooleanValue(true), nil
			}
		}
		return BooleanValue(false), nil
	}},
	{exsltSets, "difference"}: {Result: TypeNodeSet, Call: func(c *Context, args []Value) (Value, error) {
		if len(args) != 2 || args[0].Type != TypeNodeSet || args[1].Type != TypeNodeSet {
			return Value{}, ErrInvalidType
		}
		drop := map[Node]bool{}
		for _, n := range args[1].Nodes {
			drop[n] = true
		}
		var out []Node
		for _, n := range args[0].Nodes {
			if !drop[n] {
				out = append(out, n)
			}
		}
		return NodeSetValue(out), nil
	}},
}

var testOptions = &Options{Namespaces: map[string]string{"set": exsltSets}, Functions: testFunctions}

// render writes v as parselCases expect it.
func render(m Model, v Value) []string {
	switch v.Type {
	case TypeString:
		return []string{v.Str}
	case TypeNumber:
		return []string{"number:" + FormatNumber(v.Num)}
	case TypeBoolean:
		if v.Bool {
			return []string{"boolean:true"}
		}
		return []string{"boolean:false"}
	}
	var out []string
	for _, n := range v.Nodes {
		switch {
		case n.IsAttr() || n.IsNamespace() || m.Kind(n.N) == KindText:
			out = append(out, StringOf(m, n))
		default:
			var b strings.Builder
			_ = html.Render(&b, n.N)
			out = append(out, b.String())
		}
	}
	return out
}

func parseHTML(t testing.TB, body string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestParsel(t *testing.T) {
	t.Parallel()
	for _, tc := range parselCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := parseHTML(t, tc.body)
			x, err := Compile(tc.expr, testOptions)
			var v Value
			if err == nil {
				v, err = x.Evaluate(HTML, NodeOf(rootElement(doc)), &Env{Variables: tc.vars})
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("%s: error %v, want %v", tc.expr, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.expr, err)
			}
			got := render(HTML, v)
			if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
				t.Errorf("%s\n got %q\nwant %q", tc.expr, got, tc.want)
			}
		})
	}
}
