package types

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// Request is one request as the engine schedules it (Scrapy: scrapy.Request). It holds only
// JSON-safe data, so a scheduler can serialize it to disk or Redis: the callback and errback
// are spider method names, and Meta and CbKwargs hold JSON-like values (see Item).
type Request struct {
	URL        string      `json:"url"`
	Method     string      `json:"method,omitempty"` // "" means GET
	Headers    http.Header `json:"headers,omitempty"`
	Body       []byte      `json:"body,omitempty"`
	Callback   string      `json:"callback,omitempty"` // "" means "parse"
	Errback    string      `json:"errback,omitempty"`
	CbKwargs   Item        `json:"cbKwargs,omitempty"`
	Meta       Item        `json:"meta,omitempty"`
	Priority   int         `json:"priority,omitempty"`
	DontFilter bool        `json:"dontFilter,omitempty"`
	Depth      int         `json:"depth,omitempty"`
	Retries    int         `json:"retries,omitempty"` // retries done so far
	// Cookies enter the request's cookie jar for its URL before it is sent (Scrapy:
	// Request.cookies); the jar then sends them with every matching request.
	Cookies []Cookie `json:"cookies,omitempty"`

	// parsed caches url.Parse(URL) for the engine's several readers (offsite, fingerprint,
	// slot); parsedRaw is the URL it was parsed from, so a changed URL is parsed again.
	parsed    *url.URL
	parsedRaw string
}

// Request meta keys that the engine reads or sets: Scrapy's special Request.meta keys, in
// camelCase. Spiders set them in meta; the middlewares named read them.
const (
	MetaCookieJar            = "cookiejar"            // CookiesMiddleware: the cookie jar (default: the spider's)
	MetaDepth                = "depth"                // Request.Depth, as JS sees it in meta
	MetaDontCache            = "dontCache"            // HttpCacheMiddleware: neither read nor store
	MetaDontCount            = "dontCount"            // Engine.Download: a service request, outside the crawl's middlewares, slots and stats
	MetaDontMergeCookies     = "dontMergeCookies"     // CookiesMiddleware: leave the jar out
	MetaDontObeyRobotsTxt    = "dontObeyRobotstxt"    // RobotsTxtMiddleware: skip the check
	MetaDontRedirect         = "dontRedirect"         // RedirectMiddleware: a 3xx is the response
	MetaDontRetry            = "dontRetry"            // RetryMiddleware: no retry
	MetaDownloadMaxSize      = "downloadMaxsize"      // DOWNLOAD_MAXSIZE for this request
	MetaDownloadSlot         = "downloadSlot"         // the download slot (default: the host)
	MetaDownloadTimeout      = "downloadTimeout"      // DOWNLOAD_TIMEOUT for this request, in seconds
	MetaDownloadWarnSize     = "downloadWarnsize"     // DOWNLOAD_WARNSIZE for this request
	MetaHandleHTTPStatusAll  = "handleHttpStatusAll"  // HttpErrorMiddleware: every status reaches the callback
	MetaHandleHTTPStatusList = "handleHttpStatusList" // HttpErrorMiddleware: these statuses reach the callback
	MetaMaxRetryTimes        = "maxRetryTimes"        // RETRY_TIMES for this request
	MetaProxy                = "proxy"                // HttpProxyMiddleware: the proxy URL ("" or null: none)
	MetaRedirectReasons      = "redirectReasons"      // set by RedirectMiddleware: the status or "meta refresh" of each hop
	MetaRedirectTimes        = "redirectTimes"        // set by RedirectMiddleware: the redirects followed
	MetaRedirectURLs         = "redirectUrls"         // set by RedirectMiddleware: the URLs redirected from
	MetaReferrerPolicy       = "referrerPolicy"       // RefererMiddleware: the policy for this request
	MetaSession              = "session"              // SessionMiddleware: the session (by name) the request is pinned to
	MetaSessionHop           = "sessionHop"           // set by SessionMiddleware on a redirect: the session that serves the chain
)

// ParsedURL returns the parsed URL, parsing it once. The result is shared: do not modify it.
// Like the rest of a Request, it is not for concurrent use while the request is changed.
func (r *Request) ParsedURL() (*url.URL, error) {
	if r.parsed != nil && r.parsedRaw == r.URL {
		return r.parsed, nil
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, err
	}
	r.parsed, r.parsedRaw = u, r.URL
	return u, nil
}

