package types

import (
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// This file parses URLs as a browser reads an href (ParseURL, ParseRef, PunycodeHost).
//
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
