package jsapi

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/text/encoding"
)

// urlsClass holds the URL natives of Request, fetch, response.urljoin and
// response.follow: checking, joining and skipping links. Used on one loop.
type urlsClass struct {
	st *vmState
	// The base of consecutive urljoin calls is nearly always the same response URL: keep
	// its parse and its fastJoin form (the loop is single-threaded).
	lastBase    string
	lastBaseURL *url.URL
	lastFast    fastBase
}

// base returns the parse of the base URL b and its fastJoin form, from the cache when b
// is the last base; nil for a base that does not parse.
func (u *urlsClass) base(b string) (*url.URL, *fastBase) {
	if b != u.lastBase || u.lastBaseURL == nil {
		base, err := url.Parse(b)
		if err != nil {
			return nil, nil
		}
		u.lastBase, u.lastBaseURL, u.lastFast = b, base, newFastBase(base)
	}
	return u.lastBaseURL, &u.lastFast
}

// CheckURL(url, who) returns url as a string once it is an absolute URL with a scheme
// DOWNLOAD_SCHEMES enables; else it throws a TypeError naming who, the URL and why. A
// URL object stands for its href.
func (u *urlsClass) CheckURL(c goja.FunctionCall) (goja.Value, error) {
	raw := c.Argument(0)
	who := c.Argument(1).String()
	if isNil(raw) {
		return nil, typeError("%s() needs a URL, got %s", who, raw.String())
	}
	s := raw.String()
	if !goja.IsString(raw) {
		if _, isObj := raw.(*goja.Object); !isObj || isFunction(raw) || strings.HasPrefix(s, "[object ") {
			return nil, typeError("%s() needs a URL string, got %s", who, describe(raw))
		}
		raw = u.st.rt.ToValue(s)
	}
	if err := u.st.s.checkURL(s); err != nil {
		return nil, typeError("%s(): %v", who, err)
	}
	if safe := types.NormalizeURL(s); safe != s {
		return u.st.rt.ToValue(safe), nil
	}
	return raw, nil
}

// resolve joins href to base for who, percent-encoding the query in the encoding of the
// response handle h (nil: UTF-8).
func (u *urlsClass) resolve(who, b, href string, h *respHandle) (*url.URL, error) {
	base, _ := u.base(b)
	if base == nil {
		return nil, typeError("%s: invalid base URL %s", who, b)
	}
	ref, err := types.ParseRef(base, href)
	if err != nil {
		return nil, typeError("%s: invalid URL %q: %v", who, href, urlReason(err))
	}
	abs := base.ResolveReference(ref)
	var enc encoding.Encoding
	if h != nil {
		enc = h.urlEncoding()
	}
	types.MakeSafe(abs, enc)
	return abs, nil
}

// Urljoin(base, href, response handle) is response.urljoin(href): the response's
// encoding encodes the query.
func (u *urlsClass) Urljoin(c goja.FunctionCall) (goja.Value, error) {
	return u.urljoin(c.Argument(0).String(), c.Argument(1).String(), optHandle(c.Argument(2)))
}

// UrljoinAt(response handle, href) is Urljoin against the handle's base URL (the
// response's baseUrl), in one native call: response.urljoin(href).
func (u *urlsClass) UrljoinAt(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return u.urljoin(h.baseURL(), c.Argument(1).String(), h)
}

// urljoin is Urljoin: href against the base b, a plain link on the fast path.
func (u *urlsClass) urljoin(b, href string, h *respHandle) (goja.Value, error) {
	if _, fb := u.base(b); fb != nil {
		if abs, _, ok := fb.fastJoin(href); ok {
			return u.st.rt.ToValue(abs), nil
		}
	}
	abs, err := u.resolve("urljoin", b, href, h)
	if err != nil {
		return nil, err
	}
	return u.st.rt.ToValue(abs.String()), nil
}

// Join(base, href, page, lenient, response handle) is urljoin plus the checks of new
// Request, for response.follow and followAll. Links that cannot be downloaded, as pages
// are full of (an empty or "#..." href, mailto:, tel:, javascript:, data: unless
// DOWNLOAD_SCHEMES enables it), give null: they are skipped, counted in
// follow/skipped_scheme and noted at DEBUG, as Scrapy drops them quietly. An invalid URL
// throws a TypeError, unless lenient (followAll), which skips it too, counting it in
// follow/skipped_invalid.
func (u *urlsClass) Join(c goja.FunctionCall) (goja.Value, error) {
	str, err := u.join(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String(), c.Argument(3).ToBoolean(), optHandle(c.Argument(4)))
	if err != nil || str == "" {
		return goja.Null(), err
	}
	return u.st.rt.ToValue(str), nil
}

// Follow(response handle, href, page) is Join for response.follow(href) of a string href
// without options, the common case: against the handle's base URL, in one native call.
func (u *urlsClass) Follow(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	str, err := u.join(h.baseURL(), c.Argument(1).String(), c.Argument(2).String(), false, h)
	if err != nil || str == "" {
		return goja.Null(), err
	}
	return u.st.rt.ToValue(str), nil
}

