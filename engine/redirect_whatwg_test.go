package engine_test

import (
	"net/url"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestRedirectLocationLikeBrowsers: a Location is parsed by the WHATWG URL parser, as
// browsers and curl follow it, on a real server: a tab inside is removed, a leading
// "\\host" (backslashes) names a host, "http:path" with the request's scheme is a relative
// path. Before, these redirects failed or went to the wrong URL.
func TestRedirectLocationLikeBrowsers(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for _, tc := range []struct{ location, final string }{
		{"/ec\tho?x=1", "http://site.test/echo?x=1"},
		{"\\\\other.test\\echo", "http://other.test/echo"},
		{"\\\\other.test/echo?q=a\tb", "http://other.test/echo?q=ab"},
		{"http:echo", "http://site.test/echo"},
		{" \t/echo\t ", "http://site.test/echo"},
		{"//other.test:80/./a/../echo", "http://other.test/echo"},
	} {
		u := "http://site.test/to?status=302&url=" + url.QueryEscape(tc.location)
		_, resp, err := download(t, s, nil, &types.Request{URL: u})
		if err != nil {
			t.Errorf("Location %q: %v", tc.location, err)
			continue
		}
		if resp.Status != 200 || resp.URL != tc.final {
			t.Errorf("Location %q: got %d %s, want 200 %s", tc.location, resp.Status, resp.URL, tc.final)
		}
	}
}
