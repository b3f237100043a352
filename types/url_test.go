package types_test

import (
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// The cases below are w3lib's (github.com/scrapy/w3lib, tests/test_url.py); each names the
// test it comes from. Cases jscrawl cannot state or decides differently are listed in
// docs/from-scrapy.md.

var (
	latin1 = charmap.ISO8859_1
	cp1251 = charmap.Windows1251
)

// TestSafeURL: w3lib's safe_url_string cases, through types.SafeURL (what new Request,
// urljoin, follow and the LinkExtractor apply). Each output must also be stable when made
// safe again (w3lib's _test_safe_url_func checks that too).
func TestSafeURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		enc  encoding.Encoding
		want string
	}{
		// test_url.py SAFE_URL_ENCODING_CASES (test_safe_url_string_encoding)
		{"https://example.com", nil, "https://example.com"},
		{"https://example.com/©", nil, "https://example.com/%C2%A9"},
		{"https://example.com/©", latin1, "https://example.com/%C2%A9"},
		{"http://example.com?©", latin1, "http://example.com/?%A9"},
		{"https://example.com?©", latin1, "https://example.com/?%A9"},
		{"ftp://example.com?©", latin1, "ftp://example.com/?%A9"},
		{"ws://example.com?©", latin1, "ws://example.com/?%C2%A9"},
		{"wss://example.com?©", latin1, "wss://example.com/?%C2%A9"},
		{"https://example.com#©", latin1, "https://example.com#%C2%A9"},
		// SAFE_URL_URL_CASES (test_safe_url_string_url)
		{" https://example.com ", nil, "https://example.com"},
		{"\x00https://example.com\x1f", nil, "https://example.com"},
		{"\t\nh\tttps:/\n/a\tb:a\rb@exam\nple.com:1\t2/a\nb?a\tb#a\rb\n", nil, "https://ab:ab@example.com:12/ab?ab#ab"},
		{"https://a@example.com", nil, "https://a@example.com"},
		{"https://a:@example.com", nil, "https://a:@example.com"},
		{"https://a:a@example.com", nil, "https://a:a@example.com"},
		{"https://evil.com\\@good.com/", nil, "https://evil.com/@good.com/"},
		{"https://good.com\\@evil.com/", nil, "https://good.com/@evil.com/"},
		{"https://ñ.example", nil, "https://xn--ida.example"},
		{"http://192.168.0.0", nil, "http://192.168.0.0"},
		{"http://[2a01:5cc0:1:2::4]", nil, "http://[2a01:5cc0:1:2::4]"},
		{"https://[2402:4e00:40:40::2:3b6]:443", nil, "https://[2402:4e00:40:40::2:3b6]:443"},
		{"http://[::1]:8080/path?q=1", nil, "http://[::1]:8080/path?q=1"},
		{"https://example.com:1", nil, "https://example.com:1"},
		{"https://example.com:443", nil, "https://example.com:443"},
		{"https://example.com/", nil, "https://example.com/"},
		{"https://example.com/a", nil, "https://example.com/a"},
		{"https://example.com\\a", nil, "https://example.com/a"},
		{"https://example.com/a\\b", nil, "https://example.com/a/b"},
		{"https://example.com\\a?b\\c", nil, "https://example.com/a?b%5Cc"},
		{"https://example.com/ñ", nil, "https://example.com/%C3%B1"},
		{"https://example.com/ñ%C3%B1", nil, "https://example.com/%C3%B1%C3%B1"},
		{"https://example.com/%3F", nil, "https://example.com/%3F"},
		{"https://example.com/%23", nil, "https://example.com/%23"},
		{"https://example.com?a", nil, "https://example.com/?a"},
		{"https://example.com?a=", nil, "https://example.com/?a="},
		{"https://example.com?a=b", nil, "https://example.com/?a=b"},
		{"https://example.com?ñ", nil, "https://example.com/?%C3%B1"},
		{"https://example.com?ñ%C3%B1", nil, "https://example.com/?%C3%B1%C3%B1"},
		{"https://example.com?a'b\"c<d>e`f{g}h|i^j", nil, "https://example.com/?a%27b%22c%3Cd%3Ee%60f%7Bg%7Dh%7Ci%5Ej"},
		{"a://example.com?a'b", nil, "a://example.com?a'b"},
		{"https://example.com#a", nil, "https://example.com#a"},
		{"https://example.com#ñ", nil, "https://example.com#%C3%B1"},
		{"https://ñ:ñ@ñ.example:1/ñ?ñ#ñ", nil, "https://%C3%B1:%C3%B1@xn--ida.example:1/%C3%B1?%C3%B1#%C3%B1"},
		{"https://examplｅ.com", nil, "https://example.com"},
		{"https://example.com/[x]", nil, "https://example.com/%5Bx%5D"},
		{"https://example.com/a]b", nil, "https://example.com/a%5Db"},
		{"http://example.com/search?tags[]=a", nil, "http://example.com/search?tags%5B%5D=a"},
		{"http://[::1]:8080/p?q=[1]", nil, "http://[::1]:8080/p?q=%5B1%5D"},
		// TestUrl.test_safe_url_string
		{"http://www.example.org/", nil, "http://www.example.org/"},
		{"http://www.example.com/test?p(29)url(http://www.another.net/page)", nil, "http://www.example.com/test?p(29)url(http://www.another.net/page)"},
		{"http://www.example.com/Brochures_&_Paint_Cards&PageSize=200", nil, "http://www.example.com/Brochures_&_Paint_Cards&PageSize=200"},
		{"http://www.example.com/£", nil, "http://www.example.com/%C2%A3"},
		{"http://www.example.com/£", latin1, "http://www.example.com/%C2%A3"},
		// TestUrl.test_safe_url_string_remove_ascii_tab_and_newlines
		{"http://example.com/test\n.html", nil, "http://example.com/test.html"},
		{"http://example.com/test\t.html", nil, "http://example.com/test.html"},
		{"http://example.com/test\r.html", nil, "http://example.com/test.html"},
		{"http://example.com/test\r.html\n", nil, "http://example.com/test.html"},
		{"http://example.com/test\r\n.html\t", nil, "http://example.com/test.html"},
		// TestUrl.test_safe_url_string_quote_path
		{`http://google.com/"hello"`, nil, "http://google.com/%22hello%22"},
		// TestUrl.test_safe_url_string_with_query
		{"http://www.example.com/£?unit=µ", nil, "http://www.example.com/%C2%A3?unit=%C2%B5"},
		{"http://www.example.com/£?unit=µ", latin1, "http://www.example.com/%C2%A3?unit=%B5"},
		// TestUrl.test_safe_url_string_misc
		{"http://www.example.com/£?unit=%C2%B5", nil, "http://www.example.com/%C2%A3?unit=%C2%B5"},
		{"http://www.example.com/%C2%A3?unit=µ", nil, "http://www.example.com/%C2%A3?unit=%C2%B5"},
		// TestUrl.test_safe_url_idna
		{"http://www.färgbolaget.nu/färgbolaget", nil, "http://www.xn--frgbolaget-q5a.nu/f%C3%A4rgbolaget"},
		{"http://www.räksmörgås.se/?räksmörgås=yes", nil, "http://www.xn--rksmrgs-5wao1o.se/?r%C3%A4ksm%C3%B6rg%C3%A5s=yes"},
		{"http://www.brændendekærlighed.com/brændende/kærlighed", nil, "http://www.xn--brndendekrlighed-vobh.com/br%C3%A6ndende/k%C3%A6rlighed"},
		{"http://www.예비교사.com", nil, "http://www.xn--9d0bm53a3xbzui.com"},
		{"http://理容ナカムラ.com", nil, "http://xn--lck1c3crb1723bpq4a.com"},
		{"http://あーるいん.com", nil, "http://xn--l8je6s7a45b.com"},
		{"http://www.bücher.de/?q=bücher", nil, "http://www.xn--bcher-kva.de/?q=b%C3%BCcher"},
		{"http://はじめよう.みんな/?query=サ&maxResults=5", nil, "http://xn--p8j9a0d9c9a.xn--q9jyb4c/?query=%E3%82%B5&maxResults=5"},
		{"http://кто.рф/", nil, "http://xn--j1ail.xn--p1ai/"},
		{"http://кто.рф/index.php?domain=Что", nil, "http://xn--j1ail.xn--p1ai/index.php?domain=%D0%A7%D1%82%D0%BE"},
		{"http://내도메인.한국/", nil, "http://xn--220b31d95hq8o.xn--3e0b707e/"},
		{"http://맨체스터시티축구단.한국/", nil, "http://xn--2e0b17htvgtvj9haj53ccob62ni8d.xn--3e0b707e/"},
		{"http://nic.شبكة", nil, "http://nic.xn--ngbc5azd"},
		{"https://www.贷款.在线", nil, "https://www.xn--0kwr83e.xn--3ds443g"},
		{"https://www2.xn--0kwr83e.在线", nil, "https://www2.xn--0kwr83e.xn--3ds443g"},
		{"https://www3.贷款.xn--3ds443g", nil, "https://www3.xn--0kwr83e.xn--3ds443g"},
		// TestUrl.test_safe_url_port_number
		{"http://www.example.com:80/résumé?q=résumé", nil, "http://www.example.com:80/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"},
		{"http://www.example.com:/résumé?q=résumé", nil, "http://www.example.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"},
		// TestUrl.test_safe_url_string_preserve_nonfragment_hash
		{"http://www.example.com/path/to/%23/foo/bar", nil, "http://www.example.com/path/to/%23/foo/bar"},
		{"http://www.example.com/path/to/%23/foo/bar#frag", nil, "http://www.example.com/path/to/%23/foo/bar#frag"},
		{"http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo", nil, "http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo"},
		// TestUrl.test_safe_url_string_encode_idna_domain_with_port
		{"http://新华网.中国:80", nil, "http://xn--xkrr14bows.xn--fiqs8s:80"},
		// TestUrl.test_safe_url_string_encode_idna_domain_with_username_password_and_port_number
		{"ftp://admin:admin@新华网.中国:21", nil, "ftp://admin:admin@xn--xkrr14bows.xn--fiqs8s:21"},
		{"http://Åsa:abc123@➡.ws:81/admin", nil, "http://%C3%85sa:abc123@xn--hgi.ws:81/admin"},
		// TestUrl.test_safe_url_string_encode_idna_domain_with_username_and_empty_password_and_port_number
		{"ftp://admin:@新华网.中国:21", nil, "ftp://admin:@xn--xkrr14bows.xn--fiqs8s:21"},
		{"ftp://admin@新华网.中国:21", nil, "ftp://admin@xn--xkrr14bows.xn--fiqs8s:21"},
		// TestUrl.test_safe_url_string_user_and_pass_percentage_encoded
		{"http://%25user:%25pass@host", nil, "http://%25user:%25pass@host"},
		{"http://%user:%pass@host", nil, "http://%25user:%25pass@host"},
		{"http://%2525user:%2525pass@host", nil, "http://%2525user:%2525pass@host"},
		{"http://%26user:%26pass@host", nil, "http://&user:&pass@host"},
		{"http://%2526user:%2526pass@host", nil, "http://%2526user:%2526pass@host"},
		{"http://%25%26user:%25%26pass@host", nil, "http://%25&user:%25&pass@host"},
		// TestUrl.test_safe_url_string_userinfo_unsafe_chars
		{"ftp://admin:|%@example.com", nil, "ftp://admin:%7C%25@example.com"},
		// TestUrl.test_safe_url_string_remove_ascii_tab_and_newlines (a control character is escaped)
		{"http://example.com/test\a\n.html", nil, "http://example.com/test%07.html"},
		// SAFE_URL_URL_CASES: https://example.com/{PATH_TO_ENCODE} (an expected failure in w3lib;
		// DEL aside, which Go's parser refuses)
		{"https://example.com/\"%<>[]^`{|}", nil, "https://example.com/%22%25%3C%3E%5B%5D%5E%60%7B%7C%7D"},
	} {
		got, err := types.SafeURL(tc.in, tc.enc)
		if err != nil || got != tc.want {
			t.Errorf("SafeURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			continue
		}
		if again, err := types.SafeURL(got, tc.enc); err != nil || again != got {
			t.Errorf("SafeURL(%q) = %q, %v; not stable", got, again, err)
		}
	}
}

