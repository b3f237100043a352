package links

import (
	"net/url"
	"strings"

	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
)

// IgnoredExtensions are the file extensions (without dot) a LinkExtractor skips unless told
// otherwise (Scrapy: scrapy.linkextractors.IGNORED_EXTENSIONS).
var IgnoredExtensions = []string{
	// archives
	"7z", "7zip", "bz2", "rar", "tar", "tar.gz", "xz", "zip",
	// images
	"mng", "pct", "bmp", "gif", "jpg", "jpeg", "png", "pst", "psp", "tif", "tiff", "ai", "drw", "dxf",
	"eps", "ps", "svg", "cdr", "ico", "webp",
	// audio
	"mp3", "wma", "ogg", "wav", "ra", "aac", "mid", "au", "aiff",
	// video
	"3gp", "asf", "asx", "avi", "mov", "mp4", "mpg", "qt", "rm", "swf", "wmv", "m4a", "m4v", "flv", "webm",
	// office suites
	"xls", "xlsm", "xlsx", "xltm", "xltx", "potm", "potx", "ppt", "pptm", "pptx", "pps", "doc", "docb",
	"docm", "docx", "dotm", "dotx", "odt", "ods", "odg", "odp",
	// other
	"css", "pdf", "exe", "bin", "rss", "dmg", "iso", "apk", "jar", "sh", "rb", "js", "hta", "bat", "cpl",
	"msi", "msp", "py",
}

// Link is one extracted link (Scrapy: scrapy.link.Link).
type Link struct {
	URL      string // absolute; without its fragment unless the extractor keeps fragments
	Text     string // the element's text, trimmed, whitespace runs collapsed to one space
	Fragment string // always "" from an Extractor, as from Scrapy's (the fragment is in URL when kept)
	NoFollow bool   // rel contains "nofollow"
}

// Extractor extracts links from a page (Scrapy: LxmlLinkExtractor). Build one with its
// fields and call Prepare before use; after that it is immutable and safe for concurrent use.
type Extractor struct {
	Allow, Deny               []Matcher // matched against the absolute URL; Allow empty: all
	AllowDomains, DenyDomains []string  // host names; subdomains match too
	RestrictCSS               []*selector.Query
	RestrictText              []Matcher // matched against the link text; empty: all
	Tags                      []string  // default a, area; "*": every tag
	Attrs                     []string  // default href; "*": every attribute
	DenyTags, DenyAttrs       []string  // never these, even with "*" (Scrapy 2.17: deny_tags, deny_attrs)
	DenyExtensions            []string  // without dot; nil: IgnoredExtensions, empty: none
	Schemes                   []string  // URL schemes kept; nil: http and https
	Canonicalize              bool
	Unique                    bool
	KeepFragments             bool

	denyExt           map[string]bool
	allTags, allAttrs bool // Tags, Attrs hold "*"
}

// Prepare fills in defaults and lower-cases names. Call it once, before the first Extract.
func (e *Extractor) Prepare() {
	if e.Tags == nil {
		e.Tags = []string{"a", "area"}
	}
	if e.Attrs == nil {
		e.Attrs = []string{"href"}
	}
	if e.Schemes == nil {
		e.Schemes = []string{"http", "https"}
	}
	lower := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = strings.ToLower(strings.TrimSpace(s))
		}
		return out
	}
	e.Tags, e.Attrs, e.Schemes = lower(e.Tags), lower(e.Attrs), lower(e.Schemes)
	e.DenyTags, e.DenyAttrs = lower(e.DenyTags), lower(e.DenyAttrs)
	e.allTags, e.allAttrs = contains(e.Tags, "*"), contains(e.Attrs, "*")
	e.AllowDomains, e.DenyDomains = punycode(lower(e.AllowDomains)), punycode(lower(e.DenyDomains))
	exts := e.DenyExtensions
	if exts == nil {
		exts = IgnoredExtensions
	}
	e.denyExt = make(map[string]bool, len(exts))
	for _, x := range exts {
		e.denyExt["."+strings.ToLower(strings.TrimPrefix(x, "."))] = true
	}
}

// ProcessFunc rewrites an attribute value (already joined to the base URL) before it
// becomes a link; ok false drops it (Scrapy: process_value returning None).
type ProcessFunc func(value string) (out string, ok bool)

// punycode writes the internationalised names of domains in punycode, as URLs have them.
func punycode(domains []string) []string {
	for i, d := range domains {
		domains[i] = types.PunycodeHost(d)
	}
	return domains
}

