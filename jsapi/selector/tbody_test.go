package selector_test

import (
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// TestTbody: tables are seen as written, as by Scrapy's selectors (lxml). Scrapy's
// docs/topics/developer-tools.rst: browsers add <tbody> to tables, "Scrapy, on the other
// hand, does not modify the original page HTML, so you won't be able to extract any data if
// you use <tbody> in your XPath expressions" (and "Never include <tbody> elements in your
// XPath expressions"). So //table/tr/td finds the cells of a table written without <tbody>
// and //table/tbody/tr finds nothing there, for XPath and CSS alike; a <tbody> written in
// the source stays, and table > tbody > tr keeps matching it.
func TestTbody(t *testing.T) {
	t.Parallel()
	const (
		// A product table as real pages write it (and as Scrapy's docs warn about).
		bare = `<html><body><table id="p"><tr><th>Name</th><th>Price</th></tr>
<tr><td>Book</td><td>12</td></tr><tr><td>Pen</td><td>3</td></tr></table></body></html>`
		withTbody = `<html><body><table id="p"><tbody><tr><td>Book</td><td>12</td></tr></tbody></table></body></html>`
		// Two tables, one with a <tbody>, one without, and one nested in a cell.
		mixed = `<table id="a"><thead><tr><th>h</th></tr></thead><tr><td>a1</td></tr></table>
<table id="b"><TBODY class="x"><tr><td>b1<table id="c"><tr><td>c1</td></tr></table></td></tr></TBODY></table>`
	)
	for _, tc := range []struct {
		name, page string
		xpath      map[string][]string
		css        map[string][]string
	}{
		{"no tbody in the source", bare, map[string][]string{
			"//table/tr/td/text()":                {"Book", "12", "Pen", "3"},
			"//table[@id='p']/tr[2]/td[1]/text()": {"Book"},
			"//table/tbody/tr/td/text()":          nil,
			"//tbody":                             nil,
			"count(//table/tr)":                   {"3.0"},
			"name(//tr[1]/..)":                    {"table"},
		}, map[string][]string{
			"table > tr > td::text":       {"Book", "12", "Pen", "3"},
			"table > tbody > tr":          nil,
			"tbody":                       nil,
			"#p tr:nth-child(3) td::text": {"Pen", "3"},
		}},
		{"a tbody in the source", withTbody, map[string][]string{
			"//table/tbody/tr/td/text()": {"Book", "12"},
			"//table/tr/td/text()":       nil,
			"//table/tbody":              {"<tbody><tr><td>Book</td><td>12</td></tr></tbody>"},
		}, map[string][]string{
			"table > tbody > tr > td::text": {"Book", "12"},
			"table > tr":                    nil,
		}},
		{"tables with and without", mixed, map[string][]string{
			"//table[@id='a']/tr/td/text()":                   {"a1"},
			"//table[@id='a']/thead/tr/th/text()":             {"h"},
			"//table[@id='b']/tbody[@class='x']/tr/td/text()": {"b1"},
			"//table[@id='c']/tr/td/text()":                   {"c1"},
			"count(//tbody)":                                  {"1.0"},
		}, map[string][]string{
			"#a > tr > td::text":           {"a1"},
			"#b > tbody.x > tr > td::text": {"b1"},
			"#c > tr > td::text":           {"c1"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := selector.ParseText(tc.page)
			if err != nil {
				t.Fatal(err)
			}
			root := []selector.Result{d.Root()}
			for q, want := range tc.xpath {
				rs, err := selector.XPath(root, q, nil)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if got := selector.GetAll(rs); !slices.Equal(got, want) {
					t.Errorf("xpath %s = %q, want %q", q, got, want)
				}
			}
			for q, want := range tc.css {
				rs, err := selector.Select(root, q)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if got := selector.GetAll(rs); !slices.Equal(got, want) {
					t.Errorf("css %s = %q, want %q", q, got, want)
				}
			}
		})
	}
	// get() writes the table as written, as lxml does.
	d, err := selector.ParseText(`<table><tr><td>x</td></tr></table>`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Root().Get(), `<html><body><table><tr><td>x</td></tr></table></body></html>`; got != want {
		t.Errorf("get() = %s, want %s", got, want)
	}
}
