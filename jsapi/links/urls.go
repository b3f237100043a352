package links

import (
	"net"
	"net/url"
	"path"
	"strings"

	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
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
				if ref, err := types.ParseRef(page, a.Val); err == nil {
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

// Resolve joins href to base as a browser does (types.ParseRef: surrounding spaces and
// controls stripped, tabs and newlines inside removed) and makes the result safe as
// Scrapy's safe_url_string (types.MakeSafe): punycode host, UTF-8 path, and the query
// percent-encoded in enc, the page's encoding (nil: UTF-8). ok is false for an href that
// does not parse.
func Resolve(base *url.URL, href string, enc encoding.Encoding) (*url.URL, bool) {
	ref, err := types.ParseRef(base, href)
	if err != nil {
		return nil, false
	}
	u := base.ResolveReference(ref)
	types.MakeSafe(u, enc)
	return u, true
}

// URLEncoding returns the encoding a page named name (a WHATWG name, as
// selector.Encoding gives) percent-encodes its links' queries in, as browsers do: nil for
// UTF-8, and for UTF-16, whose pages' links browsers encode in UTF-8.
func URLEncoding(name string) encoding.Encoding {
	switch name {
	case "", "utf-8", "utf-16le", "utf-16be":
		return nil
	}
	e, err := htmlindex.Get(name)
	if err != nil {
		return nil
	}
	return e
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

// Canonicalize returns u in canonical form, as w3lib's canonicalize_url does (see
// types.Canonical): punycode host lower-cased, an empty path made "/", percent-encoding
// normalised, query arguments sorted by name and value (blank values kept), and the
// fragment dropped unless keepFragment.
func Canonicalize(u *url.URL, keepFragment bool) string {
	return types.Canonical(u, keepFragment)
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
			types.PortOf(page) == types.PortOf(target)
	case SameDomain:
		return RegistrableDomain(page.Hostname()) == RegistrableDomain(target.Hostname())
	default:
		return strings.EqualFold(page.Hostname(), target.Hostname())
	}
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