// Extract returns the links of doc, whose URL is page, as Scrapy's extract_links does: from
// each root in turn (the roots given, typically XPath results, then those of RestrictCSS;
// the whole document when restricted is false and there is no RestrictCSS), every element of Tags with an attribute of
// Attrs, joined to the page's base URL (<base href>), passed through process when not nil
// and joined to the page URL again, then filtered (schemes, Allow, Deny, domains,
// DenyExtensions, RestrictText), canonicalized when asked and deduplicated by URL when
// Unique. URLs are made safe as Resolve does, their queries encoded in enc, the page's
// encoding (nil: UTF-8).
func (e *Extractor) Extract(doc *selector.Document, page *url.URL, enc encoding.Encoding, roots []selector.Result, restricted bool, process ProcessFunc) []Link {
	links, _ := e.ExtractCounted(doc, page, enc, roots, restricted, process)
	return links
}

// ExtractCounted is Extract that also returns how many attribute values it skipped as
// unusable: an href that does not parse as a URL ("http://[x", "http://h:port") or an
// http(s) URL without a host. As in Scrapy (test_skip_bad_links), such a link is skipped
// and the page's other links are kept.
func (e *Extractor) ExtractCounted(doc *selector.Document, page *url.URL, enc encoding.Encoding, roots []selector.Result, restricted bool, process ProcessFunc) (_ []Link, invalid int) {
	base := BaseURL(doc, page)
	for _, q := range e.RestrictCSS {
		roots = append(roots, q.Select(doc.Root())...)
	}
	restricted = restricted || len(e.RestrictCSS) > 0
	if !restricted {
		roots = []selector.Result{doc.Root()}
	}
	var all []Link
	var cache map[string]resolved
	if process == nil {
		cache = map[string]resolved{} // pages repeat hrefs (an image and a title per product)
	}
	for _, r := range roots {
		if r.Kind != selector.KindElement || r.Node == nil {
			continue
		}
		var links []Link
		invalid += e.walk(r.Node, base, page, enc, process, cache, &links)
		all = append(all, e.dedupe(links)...)
	}
	if restricted {
		all = e.dedupe(all)
	}
	return all, invalid
}

func (e *Extractor) dedupe(links []Link) []Link {
	if !e.Unique || len(links) < 2 {
		return links
	}
	seen := make(map[string]bool, len(links))
	out := links[:0]
	for _, l := range links {
		if !seen[l.URL] {
			seen[l.URL] = true
			out = append(out, l)
		}
	}
	return out
}

