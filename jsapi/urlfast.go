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
	scheme string // "http" or "https"
	path   string // the base's path, when fit for merging ("/a/b.html"); "" otherwise
	dir    string // path up to and with its last "/"
}

// newFastBase prepares the parsed base u for fastJoin.
func newFastBase(u *url.URL) fastBase {
	if u.Scheme != "http" && u.Scheme != "https" || u.User != nil || u.Opaque != "" || !fastHost(u.Host) {
		return fastBase{}
	}
	fb := fastBase{origin: u.Scheme + "://" + u.Host, scheme: u.Scheme}
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
	end, ok := plainPathEnd(p)
	return ok && end == len(p)
}

// plainPathEnd scans the path at the start of s up to its "?" or "#": it returns where
// the path ends and whether it is made of plainChars and "/" with no "." or ".." segment.
func plainPathEnd(s string) (int, bool) {
	seg, i := 0, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '/' {
			if dotSegment(s[seg:i]) {
				return i, false
			}
			seg = i + 1
			continue
		}
		if c == '?' || c == '#' {
			break
		}
		if !plainChars[c] {
			return i, false
		}
	}
	return i, !dotSegment(s[seg:i])
}

func dotSegment(s string) bool { return s == "." || s == ".." }

// plainRef reports whether s, a path followed by an optional "?query" and "#fragment", is
// copied as it is by the slow path: a plainPath, a query of plainQuery bytes, a non-empty
// fragment of plainChars and "/" (Go drops an empty fragment's "#").
func plainRef(s string) bool {
	i, ok := plainPathEnd(s)
	if !ok {
		return false
	}
	if i < len(s) && s[i] == '?' {
		for i++; i < len(s) && s[i] != '#'; i++ {
			if !plainQuery[s[i]] {
				return false
			}
		}
	}
	if i == len(s) {
		return true
	}
	if i++; i == len(s) { // s ends with "#"
		return false
	}
	for ; i < len(s); i++ {
		if c := s[i]; !plainChars[c] && c != '/' {
			return false
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
	switch c := href[0]; {
	case c == '/': // an absolute path; "//host/path" (scheme-relative) is not one
		if len(href) > 1 && href[1] == '/' || !plainRef(href) {
			return "", "", false
		}
		return b.origin + href, b.scheme, true
	case c == '?':
		if b.path == "" || !plainRef(href) {
			return "", "", false
		}
		return b.origin + b.path + href, b.scheme, true
	case c == 'h' && (strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://")):
		i := len("http://")
		if href[4] == 's' {
			i++
		}
		slash := strings.IndexByte(href[i:], '/')
		if slash < 0 || !fastHost(href[i:i+slash]) || !plainRef(href[i+slash:]) {
			return "", "", false
		}
		return href, href[:i-3], true
	case plainChars[c]: // a relative path: with no ":", its first segment is no scheme
		if b.dir == "" || !plainRef(href) {
			return "", "", false
		}
		return b.origin + b.dir + href, b.scheme, true
	}
	return "", "", false
}
