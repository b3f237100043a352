package engine

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// httpHandler downloads http and https URLs with net/http (Scrapy: HTTP11DownloadHandler,
// with the DefaultHeaders, UserAgent and HttpCompression middlewares, which net/http makes
// cheap to do here). It sets USER_AGENT and DEFAULT_REQUEST_HEADERS where absent, asks for
// gzip, deflate, br and zstd and decodes the body while it streams in, and never follows
// redirects: a 3xx is a Response, which RedirectMiddleware handles.
type httpHandler struct {
	*HandlerEnv
	client         *http.Client
	dns            *DNSCache // resolves the hosts the Transport dials
	userAgent      string
	defaultHeaders [][2]string

	// HTTP_IMPERSONATE: the profiles (nil: Go's own client), the setting's entry of each
	// (which DownloadSession.Profile names), or why the setting is refused.
	browsers   []ImpersonateProfile
	entries    []string
	impErr     error
	userSetUA  bool              // USER_AGENT was set: it beats the profile's
	userSetDef map[string]string // the DEFAULT_REQUEST_HEADERS entries changed from the default: they beat the profile's
}

// newHTTPHandler returns the http(s) handler. client may be nil for one with a keep-alive
// Transport sized to CONCURRENT_REQUESTS; the client is copied and its CheckRedirect
// replaced by one that never follows. An *http.Transport of client is cloned to honour
// meta.proxy (see HTTPProxyMiddleware) and, with DOWNLOAD_VERIFY_TLS false, to skip
// certificate verification; it dials through the handler's DNSCache unless it has a dial
// of its own. With HTTP_IMPERSONATE, the client's Transport is replaced by an
// Impersonation's transport (see impersonatingTransport) that keeps the Transport's dial,
// proxy and root certificates; "" leaves all of this as it was.
func newHTTPHandler(settings *types.Settings, client *http.Client, env *HandlerEnv) *httpHandler {
	h := &httpHandler{HandlerEnv: env, userAgent: settings.String(types.UserAgent)}
	h.dns = NewDNSCache(settings, nil, env.stats)
	for k, v := range settings.Map(types.DefaultRequestHeaders) {
		h.defaultHeaders = append(h.defaultHeaders, [2]string{http.CanonicalHeaderKey(k), fmt.Sprint(v)})
	}
	slices.SortFunc(h.defaultHeaders, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	verify := settings.Bool(types.DownloadVerifyTLS)
	var c http.Client
	proxyEnabled := settings.Bool(types.HTTPProxyEnabled)
	if spec := settings.String(types.HTTPImpersonate); spec != "" {
		h.impersonate(settings, spec)
	}
	if h.browsers != nil {
		if client != nil {
			c = *client
		}
		c.Transport = h.impersonatingTransport(settings, client, !verify, proxyEnabled)
	} else if client != nil {
		c = *client
		if t, ok := c.Transport.(*http.Transport); ok {
			t = t.Clone()
			if t.DialContext == nil && t.Dial == nil { // Dial: deprecated, still honoured
				t.DialContext = h.dns.DialContext
			}
			watchProxies(t)
			t.Proxy = proxyFunc(proxyEnabled, t.Proxy)
			if !verify {
				skipVerify(t)
			}
			c.Transport = t
		}
	} else {
		t := newTransport(settings.Concurrency(), h.dns)
		t.Proxy = proxyFunc(proxyEnabled, http.ProxyFromEnvironment)
		watchProxies(t)
		if !verify {
			skipVerify(t)
		}
		c.Transport = t
	}
	// Redirects are RedirectMiddleware's: a 3xx comes back as the response, its Location
	// hidden from http.Client (see hideLocation).
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = hideLocation{rt}
	h.client = &c
	return h
}

// DNSCache returns the DNSCache the http(s) download handler dials through (under the
// --replay and --warc wrappers and the decorators that Unwrap), for the download slots
// of SLOT_BY=ip; nil when DOWNLOAD_HANDLERS leaves http and https without
// HTTPDownloadHandler.
func (d *HTTPDownloader) DNSCache() *DNSCache {
	for _, scheme := range []string{"http", "https"} {
		h := d.handlers[scheme]
		for h != nil {
			if x, ok := h.(*httpHandler); ok {
				return x.dns
			}
			u, ok := h.(interface{ Unwrap() DownloadHandler })
			if !ok {
				break
			}
			h = u.Unwrap()
		}
	}
	return nil
}

func skipVerify(t *http.Transport) {
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.InsecureSkipVerify = true
}

// newTransport returns a keep-alive Transport for conc downloads at once that dials
// through dns (its connections, and a proxy's, get their addresses from the cache).
func newTransport(conc int, dns *DNSCache) *http.Transport {
	return &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		DialContext:       dns.DialContext,
		ForceAttemptHTTP2: true,
		// A broad crawl comes back to each of many hosts a delay later: keep enough idle
		// connections for them (a dial costs the host a handshake and us CPU), bounded so
		// that hosts never seen again do not pile up open files.
		MaxIdleConns:          max(1024, 4*conc),
		MaxIdleConnsPerHost:   conc,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Download implements DownloadHandler.
func (d *httpHandler) Download(ctx context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error) {
	if d.impErr != nil {
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL, Err: d.impErr}
	}
	method := req.HTTPMethod()
	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	parent := ctx
	if b := d.browserFor(ctx); b != nil {
		ctx = b.With(ctx)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
	}
	if hreq.URL.Host == "" {
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: errors.New("missing host")}
	}
	reqBytes := len(method) + len(req.URL) + 12 + len(req.Body)
	hreq.Header = d.sentHeader(ctx, req)
	for k, vs := range hreq.Header {
		for _, v := range vs {
			reqBytes += len(k) + len(v) + 4
		}
	}
	d.CountRequest(method, reqBytes)
	if ctx.Value(slotStartKey{}) != nil {
		// The slot's delay counts from when the server gets the request, not from when
		// the download got its turn: a slow connect must not shorten the next gap. On a
		// new plain-HTTP connection the kernel takes the request before the server has
		// accepted the connection, which a busy server does late: there the first byte of
		// the answer moves the start to when the server had it, unless the slot's next
		// download has started already.
		var fresh atomic.Bool
		hreq = hreq.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				_, tls := info.Conn.(tlsConn) // crypto/tls's, or uTLS's (HTTP_IMPERSONATE)
				fresh.Store(!info.Reused && !tls)
			},
			WroteHeaders: func() { SlotSent(ctx) },
			GotFirstResponseByte: func() {
				if fresh.Load() {
					slotAnswered(ctx)
				}
			},
		}))
	}

	hresp, err := d.client.Do(hreq)
	if err == nil {
		if loc, ok := hresp.Header[hiddenLocation]; ok {
			hresp.Header["Location"] = loc
			delete(hresp.Header, hiddenLocation)
		}
	}
	if err != nil {
		var de *DownloadError
		if errors.As(err, &de) {
			return nil, de
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, downloadFailure(parent, lim, req.URL, err, NameResponseNeverReceived, NameBadResponse)
	}
	defer hresp.Body.Close()
	decoded, rawLen, err := d.ReadBody(parent, req, hresp, lim)
	if err != nil {
		return nil, err
	}
	respBytes := rawLen + 15
	for k, vs := range hresp.Header {
		for _, v := range vs {
			respBytes += len(k) + len(v) + 4
		}
	}
	d.CountResponse(hresp.StatusCode, respBytes)
	return &types.Response{
		URL:      hresp.Request.URL.String(),
		Status:   hresp.StatusCode,
		Headers:  hresp.Header,
		Body:     decoded,
		Request:  req,
		Protocol: hresp.Proto,
	}, nil
}

