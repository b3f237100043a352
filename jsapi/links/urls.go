package links

import (
	"net"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/jscrawl/jscrawl/jsapi/selector"
	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"
)

// BaseURL returns the URL relative links of a page resolve against: the page's URL joined
// with the href of its first <base> element, when it has one (Scrapy: get_base_url).
func BaseURL(doc *selector.Document, page *url.URL) *url.URL {
	if doc == nil {
		return page
	}
	if n := findBase(doc.Node()); n != nil {
		for _, a := range n.Attr {
			if a.Key == "href" && a.Namespace == "" {
				if ref, err := url.Parse(strings.Trim(a.Val, html5Space)); err == nil {
					return page.ResolveReference(ref)
				}
			}
		}
	}
	return page
}

// findBase returns the first <base href> element, looking only where the parser puts it
// (the head, or the document before the body).
func findBase(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode && c.Type != html.DocumentNode {
			continue
		}
		if c.Data == "base" && c.Namespace == "" {
			for _, a := range c.Attr {
				if a.Key == "href" {
					return c
				}
			}
		}
		if c.Data == "body" {
			return nil
		}
		if c.Data == "html" || c.Data == "head" {
			if b := findBase(c); b != nil {
				return b
			}
		}
	}
	return nil
}

// html5Space is the whitespace HTML strips from URL attributes.
const html5Space = " \t\n\r\f"

// Resolve joins href (HTML whitespace stripped) to base; ok is false for an unparsable href.
func Resolve(base *url.URL, href string) (*url.URL, bool) {
	ref, err := url.Parse(strings.Trim(href, html5Space))
	if err != nil {
		return nil, false
	}
	u := base.ResolveReference(ref)
	if needsEscape(u.RawQuery) {
		u.RawQuery = escapeQuery(u.RawQuery)
	}
	return u, true
}

// needsEscape reports whether a raw query holds bytes a URL may not carry as they are.
func needsEscape(q string) bool {
	for i := 0; i < len(q); i++ {
		if c := q[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			return true
		}
	}
	return false
}

// escapeQuery percent-encodes what needsEscape finds (Scrapy: safe_url_string).
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// DropFragment removes u's fragment and returns it (without "#").
func DropFragment(u *url.URL) string {
	f := u.EscapedFragment()
	if u.Fragment == "" && u.RawFragment == "" {
		f = ""
	}
	u.Fragment, u.RawFragment = "", ""
	return f
}

// Canonicalize returns u in canonical form, as w3lib's canonicalize_url does: scheme and
// host lower-cased, an empty path made "/", percent-encoding normalised, query arguments
// sorted by key and value (blank values kept), and the fragment dropped unless keepFragment.
func Canonicalize(u *url.URL, keepFragment bool) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	if c.RawPath != "" {
		c.RawPath = normalizeEscapes(c.RawPath)
		if p, err := url.PathUnescape(c.RawPath); err == nil && p == c.Path && c.EscapedPath() == c.RawPath {
			// kept: it escapes something Path cannot (such as %2F)
		} else {
			c.RawPath = ""
		}
	}
	if c.Path == "" && c.Opaque == "" {
		c.Path = "/"
	}
	if c.RawQuery != "" {
		type kv struct{ k, v string }
		var pairs []kv
		for _, part := range strings.Split(c.RawQuery, "&") {
			if part == "" {
				continue
			}
			k, v, _ := strings.Cut(part, "=")
			dk, err1 := url.QueryUnescape(k)
			dv, err2 := url.QueryUnescape(v)
			if err1 != nil || err2 != nil {
				dk, dv = k, v
			}
			pairs = append(pairs, kv{dk, dv})
		}
		sort.SliceStable(pairs, func(i, j int) bool {
			if pairs[i].k != pairs[j].k {
				return pairs[i].k < pairs[j].k
			}
			return pairs[i].v < pairs[j].v
		})
		parts := make([]string, len(pairs))
		for i, p := range pairs {
			parts[i] = url.QueryEscape(p.k) + "=" + url.QueryEscape(p.v)
		}
		c.RawQuery = strings.Join(parts, "&")
	}
	if !keepFragment {
		c.Fragment, c.RawFragment = "", ""
	}
	return c.String()
}

// normalizeEscapes upper-cases percent-escapes and decodes those of unreserved characters.
func normalizeEscapes(s string) string {
	const hex = "0123456789ABCDEF"
	unhex := func(c byte) int {
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
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0 {
			v := byte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			if 'a' <= v && v <= 'z' || 'A' <= v && v <= 'Z' || '0' <= v && v <= '9' || strings.IndexByte("-._~", v) >= 0 {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[v>>4])
				b.WriteByte(hex[v&15])
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// FromAnyDomain reports whether u's host is one of domains or a subdomain of one (Scrapy:
// url_is_from_any_domain; the port is ignored). domains must be lower case.
func FromAnyDomain(u *url.URL, domains []string) bool {
	host := strings.ToLower(u.Hostname())
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// HasExtension reports whether the last extension of u's path, lower-cased and with its
// dot, is one of exts (Scrapy: url_has_any_extension).
func HasExtension(u *url.URL, exts map[string]bool) bool {
	if len(exts) == 0 {
		return false
	}
	return exts[strings.ToLower(path.Ext(u.Path))]
}

// Strategy says which links of a page enqueueLinks keeps, by where they point (Crawlee:
// EnqueueStrategy).
type Strategy uint8

// The strategies.
const (
	SameHostname Strategy = iota // the page's host name, any scheme and port (Crawlee's default)
	SameDomain                   // the page's registrable domain, subdomains included
	SameOrigin                   // the page's scheme, host and port
	All                          // anywhere
)

// ParseStrategy reads "same-hostname", "same-domain", "same-origin" or "all" ("" is
// same-hostname).
func ParseStrategy(s string) (Strategy, bool) {
	switch s {
	case "", "same-hostname":
		return SameHostname, true
	case "same-domain":
		return SameDomain, true
	case "same-origin":
		return SameOrigin, true
	case "all":
		return All, true
	}
	return 0, false
}

// Allows reports whether target is within reach of page under the strategy.
func (s Strategy) Allows(page, target *url.URL) bool {
	switch s {
	case All:
		return true
	case SameOrigin:
		return strings.EqualFold(page.Scheme, target.Scheme) && strings.EqualFold(page.Hostname(), target.Hostname()) &&
			port(page) == port(target)
	case SameDomain:
		return RegistrableDomain(page.Hostname()) == RegistrableDomain(target.Hostname())
	default:
		return strings.EqualFold(page.Hostname(), target.Hostname())
	}
}

func port(u *url.URL) string {
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

// RegistrableDomain returns host's registrable domain (eTLD+1 by the public suffix list,
// golang.org/x/net/publicsuffix): "shop.example.co.uk" → "example.co.uk". An IP address, a
// public suffix or a single-label host such as "localhost" is its own domain.
func RegistrableDomain(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if net.ParseIP(host) != nil {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}