// walk appends the links of n and its descendants to out and returns how many values it
// skipped as invalid.
func (e *Extractor) walk(n *html.Node, base, page *url.URL, enc encoding.Encoding, process ProcessFunc, cache map[string]resolved, out *[]Link) (invalid int) {
	if n.Type == html.ElementNode && e.scanTag(n.Data) {
		for _, a := range n.Attr {
			if !e.scanAttr(attrName(a)) {
				continue
			}
			l, ok, bad := e.link(n, a.Val, base, page, enc, process, cache)
			if ok {
				*out = append(*out, l)
			} else if bad {
				invalid++
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			invalid += e.walk(c, base, page, enc, process, cache, out)
		}
	}
	return invalid
}

// scanTag and scanAttr say whether links are looked for in a tag or an attribute (Scrapy:
// _name_matches: denied names never, "*" allows all).
func (e *Extractor) scanTag(name string) bool {
	return (e.allTags || contains(e.Tags, name)) && (len(e.DenyTags) == 0 || !contains(e.DenyTags, name))
}

func (e *Extractor) scanAttr(name string) bool {
	return (e.allAttrs || contains(e.Attrs, name)) && (len(e.DenyAttrs) == 0 || !contains(e.DenyAttrs, name))
}

func attrName(a html.Attribute) string {
	if a.Namespace != "" {
		return a.Namespace + ":" + a.Key
	}
	return a.Key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// resolved is what link computed from an attribute value: the URL, and whether it passed
// the URL filters or was not a usable URL at all (invalid).
type resolved struct {
	url     string
	ok      bool
	invalid bool
}

// link makes the Link of one attribute value, or reports false when it is filtered out
// (and invalid when it is not a usable URL). cache (nil with a process function)
// remembers the URL work per attribute value.
func (e *Extractor) link(n *html.Node, val string, base, page *url.URL, enc encoding.Encoding, process ProcessFunc, cache map[string]resolved) (_ Link, ok, invalid bool) {
	r, hit := cache[val]
	if !hit {
		r = e.resolve(val, base, page, enc, process)
		if cache != nil {
			cache[val] = r
		}
	}
	if !r.ok {
		return Link{}, false, r.invalid
	}
	l := Link{URL: r.url, NoFollow: relNoFollow(n)}
	l.Text = CollapseSpace(selector.Result{Node: n, Kind: selector.KindElement}.Text())
	if len(e.RestrictText) > 0 && !Any(e.RestrictText, l.Text) {
		return Link{}, false, false
	}
	return l, true, false
}

// resolve joins and filters one attribute value (everything but the text).
func (e *Extractor) resolve(val string, base, page *url.URL, enc encoding.Encoding, process ProcessFunc) resolved {
	u, ok := Resolve(base, val, enc)
	if !ok {
		return resolved{invalid: true}
	}
	if process != nil {
		v, keep := process(u.String())
		if !keep {
			return resolved{}
		}
		if u, ok = Resolve(page, v, enc); !ok {
			return resolved{invalid: true}
		}
	}
	if !contains(e.Schemes, strings.ToLower(u.Scheme)) {
		return resolved{}
	}
	if u.Host == "" && (u.Scheme == "http" || u.Scheme == "https") {
		return resolved{invalid: true}
	}
	if !e.KeepFragments {
		DropFragment(u)
	}
	s := u.String()
	if len(e.Allow) > 0 && !Any(e.Allow, s) || Any(e.Deny, s) {
		return resolved{}
	}
	if len(e.AllowDomains) > 0 && !FromAnyDomain(u, e.AllowDomains) || len(e.DenyDomains) > 0 && FromAnyDomain(u, e.DenyDomains) {
		return resolved{}
	}
	if HasExtension(u, e.denyExt) {
		return resolved{}
	}
	if e.Canonicalize {
		s = Canonicalize(u, e.KeepFragments)
	}
	return resolved{url: s, ok: true}
}

// Matches reports whether a URL passes the extractor's Allow, Deny and domain filters
// (Scrapy: LinkExtractor.matches).
func (e *Extractor) Matches(raw string) bool {
	u, err := types.ParseURL(raw)
	if err != nil {
		return false
	}
	types.MakeSafe(u, nil) // a punycode host, as AllowDomains have
	if len(e.AllowDomains) > 0 && !FromAnyDomain(u, e.AllowDomains) || len(e.DenyDomains) > 0 && FromAnyDomain(u, e.DenyDomains) {
		return false
	}
	return (len(e.Allow) == 0 || Any(e.Allow, raw)) && !Any(e.Deny, raw)
}

// relNoFollow reports whether the element's rel attribute lists nofollow.
func relNoFollow(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "rel" && a.Namespace == "" {
			for _, t := range strings.FieldsFunc(a.Val, func(r rune) bool { return r == ',' || strings.ContainsRune(html5Space, r) }) {
				if strings.EqualFold(t, "nofollow") {
					return true
				}
			}
		}
	}
	return false
}

// CollapseSpace trims s and replaces each run of white space with one space.
func CollapseSpace(s string) string {
	if s == "" {
		return s
	}
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c >= 0x80 || (c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ')) {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Hrefs returns the absolute URLs the elements of rs point to, in order: an element's href
// (else its src), a text or attribute result's value, joined to base. Values that are not
// valid URLs (they do not parse, or an http(s) URL has no host) are skipped and counted in
// invalid; links that cannot be downloaded are skipped and counted in skipped: empty and
// "#..." values (the page itself) and URLs whose scheme is not in schemes (lower case:
// mailto:, tel:, javascript:...). URLs are made safe as Resolve does, queries encoded in
// enc, the page's encoding. With dropFragments the fragments are removed; with unique each
// URL comes once.
func Hrefs(rs []selector.Result, base *url.URL, enc encoding.Encoding, schemes []string, dropFragments, unique bool) (out []*url.URL, skipped, invalid int) {
	var seen map[string]bool
	if unique {
		seen = map[string]bool{}
	}
	for _, r := range rs {
		val, ok := r.Value, r.Kind != selector.KindElement
		if !ok && r.Node != nil {
			val, ok = attr(r.Node, "href")
			if !ok {
				val, ok = attr(r.Node, "src")
			}
		}
		if !ok {
			continue
		}
		if v := strings.Trim(val, html5Space); v == "" || v[0] == '#' {
			skipped++
			continue
		}
		u, ok := Resolve(base, val, enc)
		if !ok {
			invalid++
			continue
		}
		if !contains(schemes, strings.ToLower(u.Scheme)) {
			skipped++
			continue
		}
		if u.Host == "" && (u.Scheme == "http" || u.Scheme == "https") {
			invalid++
			continue
		}
		if dropFragments {
			DropFragment(u)
		}
		if unique {
			s := u.String()
			if seen[s] {
				continue
			}
			seen[s] = true
		}
		out = append(out, u)
	}
	return out, skipped, invalid
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}
