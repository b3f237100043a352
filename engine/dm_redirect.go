package engine

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/net/html"
)

// inlineKey marks the context of an inline download (Engine.Download).
type inlineKey struct{}

// isInline reports whether ctx is that of an inline download (Engine.Download), as
// opposed to a scheduled one.
func isInline(ctx context.Context) bool { return ctx.Value(inlineKey{}) != nil }

// redirector is what RedirectMiddleware and MetaRefreshMiddleware share (Scrapy:
// BaseRedirectMiddleware): the redirect bookkeeping in meta and the limits.
type redirector struct {
	enabled  bool
	maxTimes int
	prio     int
	schemes  []string
	referer  *RefererMiddleware // its policy decides the Referer of a redirect
	stats    *Stats
	logger   *slog.Logger
}

func newRedirector(settings *types.Settings, enabledKey string, stats *Stats, logger *slog.Logger) redirector {
	if stats == nil {
		stats = NewStats()
	}
	return redirector{
		enabled:  settings.Bool(enabledKey),
		maxTimes: settings.Int(types.RedirectMaxTimes),
		prio:     settings.Int(types.RedirectPriorityAdjust),
		schemes:  settings.StringList(types.DownloadSchemes),
		referer:  NewRefererMiddleware(settings, nil),
		stats:    stats,
		logger:   orDiscard(logger),
	}
}

// skip reports whether req's redirects are turned off: meta.dontRedirect, or for a status
// (0 for a meta refresh) that the spider handles itself (meta.handleHttpStatusList
// contains it, or meta.handleHttpStatusAll), as in Scrapy.
func (r *redirector) skip(req *types.Request, status int) bool {
	if !r.enabled || metaBool(req, types.MetaDontRedirect) {
		return true
	}
	if status == 0 { // meta refresh
		return false
	}
	if metaBool(req, types.MetaHandleHTTPStatusAll) {
		return true
	}
	v := req.MetaValue(types.MetaHandleHTTPStatusList)
	return v != nil && slices.Contains(intList(v), status)
}

// target resolves location against base and reports whether it can be followed: it
// parses and its scheme is in DOWNLOAD_SCHEMES. Location is parsed by the WHATWG URL
// parser (types.JoinWHATWG), as browsers and curl follow it: tabs and newlines inside are
// removed, "\\host" names a host, "http:path" with base's scheme is a relative path.
func (r *redirector) target(base, location string) (string, bool) {
	abs, err := types.JoinWHATWG(base, location, false)
	if err != nil {
		return "", false
	}
	u, err := url.Parse(abs)
	if err != nil {
		return "", false
	}
	if u.Host == "" || !slices.ContainsFunc(r.schemes, func(s string) bool { return strings.EqualFold(s, u.Scheme) }) {
		return "", false
	}
	types.MakeSafe(u, nil) // as Scrapy's safe_url_string(Location): punycode host, UTF-8 escaped
	return u.String(), true
}

// follow builds the request that follows req to target for reason (a status, or "meta
// refresh"): 301, 302, 303 and meta refresh turn a method other than HEAD into GET without
// body, Content-Type and Content-Length (307 and 308 keep all); credentials go as
// dropCredentials says; the Referer is recomputed for the new URL under the request's
// referrer policy (Scrapy: RefererMiddleware on request_scheduled), so a redirect from
// https to http drops it under the default policy; request cookies are dropped (they are
// in the jar already); meta
// keeps everything and gains redirectTimes, redirectUrls and redirectReasons; dontFilter
// is kept and the priority raised by REDIRECT_PRIORITY_ADJUST. It returns the request to
// reschedule, or a MaxRedirectsError after REDIRECT_MAX_TIMES redirects or when target is
// already in the chain.
func (r *redirector) follow(req *types.Request, target string, status int, reason any) error {
	next := req.Copy()
	next.URL = target
	next.Cookies = nil
	method := req.HTTPMethod()
	if status != 307 && status != 308 && method != http.MethodHead {
		next.Method = ""
		next.Body = nil
		next.Headers.Del("Content-Type")
		next.Headers.Del("Content-Length")
	}
	dropCredentials(req, next)
	if ref := next.Headers.Get("Referer"); ref != "" && r.referer.enabled {
		if ref = Referrer(r.referer.policyOf(req, nil), ref, target); ref != "" {
			next.Headers.Set("Referer", ref)
		} else {
			next.Headers.Del("Referer")
		}
	}
	times, _ := metaInt(req, types.MetaRedirectTimes)
	urls := req.RedirectURLs()
	chain := append(slices.Clone(urls), req.URL)
	if times >= r.maxTimes {
		return r.fail(req, chain, fmt.Errorf("max redirections reached: %d (%s), next to %s", times, types.RedirectMaxTimes, target))
	}
	// A loop: the target is already in the chain since the method last changed. A hop that
	// changes the method (POST /login, then 302 to GET /home, then 302 to GET /login) starts
	// afresh; meta._redirectLoopStart keeps where the current method's run began.
	start, _ := metaInt(req, metaRedirectLoopStart)
	if next.HTTPMethod() != method {
		start = len(chain)
	} else if slices.ContainsFunc(chain[min(start, len(chain)):], func(u string) bool { return sameURL(u, target) }) {
		return r.fail(req, chain, fmt.Errorf("redirect loop: %s redirects back to %s", req.URL, target))
	}
	if start > 0 {
		next.Meta.Set(metaRedirectLoopStart, int64(start))
	}
	reasons, _ := req.MetaValue(types.MetaRedirectReasons).([]any)
	next.Meta.Set(types.MetaRedirectTimes, int64(times+1))
	next.Meta.Set(types.MetaRedirectURLs, toAnyList(chain))
	next.Meta.Set(types.MetaRedirectReasons, append(slices.Clone(reasons), reason))
	next.Priority = req.Priority + r.prio
	r.logger.Debug(fmt.Sprintf("Redirecting (%v) to %s from %s", reason, reqString(next), reqString(req)))
	return Reschedule(next)
}

