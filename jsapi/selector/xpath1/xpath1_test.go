package xpath1

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestErrors checks the reason and the offset of compile and evaluation errors.
func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		err  error
		pos  int
	}{
		{"", ErrInvalidExpression, 0},
		{"   ", ErrInvalidExpression, 3},
		{"//a[", ErrInvalidExpression, 4},
		{"//a[1", ErrInvalidPredicate, 5},
		{"//a[@x='1'", ErrInvalidPredicate, 10},
		{"//a[@x='1]", ErrUnfinishedLiteral, 7},
		{"'abc", ErrUnfinishedLiteral, 0},
		{"//p:a", ErrUndefinedPrefix, 2},
		{"//a/@q:b", ErrUndefinedPrefix, 5},
		{"p:f()", ErrUndefinedPrefix, 0},
		{"$p:x", ErrUndefinedPrefix, 0},
		{"myfunc()", ErrUnknownFunction, 0},
		{"//a[myfunc()]", ErrUnknownFunction, 4},
		{"count()", ErrArity, 0},
		{"concat('a')", ErrArity, 0},
		{"substring('a', 1, 2, 3)", ErrArity, 0},
		{"//a/", ErrInvalidExpression, 4},
		{"a b", ErrInvalidExpression, 2},
		{"1 +", ErrInvalidExpression, 3},
		{"foo::a", ErrInvalidExpression, 0},
		{"//a)", ErrInvalidExpression, 3},
		{"a:", ErrInvalidExpression, 1},
		{"#", ErrInvalidExpression, 0},
		{"$", ErrInvalidExpression, 0},
		{strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000), ErrTooDeep, 1000},
		{strings.Repeat("-", 2000) + "1", ErrTooDeep, 1000},
	} {
		_, err := Compile(tc.expr, nil)
		var xe *Error
		if !errors.As(err, &xe) || !errors.Is(err, tc.err) || xe.Pos != tc.pos || xe.Expr != tc.expr {
			t.Errorf("Compile(%q) = %v (%+v), want %v at %d", tc.expr, err, xe, tc.err, tc.pos)
		}
	}
	// The message names the reason and the expression, as lxml's which parsel wraps.
	_, err := Compile("//p:a", nil)
	if got := err.Error(); got != "Undefined namespace prefix in //p:a at offset 2" {
		t.Errorf("message %q", got)
	}
	// Evaluation errors have no offset.
	doc := parseHTML(t, "<p>x</p>")
	for _, tc := range []struct {
		expr string
		err  error
	}{
		{"$nope", ErrUndefinedVariable},
		{"count(1)", ErrInvalidType},
		{"1 | //p", ErrInvalidType},
		{"'a'/b", ErrInvalidType},
		{"sum('1')", ErrInvalidType},
		{"(1)[1]", ErrInvalidType},
	} {
		_, err := MustCompile(tc.expr, nil).Evaluate(HTML, NodeOf(doc), nil)
		var xe *Error
		if !errors.As(err, &xe) || !errors.Is(err, tc.err) || xe.Pos != -1 {
			t.Errorf("%s: %v, want %v", tc.expr, err, tc.err)
		}
	}
}

