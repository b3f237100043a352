package types

import (
	"net/url"
	"slices"
	"strings"
)

// This file canonicalises URLs as w3lib's canonicalize_url does, for the duplicate filter:
// Canonical, its allocation-free fast path, and the query's form decoding and encoding.

// Canonical returns u (which it does not change) in canonical form, as w3lib's
// canonicalize_url makes it: made safe (see MakeSafe, UTF-8), the default port of http
// and https dropped (jscrawl's addition), the path's percent-encoding normalised (escapes
// of characters that need none decoded, the others upper-cased; %2F, %3F and %25 kept),
// the query's arguments decoded, sorted by name then value and encoded again (spaces as
// "+", blank values kept), and the fragment dropped unless keepFragment.
func Canonical(u *url.URL, keepFragment bool) string {
	var buf [256]byte // on the stack: only the final string is allocated
	return string(appendCanonical(buf[:0], u, keepFragment))
}

// appendCanonical appends Canonical(u, keepFragment) to b.
func appendCanonical(b []byte, u *url.URL, keepFragment bool) []byte {
	c := *u
	MakeSafe(&c, nil)
	if c.Opaque != "" {
		if !keepFragment {
			c.Fragment, c.RawFragment = "", ""
		}
		return append(b, c.String()...)
	}
	scheme := strings.ToLower(c.Scheme)
	host := c.Host
	if p := c.Port(); (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
		host = host[:len(host)-len(p)-1]
	}
	if scheme != "" {
		b = append(b, scheme...)
		b = append(b, ':')
	}
	if host != "" || c.User != nil || specialScheme(scheme) {
		b = append(b, "//"...)
		if c.User != nil {
			b = append(b, c.User.String()...)
			b = append(b, '@')
		}
		b = append(b, host...)
	}
	p := c.RawPath
	if p == "" {
		p = c.EscapedPath()
	}
	switch {
	case p == "":
		b = append(b, '/')
	case strings.IndexByte(p, '%') < 0 && !needsQuote(p, &canonPathSafe):
		b = append(b, p...)
	default:
		b = canonicalPath(b, p)
	}
	if c.RawQuery != "" {
		b = canonicalQuery(append(b, '?'), c.RawQuery)
	}
	if keepFragment && (c.Fragment != "" || c.RawFragment != "") {
		b = append(b, '#')
		b = append(b, c.EscapedFragment()...)
	}
	return b
}

// appendCanonicalFast appends the canonical form of raw (Canonical of url.Parse(raw),
// without the fragment) to b without parsing it, for the URLs most requests have: an
// http(s) URL with a lower-case host name or IPv4 address, a port other than the default,
// no user info, a path of unreserved characters, sub-delimiters, ":", "@" and "/" only
// (nothing to escape or unescape), and no query or one of unreserved characters, "="
// and "&" only. Its canonical form is raw without the fragment, with "/" for an empty path
// and the query's arguments sorted (canonicalQuery) unless they are in canonical order
// already. ok is false, and b unchanged, for any other URL.
func appendCanonicalFast(b []byte, raw string) (_ []byte, ok bool) {
	head, _, tail, ok := splitFastAuthority(raw)
	if !ok {
		return b, false
	}
	// The path, up to the query or the fragment.
	j := 0
	for ; j < len(tail) && tail[j] != '#' && tail[j] != '?'; j++ {
		if !fastPathChars[tail[j]] {
			return b, false
		}
	}
	end := j // the end of the path and query
	sortQuery := false
	if j < len(tail) && tail[j] == '?' {
		q := tail[j+1:]
		if k := strings.IndexByte(q, '#'); k >= 0 {
			q = q[:k]
		}
		if !canonicalQueryAsIs(q) {
			// Arguments of unreserved characters decode and encode to themselves: only
			// their order changes.
			if q == "" || needsQuote(q, &fastQueryChars) {
				return b, false
			}
			sortQuery = true
		}
		end = j + 1 + len(q)
	}
	// url.Parse refuses a fragment with a bad escape or a control character; leave the
	// fragment's checks to it.
	for k := end; k < len(tail); k++ {
		if c := tail[k]; c <= ' ' || c == 0x7f || c == '%' {
			return b, false
		}
	}
	b = append(b, head...)
	if j == 0 {
		b = append(b, '/')
	}
	if sortQuery {
		return canonicalQuery(append(b, tail[:j+1]...), tail[j+1:end]), true
	}
	return append(b, tail[:end]...), true
}

// canonicalQueryAsIs reports whether the query q is in canonical form as it stands: not
// empty, and name=value arguments (one "=" each, no empty argument) of unreserved
// characters, sorted by name, then value.
func canonicalQueryAsIs(q string) bool {
	if q == "" || q[len(q)-1] == '&' {
		return false
	}
	var prevK, prevV string
	for i := 0; q != ""; i++ {
		var part string
		part, q, _ = strings.Cut(q, "&")
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" && v == "" || needsQuote(k, &unreserved) || needsQuote(v, &unreserved) {
			return false
		}
		if i > 0 {
			if c := strings.Compare(prevK, k); c > 0 || c == 0 && prevV > v {
				return false
			}
		}
		prevK, prevV = k, v
	}
	return true
}

