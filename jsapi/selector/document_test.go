package selector_test

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/japanese"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

func TestDecodeText(t *testing.T) {
	t.Parallel()
	sjis, err := japanese.ShiftJIS.NewEncoder().String("<html><body><p>日本語のページ</p></body></html>")
	if err != nil {
		t.Fatal(err)
	}
	// 1.5 KB of ASCII first, so the UTF-8 text lies beyond DetermineEncoding's 1024-byte window.
	lateUTF8 := "<html><body><!--" + strings.Repeat("x", 1500) + "--><p>naïve €</p></body></html>"
	for _, tc := range []struct {
		name, body, contentType string
		want                    string // text of the first <p>
	}{
		{"latin-1 via meta charset", "<html><head><meta charset=\"iso-8859-1\"></head><body><p>caf\xe9 \xa3</p></body></html>", "text/html", "café £"},
		{"latin-1 via meta http-equiv", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head><body><p>caf` + "\xe9</p></body></html>", "", "café"},
		{"shift_jis via header", sjis, "text/html; charset=Shift_JIS", "日本語のページ"},
		{"header wins over meta", "<meta charset=\"utf-8\"><p>caf\xe9</p>", "text/html; charset=windows-1252", "café"},
		{"utf-8 BOM wins over header", "\xef\xbb\xbf<p>café</p>", "text/html; charset=iso-8859-1", "café"},
		{"utf-16le BOM", "\xff\xfe<\x00p\x00>\x00\xe9\x00", "", "é"},
		{"undeclared defaults to utf-8", "<p>café</p>", "", "café"},
		{"undeclared utf-8 after the first kilobyte", lateUTF8, "text/html", "naïve €"},
		{"undeclared invalid utf-8 falls back to windows-1252", "<p>caf\xe9 \x80</p>", "", "café €"},
		{"declared utf-8 with a bad byte", "<p>caf\xe9</p>", "text/html; charset=utf-8", "caf\uFFFD"},
		{"unknown charset label ignored", "<p>café</p>", "text/html; charset=x-bogus", "café"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := selector.DecodeText([]byte(tc.body), tc.contentType)
			if strings.HasPrefix(text, "\uFEFF") {
				t.Errorf("DecodeText kept the byte order mark: %q", text)
			}
			if !strings.Contains(text, tc.want) {
				t.Errorf("DecodeText = %q, want it to contain %q", text, tc.want)
			}
			// Parse must agree with DecodeText.
			d, err := selector.Parse([]byte(tc.body), tc.contentType)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := selector.Select([]selector.Result{d.Root()}, "p::text")
			if err != nil {
				t.Fatal(err)
			}
			if got := selector.GetAll(rs); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("p::text = %q, want [%q]", got, tc.want)
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	t.Parallel()
	d, err := selector.Parse(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	// No <head> that was not in the source, as lxml.
	if got := d.Root().Get(); got != "<html><body></body></html>" {
		t.Errorf("Root().Get() = %q", got)
	}
	if d.Node() == nil || d.Root().Node.Parent != d.Node() {
		t.Error("Root is not the document node's <html> child")
	}
	rs, err := selector.Select([]selector.Result{{Node: d.Node()}}, "body")
	if err != nil || len(rs) != 1 {
		t.Errorf("selecting from the document node: %v, %v", rs, err)
	}
}

// nested returns a page with n nested divs around "deep", closed or not, followed by
// content.
func nested(n int, closed bool) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><body>")
	b.WriteString(strings.Repeat(`<div class="d">`, n))
	b.WriteString("deep")
	if closed {
		b.WriteString(strings.Repeat("</div>", n))
	}
	b.WriteString(`<p class=after>x</p><a href="/next">next</a></body></html>`)
	return b.String()
}

// TestDeepNesting: a page nested past x/net/html's limit of 512 open elements parses, with
// the elements past the limit flattened, so selectors find everything in it; a page just
// within the limit parses as before.
func TestDeepNesting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		text      string
		flattened bool
	}{
		{"100,000 unclosed divs", nested(100_000, false), true},
		{"20,000 closed divs", nested(20_000, true), true},
		{"one div past the limit", nested(511, true), true},
		{"at the limit", nested(510, true), false},
		// Each level is four elements (tbody and tr implied) where the tags show two: the
		// first flattening is not enough.
		{"nested tables", strings.Repeat("<table><td>", 400) + "deep" + strings.Repeat("</td></table>", 400) +
			`<p class=after>x</p><a href="/next">next</a>`, true},
		{"nested inline elements", strings.Repeat("<span><em>", 300) + "deep" + `<p class=after>x</p><a href="/next">next</a>`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := selector.ParseText(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Flattened() > 0; got != tc.flattened {
				t.Errorf("Flattened() = %d, want flattened %v", d.Flattened(), tc.flattened)
			}
			root := []selector.Result{d.Root()}
			for q, want := range map[string][]string{
				"p.after::text": {"x"},
				"a::attr(href)": {"/next"},
				"*:not(html,body,head,div,table,tbody,tr,td,span,em,p,a)": nil,
			} {
				rs, err := selector.Select(root, q)
				if err != nil {
					t.Fatal(err)
				}
				if got := selector.GetAll(rs); !slices.Equal(got, want) {
					t.Errorf("css %s = %q, want %q", q, got, want)
				}
			}
			for q, want := range map[string][]string{
				"//p[@class='after']/text()": {"x"},
				"//a/@href":                  {"/next"},
				"//text()[. = 'deep']":       {"deep"},
			} {
				xq, err := selector.CompileXPath(q, nil)
				if err != nil {
					t.Fatal(err)
				}
				rs, err := xq.Select(root...)
				if err != nil {
					t.Fatal(err)
				}
				if got := selector.GetAll(rs); !slices.Equal(got, want) {
					t.Errorf("xpath %s = %q, want %q", q, got, want)
				}
			}
		})
	}
}

// TestDeepNestingAtLimitUnchanged: a page at the limit gives the same tree as x/net/html.
func TestDeepNestingAtLimitUnchanged(t *testing.T) {
	t.Parallel()
	text := nested(510, true)
	want, err := html.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	// ParseText drops the empty <head> the parser implies, as lxml adds none.
	root := want.LastChild // <html>, after the doctype
	if h := root.FirstChild; h != nil && h.Data == "head" && h.FirstChild == nil {
		root.RemoveChild(h)
	}
	var wb, gb strings.Builder
	if err := html.Render(&wb, want); err != nil {
		t.Fatal(err)
	}
	d, err := selector.ParseText(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := html.Render(&gb, d.Node()); err != nil {
		t.Fatal(err)
	}
	if wb.String() != gb.String() || d.Flattened() != 0 {
		t.Errorf("the page at the limit parsed differently (flattened %d)", d.Flattened())
	}
	if _, err := html.Parse(strings.NewReader(nested(511, true))); err == nil {
		t.Errorf("x/net/html parses 511 nested divs: the limit moved, update nested's numbers")
	}
}
