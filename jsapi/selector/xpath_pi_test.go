package selector_test

import (
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// Documents of TestXPathProcessingInstructions. piDoc is ours; the others come from the
// public suites its cases cite.
const (
	piDoc = `<?xml version="1.0"?>
<?xml-stylesheet type="text/xsl" href="s.xsl"?>
<!-- c0 -->
<root a="1"><?php echo 1; ?>text<b>x<?t  two words ?>y</b><?empty?><?spaced ?></root>
<?after data?>
`
	declLater      = ` <?xml version="1.0"?><r><?xml again?><?XML up?></r>`
	lxmlPIParse    = `<test><?mypi my test ?></test>`
	lxmlRemovePIs  = `<?test?><a><?A?><b><?B?><c/></b><?C?></a><?tail?>`
	lxmlDeepcopyPI = `<?mypi my test ?><test/><!--comment -->`
	lxmlItertext   = `<root>RTEXT<a></a>ATAIL<b/><!-- COMMENT -->CTAIL<?PI PITEXT?> PITAIL </root>`
	epTreeBuilders = `<?xml version='1.0' encoding='UTF8'?>
<?xml-model type="application/xml"?>
<!-- Document comment -->
<root xmlns:tns="http://elementpath.test/ns">
    <!-- Root comment -->
    <child1>
        child1 text1
        <!-- Child 1 comment -->
        <elem1 xmlns:xml="http://www.w3.org/XML/1998/namespace" a1="value1"/>
        <elem2 a2="value2"/>
        child1 text2
    </child1>
    <child2/>
    <tns:other/>
    <?PI-target PI content?>
</root>
<?xml-model type="application/xml"?>
<!-- Document comment 2 -->
`
	epNodeTypes  = `<schema><?action?></schema>`
	libxml2Nodes = `<?xml version="1.0"?>
<root><foo>txt<!--hello--><![CDATA[data]]><?target data?><bar>txt<!--hello--><![CDATA[data]]><?target data?></bar></foo></root>`
)

// TestXPathProcessingInstructions runs XPath over real XML documents with processing
// instructions, parsed by ParseXML, from the root element (or from the first node ctx
// selects), and compares getall() with what parsel gives. Every want is what lxml 4.9.2
// returns with parsel's XML parser options (recover, comments and PIs kept, entities not
// resolved), serialised as parsel's get() does (tostring with_tail=False). The cases
// under "lxml" are ours; the others are ported:
//   - lxml/lxml src/lxml/tests/test_etree.py (commit ce6b446b): test_pi_parse,
//     test_parse_remove_pis, test_deepcopy_elementtree_pi, test_itertext_comment_pi, their
//     documents and what they assert (target, text, tostring of the tree, itertext) as XPath;
//   - sissaschool/elementpath (commit a9ba159) tests/test_tree_builders.py
//     test_build_lxml_node_tree_with_element_tree (the node kinds and positions of the tree
//     lxml builds) and tests/test_xpath1_parser.py test_node_types (a PI as the context);
//   - GNOME/libxml2 (commit c8eaf223) test/XPath/tests/nodespat over test/XPath/docs/nodes.
func TestXPathProcessingInstructions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc, ctx, expr string
		want                 []string
	}{
		// lxml
		{"all PIs in document order", piDoc, "", "//processing-instruction()", []string{`<?xml-stylesheet type="text/xsl" href="s.xsl"?>`, "<?php echo 1; ?>", "<?t two words ?>", "<?empty?>", "<?spaced ?>", "<?after data?>"}},
		{"outside the root element", piDoc, "", "/processing-instruction()", []string{`<?xml-stylesheet type="text/xsl" href="s.xsl"?>`, "<?after data?>"}},
		{"by target", piDoc, "", "//processing-instruction('t')", []string{"<?t two words ?>"}},
		{"by target, double quotes", piDoc, "", `//processing-instruction("php")`, []string{"<?php echo 1; ?>"}},
		{"target is case-sensitive", piDoc, "", `//processing-instruction("PHP")`, nil},
		{"no such target", piDoc, "", "//processing-instruction('nope')", nil},
		{"the declaration is not a PI", piDoc, "", "boolean(//processing-instruction('xml'))", []string{"0"}},
		{"string-value is the data", piDoc, "", "string(//processing-instruction())", []string{`type="text/xsl" href="s.xsl"`}},
		{"trailing whitespace kept, leading dropped", piDoc, "", "string(//processing-instruction('t'))", []string{"two words "}},
		{"empty data", piDoc, "", "string(//processing-instruction('empty'))", []string{""}},
		{"only whitespace after the target", piDoc, "", "//processing-instruction('spaced')", []string{"<?spaced ?>"}},
		{"name()", piDoc, "", "name(//processing-instruction('t'))", []string{"t"}},
		{"local-name()", piDoc, "", "local-name(//processing-instruction('xml-stylesheet'))", []string{"xml-stylesheet"}},
		{"namespace-uri()", piDoc, "", "namespace-uri(//processing-instruction('t'))", []string{""}},
		{"not in the string-value of the parent", piDoc, "", "string(/root)", []string{"textxy"}},
		{"not in the string-value of the root", piDoc, "", "string(/)", []string{"textxy"}},
		{"not text", piDoc, "", "/root//text()", []string{"text", "x", "y"}},
		{"child nodes of the document", piDoc, "", "count(/node())", []string{"4.0"}},
		{"all nodes", piDoc, "", "count(//node())", []string{"12.0"}},
		{"child axis", piDoc, "", "/root/node()", []string{"<?php echo 1; ?>", "text", "<b>x<?t two words ?>y</b>", "<?empty?>", "<?spaced ?>"}},
		{"parent axis", piDoc, "", "//processing-instruction()/parent::*/@a | //processing-instruction()/parent::b/text()", []string{"1", "x", "y"}},
		{"parent of a top-level PI is the root node", piDoc, "", "count(/processing-instruction()/parent::node()) = count(/)", []string{"1"}},
		{"ancestor axis", piDoc, "", "count(//processing-instruction('t')/ancestor::node())", []string{"3.0"}},
		{"following-sibling axis", piDoc, "", "//processing-instruction('php')/following-sibling::node()", []string{"text", "<b>x<?t two words ?>y</b>", "<?empty?>", "<?spaced ?>"}},
		{"preceding-sibling axis", piDoc, "", "//processing-instruction('empty')/preceding-sibling::node()", []string{"<?php echo 1; ?>", "text", "<b>x<?t two words ?>y</b>"}},
		{"preceding axis", piDoc, "", "//processing-instruction('t')/preceding::node()", []string{`<?xml-stylesheet type="text/xsl" href="s.xsl"?>`, "<!-- c0 -->", "<?php echo 1; ?>", "text", "x"}},
		{"following axis", piDoc, "", "//processing-instruction('t')/following::node()", []string{"y", "<?empty?>", "<?spaced ?>", "<?after data?>"}},
		{"descendant axis", piDoc, "", "/descendant::processing-instruction()[2]", []string{"<?php echo 1; ?>"}},
		{"position among PI children", piDoc, "", "//processing-instruction()[1]", []string{`<?xml-stylesheet type="text/xsl" href="s.xsl"?>`, "<?php echo 1; ?>", "<?t two words ?>"}},
		{"last in document order", piDoc, "", "(//processing-instruction())[last()]", []string{"<?after data?>"}},
		{"predicate on the data", piDoc, "", "//processing-instruction()[contains(., 'echo')]", []string{"<?php echo 1; ?>"}},
		{"self axis", piDoc, "", "//processing-instruction()/self::processing-instruction('t')", []string{"<?t two words ?>"}},
		{"no children", piDoc, "", "count(//processing-instruction()/node())", []string{"0.0"}},
		{"no attributes", piDoc, "", "count(//processing-instruction()/@*)", []string{"0.0"}},
		{"no namespace nodes", piDoc, "", "count(//processing-instruction()/namespace::*)", []string{"0.0"}},
		{"number of the data", piDoc, "", "number(//processing-instruction('t'))", []string{"nan"}},
		{"element serialised with its PIs", piDoc, "", "/root", []string{`<root a="1"><?php echo 1; ?>text<b>x<?t two words ?>y</b><?empty?><?spaced ?></root>`}},
		{"relative from a PI", piDoc, "//processing-instruction('t')", "string()", []string{"two words "}},
		{"name() of a PI context", piDoc, "//processing-instruction('t')", "name()", []string{"t"}},
		{"a declaration not at the start is a PI", declLater, "", "//processing-instruction()", []string{`<?xml version="1.0"?>`, "<?xml again?>", "<?XML up?>"}},
		{"following-sibling from a PI context", piDoc, "//processing-instruction('t')", "following-sibling::text()", []string{"y"}},
		// test_pi_parse
		{"target", lxmlPIParse, "", "name(/test/processing-instruction())", []string{"mypi"}},
		{"text", lxmlPIParse, "", "string(/test/processing-instruction())", []string{"my test "}},
		// test_parse_remove_pis
		{"kept in place", lxmlRemovePIs, "", "/node()", []string{"<?test?>", "<a><?A?><b><?B?><c/></b><?C?></a>", "<?tail?>"}},
		{"all", lxmlRemovePIs, "", "//processing-instruction()", []string{"<?test?>", "<?A?>", "<?B?>", "<?C?>", "<?tail?>"}},
		// test_deepcopy_elementtree_pi
		{"around the root", lxmlDeepcopyPI, "", "/node()", []string{"<?mypi my test ?>", "<test/>", "<!--comment -->"}},
		// test_itertext_comment_pi
		{"text nodes", lxmlItertext, "", "//text()", []string{"RTEXT", "ATAIL", "CTAIL", " PITAIL "}},
		{"string-value", lxmlItertext, "", "string(/root)", []string{"RTEXTATAILCTAIL PITAIL "}},
		{"PI", lxmlItertext, "", "//processing-instruction()", []string{"<?PI PITEXT?>"}},
		// test_build_lxml_node_tree_with_element_tree
		{"document children", epTreeBuilders, "", "/node()", []string{`<?xml-model type="application/xml"?>`, "<!-- Document comment -->", "<root xmlns:tns=\"http://elementpath.test/ns\">\n    <!-- Root comment -->\n    <child1>\n        child1 text1\n        <!-- Child 1 comment -->\n        <elem1 a1=\"value1\"/>\n        <elem2 a2=\"value2\"/>\n        child1 text2\n    </child1>\n    <child2/>\n    <tns:other/>\n    <?PI-target PI content?>\n</root>", `<?xml-model type="application/xml"?>`, "<!-- Document comment 2 -->"}},
		{"document PIs", epTreeBuilders, "", "/processing-instruction()", []string{`<?xml-model type="application/xml"?>`, `<?xml-model type="application/xml"?>`}},
		{"root children", epTreeBuilders, "", "count(/root/node())", []string{"11.0"}},
		{"the PI is the root's 10th child", epTreeBuilders, "", "count(/root/processing-instruction()/preceding-sibling::node())", []string{"9.0"}},
		{"root PI", epTreeBuilders, "", "/root/processing-instruction('PI-target')", []string{"<?PI-target PI content?>"}},
		{"root PI data", epTreeBuilders, "", "string(/root/processing-instruction())", []string{"PI content"}},
		{"document order", epTreeBuilders, "", "count(//node())", []string{"23.0"}},
		{"document order", epTreeBuilders, "", "count(/root/processing-instruction()/preceding::node())", []string{"18.0"}},
		// test_node_types
		{"self::node()", epNodeTypes, "//processing-instruction()", "self::node()", []string{"<?action?>"}},
		{"self::processing-instruction()", epNodeTypes, "//processing-instruction()", "self::processing-instruction()", []string{"<?action?>"}},
		{"self::processing-instruction('action')", epNodeTypes, "//processing-instruction()", "self::processing-instruction('action')", []string{"<?action?>"}},
		{"self::processing-instruction('other')", epNodeTypes, "//processing-instruction()", "self::processing-instruction('other')", nil},
		{"processing-instruction() has no children", epNodeTypes, "//processing-instruction()", "processing-instruction()", nil},
		// nodespat
		{"/root//././/bar//.", libxml2Nodes, "", "/root//././/bar//.", []string{"<bar>txt<!--hello-->data<?target data?></bar>", "txt", "<!--hello-->", "data", "<?target data?>"}},
		{"//.", libxml2Nodes, "", "count(//.)", []string{"12.0"}},
		{"//. PIs", libxml2Nodes, "", "//./self::processing-instruction()", []string{"<?target data?>", "<?target data?>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := parseXML(t, tc.doc)
			in := []selector.Result{d.Root()}
			if tc.ctx != "" {
				rs, err := selector.XPath(in, tc.ctx, nil)
				if err != nil || len(rs) == 0 {
					t.Fatalf("context %s: %v %v", tc.ctx, rs, err)
				}
				in = rs[:1]
			}
			rs, err := selector.XPath(in, tc.expr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
				t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

// TestProcessingInstructionsAreNotText: the walks other than XPath's node tests skip
// processing instructions, as lxml does (test_itertext_comment_pi's document: itertext is
// the text nodes only), and RemoveNamespaces and a charset conversion keep them.
func TestProcessingInstructionsAreNotText(t *testing.T) {
	t.Parallel()
	d := parseXML(t, lxmlItertext)
	root := []selector.Result{d.Root()}
	if got := d.Root().Text(); got != "RTEXTATAILCTAIL PITAIL " {
		t.Errorf("Text() = %q", got)
	}
	rs, err := selector.Select(root, "root::text")
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(rs); !slices.Equal(got, []string{"RTEXT", "ATAIL", "CTAIL", " PITAIL "}) {
		t.Errorf("root::text = %q", got)
	}
	if rs, _ := selector.Select(root, "b:empty, a:empty"); len(rs) != 2 {
		t.Errorf(":empty: %q", selector.GetAll(rs))
	}

	ns := parseXML(t, `<?xml version="1.0"?><?app x?><s:r xmlns:s="urn:s"><s:a><?app y?></s:a></s:r>`)
	ns.RemoveNamespaces()
	rs, err = ns.XPath("//processing-instruction('app') | /r/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := selector.GetAll(rs); !slices.Equal(got, []string{"<?app x?>", "<a><?app y?></a>", "<?app y?>"}) {
		t.Errorf("after RemoveNamespaces: %q", got)
	}

	latin := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r><?t caf\xe9?></r>")
	for _, ct := range []string{"text/xml", "text/xml; charset=iso-8859-1"} {
		d, err := selector.ParseXML(latin, ct)
		if err != nil {
			t.Fatal(err)
		}
		rs, _ := d.XPath("//processing-instruction()")
		if got := selector.GetAll(rs); !slices.Equal(got, []string{"<?t café?>"}) {
			t.Errorf("%s: %q", ct, got)
		}
	}
}

// TestProcessingInstructionsInHTML pins a difference from lxml: x/net/html parses "<?...>"
// in an HTML document as a comment (HTML5's bogus comment), where lxml's HTML parser makes
// a processing instruction.
func TestProcessingInstructionsInHTML(t *testing.T) {
	t.Parallel()
	d := parse(t, `<html><body><?php echo 1; ?><p>x</p></body></html>`)
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{"//processing-instruction()", nil},
		{"//comment()", []string{"<!--?php echo 1; ?-->"}},
	} {
		rs, err := d.XPath(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := selector.GetAll(rs); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}