// TestBudget checks that Env.MaxSteps and Env.Check stop a long evaluation.
func TestBudget(t *testing.T) {
	t.Parallel()
	doc := parseHTML(t, "<ul>"+strings.Repeat("<li>x</li>", 5000)+"</ul>")
	x := MustCompile("count(//li[following::li])", nil)
	_, err := x.Evaluate(HTML, NodeOf(doc), &Env{MaxSteps: 100000})
	if !errors.Is(err, ErrBudget) {
		t.Errorf("MaxSteps: %v, want ErrBudget", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	checks := 0
	_, err = x.Evaluate(HTML, NodeOf(doc), &Env{Check: func() error { checks++; return ctx.Err() }})
	if !errors.Is(err, context.Canceled) || checks != 1 {
		t.Errorf("Check: %v after %d checks, want context.Canceled after 1", err, checks)
	}
	v, err := MustCompile("count(//li)", nil).Evaluate(HTML, NodeOf(doc), &Env{MaxSteps: 100000, Check: context.Background().Err})
	if err != nil || v.Num != 5000 {
		t.Errorf("a cheap query within budget: %v %v", v.Num, err)
	}
}

// TestConcurrentEvaluate runs one compiled Expr from many goroutines (go test -race).
func TestConcurrentEvaluate(t *testing.T) {
	t.Parallel()
	doc := parseHTML(t, strings.Repeat(`<div class="a"><p>1</p><p>2</p></div>`, 50))
	x := MustCompile(`//div[has-class("a")]/p[last()] | //div[1]/p[1]`, testOptions)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				ns, err := x.Select(HTML, NodeOf(doc), nil)
				if err != nil || len(ns) != 51 {
					t.Errorf("%d nodes, %v", len(ns), err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSemantics covers REC rules the ported suites touch lightly: proximity positions on
// reverse axes (§2.4), document order and duplicate-free results of unions and steps
// (§3.3), number formatting and rounding (§4.2, §4.4), comparisons (§3.4), and the
// HTML model (doctype invisible, id attributes as IDs, no namespaces).
func TestSemantics(t *testing.T) {
	t.Parallel()
	const page = `<!DOCTYPE html><html><head><title>T</title></head><body>
<div id="d1"><p id="p1">a</p><p id="p2">b<span>c</span></p><!--note--><p id="p3">d</p></div>
<div id="d2"><p id="p4">e</p></div></body></html>`
	doc := parseHTML(t, page)
	for _, tc := range []struct{ expr, want string }{
		{"//p[3]/preceding-sibling::p[1]/@id", "p2"},
		{"//p[3]/preceding-sibling::p[last()]/@id", "p1"},
		{"//span/ancestor::*[1]/@id", "p2"},
		{"//span/ancestor::*[2]/@id", "d1"},
		{"//span/ancestor-or-self::*[1]", "<span>c</span>"},
		{"//p[@id='p4']/preceding::p[1]/@id", "p3"},
		{"name(//p[@id='p4']/preceding::*[2])", "span"}, // p3, then the span inside p2
		{"//p[@id='p4']/preceding::*[5]/@id", "d1"},     // not an ancestor of p4
		{"(//p[@id='p4']/preceding::p)[1]/@id", "p1"},
		{"//span/following::p[1]/@id", "p3"},
		{"//p/@id | //div/@id", "d1 p1 p2 p3 d2 p4"},
		{"//p[@id='p3'] | //p[@id='p1'] | //p[@id='p1']", `<p id="p1">a</p> <p id="p3">d</p>`},
		{"//div//p/..//p/@id", "p1 p2 p3 p4"},
		{"//*[@id][2]/@id", "p2 d2"}, // the second child with an id, of each parent
		{"(//*[@id])[2]/@id", "p1"},
		{"id('p3 p1 nope')/@id", "p1 p3"},
		{"id(//p[1]/@id)/text()", "a e"},
		{"//comment()", "<!--note-->"},
		{"count(//node()[self::comment() or self::processing-instruction()])", "number:1"},
		{"count(/node())", "number:1"}, // the doctype is invisible
		{"name(/*)", "html"},
		{"//@*[.='p2']/..", `<p id="p2">b<span>c</span></p>`},
		{"string(//p[2])", "bc"},
		{"string(//p)", "a"},
		{"normalize-space(//div[1])", "abcd"},
		{"//p[.='bc']/@id", "p2"},
		{"//p[. > 'a']", ""},
		{"count(//p[@id > 0])", "number:0"},
		{"//p[span = 'c']/@id", "p2"},
		{"//p = 'e'", "boolean:true"},
		{"//p != 'e'", "boolean:true"},
		{"not(//p != //p)", "boolean:false"},
		{"//nope = //nope", "boolean:false"},
		{"//nope != 'x'", "boolean:false"},
		{"//p = true()", "boolean:true"},
		{"//nope = false()", "boolean:true"},
		{"1 div 0", "number:Infinity"},
		{"-1 div 0", "number:-Infinity"},
		{"0 div 0 = 0 div 0", "boolean:false"},
		{"string(-0)", "0"},
		{"string(1 div -0)", "-Infinity"},
		{"5 mod 2", "number:1"},
		{"-5 mod 2", "number:-1"},
		{"5 mod -2", "number:1"},
		{"round(-0.5)", "number:0"},
		{"1 div round(-0.5)", "number:-Infinity"},
		{"round(0.49999999999999994)", "number:0"},
		{"string(0.1 + 0.2)", "0.3"},
		{"string(1 div 3)", "0.333333333333333"},
		{"string(123456789.5)", "123456789.5"},
		{"string(0.000001)", "1e-06"},
		{"number(' 12 ')", "number:12"},
		{"number('+1')", "number:NaN"},
		{"number('1e2')", "number:100"},
		{"number('.5')", "number:0.5"},
		{"number('5.')", "number:5"},
		{"substring('12345', 1.5, 2.6)", "234"},
		{"substring('12345', 0, 3)", "12"},
		{"substring('12345', 0 div 0, 3)", ""},
		{"substring('12345', -42, 1 div 0)", "12345"},
		{"substring('12345', -1 div 0, 1 div 0)", ""},
		{"substring('héllo', 2, 3)", "éll"},
		{"string-length('héllo')", "number:5"},
		{"translate('--aaa--','abc-','ABC')", "AAA"},
		{"lang('en')", "boolean:false"},
		{"count((//p)[1]/namespace::*)", "number:1"},
		{"local-name(//p[1]/namespace::*)", "xml"},
		{"2 * 3 - -1", "number:7"},
		{"8 div 2 div 2", "number:2"},
		{"1 < 2 < 3", "boolean:true"},
		{"3 > 2 > 1", "boolean:false"},
		{"1 = 1 = 1", "boolean:true"},
		{"true() and false() or true()", "boolean:true"},
		{"-(-(3))", "number:3"},
		{"div", ""},
		{"child::div/child::div", ""},
		{"count(//div[div])", "number:0"},
		{"count(*)", "number:2"},
		{"*[1]", "<head><title>T</title></head>"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			t.Parallel()
			v, err := MustCompile(tc.expr, nil).Evaluate(HTML, NodeOf(rootElement(doc)), nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.expr, err)
			}
			if got := strings.Join(render(HTML, v), " "); got != tc.want {
				t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
			}
		})
	}
}

// TestXMLModel covers processing instructions, namespaces, prefixed name tests, the
// namespace axis and variables holding node-sets over the test XML model.
func TestXMLModel(t *testing.T) {
	t.Parallel()
	const doc = `<?xml version="1.0"?>
<?style href="a.css"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:m="urn:m" xml:lang="en">
  <?pi one?>
  <entry m:id="1"><title>A</title><m:extra>x</m:extra></entry>
  <entry m:id="2" xml:lang="fr-CA"><title>B</title><!--c--></entry>
</feed>`
	root, m, err := parseXMLDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Namespaces: map[string]string{"a": "http://www.w3.org/2005/Atom", "m": "urn:m"}}
	entries, err := MustCompile("//a:entry", opts).Select(m, NodeOf(root), nil)
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries: %d %v", len(entries), err)
	}
	vars := map[string]Value{"e": NodeSetValue(entries), "n": NumberValue(2)}
	for _, tc := range []struct{ expr, want string }{
		{"/processing-instruction()", "processing-instruction"},
		{"count(//processing-instruction())", "number:2"},
		{"//processing-instruction('pi')", "processing-instruction"},
		{"count(//processing-instruction('nope'))", "number:0"},
		{"name(/processing-instruction())", "style"},
		{"local-name((//processing-instruction())[2])", "pi"},
		{"local-name(//processing-instruction()[2])", ""}, // the second PI child of a parent: none
		{"string(//processing-instruction('pi'))", "one"},
		{"/processing-instruction()/following-sibling::*", "feed"},
		{"count(/node())", "number:2"},
		{"//entry", ""},
		{"//a:entry/a:title/text()", "'A' 'B'"},
		{"//m:*", "m:extra"},
		{"//a:*[@m:id='2']/a:title", "title"},
		{"//@m:id", "@id=1 @id=2"},
		{"name(//@m:id)", "m:id"},
		{"namespace-uri(//@m:id)", "urn:m"},
		{"namespace-uri(/*)", "http://www.w3.org/2005/Atom"},
		{"name(/*)", "feed"},
		{"local-name(//m:extra)", "extra"},
		{"count(/*/@*)", "number:1"}, // xml:lang; declarations are not attributes
		{"/*/namespace::*", "ns:xml ns: ns:m"},
		{"name(/*/namespace::m)", "m"},
		{"string(/*/namespace::m)", "urn:m"},
		{"count(//namespace::*)", "number:18"}, // 6 elements, 3 namespace nodes each
		{"//a:entry[lang('en')]/@m:id", "@id=1"},
		{"//a:entry[lang('fr')]/a:title", "title"},
		{"//a:title[lang('fr-ca')]/text()", "'B'"},
		{"$e[$n]/a:title/text()", "'B'"},
		{"$e/a:title/text()", "'A' 'B'"},
		{"count($e | //a:entry)", "number:2"},
		{"$e[1]/following::comment()", "comment"},
		{"//comment()/preceding::processing-instruction()", "processing-instruction processing-instruction"},
		{"//comment()/ancestor::*", "feed entry"},
		{"(//comment()/ancestor::*)[last()]/@m:id", "@id=2"},
		{"//comment()/ancestor::*[1]/@m:id", "@id=2"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			t.Parallel()
			v, err := MustCompile(tc.expr, opts).Evaluate(m, NodeOf(rootElement(root)), &Env{Variables: vars})
			if err != nil {
				t.Fatalf("%s: %v", tc.expr, err)
			}
			if got := shortDump(m, v); got != tc.want {
				t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
			}
		})
	}
}

