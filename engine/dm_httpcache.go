package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// HTTPCacheMiddleware caches responses on disk and serves them again (Scrapy:
// HttpCacheMiddleware with FilesystemCacheStorage), at order 900, just above the download
// slots, so a hit skips DOWNLOAD_DELAY. It is off unless HTTPCACHE_ENABLED.
//
// HTTPCACHE_POLICY "dummy" stores every response (but statuses in
// HTTPCACHE_IGNORE_HTTP_CODES) and serves it until HTTPCACHE_EXPIRATION_SECS; "rfc2616"
// (or "rfc9111") follows the HTTP caching rules of a private cache: Cache-Control no-store,
// no-cache, max-age and must-revalidate, Expires, the Last-Modified heuristic, revalidation
// of a stale entry with If-None-Match and If-Modified-Since (a 304 serves the cached
// response), and a stale entry served when the download fails. Requests with
// meta.dontCache or a scheme in HTTPCACHE_IGNORE_SCHEMES pass through. A response served
// from the cache has the flag "cached". Stats: httpcache/hit, httpcache/miss,
// httpcache/store, httpcache/uncacheable, httpcache/firsthand, httpcache/revalidate,
// httpcache/invalidate, httpcache/errorrecovery, httpcache/ignore. Safe for concurrent use.
type HTTPCacheMiddleware struct {
	httpCacheConfig
	stats  *Stats
	logger *slog.Logger
	now    func() time.Time
}

// httpCacheConfig is what the HTTPCACHE_* settings say, decoded once by
// newHTTPCacheConfig.
type httpCacheConfig struct {
	enabled       bool
	dir           string // HTTPCACHE_DIR/<spider>
	expiration    time.Duration
	ignoreCodes   map[int]bool
	ignoreSchemes []string
	ignoreMissing bool
	rfc           bool // HTTPCACHE_POLICY rfc2616 or rfc9111
	alwaysStore   bool
}

// newHTTPCacheConfig decodes the HTTPCACHE_* settings for spider's entries. An unknown
// HTTPCACHE_POLICY is logged as an error and treated as dummy.
func newHTTPCacheConfig(settings *types.Settings, spider string, logger *slog.Logger) httpCacheConfig {
	c := httpCacheConfig{
		enabled:       settings.Bool(types.HTTPCacheEnabled),
		dir:           filepath.Join(settings.String(types.HTTPCacheDir), safeName(spider)),
		expiration:    time.Duration(settings.Int(types.HTTPCacheExpirationSecs)) * time.Second,
		ignoreCodes:   map[int]bool{},
		ignoreSchemes: settings.StringList(types.HTTPCacheIgnoreSchemes),
		ignoreMissing: settings.Bool(types.HTTPCacheIgnoreMissing),
		alwaysStore:   settings.Bool(types.HTTPCacheAlwaysStore),
	}
	for _, code := range settings.IntList(types.HTTPCacheIgnoreHTTPCodes) {
		c.ignoreCodes[code] = true
	}
	switch p := strings.ToLower(settings.String(types.HTTPCachePolicy)); p {
	case "", "dummy":
	case "rfc2616", "rfc9111":
		c.rfc = true
	default:
		logger.Error(fmt.Sprintf("%s: unknown policy %q (known: dummy, rfc2616, rfc9111); using dummy", types.HTTPCachePolicy, p))
	}
	return c
}

// NewHTTPCacheMiddleware returns an HTTPCacheMiddleware configured from settings that
// keeps the entries of spider under HTTPCACHE_DIR/spider. An unknown HTTPCACHE_POLICY is
// logged as an error and treated as dummy.
func NewHTTPCacheMiddleware(settings *types.Settings, spider string, stats *Stats, logger *slog.Logger) *HTTPCacheMiddleware {
	logger = orDiscard(logger)
	if stats == nil {
		stats = NewStats()
	}
	if spider == "" {
		spider = "default"
	}
	return &HTTPCacheMiddleware{
		httpCacheConfig: newHTTPCacheConfig(settings, spider, logger),
		stats:           stats,
		logger:          logger,
		now:             time.Now,
	}
}

// safeName keeps a spider name usable as one path element: leading dots go, '/', '\',
// NUL and ':' become '_', and a name left empty ("", "." or "..") becomes "_", so the
// cache stays in a folder of its own under HTTPCACHE_DIR.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, strings.TrimLeft(s, "."))
	if s == "" {
		return "_"
	}
	return s
}

// browserLive reports whether req is a browser request whose response a cache cannot
// give: one with a screenshot or an open page (a rendered page alone is cached).
func browserLive(req *types.Request) bool {
	opts, ok, _ := req.Browser()
	return ok && (opts.Screenshot || opts.IncludePage)
}