// Hostname returns the host name of the request's URL lower-cased, without its port, or
// "" when the URL does not parse (url.Parse). An http(s) URL with a plain host name, IPv4
// address and port, and nothing url.Parse could refuse after it (no "%", no control
// character) is read from the string without parsing it.
func (r *Request) Hostname() string {
	if h, ok := fastHostname(r.URL); ok {
		return h
	}
	if u, err := r.ParsedURL(); err == nil {
		return strings.ToLower(u.Hostname())
	}
	return ""
}

// DropCaches forgets what the request cached (its parsed URL), so a request waiting in a
// queue costs only its own fields; the cache is rebuilt on the next use.
func (r *Request) DropCaches() { r.parsed, r.parsedRaw = nil, "" }

// HTTPMethod returns the method, GET when unset.
func (r *Request) HTTPMethod() string {
	if r.Method == "" {
		return http.MethodGet
	}
	return strings.ToUpper(r.Method)
}

// CallbackName returns the callback's method name, "parse" when unset.
func (r *Request) CallbackName() string {
	if r.Callback == "" {
		return "parse"
	}
	return r.Callback
}

// MetaValue returns r.Meta[key], or nil.
func (r *Request) MetaValue(key string) any {
	v, _ := r.Meta.Get(key)
	return v
}

// Cookie is a cookie a request brings to the cookie jar (Scrapy: Request(cookies=...)).
// Domain "" means the request's host only; Path "" means "/".
type Cookie struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Domain string `json:"domain,omitempty"`
	Path   string `json:"path,omitempty"`
}

// RedirectURLs returns meta.redirectUrls, the URLs this request was redirected from in
// order (set by the redirect middlewares; Scrapy: meta["redirect_urls"]).
func (r *Request) RedirectURLs() []string {
	switch l := r.MetaValue(MetaRedirectURLs).(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, v := range l {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Copy returns a shallow copy with its own headers, meta and cookie list, for middlewares
// that send a changed request on (redirect, retry). Meta values are shared: replace a
// value rather than changing it in place.
func (r *Request) Copy() *Request {
	c := *r
	c.Headers = r.Headers.Clone()
	c.Meta = append(Item(nil), r.Meta...)
	c.Cookies = append([]Cookie(nil), r.Cookies...)
	return &c
}

// Fingerprint identifies a request for the duplicate filter (Scrapy: fingerprint()):
// a hex SHA-1 of the method, the canonical URL, the body and, for a browser request, its
// browser options (so it differs from a plain request for the same URL).
func (r *Request) Fingerprint() string {
	sum := r.FingerprintSum()
	return hex.EncodeToString(sum[:])
}

// FingerprintSum returns the SHA-1 that Fingerprint writes in hex, for stores that keep
// fingerprints compact.
//
// The hashed bytes are built in a buffer on the stack, with the canonical URL of a common
// URL made from the string without parsing it (see appendCanonicalFast), so a request's
// fingerprint costs no allocation.
func (r *Request) FingerprintSum() [sha1.Size]byte {
	var buf [320]byte
	b := append(buf[:0], r.HTTPMethod()...)
	b = append(b, 0)
	var ok bool
	if b, ok = appendCanonicalFast(b, r.URL); !ok {
		if u, err := r.ParsedURL(); err == nil {
			b = appendCanonical(b, u, false)
		} else {
			b = append(b, r.URL...)
		}
	}
	b = append(b, 0)
	bf := r.browserFingerprint()
	if len(r.Body) == 0 && bf == nil {
		return sha1.Sum(b)
	}
	h := sha1.New()
	h.Write(b)
	h.Write(r.Body)
	if bf != nil {
		h.Write([]byte{0})
		h.Write(bf)
	}
	var sum [sha1.Size]byte
	h.Sum(sum[:0])
	return sum
}

// CanonicalURL returns rawURL in the canonical form the duplicate filter compares (see
// Canonical; Scrapy: canonicalize_url). A URL that does not parse is returned unchanged.
func CanonicalURL(rawURL string) string {
	u, err := ParseURL(rawURL)
	if err != nil {
		return rawURL
	}
	return Canonical(u, false)
}
