package engine

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/jscrawl/jscrawl/types"
)

// HTTPDownloader is the Downloader at the end of the chain (Scrapy: HTTP11DownloadHandler
// plus the HttpCompression, DefaultHeaders, UserAgent and DownloaderStats
// middlewares, which net/http makes cheap to do in one place). It sets USER_AGENT and
// DEFAULT_REQUEST_HEADERS where absent, asks for gzip, deflate and br and decodes the body
// itself, and enforces DOWNLOAD_TIMEOUT over the whole download and DOWNLOAD_MAXSIZE while
// reading. It never follows redirects: a 3xx is a Response, which RedirectMiddleware
// handles. It counts the downloader/* stats of each attempt, and download/maxsize for
// bodies over DOWNLOAD_MAXSIZE. Safe for concurrent use.
type HTTPDownloader struct {
	client         *http.Client
	stats          *Stats
	userAgent      string
	defaultHeaders [][2]string
	timeout        time.Duration
	maxSize        int64
	schemes        []string
}

// NewHTTPDownloader returns an HTTPDownloader configured from settings. client may be nil
// for one with a keep-alive Transport sized to CONCURRENT_REQUESTS; the client is copied
// and its CheckRedirect replaced by one that never follows. An *http.Transport of client is
// cloned to honour meta.proxy (see HTTPProxyMiddleware).
func NewHTTPDownloader(settings *types.Settings, client *http.Client, stats *Stats) *HTTPDownloader {
	if stats == nil {
		stats = NewStats()
	}
	d := &HTTPDownloader{
		stats:     stats,
		userAgent: settings.String(types.UserAgent),
		timeout:   settings.Duration(types.DownloadTimeout),
		maxSize:   int64(settings.Int(types.DownloadMaxSize)),
		schemes:   settings.StringList(types.DownloadSchemes),
	}
	for k, v := range settings.Map(types.DefaultRequestHeaders) {
		d.defaultHeaders = append(d.defaultHeaders, [2]string{http.CanonicalHeaderKey(k), fmt.Sprint(v)})
	}
	slices.SortFunc(d.defaultHeaders, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	var c http.Client
	proxyEnabled := settings.Bool(types.HTTPProxyEnabled)
	if client != nil {
		c = *client
		if t, ok := c.Transport.(*http.Transport); ok {
			t = t.Clone()
			t.Proxy = proxyFunc(proxyEnabled, t.Proxy)
			c.Transport = t
		}
	} else {
		t := newTransport(max(settings.Int(types.ConcurrentRequests), 1))
		t.Proxy = proxyFunc(proxyEnabled, http.ProxyFromEnvironment)
		c.Transport = t
	}
	// Redirects are RedirectMiddleware's: a 3xx comes back as the response.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	d.client = &c
	return d
}

func newTransport(conc int) *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          max(100, 4*conc),
		MaxIdleConnsPerHost:   conc,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

func (d *HTTPDownloader) schemeAllowed(s string) bool {
	return slices.ContainsFunc(d.schemes, func(a string) bool { return strings.EqualFold(a, s) })
}

// Fetch implements Downloader. A response of any status is returned as a Response; errors
// are *DownloadError naming the URL.
func (d *HTTPDownloader) Fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	resp, err := d.fetch(ctx, req)
	if err != nil {
		name := ErrorName(err)
		if name == NameMaxSizeExceeded {
			d.stats.Inc("download/maxsize", 1)
		}
		countException(d.stats, err)
		return nil, err
	}
	return resp, nil
}

