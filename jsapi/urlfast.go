package jsapi

import (
	"net/url"
	"strings"
)

// The fast path of urljoin and follow. Nearly every link of a page is an absolute path
// ("/page/7", "/page/7#p3"), a relative path ("item-3.html") or an absolute http(s) URL
// made of plain characters. For those, what the slow path computes (types.ParseURL,
// url.ResolveReference, types.MakeSafe, URL.String) is a concatenation of the base's
// origin and directory with the href's own bytes: RFC 3986's merge with no dot segment to
// remove and nothing to percent-encode. fastJoin builds that string directly; anything
// else (a "%", a dot segment, user info, a scheme other than http(s), upper case in a
// host, a character any URL part could escape or that a browser strips...) goes the slow
// way. TestFastJoin and FuzzFastJoin check that both give the same bytes.

// fastBase is a base URL prepared for fastJoin, once per base.
type fastBase struct {
	origin string // "http://host[:port]", as the slow path writes it; "": no fast path
	path   string // the base's path, when fit for merging ("/a/b.html"); "" otherwise
	dir    string // path up to and with its last "/"
}

// newFastBase prepares the parsed base u (raw is its text) for fastJoin.
func newFastBase(u *url.URL) fastBase {
	if u.Scheme != "http" && u.Scheme != "https" || u.User != nil || u.Opaque != "" || !fastHost(u.Host) {
		return fastBase{}
	}
	fb := fastBase{origin: u.Scheme + "://" + u.Host}
	if p := u.EscapedPath(); strings.HasPrefix(p, "/") && plainPath(p) {
		fb.path = p
		fb.dir = p[:strings.LastIndexByte(p, '/')+1]
	}
	return fb
}

// fastHost reports whether host (with its port) is written the same by every step of the
// slow path: lower-case ASCII letters, digits, "-" and "." and an optional non-empty
// numeric port.
func fastHost(host string) bool {
	name, port, hasPort := strings.Cut(host, ":")
	if name == "" || hasPort && port == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if c := port[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainChars are the bytes fastJoin copies as they are: RFC 3986's unreserved characters,
// which no part of a URL escapes; plainQuery adds "=" and "&" for a query.
var (
	plainChars = func() (s [256]bool) {
		for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") {
			s[c] = true
		}
		return s
	}()
	plainQuery = func() (s [256]bool) {
		s = plainChars
		s['='], s['&'] = true, true
		return s
	}()
)

// plainPath reports whether p is made of plainChars and "/" with no "." or ".." segment.
func plainPath(p string) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if seg := p[start:i]; seg == "." || seg == ".." {
				return false
			}
			start = i + 1
			continue
		}
		if !plainChars[p[i]] {
			return false
		}
	}
	return true
}

// plainTail reports whether t, what follows a path ("", "?query", "#fragment" or both), is
// copied as it is by the slow path: a query of plainQuery bytes, a non-empty fragment of
// plainChars and "/".
func plainTail(t string) bool {
	if t == "" {
		return true
	}
	q, frag, hasFrag := strings.Cut(t, "#")
	if q != "" {
		if q[0] != '?' {
			return false
		}
		for i := 1; i < len(q); i++ {
			if !plainQuery[q[i]] {
				return false
			}
		}
	}
	if hasFrag {
		if frag == "" { // Go drops an empty fragment's "#"
			return false
		}
		for i := 0; i < len(frag); i++ {
			if c := frag[i]; !plainChars[c] && c != '/' {
				return false
			}
		}
	}
	return true
}

// fastJoin returns href resolved against b as the slow path writes it (types.ParseURL,
// ResolveReference, types.MakeSafe, String) and true, or false when href is not one of
// the plain cases, and the slow path must answer. The result is an absolute http(s) URL
// with a host; scheme is its scheme.
func (b *fastBase) fastJoin(href string) (abs, scheme string, ok bool) {
	if b.origin == "" || href == "" {
		return "", "", false
	}
	end := strings.IndexAny(href, "?#")
	if end < 0 {
		end = len(href)
	}
	path, tail := href[:end], href[end:]
	if !plainTail(tail) {
		return "", "", false
	}
	switch c := href[0]; {
	case c == '/':
		if len(href) > 1 && href[1] == '/' { // scheme-relative: "//host/path"
			return "", "", false
		}
		if !plainPath(path) {
			return "", "", false
		}
		return b.origin + href, b.scheme(), true
	case c == '?':
		if b.path == "" {
			return "", "", false
		}
		return b.origin + b.path + href, b.scheme(), true
	case strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://"):
		i := strings.Index(href, "://") + 3
		slash := strings.IndexByte(path[i:], '/')
		if slash < 0 || !fastHost(path[i:i+slash]) || !plainPath(path[i+slash:]) {
			return "", "", false
		}
		return href, href[:i-3], true
	default: // a relative path: its first segment must not look like a scheme
		if b.dir == "" || !plainPath(path) || path == "" {
			return "", "", false
		}
		return b.origin + b.dir + href, b.scheme(), true
	}
}

// scheme returns the base's scheme.
func (b *fastBase) scheme() string {
	return b.origin[:strings.IndexByte(b.origin, ':')]
}