// Fetch implements DownloaderMiddleware.
func (m *HTTPCacheMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if !m.enabled || metaBool(req, types.MetaDontCache) || browserLive(req) {
		return next.Fetch(ctx, req)
	}
	if !m.cacheableRequest(req) {
		m.stats.Inc("httpcache/uncacheable", 1)
		return next.Fetch(ctx, req)
	}
	fp := req.Fingerprint()
	cached, stored := m.retrieve(req, fp)
	if cached == nil {
		m.stats.Inc("httpcache/miss", 1)
		if m.ignoreMissing {
			m.stats.Inc("httpcache/ignore", 1)
			return nil, fmt.Errorf("ignored request not in cache (%s) %s: %w", types.HTTPCacheIgnoreMissing, req.URL, ErrIgnoreRequest)
		}
		resp, err := next.Fetch(ctx, req)
		if err != nil {
			return nil, err
		}
		m.stats.Inc("httpcache/firsthand", 1)
		m.store(resp, fp)
		return resp, nil
	}
	sent := req
	if m.fresh(cached, stored, req) {
		m.stats.Inc("httpcache/hit", 1)
		// Counted as a download, as Scrapy's DownloaderStats (above the cache) counts it:
		// thresholds on downloader/response_count hold for a run from the cache.
		method := req.HTTPMethod()
		m.stats.Inc("downloader/request_count", 1)
		m.stats.Inc("downloader/request_method_count/"+method, 1)
		m.stats.Inc("downloader/response_count", 1)
		m.stats.Inc("downloader/response_status_count/"+itoa(cached.Status), 1)
		return cached, nil
	}
	if m.rfc {
		sent = conditional(req, cached)
	}
	resp, err := next.Fetch(ctx, sent)
	if err != nil {
		if ctx.Err() == nil && retryable(err) {
			m.stats.Inc("httpcache/errorrecovery", 1)
			return cached, nil
		}
		return nil, err
	}
	if m.stillValid(cached, resp) {
		m.stats.Inc("httpcache/revalidate", 1)
		return cached, nil
	}
	m.stats.Inc("httpcache/invalidate", 1)
	m.store(resp, fp)
	return resp, nil
}

func (m *HTTPCacheMiddleware) cacheableRequest(req *types.Request) bool {
	scheme, _, _ := strings.Cut(req.URL, ":")
	if slices.ContainsFunc(m.ignoreSchemes, func(s string) bool { return strings.EqualFold(s, scheme) }) {
		return false
	}
	return !m.rfc || !cacheControl(req.Headers).has("no-store")
}

func (m *HTTPCacheMiddleware) cacheableResponse(resp *types.Response) bool {
	if m.ignoreCodes[resp.Status] {
		return false
	}
	if !m.rfc {
		return true
	}
	cc := cacheControl(resp.Headers)
	switch {
	case cc.has("no-store"), resp.Status == http.StatusNotModified:
		return false
	case m.alwaysStore, cc.has("max-age"), resp.Headers.Get("Expires") != "":
		return true
	}
	switch resp.Status {
	case 300, 301, 308:
		return true
	case 200, 203, 401:
		return resp.Headers.Get("Last-Modified") != "" || resp.Headers.Get("ETag") != ""
	}
	return false
}

// maxAge is the freshness given to permanent redirects without cache directives, as Scrapy's
// RFC2616Policy.MAXAGE.
const maxAge = 365 * 24 * time.Hour

// fresh reports whether cached may be served without asking the server.
func (m *HTTPCacheMiddleware) fresh(cached *types.Response, stored time.Time, req *types.Request) bool {
	if !m.rfc {
		return true
	}
	cc, ccreq := cacheControl(cached.Headers), cacheControl(req.Headers)
	if cc.has("no-cache") || ccreq.has("no-cache") {
		return false
	}
	now := m.now()
	lifetime := freshness(cached, stored)
	if d, ok := ccreq.seconds("max-age"); ok {
		lifetime = min(lifetime, d)
	}
	age := currentAge(cached, stored, now)
	if age < lifetime {
		return true
	}
	if d, ok := ccreq.seconds("max-stale"); ok && !cc.has("must-revalidate") {
		return age < lifetime+d
	}
	return false
}

// stillValid reports whether the server's answer to a revalidation confirms cached: a 304,
// or a server error when cached does not demand revalidation.
func (m *HTTPCacheMiddleware) stillValid(cached, resp *types.Response) bool {
	if resp.Status >= 500 && m.rfc && !cacheControl(cached.Headers).has("must-revalidate") {
		return true
	}
	return resp.Status == http.StatusNotModified
}

// conditional returns a copy of req with the validators of cached.
func conditional(req *types.Request, cached *types.Response) *types.Request {
	lm, etag := cached.Headers.Get("Last-Modified"), cached.Headers.Get("ETag")
	if lm == "" && etag == "" {
		return req
	}
	r := req.Copy()
	if r.Headers == nil {
		r.Headers = http.Header{}
	}
	if lm != "" {
		r.Headers.Set("If-Modified-Since", lm)
	}
	if etag != "" {
		r.Headers.Set("If-None-Match", etag)
	}
	return r
}

