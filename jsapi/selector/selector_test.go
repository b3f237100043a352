package selector_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// page is the fixture for the parsel-compatibility tables. Expected values follow parsel's
// XPath translation (descendant-or-self:: prefix) evaluated by hand.
const page = `<!DOCTYPE html>
<html><head><title>Shop &amp; more</title></head>
<body>
<h1 id="top">Products</h1><p class="lead">Intro <b>bold</b> tail</p>
<div class="product" data-id="1"><span class="name">Apple</span><a href="/a" title="A">buy <em>now</em></a></div>
<div class="product sale" data-id="2"><span class="name">Pear</span><a href="/p">buy</a><a name="anchor">no href</a></div>
<ul><li>one</li><li class="x">two</li><li>three</li></ul>
<p id="esc" title='say "hi" &amp; bye'>a &amp; b &lt; c&nbsp;d</p>
</body></html>`

func parse(t testing.TB, body string) *selector.Document {
	t.Helper()
	d, err := selector.Parse([]byte(body), "text/html; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSelect(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"tag", "title", []string{"<title>Shop &amp; more</title>"}},
		{"class", "span.name", []string{`<span class="name">Apple</span>`, `<span class="name">Pear</span>`}},
		{"multiple classes", ".product.sale .name::text", []string{"Pear"}},
		{"id", "#top::text", []string{"Products"}},
		{"attribute", `a[href^="/p"]`, []string{`<a href="/p">buy</a>`}},
		{"pseudo-class", "li:nth-child(2)::text", []string{"two"}},
		{"not", "li:not(.x)::text", []string{"one", "three"}},
		{"child combinator", "ul > li.x::text", []string{"two"}},
		{"own text", "p.lead::text", []string{"Intro ", " tail"}},
		{"descendant text with space", "p.lead ::text", []string{"Intro ", "bold", " tail"}},
		{"star text includes own text", "p.lead *::text", []string{"Intro ", "bold", " tail"}},
		{"child star text is children only", "p.lead > *::text", []string{"bold"}},
		{"text of nested element", "div.product a::text", []string{"buy ", "buy", "no href"}},
		{"attr", "a::attr(href)", []string{"/a", "/p"}},
		{"attr quoted and upper case", `a::attr("HREF")`, []string{"/a", "/p"}},
		{"attr missing gives nothing", "span::attr(href)", nil},
		{"attr of descendants or self", "div.sale ::attr(data-id)", []string{"2"}},
		{"attr with star", "div.sale *::attr(href)", []string{"/p"}},
		{"bare attr", "::attr(title)", []string{"A", `say "hi" & bye`}},
		{"entities in text result", "#esc::text", []string{"a & b < c\u00a0d"}},
		{"entities in get", "#esc", []string{`<p id="esc" title="say &#34;hi&#34; &amp; bye">a &amp; b &lt; c` + "\u00a0" + `d</p>`}},
		{"void element and nesting", "div.product:first-of-type a", []string{`<a href="/a" title="A">buy <em>now</em></a>`}},
		{"comma groups in document order", "li.x::text, h1::text", []string{"Products", "two"}},
		{"comma groups deduplicated", "li.x, ul li:nth-child(2), li", []string{"<li>one</li>", `<li class="x">two</li>`, "<li>three</li>"}},
		{"union of attributes in attribute order", "a::attr(title), a::attr(href)", []string{"/a", "A", "/p"}},
		{"union of element and its text", "h1::text, h1", []string{`<h1 id="top">Products</h1>`, "Products"}},
		{"adjacent sibling", "h1 + p::attr(class)", []string{"lead"}},
		{"general sibling", "h1 ~ p::attr(id)", []string{"esc"}},
		{"no match", "table.none", nil},
		{"no match text", "table::text", nil},
		{"whitespace and comments", "  ul  >/* c */li.x  ::text ", []string{"two"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs, err := selector.Select([]selector.Result{d.Root()}, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
				t.Errorf("css(%q).getall() = %q, want %q", tc.query, got, tc.want)
			}
		})
	}
}

