package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/engine/impersonate"
	"github.com/jscrawl/jscrawl/types"
)

// tlsConn is what the connections of TLS have that plain ones lack: crypto/tls's and
// uTLS's (HTTP_IMPERSONATE) alike.
type tlsConn interface {
	HandshakeContext(ctx context.Context) error
}

// impersonate reads HTTP_IMPERSONATE (spec, not "") into h: its profiles, or the error
// every http(s) download then fails with (the command line refuses it before the crawl:
// see CheckImpersonate). It also notes which of USER_AGENT and DEFAULT_REQUEST_HEADERS
// were set, which beat the profile's headers.
func (h *httpHandler) impersonate(settings *types.Settings, spec string) {
	browsers, err := impersonate.Parse(spec)
	if err != nil {
		h.impErr = err
		return
	}
	if len(browsers) == 0 {
		return
	}
	h.browsers = browsers
	for entry := range strings.SplitSeq(spec, ",") {
		if entry = strings.TrimSpace(entry); entry != "" {
			h.entries = append(h.entries, entry)
		}
	}
	h.userSetUA = settings.Priority(types.UserAgent) > types.PriorityDefault
	if settings.Priority(types.DefaultRequestHeaders) > types.PriorityDefault {
		def := map[string]string{}
		if m, ok := types.Default(types.DefaultRequestHeaders).(map[string]any); ok {
			for k, v := range m {
				def[http.CanonicalHeaderKey(k)] = fmt.Sprint(v)
			}
		}
		h.userSetDef = map[string]string{}
		for _, kv := range h.defaultHeaders {
			if v, ok := def[kv[0]]; !ok || v != kv[1] {
				h.userSetDef[kv[0]] = kv[1]
			}
		}
	}
}

// CheckImpersonate reports whether settings' HTTP_IMPERSONATE names profiles that exist:
// built-in names and readable profile.json files. The command line calls it before a
// crawl, so a typo is a usage error rather than a crawl of failed downloads.
func CheckImpersonate(settings *types.Settings) error {
	_, err := impersonate.Parse(settings.String(types.HTTPImpersonate))
	return err
}

// impersonatingTransport returns the RoundTripper of HTTP_IMPERSONATE: an
// impersonate.Transport dialing through the DNS cache (or client's Transport's dial),
// with the proxy HTTPProxyMiddleware chose (else the environment's, or client's
// Transport's), trusting client's Transport's RootCAs.
func (h *httpHandler) impersonatingTransport(settings *types.Settings, client *http.Client, skipVerify, proxyEnabled bool) http.RoundTripper {
	conc := max(settings.Int(types.ConcurrentRequests), 1)
	opts := impersonate.Options{
		Browser:             h.browsers[0],
		DialContext:         h.dns.DialContext,
		Proxy:               proxyFunc(proxyEnabled, http.ProxyFromEnvironment),
		InsecureSkipVerify:  skipVerify,
		MaxIdleConns:        max(1024, 4*conc),
		MaxIdleConnsPerHost: conc,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	if client != nil {
		if t, ok := client.Transport.(*http.Transport); ok {
			if t.DialContext != nil {
				opts.DialContext = t.DialContext
			}
			if t.Proxy != nil {
				opts.Proxy = proxyFunc(proxyEnabled, t.Proxy)
			}
			if c := t.TLSClientConfig; c != nil {
				opts.RootCAs = c.RootCAs
				opts.InsecureSkipVerify = opts.InsecureSkipVerify || c.InsecureSkipVerify
			}
		}
	}
	return impersonate.NewTransport(opts)
}

// browserFor returns the profile a download in ctx presents: its session's
// (DownloadSession.Profile) when that names one of HTTP_IMPERSONATE's, else the first;
// nil without HTTP_IMPERSONATE.
func (h *httpHandler) browserFor(ctx context.Context) *impersonate.Browser {
	if len(h.browsers) == 0 {
		return nil
	}
	if s := SessionOf(ctx); s != nil {
		if name := s.Profile(); name != "" {
			for i, e := range h.entries {
				if strings.EqualFold(e, name) || strings.EqualFold(h.browsers[i].Name, name) {
					return h.browsers[i]
				}
			}
		}
	}
	return h.browsers[0]
}

// impersonatedHeader adds b's navigation headers to hdr where it lacks them: the
// request's own headers win, then USER_AGENT and the DEFAULT_REQUEST_HEADERS entries a
// spider or the operator set, then the profile's values (over the defaults of
// USER_AGENT and DEFAULT_REQUEST_HEADERS, which sentHeader adds after for the names the
// profile lacks).
func (h *httpHandler) impersonatedHeader(hdr http.Header, b *impersonate.Browser) {
	for _, kv := range b.Headers {
		k := http.CanonicalHeaderKey(kv[0])
		if _, ok := hdr[k]; ok {
			continue
		}
		v := kv[1]
		if k == "User-Agent" && h.userSetUA {
			v = h.userAgent
		} else if uv, ok := h.userSetDef[k]; ok {
			v = uv
		}
		hdr[k] = []string{v} // "": sent empty; a User-Agent of "" is not sent
	}
}