// freshness is the freshness lifetime of a response (RFC 9111 4.2.1; s-maxage is for
// shared caches and ignored).
func freshness(resp *types.Response, stored time.Time) time.Duration {
	if d, ok := cacheControl(resp.Headers).seconds("max-age"); ok {
		return d
	}
	date := httpTime(resp.Headers.Get("Date"), stored)
	if e := resp.Headers.Get("Expires"); e != "" {
		exp, err := http.ParseTime(e)
		if err != nil {
			return 0
		}
		return max(0, exp.Sub(date))
	}
	if lm, err := http.ParseTime(resp.Headers.Get("Last-Modified")); err == nil && !lm.After(date) {
		return date.Sub(lm) / 10
	}
	switch resp.Status {
	case 300, 301, 308:
		return maxAge
	}
	return 0
}

// currentAge is how old a cached response is (RFC 9111 4.2.3, simplified as Scrapy).
func currentAge(resp *types.Response, stored, now time.Time) time.Duration {
	age := max(0, now.Sub(httpTime(resp.Headers.Get("Date"), stored)))
	if a, err := strconv.Atoi(strings.TrimSpace(resp.Headers.Get("Age"))); err == nil && a >= 0 {
		age = max(age, time.Duration(a)*time.Second)
	}
	return age
}

func httpTime(v string, def time.Time) time.Time {
	if t, err := http.ParseTime(v); err == nil {
		return t
	}
	return def
}

// directives is a parsed Cache-Control header: directive → value ("" when it has none).
type directives map[string]string

func cacheControl(h http.Header) directives {
	d := directives{}
	for _, line := range h.Values("Cache-Control") {
		for _, part := range strings.Split(line, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
				d[k] = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	return d
}

func (d directives) has(k string) bool { _, ok := d[k]; return ok }

func (d directives) seconds(k string) (time.Duration, bool) {
	v, ok := d[k]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, k == "max-stale" // a bare max-stale accepts any staleness
	}
	return time.Duration(min(n, int64(maxAge/time.Second)*100)) * time.Second, true
}

// cacheMeta is the stored description of a response, in <entry>/meta.json.
type cacheMeta struct {
	URL      string      `json:"url"`
	Method   string      `json:"method"`
	Status   int         `json:"status"`
	Headers  http.Header `json:"headers"`
	Protocol string      `json:"protocol,omitempty"`
	Time     float64     `json:"time"` // Unix seconds when stored
	BodySize int         `json:"bodySize"`
}

// entryDir is where the entry of fingerprint fp lives.
func (m *HTTPCacheMiddleware) entryDir(fp string) string {
	return filepath.Join(m.dir, fp[:2], fp)
}

// retrieve returns the stored response for req, or nil when there is none, it is
// unreadable or older than HTTPCACHE_EXPIRATION_SECS.
func (m *HTTPCacheMiddleware) retrieve(req *types.Request, fp string) (*types.Response, time.Time) {
	dir := m.entryDir(fp)
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.logger.Warn(fmt.Sprintf("HTTP cache: cannot read entry for %s: %v", req.URL, err))
		}
		return nil, time.Time{}
	}
	var meta cacheMeta
	if err := json.Unmarshal(b, &meta); err != nil {
		m.logger.Warn(fmt.Sprintf("HTTP cache: bad entry for %s: %v", req.URL, err))
		return nil, time.Time{}
	}
	stored := time.UnixMicro(int64(meta.Time * 1e6))
	if m.expiration > 0 && m.now().Sub(stored) > m.expiration {
		return nil, time.Time{}
	}
	body, err := os.ReadFile(filepath.Join(dir, "response_body"))
	if err != nil || len(body) != meta.BodySize {
		return nil, time.Time{} // written by another crawl at this moment, or damaged: a miss
	}
	if meta.Headers == nil {
		meta.Headers = http.Header{}
	}
	resp := &types.Response{URL: meta.URL, Status: meta.Status, Headers: meta.Headers, Body: body,
		Request: req, Protocol: meta.Protocol, Flags: []string{"cached"}}
	return resp, stored
}

// store writes resp as the entry of fingerprint fp when the policy allows, each file
// atomically (a temporary file renamed into place; the body first, so a reader that finds
// meta.json finds a body of the size it names).
func (m *HTTPCacheMiddleware) store(resp *types.Response, fp string) {
	if !m.cacheableResponse(resp) {
		m.stats.Inc("httpcache/uncacheable", 1)
		return
	}
	method := http.MethodGet
	if resp.Request != nil {
		method = resp.Request.HTTPMethod()
	}
	meta := cacheMeta{URL: resp.URL, Method: method, Status: resp.Status, Headers: resp.Headers,
		Protocol: resp.Protocol, Time: float64(m.now().UnixMicro()) / 1e6, BodySize: len(resp.Body)}
	b, err := json.Marshal(meta)
	if err == nil {
		dir := m.entryDir(fp)
		if err = os.MkdirAll(dir, 0o755); err == nil {
			if err = writeAtomic(filepath.Join(dir, "response_body"), resp.Body); err == nil {
				err = writeAtomic(filepath.Join(dir, "meta.json"), b)
			}
		}
	}
	if err != nil {
		m.logger.Warn(fmt.Sprintf("HTTP cache: cannot store %s: %v", resp.URL, err))
		return
	}
	m.stats.Inc("httpcache/store", 1)
}

func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Interface guards
var _ DownloaderMiddleware = (*HTTPCacheMiddleware)(nil)