// sentHeader returns the header the handler sends with req in ctx: req.Headers, then
// DEFAULT_REQUEST_HEADERS, USER_AGENT and the encodings it decodes where absent. With
// HTTP_IMPERSONATE, the profile's navigation headers come before DEFAULT_REQUEST_HEADERS
// and USER_AGENT, unless those were set (see impersonatedHeader).
func (d *httpHandler) sentHeader(ctx context.Context, req *types.Request) http.Header {
	var h http.Header
	if len(req.Headers) > 0 {
		h = req.Headers.Clone()
	} else {
		h = make(http.Header, len(d.defaultHeaders)+2)
	}
	if b := d.browserFor(ctx); b != nil {
		d.impersonatedHeader(h, b)
	}
	for _, kv := range d.defaultHeaders {
		if _, ok := h[kv[0]]; !ok {
			h[kv[0]] = []string{kv[1]}
		}
	}
	if _, ok := h["User-Agent"]; !ok && d.userAgent != "" {
		h["User-Agent"] = []string{d.userAgent}
	}
	if _, ok := h["Accept-Encoding"]; !ok {
		h["Accept-Encoding"] = []string{acceptEncoding}
	}
	return h
}

// ReadBody reads hresp.Body through its Content-Encoding decoders, enforcing the size
// limits on the raw and the decoded bytes as they stream. It returns the decoded body and
// the raw length, and removes Content-Encoding and Content-Length once decoded (Scrapy:
// HttpCompressionMiddleware). The replay reads recorded bodies with it too.
func (d *HandlerEnv) ReadBody(ctx context.Context, req *types.Request, hresp *http.Response, lim DownloadLimits) ([]byte, int, error) {
	cl := hresp.ContentLength
	if lim.MaxSize > 0 && cl > lim.MaxSize {
		return nil, 0, &DownloadError{Name: NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: expected response size (%d) larger than %s (%d)", cl, types.DownloadMaxSize, lim.MaxSize)}
	}
	warned := false
	warn := func(n int64) {
		if !warned {
			warned = true
			d.logger.Warn(fmt.Sprintf("Received more bytes than download warn size (%d) in request %s", lim.WarnSize, reqString(req)))
		}
	}
	if lim.WarnSize > 0 && cl > lim.WarnSize {
		warned = true
		d.logger.Warn(fmt.Sprintf("Expected response size (%d) larger than download warn size (%d) in request %s", cl, lim.WarnSize, reqString(req)))
	}
	raw := &meter{r: hresp.Body, max: lim.MaxSize, warnAt: lim.WarnSize, warn: warn}
	var encs []string
	if cl != 0 && hresp.StatusCode != http.StatusNoContent && hresp.StatusCode != http.StatusNotModified &&
		hresp.Request.Method != http.MethodHead {
		encs = contentEncodings(hresp.Header.Get("Content-Encoding"))
	}
	r, closers, failed, err := decoders(raw, encs, func(what string) {
		d.stats.Inc(statDecodeRepaired, 1)
		d.logger.Debug(fmt.Sprintf("Accepted the body of %s with %s (dropped, as curl does)", reqString(req), what))
	})
	defer closeAll(closers)
	if err != nil {
		if raw.n == 0 && raw.err == nil {
			return nil, 0, nil // an empty body, whatever its Content-Encoding says
		}
		return nil, 0, bodyError(ctx, lim, req, hresp, raw, err, failed)
	}
	out := r
	var dm *meter
	if r != io.Reader(raw) {
		dm = &meter{r: r, max: lim.MaxSize, warnAt: lim.WarnSize, warn: warn}
		out = dm
	}
	size := int64(-1) // unknown: read in chunks
	switch {
	case hresp.Body == http.NoBody:
		size = 0
	case cl >= 0 && dm == nil:
		size = cl // checked against the limit above
	}
	res := d.budget.reserve()
	defer res.release()
	body, err := readBodyExact(ctx, out, size, res)
	if err != nil && raw.n == 0 && raw.err == nil && ctx.Err() == nil {
		return nil, 0, nil // an empty body, whatever its Content-Encoding says
	}
	if err != nil {
		enc := ""
		if dm != nil {
			enc = strings.Join(encs, ", ")
		}
		return nil, 0, bodyError(ctx, lim, req, hresp, raw, err, enc)
	}
	if dm != nil {
		hresp.Header.Del("Content-Encoding")
		hresp.Header.Del("Content-Length")
	}
	return body, int(raw.n), nil
}

// bodyError names an error met while reading a body: the raw meter's own error (the
// connection's, or its size limit) comes first; otherwise a decoder's error is a
// BadResponseError.
func bodyError(ctx context.Context, lim DownloadLimits, req *types.Request, hresp *http.Response, raw *meter, err error, enc string) error {
	if errors.Is(err, errTooBig) || errors.Is(raw.err, errTooBig) {
		what := "body"
		if !errors.Is(raw.err, errTooBig) {
			what = "decoded " + enc + " body"
		}
		return &DownloadError{Name: NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: %s larger than %s (%d)", what, types.DownloadMaxSize, raw.max)}
	}
	if ctx.Err() != nil {
		return downloadFailure(ctx, lim, req.URL, err, NameConnectionLost, NameConnectionLost)
	}
	if raw.err != nil {
		if errors.Is(raw.err, io.ErrUnexpectedEOF) && hresp.ContentLength >= 0 && raw.n < hresp.ContentLength {
			return &DownloadError{Name: NameBadResponse, URL: req.URL,
				Err: fmt.Errorf("body shorter than Content-Length: got %d of %d bytes", raw.n, hresp.ContentLength)}
		}
		return downloadFailure(ctx, lim, req.URL, raw.err, NameConnectionLost, NameConnectionLost)
	}
	if enc != "" {
		return &DownloadError{Name: NameBadResponse, URL: req.URL, Err: fmt.Errorf("decode %s body: %w", enc, err)}
	}
	return downloadFailure(ctx, lim, req.URL, err, NameConnectionLost, NameConnectionLost)
}

// Interface guards
var _ DownloadHandler = (*httpHandler)(nil)

// statDecodeRepaired counts the responses whose Content-Encoding decoding dropped
// trailing garbage, as curl accepts them (see gzipMembers).
const statDecodeRepaired = "httpcompression/repaired_count"

// hiddenLocation is the header hideLocation moves a 3xx response's Location to.
const hiddenLocation = "X-Jscrawl-Hidden-Location"

// hideLocation is the RoundTripper of the downloader's client: it moves the Location of a
// 3xx response out of http.Client's sight, because the client parses it with net/url
// before asking CheckRedirect and fails the request on a Location browsers and curl
// follow (a tab inside, "\\host"); fetch puts it back for RedirectMiddleware, which
// parses it as the WHATWG URL Standard says. Safe for concurrent use, as rt is.
type hideLocation struct{ rt http.RoundTripper }

// RoundTrip is rt's, with a 3xx response's Location moved to hiddenLocation.
func (h hideLocation) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.rt.RoundTrip(req)
	if err == nil && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		if loc, ok := resp.Header["Location"]; ok {
			resp.Header[hiddenLocation] = loc
			delete(resp.Header, "Location")
		}
	}
	return resp, err
}

// Interface guards
var _ http.RoundTripper = hideLocation{}
