package selector_test

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// dumpTree writes every node of n's tree with its type, name, namespace and attributes,
// quoted, so trees that differ in any byte dump differently.
func dumpTree(b *strings.Builder, n *html.Node, depth int) {
	fmt.Fprintf(b, "%*s%d %q %q", depth, "", n.Type, n.Namespace, n.Data)
	for _, a := range n.Attr {
		fmt.Fprintf(b, " %q:%q=%q", a.Namespace, a.Key, a.Val)
	}
	b.WriteByte('\n')
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		dumpTree(b, c, depth+1)
	}
}

// TestParseFastPathSameTree: Parse of a body it takes as it is (UTF-8, valid, no byte
// order mark) gives the same tree as parsing DecodeText's copy, and bodies that need
// decoding still take the decoding path; both sides for tricky inputs (byte order marks,
// declared charsets, NULs, CR and CRLF, invalid UTF-8, no <head>, a page nested too deeply).
func TestParseFastPathSameTree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, contentType string
		plain                   bool // Parse uses body as it is
	}{
		{"utf-8 declared in the header", `<html><head><title>t</title></head><body><p class="a">café €</p></body></html>`, "text/html; charset=utf-8", true},
		{"utf-8 declared in a meta", `<meta charset="utf-8"><p>naïve</p>`, "text/html", true},
		{"undeclared utf-8", "<p>café</p>" + strings.Repeat("<i>x</i>", 300) + "<p>€</p>", "", true},
		{"NULs in text, tags and attributes", "<p a\x00b=\"v\x00w\">x\x00y</p><scr\x00ipt>a\x00</script><!--c\x00-->\x00", "text/html; charset=utf-8", true},
		{"CR and CRLF", "<p title=\"a\r\nb\rc\">x\r\ny\rz</p>\r\n<pre>\r\nkept</pre><textarea>\r\n\r\nt</textarea>", "text/html; charset=utf-8", true},
		{"no head", "<p>x</p>", "text/html; charset=utf-8", true},
		{"entities and raw text", "<p>&amp;&lt;&eacute;&#xe9;&notit;</p><script>if (a < b && c) {}</script><style>p>a{}</style>", "text/html; charset=utf-8", true},
		{"nested too deeply", nested(600, false), "text/html; charset=utf-8", true},
		{"utf-8 BOM", "\xef\xbb\xbf<p>café</p>", "text/html; charset=utf-8", false},
		{"utf-8 BOM over a latin-1 header", "\xef\xbb\xbf<p>café</p>", "text/html; charset=iso-8859-1", false},
		{"utf-16le BOM", "\xff\xfe<\x00p\x00>\x00\xe9\x00", "", false},
		{"latin-1 header", "<p>caf\xe9</p>", "text/html; charset=iso-8859-1", false},
		{"latin-1 meta", "<meta charset=\"iso-8859-1\"><p>caf\xe9</p>", "text/html", false},
		{"utf-8 declared with a bad byte", "<p>caf\xe9</p>", "text/html; charset=utf-8", false},
		{"undeclared invalid utf-8", "<p>caf\xe9 \x80</p>", "", false},
		{"latin-1 header over ASCII", "<p>cafe</p>", "text/html; charset=iso-8859-1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := selector.PlainUTF8([]byte(tc.body), tc.contentType); got != tc.plain {
				t.Errorf("PlainUTF8 = %v, want %v", got, tc.plain)
			}
			got, err := selector.Parse([]byte(tc.body), tc.contentType)
			if err != nil {
				t.Fatal(err)
			}
			want, err := selector.ParseText(selector.DecodeText([]byte(tc.body), tc.contentType))
			if err != nil {
				t.Fatal(err)
			}
			var gb, wb strings.Builder
			dumpTree(&gb, got.Node(), 0)
			dumpTree(&wb, want.Node(), 0)
			if gb.String() != wb.String() {
				t.Errorf("Parse and ParseText(DecodeText) differ:\nParse:\n%s\nParseText:\n%s", gb.String(), wb.String())
			}
			if got.Flattened() != want.Flattened() || got.Root().Get() != want.Root().Get() {
				t.Errorf("flattened %d, %d; Get equal %v", got.Flattened(), want.Flattened(), got.Root().Get() == want.Root().Get())
			}
		})
	}
}