func TestSelectKinds(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	for _, tc := range []struct {
		query string
		want  selector.Kind
	}{
		{"h1", selector.KindElement},
		{"h1::text", selector.KindText},
		{"h1::attr(id)", selector.KindAttr},
	} {
		rs, err := selector.Select([]selector.Result{d.Root()}, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 || rs[0].Kind != tc.want || rs[0].Node == nil {
			t.Errorf("css(%q) = %+v, want one %v result", tc.query, rs, tc.want)
		}
	}
}

func TestSelectChained(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	root := []selector.Result{d.Root()}
	products, err := selector.Select(root, "div.product")
	if err != nil {
		t.Fatal(err)
	}
	if len(products) != 2 {
		t.Fatalf("div.product: got %d results, want 2", len(products))
	}
	for _, tc := range []struct {
		name, query string
		in          []selector.Result
		want        []string
	}{
		{"concatenation per element", ".name::text", products, []string{"Apple", "Pear"}},
		{"context element itself matches", "div::attr(data-id)", products, []string{"1", "2"}},
		{"ancestors of the context never match", "body .name", products, nil},
		{"child combinator never climbs above the context", "body > div", products, nil},
		{"leftmost may be the context", "div.sale > a::attr(href)", products, []string{"/p"}},
		{"bare ::text is all descendant text", "::text", products[:1], []string{"Apple", "buy ", "now"}},
		{"bare ::attr includes the context", "::attr(data-id)", products, []string{"1", "2"}},
		{"sibling of the context", "div + div::attr(data-id)", products[:1], []string{"2"}},
		{"sibling needs its left side in scope", "h1 + p", products, nil},
		{"root html matches itself", "html > body > h1::text", root, []string{"Products"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs, err := selector.Select(tc.in, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
				t.Errorf("css(%q).getall() = %q, want %q", tc.query, got, tc.want)
			}
		})
	}

	t.Run("text and attribute results are skipped", func(t *testing.T) {
		t.Parallel()
		texts, err := selector.Select(root, "a::text, a::attr(href)")
		if err != nil {
			t.Fatal(err)
		}
		if len(texts) == 0 {
			t.Fatal("no text results to chain from")
		}
		rs, err := selector.Select(texts, "*")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 0 {
			t.Errorf("css on text results = %q, want none", selector.GetAll(rs))
		}
	})

	t.Run("nested contexts repeat results as parsel does", func(t *testing.T) {
		t.Parallel()
		rs, err := selector.Select(append(slices.Clone(root), products...), ".name::text")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"Apple", "Pear", "Apple", "Pear"}
		if got := selector.GetAll(rs); !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestSelectInvalid(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	for _, tc := range []struct {
		query, detail string
	}{
		{"div[", "unclosed"},
		{"", "expected selector"},
		{"div,", "expected selector"},
		{"a >", "expected selector"},
		{"> a", "expected selector"},
		{"a)", "unexpected"},
		{`a[title="x]`, "unclosed string"},
		{"p:nth-child(", "unclosed"},
		{"p:bogus", "bogus"},
		{"a::text b", "not at the end"},
		{"a::foo", "::foo is unknown"},
		{"a::foo(x)", "::foo() is unknown"},
		{"a::text(x)", "::text() is unknown"},
		{"a::attr()", "::attr()"},
		{"a::attr(x y)", "::attr()"},
		{"a::attr", "::attr is unknown"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			rs, err := selector.Select([]selector.Result{d.Root()}, tc.query)
			if err == nil {
				t.Fatalf("css(%q) = %q, want an error", tc.query, selector.GetAll(rs))
			}
			var se *selector.SyntaxError
			if !errors.As(err, &se) || se.Query != tc.query {
				t.Fatalf("error %v (%T) is not a *SyntaxError for %q", err, err, tc.query)
			}
			prefix := "invalid CSS selector " + strconv.Quote(tc.query) + ": "
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.detail) {
				t.Errorf("error = %q, want prefix %q and %q in it", msg, prefix, tc.detail)
			}
		})
	}
}

func TestResultMethods(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	one := func(query string) selector.Result {
		t.Helper()
		rs, err := selector.Select([]selector.Result{d.Root()}, query)
		if err != nil || len(rs) != 1 {
			t.Fatalf("css(%q) = %v, %v; want one result", query, rs, err)
		}
		return rs[0]
	}

	a := one(`a[title]`)
	var pairs []string
	for _, at := range a.Attrib() {
		pairs = append(pairs, at.Key+"="+at.Val)
	}
	if want := []string{"href=/a", "title=A"}; !slices.Equal(pairs, want) {
		t.Errorf("Attrib() = %q, want %q", pairs, want)
	}
	if got := a.Text(); got != "buy now" {
		t.Errorf("Text() = %q, want %q", got, "buy now")
	}
	if got := one(".sale .name").Text(); got != "Pear" {
		t.Errorf("Text() = %q, want Pear", got)
	}
	for _, q := range []string{"h1::text", "h1::attr(id)"} {
		r := one(q)
		if r.Attrib() != nil {
			t.Errorf("css(%q).Attrib() = %v, want nil", q, r.Attrib())
		}
		if r.Text() != r.Get() || r.Get() != r.Value {
			t.Errorf("css(%q): Text %q, Get %q, Value %q differ", q, r.Text(), r.Get(), r.Value)
		}
	}
	if got := d.Root().Get(); !strings.HasPrefix(got, "<html><head><title>") || !strings.HasSuffix(got, "</html>") {
		t.Errorf("Root().Get() = %q, want the <html> element", got)
	}
	if k := selector.KindAttr.String(); k != "attr" {
		t.Errorf("KindAttr.String() = %q", k)
	}
}

func TestSVGAttributes(t *testing.T) {
	t.Parallel()
	d := parse(t, `<html><body><svg viewBox="0 0 1 1"><use xlink:href="#icon"/></svg></body></html>`)
	for _, tc := range []struct{ query, want string }{
		{"svg::attr(viewBox)", "0 0 1 1"},
		{"svg::attr(viewbox)", "0 0 1 1"},
		{`use::attr("xlink:href")`, "#icon"},
	} {
		rs, err := selector.Select([]selector.Result{d.Root()}, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := selector.GetAll(rs); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("css(%q) = %q, want [%q]", tc.query, got, tc.want)
		}
	}
}

func TestNoscriptIsMarkup(t *testing.T) {
	t.Parallel()
	d := parse(t, `<html><body><noscript><img src="/pixel.gif"></noscript></body></html>`)
	rs, err := selector.Select([]selector.Result{d.Root()}, "noscript img::attr(src)")
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(rs); !slices.Equal(got, []string{"/pixel.gif"}) {
		t.Errorf("got %q, want [/pixel.gif]", got)
	}
}

// TestConcurrent runs the same and different queries on one document from many goroutines
// (meaningful under -race): the document and the compiled-query cache are shared.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	d := parse(t, page)
	queries := []string{"div.product", ".name::text", "a::attr(href)", "li::text, h1::text", "p ::text", "div["}
	want := make(map[string]string)
	for _, q := range queries {
		want[q] = selectString(d, q)
	}
	errs := make(chan string, 16)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				q := queries[(i+j)%len(queries)]
				key := q
				if j%7 == 0 {
					q += strings.Repeat(" ", 1+j) // a new cache key, compiled concurrently
				}
				if got := selectString(d, q); got != want[key] {
					errs <- q + ": " + got + " != " + want[key]
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// selectString returns the results of query joined by "|", or "error" if it fails.
func selectString(d *selector.Document, query string) string {
	rs, err := selector.Select([]selector.Result{d.Root()}, query)
	if err != nil {
		return "error"
	}
	return strings.Join(selector.GetAll(rs), "|")
}

func TestCompileCaches(t *testing.T) {
	t.Parallel()
	q1, err := selector.Compile("div.cached-query ::text")
	if err != nil {
		t.Fatal(err)
	}
	q2, err := selector.Compile("div.cached-query ::text")
	if err != nil {
		t.Fatal(err)
	}
	if q1 != q2 {
		t.Error("second Compile of the same query returned a new *Query")
	}
	if q1.String() != "div.cached-query ::text" {
		t.Errorf("String() = %q", q1.String())
	}
}