// TestCanonicalURL: w3lib's TestCanonicalizeUrl cases, through types.CanonicalURL (the
// duplicate filter's canonical form) and types.Canonical with keepFragment.
func TestCanonicalURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want     string
		keepFragment bool
	}{
		// test_canonicalize_url, test_append_missing_path
		{in: "http://www.example.com/", want: "http://www.example.com/"},
		{in: "http://www.example.com", want: "http://www.example.com/"},
		// test_typical_usage
		{in: "http://www.example.com/do?a=1&b=2&c=3", want: "http://www.example.com/do?a=1&b=2&c=3"},
		{in: "http://www.example.com/do?c=1&b=2&a=3", want: "http://www.example.com/do?a=3&b=2&c=1"},
		{in: "http://www.example.com/do?&a=1", want: "http://www.example.com/do?a=1"},
		// test_port_number
		{in: "http://www.example.com:8888/do?a=1&b=2&c=3", want: "http://www.example.com:8888/do?a=1&b=2&c=3"},
		{in: "http://www.example.com:/do?a=1&b=2&c=3", want: "http://www.example.com/do?a=1&b=2&c=3"},
		// test_sorting
		{in: "http://www.example.com/do?c=3&b=5&b=2&a=50", want: "http://www.example.com/do?a=50&b=2&b=5&c=3"},
		// test_keep_blank_values (keep_blank_values=True, the default)
		{in: "http://www.example.com/do?b=&a=2", want: "http://www.example.com/do?a=2&b="},
		{in: "http://www.example.com/do?b=&c&a=2", want: "http://www.example.com/do?a=2&b=&c="},
		{in: "http://www.example.com/do?1750,4", want: "http://www.example.com/do?1750%2C4="},
		// test_spaces
		{in: "http://www.example.com/do?q=a space&a=1", want: "http://www.example.com/do?a=1&q=a+space"},
		{in: "http://www.example.com/do?q=a+space&a=1", want: "http://www.example.com/do?a=1&q=a+space"},
		{in: "http://www.example.com/do?q=a%20space&a=1", want: "http://www.example.com/do?a=1&q=a+space"},
		// test_canonicalize_url_unicode_path, test_canonicalize_url_unicode_query_string
		{in: "http://www.example.com/résumé", want: "http://www.example.com/r%C3%A9sum%C3%A9"},
		{in: "http://www.example.com/résumé?q=résumé", want: "http://www.example.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"},
		// test_canonicalize_url_remove_ascii_tab_and_newlines
		{in: "http://exa\tmple.com/a\r\nb?q=a\tb", want: "http://example.com/ab?q=ab"},
		// test_normalize_percent_encoding_in_paths
		{in: "http://www.example.com/r%c3%a9sum%c3%a9", want: "http://www.example.com/r%C3%A9sum%C3%A9"},
		{in: "http://www.example.com/a%a3do", want: "http://www.example.com/a%A3do"},
		{in: "http://www.example.com/a%a3do?q=r%c3%a9sum%c3%a9", want: "http://www.example.com/a%A3do?q=r%C3%A9sum%C3%A9"},
		{in: "http://www.example.com/a%a3do?q=r%e9sum%e9", want: "http://www.example.com/a%A3do?q=r%E9sum%E9"},
		{in: "https://example.com/a%23b%2cc#bash", want: "https://example.com/a%23b,c"},
		{in: "https://example.com/a%23b,c", want: "https://example.com/a%23b,c"},
		// test_normalize_percent_encoding_in_query_arguments
		{in: "http://www.example.com/do?k=b%a3", want: "http://www.example.com/do?k=b%A3"},
		{in: "http://www.example.com/do?k=r%c3%a9sum%c3%a9", want: "http://www.example.com/do?k=r%C3%A9sum%C3%A9"},
		// test_non_ascii_percent_encoding_in_paths
		{in: "http://www.example.com/a do?a=1", want: "http://www.example.com/a%20do?a=1"},
		{in: "http://www.example.com/a %20do?a=1", want: "http://www.example.com/a%20%20do?a=1"},
		{in: "http://www.example.com/a do£.html?a=1", want: "http://www.example.com/a%20do%C2%A3.html?a=1"},
		// test_non_ascii_percent_encoding_in_query_arguments
		{in: "http://www.example.com/do?price=£500&a=5&z=3", want: "http://www.example.com/do?a=5&price=%C2%A3500&z=3"},
		{in: "http://www.example.com/do?price(£)=500&a=1", want: "http://www.example.com/do?a=1&price%28%C2%A3%29=500"},
		// test_urls_with_auth_and_ports
		{in: "http://user:pass@www.example.com:81/do?now=1", want: "http://user:pass@www.example.com:81/do?now=1"},
		// test_remove_fragments
		{in: "http://user:pass@www.example.com/do?a=1#frag", want: "http://user:pass@www.example.com/do?a=1"},
		{in: "http://user:pass@www.example.com/do?a=1#frag", want: "http://user:pass@www.example.com/do?a=1#frag", keepFragment: true},
		// test_remove_fragments_ipv6_host
		{in: "http://[::1]/do?a=1#frag", want: "http://[::1]/do?a=1"},
		{in: "http://[::1]/do?a=1#frag", want: "http://[::1]/do?a=1#frag", keepFragment: true},
		// test_dont_convert_safe_characters
		{in: "http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html", want: "http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html"},
		// test_safe_characters_unicode
		{in: "http://www.example.com/caf%E9-con-leche.htm", want: "http://www.example.com/caf%E9-con-leche.htm"},
		// test_domains_are_case_insensitive, test_userinfo_is_case_sensitive
		{in: "http://www.EXAMPLE.com/", want: "http://www.example.com/"},
		{in: "sftp://UsEr:PaSsWoRd@www.EXAMPLE.com/", want: "sftp://UsEr:PaSsWoRd@www.example.com/"},
		// test_canonicalize_idns
		{in: "http://www.bücher.de?q=bücher", want: "http://www.xn--bcher-kva.de/?q=b%C3%BCcher"},
		{in: "http://はじめよう.みんな/?query=サ&maxResults=5", want: "http://xn--p8j9a0d9c9a.xn--q9jyb4c/?maxResults=5&query=%E3%82%B5"},
		{in: "http://www.bücher.de:8080/?q=bücher", want: "http://www.xn--bcher-kva.de:8080/?q=b%C3%BCcher"},
		// test_canonicalize_idns_with_userinfo
		{in: "http://user@例え.jp/path", want: "http://user@xn--r8jz45g.jp/path"},
		{in: "http://user:pass@例え.jp:8080/p", want: "http://user:pass@xn--r8jz45g.jp:8080/p"},
		// test_quoted_slash_and_question_sign
		{in: "http://foo.com/AC%2FDC+rocks%3f/?yeah=1", want: "http://foo.com/AC%2FDC+rocks%3F/?yeah=1"},
		{in: "http://foo.com/AC%2FDC/", want: "http://foo.com/AC%2FDC/"},
		// test_canonicalize_parse_url
		{in: "http://www.example.com/path;params?x=1#frag", want: "http://www.example.com/path;params?x=1"},
		{in: "http://www.example.com/a;b/c;params?x=1", want: "http://www.example.com/a;b/c;params?x=1"},
		// test_canonicalize_url_non_final_segment_semicolon
		{in: "http://www.example.com/dir;x/a%7Eb", want: "http://www.example.com/dir;x/a~b"},
		// test_preserve_nonfragment_hash
		{in: "http://www.example.com/path/to/%23/foo/bar", want: "http://www.example.com/path/to/%23/foo/bar"},
		{in: "http://www.example.com/path/to/%23/foo/bar#frag", want: "http://www.example.com/path/to/%23/foo/bar"},
		{in: "http://www.example.com/path/to/%23/foo/bar#frag", want: "http://www.example.com/path/to/%23/foo/bar#frag", keepFragment: true},
		{in: "http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo", want: "http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo"},
		// test_strip_spaces
		{in: " https://example.com", want: "https://example.com/"},
		{in: "https://example.com ", want: "https://example.com/"},
		// jscrawl: the default port is dropped too, and the query's percent-encoding case.
		{in: "HTTP://Example.COM:80/a%2fb?B=%e2%82%ac&a", want: "http://example.com/a%2Fb?B=%E2%82%AC&a="},
		{in: "https://example.com:443", want: "https://example.com/"},
	} {
		var got string
		if tc.keepFragment {
			u, err := types.ParseURL(tc.in)
			if err != nil {
				t.Errorf("%q: %v", tc.in, err)
				continue
			}
			got = types.Canonical(u, true)
		} else {
			got = types.CanonicalURL(tc.in)
		}
		if got != tc.want {
			t.Errorf("canonical %q = %q, want %q", tc.in, got, tc.want)
		}
		if !tc.keepFragment && types.CanonicalURL(got) != got {
			t.Errorf("canonical %q = %q is not stable: %q", tc.in, got, types.CanonicalURL(got))
		}
	}
}

