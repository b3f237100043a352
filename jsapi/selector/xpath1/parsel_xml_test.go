package xpath1

import (
	"errors"
	"testing"
)

// XML cases ported from scrapy/parsel's tests/test_selector.py (commit 05b3d37; test_namespaces_*,
// test_remove_namespaces' namespace axis), over the test XML model from the root element.
// (test_namespaces_simple's document closes <somens:a> with </a>, which only libxml2's
// recovery accepts; the selector's parser does the same, the test model does not, so
// the end tag is written </somens:a> here.)

const (
	parselNSSimple = `
        <test xmlns:somens="http://scrapy.org">
           <somens:a id="foo">take this</somens:a>
           <a id="bar">found</a>
        </test>
        `
	parselNSMultiple = `<?xml version="1.0" encoding="UTF-8"?>
<BrowseNode xmlns="http://webservices.amazon.com/AWSECommerceService/2005-10-05"
            xmlns:b="http://somens.com"
            xmlns:p="http://www.scrapy.org/product" >
    <b:Operation>hello</b:Operation>
    <TestTag b:att="value"><Other>value</Other></TestTag>
    <p:SecondTestTag><material>iron</material><price>90</price><p:name>Dried Rose</p:name></p:SecondTestTag>
</BrowseNode>
        `
	parselFeed = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en-US" xmlns:media="http://search.yahoo.com/mrss/">
  <link type="text/html"/>
  <entry>
    <link type="text/html"/>
  </entry>
  <link type="application/atom+xml"/>
</feed>
`
	awsNS     = "http://webservices.amazon.com/AWSECommerceService/2005-10-05"
	somensNS  = "http://somens.com"
	productNS = "http://www.scrapy.org/product"
)

var parselXMLCases = []struct {
	name, doc, expr string
	ns              map[string]string
	vars            map[string]Value
	want            string
	err             error
}{
	{"namespaces_simple", parselNSSimple, "//somens:a/text()", map[string]string{"somens": "http://scrapy.org"}, nil, "'take this'", nil},
	{"namespaces_adhoc_variables", parselNSSimple, "//somens:a/following-sibling::a[@id=$identifier]/text()", map[string]string{"somens": "http://scrapy.org"}, map[string]Value{"identifier": StringValue("bar")}, "'found'", nil},
	{"namespaces_multiple", parselNSMultiple, "count(//xmlns:TestTag)", map[string]string{"xmlns": awsNS}, nil, "number:1", nil},
	{"namespaces_multiple", parselNSMultiple, "//b:Operation/text()", map[string]string{"b": somensNS}, nil, "'hello'", nil},
	{"namespaces_multiple", parselNSMultiple, "//xmlns:TestTag/@b:att", map[string]string{"xmlns": awsNS, "b": somensNS}, nil, "@att=value", nil},
	{"namespaces_multiple", parselNSMultiple, "//p:SecondTestTag/xmlns:price/text()", map[string]string{"xmlns": awsNS, "p": productNS}, nil, "'90'", nil},
	{"namespaces_multiple", parselNSMultiple, "//p:SecondTestTag/xmlns:material/text()", map[string]string{"xmlns": awsNS, "p": productNS}, nil, "'iron'", nil},
	{"namespaces_multiple_adhoc", parselNSMultiple, "//xmlns:TestTag/@b:att", map[string]string{"xmlns": awsNS}, nil, "", ErrUndefinedPrefix},
	{"namespaces_multiple_adhoc", parselNSMultiple, "//p:SecondTestTag/p:name/text()", map[string]string{"p": productNS}, nil, "'Dried Rose'", nil},
	{"namespaces_multiple_adhoc", parselNSMultiple, "string(//b:Operation/following-sibling::xmlns:TestTag/following-sibling::*//p:name)", map[string]string{"xmlns": awsNS, "b": somensNS, "p": productNS}, nil, "Dried Rose", nil},
	{"namespaces_multiple_adhoc", parselNSMultiple, "//p:SecondTestTag/xmlns:price/text()", map[string]string{"xmlns": awsNS}, nil, "", ErrUndefinedPrefix},
	{"namespaces_multiple_adhoc", parselNSMultiple, "//TestTag", nil, nil, "", nil}, // no prefix: no namespace (XPath 1.0)
	{"remove_namespaces", parselFeed, "count(//link)", nil, nil, "number:0", nil},
	{"remove_namespaces", parselFeed, "count(./namespace::*)", nil, nil, "number:3", nil},
	{"remove_namespaces", parselFeed, "count(//f:link)", map[string]string{"f": "http://www.w3.org/2005/Atom"}, nil, "number:3", nil},
	{"remove_namespaces", parselFeed, "//f:link/@type", map[string]string{"f": "http://www.w3.org/2005/Atom"}, nil, "@type=text/html @type=text/html @type=application/atom+xml", nil},
}

func TestParselXML(t *testing.T) {
	t.Parallel()
	for _, tc := range parselXMLCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, m, err := parseXMLDoc(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			x, err := Compile(tc.expr, &Options{Namespaces: tc.ns})
			var v Value
			if err == nil {
				v, err = x.Evaluate(m, NodeOf(rootElement(root)), &Env{Variables: tc.vars})
			}
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("%s: %v, want %v", tc.expr, err, tc.err)
				}
			case err != nil:
				t.Fatalf("%s: %v", tc.expr, err)
			default:
				if got := shortDump(m, v); got != tc.want {
					t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
				}
			}
		})
	}
}