// splitFastAuthority splits an http(s) URL whose authority is a lower-case host name or
// IPv4 address (no user info, no IPv6 literal) with an optional port of digits, other than
// the scheme's default, into the part up to the end of the authority, the host name and the
// rest. ok is false for any other URL.
func splitFastAuthority(raw string) (head, host, tail string, ok bool) {
	var rest, defPort string
	switch {
	case strings.HasPrefix(raw, "http://"):
		rest, defPort = raw[len("http://"):], "80"
	case strings.HasPrefix(raw, "https://"):
		rest, defPort = raw[len("https://"):], "443"
	default:
		return "", "", "", false
	}
	i, colon := 0, -1
	for ; i < len(rest); i++ {
		if c := rest[i]; !fastHostChars[c] {
			if c != ':' || colon >= 0 {
				break
			}
			colon = i
		}
	}
	if i < len(rest) && rest[i] != '/' && rest[i] != '?' && rest[i] != '#' {
		return "", "", "", false // user info, an IPv6 literal, upper case, ...
	}
	host = rest[:i]
	if colon >= 0 {
		port := host[colon+1:]
		if colon == 0 || port == "" || port == defPort {
			return "", "", "", false
		}
		for k := 0; k < len(port); k++ {
			if port[k] < '0' || port[k] > '9' {
				return "", "", "", false
			}
		}
		host = host[:colon]
	}
	if host == "" {
		return "", "", "", false
	}
	n := len(raw) - len(rest) + i
	return raw[:n], host, raw[n:], true
}

// fastHostname returns the host name of raw without parsing it, when raw is an http(s)
// URL splitFastAuthority takes and the rest of it holds nothing url.Parse refuses (no "%",
// no control character).
func fastHostname(raw string) (string, bool) {
	_, host, tail, ok := splitFastAuthority(raw)
	if !ok {
		return "", false
	}
	for i := 0; i < len(tail); i++ {
		if c := tail[i]; c < ' ' || c == 0x7f || c == '%' {
			return "", false
		}
	}
	return host, true
}

// fastQueryChars are the characters of a query appendCanonicalFast sorts: unreserved
// ones, which UnquotePlus and quotePlus leave as they are, and the separators.
var fastQueryChars = newByteSet(unreservedChars+"=&", "")

// fastHostChars are the characters of a host name splitFastAuthority takes.
var fastHostChars = newByteSet("abcdefghijklmnopqrstuvwxyz0123456789.-", "")

// fastPathChars are the path characters appendCanonicalFast takes as they are: url.Parse
// keeps them in the escaped path, MakeSafe and Canonical leave them.
var fastPathChars = newByteSet(unreservedChars+"/!$&'()*+,;=:@", "")

// canonicalPath appends the escaped path p with its escapes normalised.
func canonicalPath(b []byte, p string) []byte {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' && i+2 < len(p) && unhex(p[i+1]) >= 0 && unhex(p[i+2]) >= 0 {
			v := byte(unhex(p[i+1])<<4 | unhex(p[i+2]))
			i += 2
			if v != '/' && v != '?' && v != '%' && canonPathSafe[v] {
				b = append(b, v)
			} else {
				b = append(b, '%', upperHex[v>>4], upperHex[v&15])
			}
			continue
		}
		if canonPathSafe[c] {
			b = append(b, c)
		} else {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return b
}

// queryArg is one argument of a query, decoded.
type queryArg struct{ k, v string }

func compareArgs(a, b queryArg) int {
	if c := strings.Compare(a.k, b.k); c != 0 {
		return c
	}
	return strings.Compare(a.v, b.v)
}

// canonicalQuery appends the query q with its arguments sorted and re-encoded.
func canonicalQuery(b []byte, q string) []byte {
	var buf [16]queryArg
	pairs := buf[:0]
	for q != "" {
		var part string
		part, q, _ = strings.Cut(q, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		pairs = append(pairs, queryArg{UnquotePlus(k), UnquotePlus(v)})
	}
	if len(pairs) > 1 {
		slices.SortStableFunc(pairs, compareArgs)
	}
	for i, p := range pairs {
		if i > 0 {
			b = append(b, '&')
		}
		b = quotePlus(b, p.k)
		b = append(b, '=')
		b = quotePlus(b, p.v)
	}
	return b
}

// UnquotePlus decodes "+" to a space and valid %XX escapes to their bytes, leaving
// invalid escapes as they are (Python's unquote_plus on bytes; the form decoding of
// application/x-www-form-urlencoded before UTF-8).
func UnquotePlus(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0:
			b = append(b, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// quotePlus appends s with spaces as "+" and everything but unreserved characters
// percent-encoded (Python's quote_plus).
func quotePlus(b []byte, s string) []byte {
	if !needsQuote(s, &unreserved) {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case unreserved[c]:
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return b
}