// TestCanonicalURLEncoding: w3lib's test_canonicalize_url_unicode_query_string(_wrong_
// encoding) and test_canonicalize_url_idempotence, through MakeSafe with a page encoding
// and then Canonical.
func TestCanonicalURLEncoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		enc  encoding.Encoding
		want string
	}{
		{"http://www.example.com/résumé?q=résumé", latin1, "http://www.example.com/r%C3%A9sum%C3%A9?q=r%E9sum%E9"},
		{"http://www.example.com/résumé?country=Россия", cp1251, "http://www.example.com/r%C3%A9sum%C3%A9?country=%D0%EE%F1%F1%E8%FF"},
		// test_canonicalize_url_unicode_query_string_wrong_encoding: UTF-8 when enc cannot
		{"http://www.example.com/résumé?currency=€", latin1, "http://www.example.com/r%C3%A9sum%C3%A9?currency=%E2%82%AC"},
		{"http://www.example.com/résumé?country=Россия", latin1, "http://www.example.com/r%C3%A9sum%C3%A9?country=%D0%A0%D0%BE%D1%81%D1%81%D0%B8%D1%8F"},
	} {
		u, err := types.ParseURL(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		types.MakeSafe(u, tc.enc)
		got := types.Canonical(u, false)
		if got != tc.want {
			t.Errorf("%q in %v = %q, want %q", tc.in, tc.enc, got, tc.want)
		}
		if again := types.CanonicalURL(got); again != got {
			t.Errorf("%q not stable: %q", got, again)
		}
	}
}