// dropCredentials removes from next, the request that follows req's redirect, the
// credentials its new URL must not see, whoever set them (Scrapy:
// BaseRedirectMiddleware._build_redirect_request, after its security advisories):
// Authorization and Proxy-Authorization go when the origin changes (scheme, host or port,
// an omitted port being the scheme's default), Cookie when the host changes or the scheme
// changes to anything but https (a Cookie header cannot tell whether its cookies were
// secure; the cookie middleware adds the jar's cookies for the new URL again). A proxy
// given by meta.proxy keeps working: its credentials are in its URL, and the Transport
// sends them to the proxy for every request, the redirected one included. A URL that does
// not parse drops all three.
func dropCredentials(req, next *types.Request) {
	from, err1 := req.ParsedURL()
	to, err2 := next.ParsedURL()
	if err1 != nil || err2 != nil || from == nil || to == nil {
		next.Headers.Del("Authorization")
		next.Headers.Del("Proxy-Authorization")
		next.Headers.Del("Cookie")
		return
	}
	fromScheme, toScheme := strings.ToLower(from.Scheme), strings.ToLower(to.Scheme)
	sameHost := strings.EqualFold(from.Hostname(), to.Hostname())
	if !sameHost || fromScheme != toScheme || types.PortOf(from) != types.PortOf(to) {
		next.Headers.Del("Authorization")
		next.Headers.Del("Proxy-Authorization")
	}
	if !sameHost || fromScheme != toScheme && toScheme != "https" {
		next.Headers.Del("Cookie")
	}
}

// fail returns the MaxRedirectsError of a chain, counted in the exception stats (the
// HTTPDownloader did not see it fail).
func (r *redirector) fail(req *types.Request, chain []string, err error) error {
	de := &DownloadError{Name: NameMaxRedirects, URL: chain[0], Err: err}
	countException(r.stats, de)
	r.logger.Debug(fmt.Sprintf("Discarding %s: %v", reqString(req), err))
	return de
}

func toAnyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// sameURL compares two URLs without their fragments.
func sameURL(a, b string) bool {
	a, _, _ = strings.Cut(a, "#")
	b, _, _ = strings.Cut(b, "#")
	return a == b
}

// metaRedirectLoopStart is the meta key where RedirectMiddleware keeps where the current
// method's run of redirects began (see redirect).
const metaRedirectLoopStart = "_redirectLoopStart"

// RedirectMiddleware follows 301, 302, 303, 307 and 308 responses with a Location header
// (Scrapy: RedirectMiddleware). It returns Reschedule(next) for the request that follows
// the redirect, built as redirector.follow says; the engine schedules it, so it passes the
// dupefilter (unless dontFilter), the offsite and robots checks and the whole chain again;
// an inline Engine.Download downloads it through the whole chain in place. The response
// is returned as it is when REDIRECT_ENABLED is false, with meta.dontRedirect, when the
// request handles the status (meta.handleHttpStatusList, meta.handleHttpStatusAll), without
// Location, or when Location does not resolve to a URL with a scheme in DOWNLOAD_SCHEMES
// (logged at DEBUG). More than REDIRECT_MAX_TIMES redirects, or a redirect to a URL already
// in the chain, fail with a MaxRedirectsError, counted in
// downloader/exception_type_count/MaxRedirectsError. Safe for concurrent use.
type RedirectMiddleware struct{ redirector }

// NewRedirectMiddleware returns a RedirectMiddleware configured from settings.
func NewRedirectMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger) *RedirectMiddleware {
	return &RedirectMiddleware{newRedirector(settings, types.RedirectEnabled, stats, logger)}
}

