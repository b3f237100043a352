package types_test

import (
	"net/url"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestParseRef: references Go's parser reads differently from Scrapy's urljoin
// (urllib.parse.urljoin) and browsers, joined to web-platform-tests' base
// (url/resources/urltestdata.json uses http://example.org/foo/bar); the expected URLs are
// that file's, except where noted.
func TestParseRef(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://example.org/foo/bar")
	for _, tc := range []struct{ ref, want string }{
		{"http:foo.com", "http://example.org/foo/foo.com"},
		{"\t   :foo.com   \n", "http://example.org/foo/:foo.com"},
		{":foo.com/", "http://example.org/foo/:foo.com/"},
		{":", "http://example.org/foo/:"},
		{":a", "http://example.org/foo/:a"},
		{":/", "http://example.org/foo/:/"},
		{":#", "http://example.org/foo/:"},
		{":23", "http://example.org/foo/:23"},
		{"::", "http://example.org/foo/::"},
		{"::23", "http://example.org/foo/::23"},
		{"http::@c:29", "http://example.org/foo/:@c:29"},
		{"http:/example.com/", "http://example.org/example.com/"},
		{"HTTP:foo", "http://example.org/foo/foo"},
		{"https:example.com/", "https://example.com/"}, // wpt: https://example.com/
		{"ftp:/example.com/", "ftp://example.com/"},    // wpt: ftp://example.com/
		{"http://other.test/x", "http://other.test/x"}, // absolute stays
		{"mailto:x@y.test", "mailto:x@y.test"},         // not special: as it is
		{"a:b", "a:b"},                                 // a scheme
		{"1:b", "http://example.org/foo/1:b"},          // no scheme: a path
		{"/:23", "http://example.org/:23"},
	} {
		ref, err := types.ParseRef(base, tc.ref)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tc.ref, err)
			continue
		}
		if got := base.ResolveReference(ref).String(); got != tc.want {
			t.Errorf("ParseRef(%q) joined: %s, want %s", tc.ref, got, tc.want)
		}
	}
}