// TestFingerprintIDN: a host written in Unicode and in punycode, with escapes in either
// case, is one request to the duplicate filter.
func TestFingerprintIDN(t *testing.T) {
	t.Parallel()
	a := &types.Request{URL: "http://www.bücher.de/a%7euser?q=%c3%a4&b=1"}
	b := &types.Request{URL: "http://www.xn--bcher-kva.de/a~user?b=1&q=%C3%A4"}
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("%s and %s differ: %s, %s", a.URL, b.URL, types.CanonicalURL(a.URL), types.CanonicalURL(b.URL))
	}
	if c := (&types.Request{URL: "http://www.xn--bcher-kva.de/a~user?b=2&q=%C3%A4"}); c.Fingerprint() == b.Fingerprint() {
		t.Error("different queries share a fingerprint")
	}
}

// TestNormalizeURL: the fast path leaves safe URLs alone and sends the others to SafeURL.
func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://example.com/a?b=c#d":   "http://example.com/a?b=c#d",
		"http://example.com":           "http://example.com",
		"http://Example.com/":          "http://example.com/",
		"http://www.bücher.de/":        "http://www.xn--bcher-kva.de/",
		"http://example.com:/":         "http://example.com/",
		"http://example.com?q=a b":     "http://example.com/?q=a%20b",
		" http://example.com/a\tb ":    "http://example.com/ab",
		"http://example.com/it's?it's": "http://example.com/it's?it%27s",
		"http://u@example.com/":        "http://u@example.com/",
		"http://[::1]:8080/":           "http://[::1]:8080/",
		" http://example.com/":         "http://example.com/",
		"http://example.com/a#b#c":     "http://example.com/a#b%23c",
		"http://example.com/a#b'c?d":   "http://example.com/a#b'c?d",
		"not a url at all:%zz/\x7f":    "not a url at all:%zz/\x7f",
	} {
		if got := types.NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSafeURLCharacterSets: w3lib's SAFE_URL_URL_CASES built from its character sets
// (test_url.py PATH_SAFE, QUERY_SAFE, SPECIAL_QUERY_SAFE, SPECIAL_QUERY_TO_ENCODE,
// FRAGMENT_SAFE): what each part leaves alone, and what a special scheme's query escapes.
func TestSafeURLCharacterSets(t *testing.T) {
	t.Parallel()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	pathSafe := alnum + "-_.!~*'()" + ":@&=+$," + "/" + ";"
	querySafe := pathSafe + "?"
	specialQuerySafe := strings.ReplaceAll(querySafe, "'", "")
	fragmentSafe := querySafe
	cases := map[string]string{
		"https://example.com/" + pathSafe: "https://example.com/" + pathSafe,
		"a://example.com?" + querySafe:    "a://example.com?" + querySafe,
		"a://example.com#" + fragmentSafe: "a://example.com#" + fragmentSafe,
	}
	for _, scheme := range []string{"http", "https", "ftp", "ws", "wss"} {
		cases[scheme+"://example.com?"+specialQuerySafe] = scheme + "://example.com/?" + specialQuerySafe
		// SPECIAL_QUERY_TO_ENCODE without "%" and DEL (expected failures in w3lib itself)
		cases[scheme+"://example.com?\"'<>[\\]^`{|}"] = scheme + "://example.com/?%22%27%3C%3E%5B%5C%5D%5E%60%7B%7C%7D"
	}
	for in, want := range cases {
		if got, err := types.SafeURL(in, nil); err != nil || got != want {
			t.Errorf("SafeURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