// Fetch implements DownloaderMiddleware.
func (m *RedirectMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	resp, err := next.Fetch(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	switch resp.Status {
	case 301, 302, 303, 307, 308:
	default:
		return resp, nil
	}
	if m.skip(req, resp.Status) {
		return resp, nil
	}
	loc := resp.Headers.Get("Location")
	if loc == "" {
		return resp, nil
	}
	base := resp.URL
	if base == "" {
		base = req.URL
	}
	target, ok := m.target(base, loc)
	if !ok {
		m.logger.Debug(fmt.Sprintf("Not following the redirect of %s to %q: not a URL with a scheme in %s %v",
			respString(resp), loc, types.DownloadSchemes, m.schemes))
		return resp, nil
	}
	ClosePage(resp)
	return nil, m.follow(req, target, resp.Status, int64(resp.Status))
}

// MetaRefreshMiddleware follows <meta http-equiv="refresh" content="N; url=U"> in HTML
// responses when N is below METAREFRESH_MAXDELAY seconds (Scrapy: MetaRefreshMiddleware),
// as a GET, with the reason "meta refresh" and the same bookkeeping and limits as
// RedirectMiddleware. It looks in the document's head only (the first 64 KiB), skips tags
// inside METAREFRESH_IGNORE_TAGS, and ignores HEAD requests, meta.dontRedirect and a
// refresh of the page itself. METAREFRESH_ENABLED turns it off. Safe for concurrent use.
type MetaRefreshMiddleware struct {
	redirector
	maxDelay time.Duration
	ignore   []string
}

// NewMetaRefreshMiddleware returns a MetaRefreshMiddleware configured from settings.
func NewMetaRefreshMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger) *MetaRefreshMiddleware {
	m := &MetaRefreshMiddleware{
		redirector: newRedirector(settings, types.MetaRefreshEnabled, stats, logger),
		maxDelay:   settings.Duration(types.MetaRefreshMaxDelay),
	}
	for _, t := range settings.StringList(types.MetaRefreshIgnoreTags) {
		m.ignore = append(m.ignore, strings.ToLower(t))
	}
	return m
}

// Fetch implements DownloaderMiddleware.
func (m *MetaRefreshMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	resp, err := next.Fetch(ctx, req)
	if err != nil || resp == nil || m.skip(req, 0) || req.HTTPMethod() == http.MethodHead || !isHTML(resp) {
		return resp, err
	}
	delay, loc, ok := metaRefresh(resp.Body, m.ignore)
	if !ok || delay >= m.maxDelay.Seconds() {
		return resp, nil
	}
	base := resp.URL
	if base == "" {
		base = req.URL
	}
	target, ok := m.target(base, loc)
	if !ok || sameURL(target, base) {
		return resp, nil
	}
	ClosePage(resp)
	return nil, m.follow(req, target, 0, "meta refresh")
}

// isHTML reports whether resp is an HTML document: by Content-Type, or by sniffing when it
// has none.
func isHTML(resp *types.Response) bool {
	ct := resp.Headers.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(resp.Body)
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// metaRefresh finds the first <meta http-equiv="refresh"> with a URL in the head of an
// HTML document (the first 64 KiB), outside the ignored tags, and returns its delay and
// URL.
func metaRefresh(body []byte, ignore []string) (delay float64, target string, ok bool) {
	if len(body) > 64<<10 {
		body = body[:64<<10]
	}
	// The tokenizer below stops at <body>: look for "refresh" in the head only (most pages
	// write the tag in lower case; otherwise the whole prefix is searched).
	head := body
	if i := bytes.Index(body, []byte("<body")); i >= 0 {
		head = body[:i]
	}
	if !bytes.Contains(bytes.ToLower(head), []byte("refresh")) {
		return 0, "", false
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	inIgnored := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return 0, "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if slices.Contains(ignore, tag) {
				inIgnored++
				continue
			}
			if tag == "body" {
				return 0, "", false
			}
			if tag == "noscript" {
				z.NextIsNotRawText() // its tags count, unless ignored (Scrapy)
			}
			if tag != "meta" || !hasAttr || inIgnored > 0 {
				continue
			}
			var equiv, content string
			for {
				k, v, more := z.TagAttr()
				switch string(k) {
				case "http-equiv":
					equiv = string(v)
				case "content":
					content = string(v)
				}
				if !more {
					break
				}
			}
			if strings.EqualFold(strings.TrimSpace(equiv), "refresh") {
				if d, u, ok := parseRefresh(content); ok {
					return d, u, true
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if slices.Contains(ignore, string(name)) && inIgnored > 0 {
				inIgnored--
			} else if string(name) == "head" {
				return 0, "", false
			}
		}
	}
}

// parseRefresh parses a refresh content attribute: "5", "5; url=/next", "0;URL='/next'",
// "0, /next". A refresh without a URL reloads the page: not a redirect.
func parseRefresh(content string) (float64, string, bool) {
	s := strings.TrimSpace(content)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, "", false
	}
	delay, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", false
	}
	s = strings.TrimLeft(s[i:], " \t\r\n;,")
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		rest := strings.TrimLeft(s[3:], " \t\r\n")
		if strings.HasPrefix(rest, "=") {
			s = strings.TrimLeft(rest[1:], " \t\r\n")
		}
	}
	if len(s) > 0 && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			s = s[:j]
		}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, "", false
	}
	return delay, s, true
}

// Interface guards
var (
	_ DownloaderMiddleware = (*RedirectMiddleware)(nil)
	_ DownloaderMiddleware = (*MetaRefreshMiddleware)(nil)
)
