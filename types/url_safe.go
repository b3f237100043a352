package types

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/encoding"
)

// This file makes URLs safe the way Scrapy's w3lib.url.safe_url_string does: the escaping
// of paths, queries and host names (MakeSafe, SafeURL, NormalizeURL).

// SafeURL parses raw (see ParseURL) and returns it made safe (see MakeSafe), with its
// query encoded in enc (nil: UTF-8).
func SafeURL(raw string, enc encoding.Encoding) (string, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return "", err
	}
	MakeSafe(u, enc)
	return u.String(), nil
}

// MakeSafe changes u in place to what w3lib's safe_url_string makes of it, and reports
// whether it changed anything:
//   - the host is lower-cased and an internationalised name becomes punycode
//     ("www.bücher.de" → "www.xn--bcher-kva.de"); an empty port ("host:") is dropped;
//   - the path is percent-encoded in UTF-8, escaping what RFC 3986 does not allow there;
//   - the query is percent-encoded in enc (the page's encoding; nil means UTF-8), as
//     browsers send a form or a link of a page in that encoding; a query enc cannot
//     represent is encoded in UTF-8 (w3lib's canonicalize_url fallback); ws: and wss:
//     queries are always UTF-8;
//   - an http(s) URL with a query and no path gets the path "/".
//
// Existing escapes are kept as they are.
func MakeSafe(u *url.URL, enc encoding.Encoding) bool {
	changed := false
	if h, ok := safeHost(u.Host); ok {
		u.Host, changed = h, true
	}
	if u.Opaque != "" {
		return changed
	}
	// Without RawPath, the path is Go's own escaping of Path, which leaves only characters
	// pathSafe has: nothing to do.
	if raw := u.RawPath; raw != "" && needsQuote(raw, &pathSafe) {
		q := quote(nil, raw, &pathSafe)
		if p, err := url.PathUnescape(string(q)); err == nil {
			u.Path, u.RawPath = p, string(q)
			changed = true
		}
	}
	scheme := strings.ToLower(u.Scheme)
	special := specialScheme(scheme)
	safe := &querySafe
	if special {
		safe = &specialQuerySafe
	}
	if needsQuote(u.RawQuery, safe) {
		if scheme == "ws" || scheme == "wss" {
			enc = nil
		}
		u.RawQuery = quoteQuery(u.RawQuery, enc, safe)
		changed = true
	}
	if special && u.Host != "" && u.Path == "" && (u.RawQuery != "" || u.ForceQuery) {
		u.Path = "/"
		changed = true
	}
	return changed
}

// safeHost returns host (with its port) lower-cased, in punycode and without an empty
// port, and whether that differs from host.
func safeHost(host string) (string, bool) {
	need := false
	for i := 0; i < len(host); i++ {
		if c := host[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			need = true
			break
		}
	}
	if !need && !strings.HasSuffix(host, ":") {
		return host, false
	}
	name, port := host, ""
	if strings.HasPrefix(host, "[") {
		if i := strings.LastIndexByte(host, ']'); i >= 0 {
			name, port = host[:i+1], host[i+1:]
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 {
		name, port = host[:i], host[i:]
	}
	if port == ":" {
		port = ""
	}
	name = strings.ToLower(name)
	if !isASCII(name) {
		if a, err := idna.Lookup.ToASCII(name); err == nil {
			name = a
		}
	}
	out := name + port
	return out, out != host
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// byteSet is a set of bytes.
type byteSet [256]bool

func newByteSet(chars string, minus string) byteSet {
	var s byteSet
	for i := 0; i < len(chars); i++ {
		s[chars[i]] = true
	}
	for i := 0; i < len(minus); i++ {
		s[minus[i]] = false
	}
	return s
}

const (
	unreservedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	reservedChars   = ":/?#[]@!$&'()*+,;="
)

// The characters w3lib leaves as they are (w3lib.url._PATH_SAFEST_CHARS and friends: RFC
// 3986's reserved and unreserved characters and "%", without "#[]|"; the query of a special
// scheme also escapes "'"), and those canonicalize_url leaves in a path (_PATH_SAFE_CHARS).
var (
	pathSafe         = newByteSet(reservedChars+unreservedChars+"%", "#[]")
	querySafe        = pathSafe
	specialQuerySafe = newByteSet(reservedChars+unreservedChars+"%", "#[]'")
	canonPathSafe    = newByteSet(reservedChars+unreservedChars+"|%", "#")
	unreserved       = newByteSet(unreservedChars, "")
	userinfoSafe     = newByteSet(unreservedChars+"!$&'()*+,;=:%", "")
)

func needsQuote(s string, safe *byteSet) bool {
	for i := 0; i < len(s); i++ {
		if !safe[s[i]] {
			return true
		}
	}
	return false
}

const upperHex = "0123456789ABCDEF"

// quote appends s to b with the bytes not in safe percent-encoded.
func quote(b []byte, s string, safe *byteSet) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; safe[c] {
			b = append(b, c)
		} else {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return b
}

// quoteQuery encodes q's non-ASCII text in enc, then percent-encodes what safe lacks.
func quoteQuery(q string, enc encoding.Encoding, safe *byteSet) string {
	if enc != nil && !isASCII(q) {
		if e, err := enc.NewEncoder().String(q); err == nil {
			q = e
		}
	}
	return string(quote(make([]byte, 0, len(q)+16), q, safe))
}

// PortOf returns u's port, or its scheme's default port (80 for http, 443 for https) when
// it has none: for comparing origins, where http://h and http://h:80 are one.
func PortOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// NormalizeURL returns raw made safe with a UTF-8 query (SafeURL), or raw itself when it
// already is safe or does not parse. An already safe URL costs one scan of its bytes: this
// is what every request URL from a spider goes through (Scrapy: Request's
// safe_url_string).
func NormalizeURL(raw string) string {
	if looksSafe(raw) {
		return raw
	}
	s, err := SafeURL(raw, nil)
	if err != nil {
		return raw
	}
	return s
}

// looksSafe reports whether MakeSafe would leave raw as it is, judging conservatively:
// only characters every part allows, no upper case or trailing ":" in the authority, and
// a path.
func looksSafe(raw string) bool {
	i := strings.Index(raw, "://")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		if c := raw[j]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	auth := i + 3
	end := auth
	for end < len(raw) && raw[end] != '/' {
		c := raw[end]
		if c == '?' || c == '#' || c == '@' || c == '[' || c == '\\' || c <= ' ' || c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false // a query without path, user info, IPv6: the slow path
		}
		end++
	}
	if end == auth || raw[end-1] == ':' || end == len(raw) && raw[len(raw)-1] == ':' {
		return false
	}
	hash := false
	for j := end; j < len(raw); j++ {
		if c := raw[j]; !specialQuerySafe[c] {
			if c != '#' || hash {
				return false
			}
			hash = true // the fragment: Go and w3lib leave these characters in it too
		}
	}
	return true
}
