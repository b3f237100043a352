package types

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/encoding"
)

// URLs as jscrawl makes them: every URL a spider gets from urljoin, follow, a LinkExtractor
// or new Request is made safe the way Scrapy's w3lib.url.safe_url_string makes it, and the
// duplicate filter compares URLs canonicalised as w3lib's canonicalize_url does.

// ParseURL parses raw as a browser reads an href (WHATWG URL parsing): leading and
// trailing C0 controls and spaces are stripped, tabs and newlines anywhere are removed,
// a backslash before the query counts as a slash in an http(s) URL, and what Go's parser
// refuses but browsers escape is escaped: a "%" that does not start an escape ("%25"),
// other control characters, raw UTF-8 in the user info. Relative references parse too.
func ParseURL(raw string) (*url.URL, error) {
	s := raw
	if clean, back := scanURL(s); !clean {
		s = CleanURL(s)
		if strings.IndexByte(s, '\\') >= 0 {
			s = backslashes(s)
		}
	} else if back {
		s = backslashes(s)
	}
	u, err := url.Parse(s)
	if err != nil {
		// Go refuses what browsers escape: a lone "%", control characters, raw UTF-8 or
		// "|" in the user info.
		if u2, err2 := url.Parse(escapeUserinfo(escapeControls(escapeLonePercents(s)))); err2 == nil {
			return u2, nil
		}
	}
	return u, err
}

// escapeUserinfo percent-encodes the bytes of s's user info that RFC 3986 does not allow
// there (non-ASCII, "|", ...), which Go's parser refuses.
func escapeUserinfo(s string) string {
	i := strings.Index(s, "//")
	if i < 0 {
		return s
	}
	rest := s[i+2:]
	end := len(rest)
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		end = j
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 || !needsQuote(rest[:at], &userinfoSafe) {
		return s
	}
	var b []byte
	b = append(b, s[:i+2]...)
	for k := 0; k < at; k++ {
		if c := rest[k]; !userinfoSafe[c] {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(append(b, rest[at:]...))
}

// scanURL reports in one pass whether s needs no CleanURL and whether it holds a backslash.
func scanURL(s string) (clean, backslash bool) {
	if s == "" {
		return true, false
	}
	if s[0] <= ' ' || s[len(s)-1] <= ' ' {
		return false, false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\t', '\n', '\r':
			return false, false
		case '\\':
			backslash = true
		}
	}
	return true, backslash
}

// CleanURL strips leading and trailing C0 controls and spaces from raw and removes every
// tab, CR and LF in it (the WHATWG URL parser's first steps).
func CleanURL(raw string) string {
	s := raw
	if s != "" && (s[0] <= ' ' || s[len(s)-1] <= ' ') {
		s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	}
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// backslashes turns "\" into "/" before the query of a URL with a special scheme or none
// (a relative reference), as browsers and w3lib do.
func backslashes(s string) string {
	if i := strings.IndexByte(s, ':'); i > 0 && !strings.ContainsAny(s[:i], "/?#\\") {
		if !specialScheme(strings.ToLower(s[:i])) {
			return s
		}
	}
	end := len(s)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		end = i
	}
	return strings.ReplaceAll(s[:end], "\\", "/") + s[end:]
}

// escapeControls percent-encodes the C0 controls and DEL left in s (after CleanURL).
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == 0x7f {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

// escapeLonePercents writes each "%" not followed by two hex digits as "%25".
func escapeLonePercents(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func specialScheme(s string) bool {
	switch s {
	case "http", "https", "ftp", "ws", "wss", "file":
		return true
	}
	return false
}

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

// PunycodeHost returns the host name h lower-cased, an internationalised name in punycode
// as URLs carry it ("Bücher.de" → "xn--bcher-kva.de"); h itself if it is not a valid name.
func PunycodeHost(h string) string {
	if isASCII(h) {
		return strings.ToLower(h)
	}
	if a, err := idna.Lookup.ToASCII(strings.ToLower(h)); err == nil {
		return a
	}
	return h
}

// ParseRef parses the reference href for resolving against base (base.ResolveReference)
// as Scrapy's urljoin (Python's urllib.parse.urljoin) and browsers do where Go's parser
// differs: an href with base's special scheme and no "//" is relative ("http:foo.com"
// against "http://example.org/foo/bar" is "http://example.org/foo/foo.com"); another
// special scheme without "//" names a host as browsers read it ("https:foo.com" is
// "https://foo.com"); and a first path segment with a ":" that is no scheme is a path
// (":foo" is "./:foo", where Go's parser refuses it). Otherwise it is ParseURL.
func ParseRef(base *url.URL, href string) (*url.URL, error) {
	s := CleanURL(href)
	if sc := refScheme(s); sc != "" && specialScheme(sc) {
		rest := s[len(sc)+1:]
		authority := len(rest) >= 2 && (rest[0] == '/' || rest[0] == '\\') && (rest[1] == '/' || rest[1] == '\\')
		switch {
		case strings.EqualFold(sc, base.Scheme) && !authority:
			s = rest
		case !strings.EqualFold(sc, base.Scheme) && !authority && sc != "file":
			s = sc + "://" + strings.TrimLeft(rest, "/\\")
		}
	}
	if refScheme(s) == "" {
		end := len(s)
		if i := strings.IndexAny(s, "/\\?#"); i >= 0 {
			end = i
		}
		if strings.IndexByte(s[:end], ':') >= 0 {
			s = "./" + s
		}
	}
	return ParseURL(s)
}

// refScheme returns the lowercased scheme s starts with ("" for none), as RFC 3986
// section 3.1 and the WHATWG scheme state read it.
func refScheme(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return ""
			}
		case c == ':' && i > 0:
			return strings.ToLower(s[:i])
		default:
			return ""
		}
	}
	return ""
}