// TestPositional checks which predicates count as positional, which decides whether
// "//x[p]" may run as one descendant walk (a wrong "false" changes results).
func TestPositional(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pred string
		want bool
	}{
		{"1", true}, {"last()", true}, {"position() < 3", true}, {"count(a)", true}, {"string-length(.)", true},
		{"@a + 1", true}, {"-1", true}, {"$v", true}, {"(1)", true}, {"f()", true}, {"position() = 1 or @a", true},
		{"@a", false}, {"@a = 'x'", false}, {"a/b", false}, {"not(@a)", false}, {"1 = 1", false},
		{"has-class('x')", false}, {"has-class('x') and @a", false}, {"count(a) > 1", false}, {"a[1]", false},
	} {
		opts := &Options{Functions: map[QName]Function{
			{"", "f"}:         {Call: func(*Context, []Value) (Value, error) { return BooleanValue(true), nil }},
			{"", "has-class"}: testFunctions[QName{"", "has-class"}],
		}}
		x, err := Compile("//x["+tc.pred+"]", opts)
		if err != nil {
			t.Fatal(err)
		}
		steps := x.e.(*pathExpr).steps
		rewritten := len(steps) == 1 && steps[0].axis == axDescendant
		if rewritten == tc.want {
			t.Errorf("[%s]: positional %v, want %v", tc.pred, !rewritten, tc.want)
		}
	}
}