func (d *HTTPDownloader) fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	method := req.HTTPMethod()
	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	if d.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	parent := ctx
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
	}
	if !d.schemeAllowed(hreq.URL.Scheme) {
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
			Err: fmt.Errorf("URL scheme %q is not in %s", hreq.URL.Scheme, types.DownloadSchemes)}
	}
	if hreq.URL.Host == "" {
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: errors.New("missing host")}
	}
	reqBytes := len(method) + len(req.URL) + 12 + len(req.Body)
	if len(req.Headers) > 0 {
		hreq.Header = req.Headers.Clone()
	} else {
		hreq.Header = make(http.Header, len(d.defaultHeaders)+2)
	}
	for _, kv := range d.defaultHeaders {
		if _, ok := hreq.Header[kv[0]]; !ok {
			hreq.Header[kv[0]] = []string{kv[1]}
		}
	}
	if _, ok := hreq.Header["User-Agent"]; !ok && d.userAgent != "" {
		hreq.Header["User-Agent"] = []string{d.userAgent}
	}
	if _, ok := hreq.Header["Accept-Encoding"]; !ok {
		hreq.Header["Accept-Encoding"] = []string{"gzip, deflate, br"}
	}
	for k, vs := range hreq.Header {
		for _, v := range vs {
			reqBytes += len(k) + len(v) + 4
		}
	}
	d.stats.Inc("downloader/request_count", 1)
	d.stats.Inc("downloader/request_method_count/"+method, 1)
	d.stats.Inc("downloader/request_bytes", int64(reqBytes))

	hresp, err := d.client.Do(hreq)
	if err != nil {
		var de *DownloadError
		if errors.As(err, &de) {
			return nil, de
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, d.wrap(parent, req.URL, err, NameResponseNeverReceived)
	}
	defer hresp.Body.Close()
	if d.maxSize > 0 && hresp.ContentLength > d.maxSize {
		return nil, &DownloadError{Name: NameMaxSizeExceeded, URL: req.URL,
			Err: fmt.Errorf("Content-Length %d is larger than %s %d", hresp.ContentLength, types.DownloadMaxSize, d.maxSize)}
	}
	raw, err := d.readBody(hresp.Body, hresp.ContentLength, req.URL)
	if err != nil {
		return nil, d.wrap(parent, req.URL, err, NameConnectionLost)
	}
	respBytes := len(raw) + 15
	for k, vs := range hresp.Header {
		for _, v := range vs {
			respBytes += len(k) + len(v) + 4
		}
	}
	decoded, err := d.decode(hresp.Header, raw, req.URL)
	if err != nil {
		return nil, err
	}
	d.stats.Inc("downloader/response_count", 1)
	d.stats.Inc("downloader/response_status_count/"+itoa(hresp.StatusCode), 1)
	d.stats.Inc("downloader/response_bytes", int64(respBytes))
	return &types.Response{
		URL:     hresp.Request.URL.String(),
		Status:  hresp.StatusCode,
		Headers: hresp.Header,
		Body:    decoded,
		Request: req,
	}, nil
}

// wrap names a network error; lost is the name for a dropped connection.
func (d *HTTPDownloader) wrap(ctx context.Context, rawURL string, err error, lost string) error {
	var de *DownloadError
	if errors.As(err, &de) {
		return de
	}
	name := classify(err, lost)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			name = NameTimeout
			err = fmt.Errorf("took longer than %s %s: %w", types.DownloadTimeout, d.timeout, err)
		} else {
			name = NameCancelled
		}
	}
	if name == NameError {
		name = lost
	}
	return &DownloadError{Name: name, URL: rawURL, Err: err}
}

// readBody reads at most maxSize bytes of r.
func (d *HTTPDownloader) readBody(r io.Reader, size int64, rawURL string) ([]byte, error) {
	limit := d.maxSize
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	var b bytes.Buffer
	if size > 0 && (limit <= 0 || size <= limit) {
		b.Grow(int(size) + bytes.MinRead)
	}
	if _, err := b.ReadFrom(r); err != nil {
		return nil, err
	}
	if limit > 0 && int64(b.Len()) > limit {
		return nil, &DownloadError{Name: NameMaxSizeExceeded, URL: rawURL,
			Err: fmt.Errorf("body is larger than %s %d", types.DownloadMaxSize, limit)}
	}
	return b.Bytes(), nil
}

// decode undoes Content-Encoding (gzip, deflate, br), enforcing DOWNLOAD_MAXSIZE on the
// decoded bytes, and removes the header (Scrapy: HttpCompressionMiddleware).
func (d *HTTPDownloader) decode(h http.Header, raw []byte, rawURL string) ([]byte, error) {
	enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding")))
	if enc == "" || enc == "identity" {
		return raw, nil
	}
	var r io.Reader
	var err error
	switch enc {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(raw))
	case "deflate":
		r, err = zlib.NewReader(bytes.NewReader(raw))
		if err != nil { // some servers send raw deflate without the zlib header
			r, err = flate.NewReader(bytes.NewReader(raw)), nil
		}
	case "br":
		r = brotli.NewReader(bytes.NewReader(raw))
	default:
		return raw, nil // unknown encoding: hand over as is
	}
	if err != nil {
		return nil, &DownloadError{Name: NameConnectionLost, URL: rawURL, Err: fmt.Errorf("decode %s body: %w", enc, err)}
	}
	out, err := d.readBody(r, int64(len(raw))*4, rawURL)
	if err != nil {
		var de *DownloadError
		if errors.As(err, &de) {
			return nil, de
		}
		return nil, &DownloadError{Name: NameConnectionLost, URL: rawURL, Err: fmt.Errorf("decode %s body: %w", enc, err)}
	}
	h.Del("Content-Encoding")
	h.Del("Content-Length")
	return out, nil
}

// itoa is strconv.Itoa with the common HTTP statuses precomputed.
func itoa(n int) string {
	switch n {
	case 200:
		return "200"
	case 404:
		return "404"
	case 301:
		return "301"
	case 302:
		return "302"
	case 500:
		return "500"
	}
	return strconv.Itoa(n)
}

// Interface guards
var _ Downloader = (*HTTPDownloader)(nil)
