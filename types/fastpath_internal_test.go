package types

import (
	"crypto/sha1"
	"net/url"
	"strings"
	"testing"
)

// fastPathURLs are URLs on both sides of appendCanonicalFast's and fastHostname's
// conditions.
var fastPathURLs = []string{
	"http://127.0.0.1:18081/page/3", "http://127.0.0.1:18081/page/3#p1", "https://example.com",
	"https://example.com#top", "http://example.com/", "http://example.com:80/a", "https://example.com:443/a",
	"https://example.com:8443/a", "http://example.com:/a", "http://example.com:8a/a", "http://:80/a",
	"http:///a", "http://Example.com/a", "HTTP://example.com/a", "http://user@example.com/a",
	"http://user:pw@example.com/a", "http://[::1]:8080/a", "http://example.com/a?b=1&a=2",
	"http://example.com/a?", "http://example.com/a%2Fb", "http://example.com/a%zz", "http://example.com/a#%zz",
	"http://example.com/a#x y", "http://example.com/a b", "http://example.com/a\x7f", "http://example.com/\x01",
	"http://example.com/a/../b/./c", "http://example.com/!$&'()*+,;=:@-._~", "http://example.com/a|b",
	"http://example.com/a[b]", "http://example.com/ä", "http://xn--bcher-kva.de/ä", "http://bücher.de/",
	"http://example.com/a#b#c", "http://example.com?x", "http://example.com#", "http://a.b-c.d:1/x",
	"http://example.com//a", "http://example.com/a\\b", "ftp://example.com/a", "file:///tmp/a", "data:,x",
	"mailto:a@b.c", "", "/relative", "http://exa_mple.com/a", "http://example.com:65536/a",
	"http://example.com:0080/a", "http://1.2.3.4/a'b", "https://example.invalid/elsewhere",
	"http://example.com/a?a=1&b=2", "http://example.com/a?b=1&a=2", "http://example.com/a?a=2&a=1",
	"http://example.com/a?a=1&a=1", "http://example.com/a?a", "http://example.com/a?a=1&",
	"http://example.com/a?&a=1", "http://example.com/a?a=1&&b=2", "http://example.com/a?=",
	"http://example.com/a?=v", "http://example.com/a?a=b=c", "http://example.com/a?a=1+2",
	"http://example.com/a?a=%20", "http://example.com?a=1", "http://example.com?a=1#f",
	"http://example.com/a?a=1#%zz", "http://example.com/a?A=1&a=0", "http://example.com/a?a=1&b=",
	"http://example.com/a?a.b=~_-", "http://example.com/a?a=1;b=2", "http://example.com/a?a=1?b=2",
	"http://example.com/a?ab=1&a=2", "http://example.com/a?a=1&ab=0", "https://example.com:8443/?q=x#y",
}

// fingerprintBefore is FingerprintSum as it was before the fast path: a stream of the
// method, url.Parse's canonical URL (the URL when it does not parse), the body and the
// browser options.
func fingerprintBefore(r *Request) [sha1.Size]byte {
	h := sha1.New()
	h.Write([]byte(r.HTTPMethod()))
	h.Write([]byte{0})
	canon := r.URL
	if u, err := url.Parse(r.URL); err == nil {
		canon = Canonical(u, false)
	}
	h.Write([]byte(canon))
	h.Write([]byte{0})
	h.Write(r.Body)
	if b := r.browserFingerprint(); b != nil {
		h.Write([]byte{0})
		h.Write(b)
	}
	var sum [sha1.Size]byte
	h.Sum(sum[:0])
	return sum
}

// checkFastPath checks the fast paths against the parsing ones for raw.
func checkFastPath(t *testing.T, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if b, ok := appendCanonicalFast([]byte("x"), raw); ok {
		if err != nil {
			t.Errorf("%q: fast canonical form for a URL url.Parse refuses (%v)", raw, err)
		} else if want := Canonical(u, false); string(b[1:]) != want {
			t.Errorf("%q: fast canonical form %q, want %q", raw, b[1:], want)
		}
	}
	if h, ok := fastHostname(raw); ok {
		if err != nil {
			t.Errorf("%q: fast host name for a URL url.Parse refuses (%v)", raw, err)
		} else if want := strings.ToLower(u.Hostname()); h != want {
			t.Errorf("%q: fast host name %q, want %q", raw, h, want)
		}
	}
	want := ""
	if err == nil {
		want = strings.ToLower(u.Hostname())
	}
	if got := (&Request{URL: raw}).Hostname(); got != want {
		t.Errorf("%q: Hostname() = %q, want %q", raw, got, want)
	}
	for _, r := range []*Request{
		{URL: raw}, {URL: raw, Method: "post", Body: []byte("a=1")},
		{URL: raw, Meta: Item{{Key: MetaBrowser, Value: true}}},
	} {
		if got, want := r.FingerprintSum(), fingerprintBefore(r); got != want {
			t.Errorf("%q (%s, body %q): fingerprint %x, want %x", raw, r.Method, r.Body, got, want)
		}
	}
}

// TestFingerprintFastPath pins the fingerprints and host names the fast paths give: the
// same as parsing the URL, for URLs the fast paths take and those they leave.
func TestFingerprintFastPath(t *testing.T) {
	fast := 0
	for _, raw := range fastPathURLs {
		checkFastPath(t, raw)
		if _, ok := appendCanonicalFast(nil, raw); ok {
			fast++
		}
	}
	if fast < 10 {
		t.Errorf("the fast path took %d URLs of the table, want at least 10", fast)
	}
	for _, raw := range []string{"http://127.0.0.1:18081/page/3#p1", "https://example.com", "http://example.com/a?a=1&b=2",
		"http://example.com?a=1#f", "http://example.com/a?a=1&a=1", "https://example.com:8443/?q=x#y",
		// Unsorted or irregular queries of unreserved characters are sorted without parsing.
		"http://example.com/a?b=1&a=2", "http://example.com/a?a=2&a=1", "http://example.com/a?ab=1&a=2",
		"http://example.com/a?a", "http://example.com/a?a=1&&b=2", "http://example.com/a?&a=1"} {
		if _, ok := appendCanonicalFast(nil, raw); !ok {
			t.Errorf("%q: not on the fast path", raw)
		}
	}
	for _, raw := range []string{"http://127.0.0.1:18081/page/3#p1", "https://shop.example.com/list?sort=price&page=2"} {
		r := &Request{URL: raw}
		if n := testing.AllocsPerRun(100, func() { r.FingerprintSum(); r.Hostname() }); n != 0 {
			t.Errorf("%q: FingerprintSum and Hostname allocate %v times", raw, n)
		}
	}
}

func FuzzFingerprintFastPath(f *testing.F) {
	for _, raw := range fastPathURLs {
		f.Add(raw)
	}
	f.Fuzz(checkFastPath)
}

// BenchmarkFingerprintSum fingerprints URLs on and off the fast path.
func BenchmarkFingerprintSum(b *testing.B) {
	for _, c := range []struct{ name, raw string }{
		{"plain", "http://127.0.0.1:18081/page/3#p1"},
		{"sorted-query", "https://shop.example.com/list?page=2&sort=price"},
		{"unsorted-query", "https://shop.example.com/list?sort=price&page=2"},
	} {
		raw := c.raw
		b.Run(c.name, func(b *testing.B) {
			r := &Request{URL: raw}
			b.ReportAllocs()
			for b.Loop() {
				r.DropCaches()
				r.FingerprintSum()
			}
		})
	}
}