// join is Join: the absolute URL, or "" for a skipped link.
func (u *urlsClass) join(base, rawHref, page string, lenient bool, h *respHandle) (string, error) {
	s := u.st.s
	if _, fb := u.base(base); fb != nil {
		// A plain link: what the checks below pass, resolved as resolve would.
		if abs, scheme, ok := fb.fastJoin(rawHref); ok && s.schemeEnabled(scheme) {
			return abs, nil
		}
	}
	href := types.CleanURL(rawHref)
	if href == "" || href[0] == '#' {
		s.skipLink(page, href, "it points into the page itself", skippedScheme)
		return "", nil
	}
	if sc := hrefScheme(href); sc != "" && !s.schemeEnabled(sc) {
		s.skipLink(page, href, fmt.Sprintf("scheme %q is not in DOWNLOAD_SCHEMES", sc), skippedScheme)
		return "", nil
	}
	if b, _ := u.base(base); lenient && b != nil {
		if _, err := types.ParseRef(b, href); err != nil {
			s.skipLink(page, href, "it is not a valid URL", skippedInvalid)
			return "", nil
		}
	}
	abs, err := u.resolve("follow()", base, rawHref, h)
	if err != nil {
		return "", err
	}
	str := abs.String()
	if err := s.checkParsed(str, abs); err != nil {
		if lenient {
			s.skipLink(page, href, err.Error(), skippedInvalid)
			return "", nil
		}
		return "", typeError("follow(): %v", err)
	}
	return str, nil
}

// optHandle returns the response handle v holds, or nil (undefined: no response).
func optHandle(v goja.Value) *respHandle {
	if isNil(v) {
		return nil
	}
	h, _ := v.Export().(*respHandle)
	return h
}

// The stats of the links response.follow and followAll skip.
const (
	skippedScheme  = "follow/skipped_scheme"  // cannot be downloaded: mailto:, "#"...
	skippedInvalid = "follow/skipped_invalid" // not a valid URL (followAll only)
	// skippedExtract counts the links a LinkExtractor skipped as not valid URLs ("http://[x",
	// an http(s) URL without a host); the page's other links are kept.
	skippedExtract = "linkextractor/skipped_invalid"
)

// skipLink counts in stat and notes a link response.follow or followAll skipped; on the
// loop.
func (s *Spider) skipLink(page, href, why, stat string) {
	if s.crawler != nil {
		s.crawler.Stats().Inc(stat, 1)
	}
	s.logger.Debug(fmt.Sprintf("follow(): skipped link %q on %s: %s", href, page, why))
}

// hrefScheme returns the lowercased scheme of href when it has one ("mailto" for
// "mailto:x@y", "" for "/a:b" or "a/b:c"), as a URL parser reads it (RFC 3986 section 3.1).
func hrefScheme(href string) string {
	for i := 0; i < len(href); i++ {
		c := href[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return ""
			}
		case c == ':':
			if i == 0 {
				return ""
			}
			return strings.ToLower(href[:i])
		default:
			return ""
		}
	}
	return ""
}

// downloadSchemes returns the schemes DOWNLOAD_SCHEMES enables, lowercased.
func (s *Spider) downloadSchemes() []string {
	if s.schemes == nil {
		return []string{"http", "https"}
	}
	out := make([]string, len(s.schemes))
	for i, sc := range s.schemes {
		out[i] = strings.ToLower(sc)
	}
	return out
}

// schemeEnabled reports whether DOWNLOAD_SCHEMES has scheme (lowercase).
func (s *Spider) schemeEnabled(scheme string) bool {
	if s.schemes == nil {
		return scheme == "http" || scheme == "https"
	}
	for _, sc := range s.schemes {
		if strings.EqualFold(sc, scheme) {
			return true
		}
	}
	return false
}

// checkURL rejects relative URLs and schemes that DOWNLOAD_SCHEMES does not enable.
func (s *Spider) checkURL(raw string) error {
	u, err := types.ParseURL(raw)
	if err != nil {
		return fmt.Errorf("invalid URL %q: %v", raw, urlReason(err))
	}
	return s.checkParsed(raw, u)
}

func (s *Spider) checkParsed(raw string, u *url.URL) error {
	if !u.IsAbs() {
		return fmt.Errorf("relative URL %q: make it absolute with response.urljoin(%q)", raw, raw)
	}
	schemes := s.schemes
	if schemes == nil {
		schemes = []string{"http", "https"}
	}
	for _, sc := range schemes {
		if strings.EqualFold(sc, u.Scheme) {
			if u.Host == "" && (u.Scheme == "http" || u.Scheme == "https") {
				return fmt.Errorf("invalid URL %q: no host", raw)
			}
			return nil
		}
	}
	return fmt.Errorf("URL %q: scheme %q is not enabled (DOWNLOAD_SCHEMES is %s)", raw, u.Scheme, strings.Join(schemes, ","))
}
