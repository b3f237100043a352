package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

// HTTPAuthMiddleware sends HTTP Basic credentials, HTTP_USER and HTTP_PASS, to one domain
// and its subdomains (Scrapy: HttpAuthMiddleware with http_user, http_pass and
// http_auth_domain): HTTP_AUTH_DOMAIN, or when it is null (the default) the host of the
// first request that passes; "" sends them everywhere. A request with an Authorization
// header keeps it. A plain-http request through the spider's meta.proxy gets no
// credentials: the proxy would read them. Other domains never see the credentials, also after a redirect
// (RedirectMiddleware drops Authorization when the host changes). Safe for concurrent use.
type HTTPAuthMiddleware struct {
	auth string // the Authorization value; "" when no credentials are set

	mu     sync.Mutex
	domain string
	unset  bool // domain is the first request's host, not known yet
}

// NewHTTPAuthMiddleware returns an HTTPAuthMiddleware configured from settings.
func NewHTTPAuthMiddleware(settings *types.Settings) *HTTPAuthMiddleware {
	m := &HTTPAuthMiddleware{auth: HTTPAuthValue(settings)}
	if m.auth == "" {
		return m
	}
	if settings.Get(types.HTTPAuthDomain) == nil {
		m.unset = true
	} else {
		m.domain = strings.ToLower(strings.TrimSpace(settings.String(types.HTTPAuthDomain)))
	}
	return m
}

// HTTPAuthValue returns the Authorization value HTTPAuthMiddleware sends for HTTP_USER and
// HTTP_PASS ("Basic ..."), or "" when neither is set: for code that must recognise it
// to keep it from the spider.
func HTTPAuthValue(settings *types.Settings) string {
	user, pass := settings.String(types.HTTPUser), settings.String(types.HTTPPass)
	if user == "" && pass == "" {
		return ""
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// Fetch implements DownloaderMiddleware.
func (m *HTTPAuthMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if m.auth == "" {
		return next.Fetch(ctx, req)
	}
	if _, has := req.Headers["Authorization"]; has {
		return next.Fetch(ctx, req)
	}
	u, err := req.ParsedURL()
	if err != nil {
		return next.Fetch(ctx, req)
	}
	host := strings.ToLower(u.Hostname())
	m.mu.Lock()
	if m.unset {
		m.domain, m.unset = host, false
	}
	domain := m.domain
	m.mu.Unlock()
	if domain != "" && host != domain && !strings.HasSuffix(host, "."+domain) {
		return next.Fetch(ctx, req)
	}
	if spiderProxied(req, u.Scheme) {
		return next.Fetch(ctx, req)
	}
	r := req.Copy()
	if r.Headers == nil {
		r.Headers = http.Header{}
	}
	r.Headers["Authorization"] = []string{m.auth}
	resp, err := next.Fetch(ctx, r)
	return resp, m.forget(resp, err)
}

// spiderProxied reports whether req goes in clear through a proxy of the spider's
// (meta.proxy) rather than the operator's (http_proxy): a plain-http request through a
// proxy shows the proxy every header, so the operator's credentials would reach a server
// the spider chose. An https request goes through a CONNECT tunnel the proxy cannot read.
func spiderProxied(req *types.Request, scheme string) bool {
	if strings.EqualFold(scheme, "https") {
		return false
	}
	p, ok := req.Meta.Get(types.MetaProxy)
	s, _ := p.(string)
	return ok && strings.TrimSpace(s) != ""
}

// forget removes the credentials this middleware added from what goes back towards the
// spider, which is untrusted code: the response's request (response.request.headers) and a
// request rescheduled by a later middleware (a retry, a redirect to the same host), which
// gets them again when it passes here. It returns err, with the rescheduled request
// replaced.
func (m *HTTPAuthMiddleware) forget(resp *types.Response, err error) error {
	if resp != nil && m.added(resp.Request) {
		resp.Request = withoutAuthorization(resp.Request)
	}
	var re *RescheduleError
	if errors.As(err, &re) && m.added(re.Request) {
		re.Request = withoutAuthorization(re.Request)
	}
	return err
}

// added reports whether r carries the Authorization value this middleware sends.
func (m *HTTPAuthMiddleware) added(r *types.Request) bool {
	if r == nil {
		return false
	}
	v := r.Headers["Authorization"]
	return len(v) == 1 && v[0] == m.auth
}

// withoutAuthorization returns a copy of r without its Authorization header.
func withoutAuthorization(r *types.Request) *types.Request {
	c := r.Copy()
	delete(c.Headers, "Authorization")
	return c
}

// Interface guards
var _ DownloaderMiddleware = (*HTTPAuthMiddleware)(nil)
