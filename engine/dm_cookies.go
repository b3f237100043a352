package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/net/publicsuffix"
)

// CookiesMiddleware keeps the cookies servers set and sends them back, like a browser
// (Scrapy: CookiesMiddleware). Each spider has one jar (net/http/cookiejar with the public
// suffix list, so a site cannot set a cookie for a whole TLD); meta.cookiejar, any JSON
// value, selects another independent jar. A request's Cookies enter its jar for its URL
// before it is sent (Domain "" is the request's host only, Path "" is "/"). The jar's
// cookies for the URL become the Cookie header unless the request has one already; the
// response's Set-Cookie headers go into the jar, redirects included. meta.dontMergeCookies
// bypasses the jar both ways. A download under a session of the session pool
// (SESSION_POOL_ENABLED, SessionOf) uses the session's jar instead of the spider's, unless
// meta.cookiejar names one. COOKIES_ENABLED false turns it off; COOKIES_DEBUG logs each
// Cookie and Set-Cookie header at DEBUG. Safe for concurrent use.
type CookiesMiddleware struct {
	enabled bool
	debug   bool
	logger  *slog.Logger

	mu   sync.Mutex
	jars map[string]*cookiejar.Jar
}

// NewCookiesMiddleware returns a CookiesMiddleware configured from settings.
func NewCookiesMiddleware(settings *types.Settings, logger *slog.Logger) *CookiesMiddleware {
	return &CookiesMiddleware{
		enabled: settings.Bool(types.CookiesEnabled),
		debug:   settings.Bool(types.CookiesDebug),
		logger:  orDiscard(logger),
		jars:    map[string]*cookiejar.Jar{},
	}
}

// jar returns the cookie jar that meta.cookiejar key selects (nil: the default jar),
// creating it on first use.
func (m *CookiesMiddleware) jar(key any) *cookiejar.Jar {
	k := ""
	if key != nil {
		// JSON names the value and its type alike for 1 (int64) and 1.0 (float64).
		if f, ok := key.(int64); ok {
			key = float64(f)
		} else if i, ok := key.(int); ok {
			key = float64(i)
		}
		b, err := json.Marshal(key)
		if err != nil {
			b = fmt.Appendf(nil, "%v", key)
		}
		k = string(b)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.jars[k]
	if j == nil {
		j, _ = cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
		m.jars[k] = j
	}
	return j
}

// Fetch implements DownloaderMiddleware.
func (m *CookiesMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if !m.enabled || metaBool(req, types.MetaDontMergeCookies) {
		return next.Fetch(ctx, req)
	}
	u, err := req.ParsedURL()
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return next.Fetch(ctx, req)
	}
	var jar http.CookieJar
	key := req.MetaValue(types.MetaCookieJar)
	if s := SessionOf(ctx); s != nil && key == nil {
		jar = s.Jar()
	}
	if jar == nil { // no session, meta.cookiejar, or a session without a jar of its own
		jar = m.jar(key)
	}
	if len(req.Cookies) > 0 {
		cs := make([]*http.Cookie, 0, len(req.Cookies))
		for _, c := range req.Cookies {
			hc := &http.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path}
			if hc.Path == "" {
				hc.Path = "/"
			}
			cs = append(cs, hc)
		}
		jar.SetCookies(u, cs)
	}
	send := req
	if _, has := req.Headers["Cookie"]; !has {
		if cs := jar.Cookies(u); len(cs) > 0 {
			parts := make([]string, len(cs))
			for i, c := range cs {
				parts[i] = c.Name + "=" + c.Value
			}
			send = req.Copy()
			if send.Headers == nil {
				send.Headers = http.Header{}
			}
			send.Headers["Cookie"] = []string{strings.Join(parts, "; ")}
			if m.debug {
				m.logger.Debug(fmt.Sprintf("Sending cookies to: %s\nCookie: %s", reqString(req), send.Headers["Cookie"][0]))
			}
		}
	}
	resp, err := next.Fetch(ctx, send)
	if err != nil || resp == nil {
		return resp, err
	}
	if set := resp.Headers.Values("Set-Cookie"); len(set) > 0 {
		ru := u
		if resp.URL != "" && resp.URL != req.URL {
			if p, perr := (&types.Request{URL: resp.URL}).ParsedURL(); perr == nil {
				ru = p
			}
		}
		jar.SetCookies(ru, (&http.Response{Header: http.Header{"Set-Cookie": set}}).Cookies())
		if m.debug {
			m.logger.Debug(fmt.Sprintf("Received cookies from: %s\nSet-Cookie: %s", respString(resp), strings.Join(set, "\nSet-Cookie: ")))
		}
	}
	return resp, nil
}

// Interface guards
var _ DownloaderMiddleware = (*CookiesMiddleware)(nil)
