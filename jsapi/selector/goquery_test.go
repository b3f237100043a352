package selector_test

import (
	"slices"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"golang.org/x/net/html"
)

// The selector layer is built on goquery: a Document is a goquery Document over the same
// nodes, CSS element results are the nodes goquery's FindMatcher finds with the compiled
// query as its Matcher, and XPath and CSS results mix as they share node identity.
func TestGoquerySharesNodes(t *testing.T) {
	const page = `<html><body><div id="a"><p class="x">1</p><div><p>2</p></div></div>
<ul><li>a</li><li class="x">b</li><li>c</li></ul></body></html>`
	d, err := selector.ParseText(page)
	if err != nil {
		t.Fatal(err)
	}
	gq := d.Goquery()
	if gq == nil || len(gq.Nodes) != 1 || gq.Nodes[0] != d.Node() {
		t.Fatalf("Goquery() = %v, want a goquery Document on the DocumentNode", gq)
	}
	root := []selector.Result{d.Root()}
	for _, query := range []string{"p", ".x", "div p", "div > p", "li + li", "li ~ .x", "p, li", "*"} {
		t.Run(query, func(t *testing.T) {
			rs, err := selector.Select(root, query)
			if err != nil {
				t.Fatal(err)
			}
			q, err := selector.Compile(query)
			if err != nil {
				t.Fatal(err)
			}
			// The document's root is <html>, which a CSS query from the document may match.
			want := gq.FindMatcher(q.Matcher()).Nodes
			if got := nodes(rs); !slices.Equal(got, want) {
				t.Errorf("Select = %v, goquery FindMatcher(Matcher) = %v", names(got), names(want))
			}
			// goquery's own cascadia compilation finds the same nodes on a page this simple.
			if std := gq.Find(query).Nodes; !slices.Equal(want, std) {
				t.Errorf("FindMatcher(Matcher) = %v, goquery Find = %v", names(want), names(std))
			}
			// CSS results feed XPath and back: the nodes are the same.
			for _, r := range rs {
				self, err := selector.XPath([]selector.Result{r}, "self::*", nil)
				if err != nil || len(self) != 1 || self[0].Node != r.Node {
					t.Fatalf("XPath self::* on a CSS result = %v, %v", self, err)
				}
			}
		})
	}
}

// A query run from an element keeps parsel's scope on the goquery path: "div p" from the
// inner div does not use the outer div, and the context element itself can match.
func TestGoqueryScope(t *testing.T) {
	d, err := selector.ParseText(`<div id="outer"><div id="inner"><p>1</p></div></div>`)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := selector.Select([]selector.Result{d.Root()}, "#inner")
	if err != nil || len(inner) != 1 {
		t.Fatalf("#inner: %v, %v", inner, err)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"div p", 1},     // the inner div itself is the div
		{"div div p", 0}, // the outer div is out of scope, as in parsel
		{"div", 1},       // descendant-or-self
		{"#outer p", 0},
	} {
		rs, err := selector.Select(inner, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != tc.want {
			t.Errorf("%q from #inner: %d results, want %d", tc.query, len(rs), tc.want)
		}
	}
	// The Matcher itself has the standard, document-wide scope.
	q, _ := selector.Compile("div div p")
	if got := d.Goquery().FindMatcher(q.Matcher()).Length(); got != 1 {
		t.Errorf("goquery FindMatcher(div div p) = %d nodes, want 1", got)
	}
	var _ goquery.Matcher = q.Matcher()
}

func nodes(rs []selector.Result) []*html.Node {
	out := make([]*html.Node, len(rs))
	for i, r := range rs {
		out[i] = r.Node
	}
	return out
}

func names(ns []*html.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Data
	}
	return out
}
