package engine

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// Impersonation is the plug-in behind HTTP_IMPERSONATE: it presents a browser's TLS and
// HTTP/2 fingerprint on the wire (engine/impersonate's, which the jscrawl binary registers
// with impersonate.Register). The http(s) handler calls it from the download goroutines.
type Impersonation interface {
	// Parse reads the value of HTTP_IMPERSONATE: its profiles in order (none for "").
	Parse(spec string) ([]ImpersonateProfile, error)
	// NewTransport returns the RoundTripper presenting opts.Profile, or the profile
	// ImpersonateProfile.With put on a request's context.
	NewTransport(opts ImpersonateOptions) http.RoundTripper
	// IsTLSError reports whether err is a TLS error of its connections (an SSLError).
	IsTLSError(err error) bool
}

// ImpersonateProfile is one profile of HTTP_IMPERSONATE, as the http(s) handler uses it.
type ImpersonateProfile interface {
	// Name is the profile's versioned name ("chrome_133") or its profile.json's path.
	Name() string
	// Headers are the browser's navigation headers in its order, names in lower case.
	Headers() [][2]string
	// With returns ctx carrying the profile: the transport presents it for the request.
	With(ctx context.Context) context.Context
}

// ImpersonateOptions configure an Impersonation's transport.
type ImpersonateOptions struct {
	Profile ImpersonateProfile // presented to a request whose context carries none
	ConnOptions
}

// ConnOptions configure the connections of an impersonating transport (engine/impersonate's
// Options embed them).
type ConnOptions struct {
	// DialContext opens the TCP connections, to a server or to a proxy (nil: a
	// net.Dialer's).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy returns the proxy of a request, as http.Transport.Proxy does (nil, or a nil
	// URL: none): http:// and https:// proxies (CONNECT for https targets, absolute-form
	// requests for http ones, Basic Proxy-Authorization from the URL's user info) and
	// socks5:// or socks5h:// ones (with user and password).
	Proxy func(*http.Request) (*url.URL, error)
	// InsecureSkipVerify skips the verification of the servers' certificates.
	InsecureSkipVerify bool
	// RootCAs are the authorities the servers' certificates are verified with (nil: the
	// system's).
	RootCAs *x509.CertPool
	// MaxIdleConns bounds the idle HTTP/1.1 connections of each browser and proxy (0: no
	// limit); MaxIdleConnsPerHost bounds them per host (0: 2).
	MaxIdleConns, MaxIdleConnsPerHost int
	// IdleConnTimeout closes a connection idle that long (0: 90s).
	IdleConnTimeout time.Duration
	// TLSHandshakeTimeout bounds a TLS handshake (0: 10s).
	TLSHandshakeTimeout time.Duration
}

var impersonation plugin[Impersonation]

// RegisterImpersonation sets the plug-in behind HTTP_IMPERSONATE; it replaces an earlier
// one. Without one, a crawl with HTTP_IMPERSONATE fails its http(s) downloads (and
// CheckImpersonate refuses it). Safe for concurrent use.
func RegisterImpersonation(im Impersonation) {
	impersonation.set(im)
}

// theImpersonation returns the registered Impersonation, or nil.
func theImpersonation() Impersonation {
	return impersonation.get()
}

// errNoImpersonation is the error of HTTP_IMPERSONATE without RegisterImpersonation.
var errNoImpersonation = errors.New("HTTP_IMPERSONATE needs the impersonation plug-in (engine/impersonate), which this program does not register")

// parseImpersonate reads spec with the registered Impersonation: nil for "".
func parseImpersonate(spec string) ([]ImpersonateProfile, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	im := theImpersonation()
	if im == nil {
		return nil, errNoImpersonation
	}
	return im.Parse(spec)
}

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
	browsers, err := parseImpersonate(spec)
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
	_, err := parseImpersonate(settings.String(types.HTTPImpersonate))
	return err
}

// impersonatingTransport returns the RoundTripper of HTTP_IMPERSONATE: the
// Impersonation's transport dialing through the DNS cache (or client's Transport's dial),
// with the proxy HTTPProxyMiddleware chose (else the environment's, or client's
// Transport's), trusting client's Transport's RootCAs.
func (h *httpHandler) impersonatingTransport(settings *types.Settings, client *http.Client, skipVerify, proxyEnabled bool) http.RoundTripper {
	conc := settings.Concurrency()
	opts := ImpersonateOptions{Profile: h.browsers[0], ConnOptions: ConnOptions{
		DialContext:         h.dns.DialContext,
		Proxy:               proxyFunc(proxyEnabled, http.ProxyFromEnvironment),
		InsecureSkipVerify:  skipVerify,
		MaxIdleConns:        max(1024, 4*conc),
		MaxIdleConnsPerHost: conc,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}}
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
	return theImpersonation().NewTransport(opts)
}

// browserFor returns the profile a download in ctx presents: its session's
// (DownloadSession.Profile) when that names one of HTTP_IMPERSONATE's, else the first;
// nil without HTTP_IMPERSONATE.
func (h *httpHandler) browserFor(ctx context.Context) ImpersonateProfile {
	if len(h.browsers) == 0 {
		return nil
	}
	if s := SessionOf(ctx); s != nil {
		if name := s.Profile(); name != "" {
			for i, e := range h.entries {
				if strings.EqualFold(e, name) || strings.EqualFold(h.browsers[i].Name(), name) {
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
func (h *httpHandler) impersonatedHeader(hdr http.Header, b ImpersonateProfile) {
	for _, kv := range b.Headers() {
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
