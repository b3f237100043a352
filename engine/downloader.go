package engine

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/jscrawl/jscrawl/types"
	"github.com/klauspost/compress/zstd"
)

// acceptEncoding is the Accept-Encoding sent when a request has none: every
// Content-Encoding the downloader decodes.
const acceptEncoding = "gzip, deflate, br, zstd"

// HTTPDownloader is the Downloader at the end of the chain (Scrapy: the download handlers
// for http(s), file and data plus the HttpCompression, DefaultHeaders, UserAgent and
// DownloaderStats middlewares, which net/http makes cheap to do in one place).
//
// It sets USER_AGENT and DEFAULT_REQUEST_HEADERS where absent, asks for gzip, deflate, br
// and zstd and decodes the body while it streams in, enforces DOWNLOAD_TIMEOUT over the
// whole download, DOWNLOAD_MAXSIZE on both the raw and the decoded byte counts (so a
// compression bomb is cut off early) and warns once per response past DOWNLOAD_WARNSIZE;
// meta.downloadTimeout, meta.downloadMaxsize and meta.downloadWarnsize override the three
// per request. It never follows redirects: a 3xx is a Response, which RedirectMiddleware
// handles. URL schemes must be in DOWNLOAD_SCHEMES: http and https go to net/http, file
// reads a local file and data decodes an RFC 2397 URL. Bodies are held at their exact size
// (readBodyExact) and, while being received, within DOWNLOAD_MEMORY_BUDGET: a download
// waits for room rather than exhaust memory (memBudget). It counts the downloader/* stats
// of each attempt, and download/maxsize for bodies over the limit. Safe for concurrent use.
type HTTPDownloader struct {
	client         *http.Client
	stats          *Stats
	logger         *slog.Logger
	userAgent      string
	defaultHeaders [][2]string
	timeout        time.Duration
	maxSize        int64
	warnSize       int64
	schemes        []string
	budget         *memBudget
}

// NewHTTPDownloader returns an HTTPDownloader configured from settings. client may be nil
// for one with a keep-alive Transport sized to CONCURRENT_REQUESTS; the client is copied
// and its CheckRedirect replaced by one that never follows. An *http.Transport of client is
// cloned to honour meta.proxy (see HTTPProxyMiddleware) and, with DOWNLOAD_VERIFY_TLS
// false, to skip certificate verification.
func NewHTTPDownloader(settings *types.Settings, client *http.Client, stats *Stats) *HTTPDownloader {
	if stats == nil {
		stats = NewStats()
	}
	d := &HTTPDownloader{
		stats:     stats,
		logger:    orDiscard(nil),
		userAgent: settings.String(types.UserAgent),
		timeout:   settings.Duration(types.DownloadTimeout),
		maxSize:   int64(settings.Int(types.DownloadMaxSize)),
		warnSize:  int64(settings.Int(types.DownloadWarnSize)),
		schemes:   settings.StringList(types.DownloadSchemes),
	}
	d.budget = newMemBudget(int64(settings.Int(types.DownloadMemoryBudget)), settings.Int(types.ConcurrentRequests), stats)
	for k, v := range settings.Map(types.DefaultRequestHeaders) {
		d.defaultHeaders = append(d.defaultHeaders, [2]string{http.CanonicalHeaderKey(k), fmt.Sprint(v)})
	}
	slices.SortFunc(d.defaultHeaders, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	verify := settings.Bool(types.DownloadVerifyTLS)
	var c http.Client
	proxyEnabled := settings.Bool(types.HTTPProxyEnabled)
	if client != nil {
		c = *client
		if t, ok := c.Transport.(*http.Transport); ok {
			t = t.Clone()
			t.Proxy = proxyFunc(proxyEnabled, t.Proxy)
			if !verify {
				skipVerify(t)
			}
			c.Transport = t
		}
	} else {
		t := newTransport(max(settings.Int(types.ConcurrentRequests), 1))
		t.Proxy = proxyFunc(proxyEnabled, http.ProxyFromEnvironment)
		if !verify {
			skipVerify(t)
		}
		c.Transport = t
	}
	// Redirects are RedirectMiddleware's: a 3xx comes back as the response.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	d.client = &c
	return d
}

func skipVerify(t *http.Transport) {
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.InsecureSkipVerify = true
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
		if name == NameMaxSize {
			d.stats.Inc("download/maxsize", 1)
		}
		countException(d.stats, err)
		return nil, err
	}
	return resp, nil
}

// limits are one request's DOWNLOAD_TIMEOUT, DOWNLOAD_MAXSIZE and DOWNLOAD_WARNSIZE, after
// its meta overrides.
type limits struct {
	timeout           time.Duration
	maxSize, warnSize int64
}

func (d *HTTPDownloader) limitsFor(req *types.Request) limits {
	l := limits{timeout: d.timeout, maxSize: d.maxSize, warnSize: d.warnSize}
	if len(req.Meta) == 0 {
		return l
	}
	if f, ok := metaFloat(req, "downloadTimeout"); ok && f >= 0 {
		l.timeout = time.Duration(f * float64(time.Second))
	}
	if f, ok := metaFloat(req, "downloadMaxsize"); ok && f >= 0 {
		l.maxSize = int64(f)
	}
	if f, ok := metaFloat(req, "downloadWarnsize"); ok && f >= 0 {
		l.warnSize = int64(f)
	}
	return l
}

// metaFloat returns a numeric meta value.
func metaFloat(req *types.Request, key string) (float64, bool) {
	switch v := req.MetaValue(key).(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

func (d *HTTPDownloader) fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	lim := d.limitsFor(req)
	if lim.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.timeout)
		defer cancel()
	}
	scheme, _, _ := strings.Cut(req.URL, ":")
	if strings.EqualFold(scheme, "data") {
		if !d.schemeAllowed(scheme) {
			return nil, d.notSupported(req, scheme)
		}
		return d.fetchData(req, lim)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
	}
	if !d.schemeAllowed(u.Scheme) {
		return nil, d.notSupported(req, u.Scheme)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return d.fetchHTTP(ctx, req, lim)
	case "file":
		return d.fetchFile(ctx, req, u, lim)
	}
	return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
		Err: fmt.Errorf("no download handler for URL scheme %q", u.Scheme)}
}

func (d *HTTPDownloader) notSupported(req *types.Request, scheme string) error {
	return &DownloadError{Name: NameNotSupported, URL: req.URL,
		Err: fmt.Errorf("URL scheme %q is not in %s", scheme, types.DownloadSchemes)}
}

func (d *HTTPDownloader) fetchHTTP(ctx context.Context, req *types.Request, lim limits) (*types.Response, error) {
	method := req.HTTPMethod()
	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
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
		hreq.Header["Accept-Encoding"] = []string{acceptEncoding}
	}
	for k, vs := range hreq.Header {
		for _, v := range vs {
			reqBytes += len(k) + len(v) + 4
		}
	}
	d.countRequest(method, reqBytes)

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
		return nil, d.wrap(parent, lim, req.URL, err, NameResponseNeverReceived, NameBadResponse)
	}
	defer hresp.Body.Close()
	decoded, rawLen, err := d.readBody(parent, req, hresp, lim)
	if err != nil {
		return nil, err
	}
	respBytes := rawLen + 15
	for k, vs := range hresp.Header {
		for _, v := range vs {
			respBytes += len(k) + len(v) + 4
		}
	}
	d.countResponse(hresp.StatusCode, respBytes)
	return &types.Response{
		URL:      hresp.Request.URL.String(),
		Status:   hresp.StatusCode,
		Headers:  hresp.Header,
		Body:     decoded,
		Request:  req,
		Protocol: hresp.Proto,
	}, nil
}

func (d *HTTPDownloader) countRequest(method string, n int) {
	d.stats.Inc("downloader/request_count", 1)
	d.stats.Inc("downloader/request_method_count/"+method, 1)
	d.stats.Inc("downloader/request_bytes", int64(n))
}

func (d *HTTPDownloader) countResponse(status, n int) {
	d.stats.Inc("downloader/response_count", 1)
	d.stats.Inc("downloader/response_status_count/"+itoa(status), 1)
	d.stats.Inc("downloader/response_bytes", int64(n))
}

// wrap names a network error: lost is the name for a dropped connection and other the
// name for an error classify does not know (a malformed response, for the client's Do).
func (d *HTTPDownloader) wrap(ctx context.Context, lim limits, rawURL string, err error, lost, other string) error {
	var de *DownloadError
	if errors.As(err, &de) {
		return de
	}
	name := classify(err, lost)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			name = NameTimeout
			err = fmt.Errorf("took longer than %s %s: %w", types.DownloadTimeout, lim.timeout, err)
		} else {
			name = NameCancelled
		}
	}
	if name == NameError {
		name = other
	}
	return &DownloadError{Name: name, URL: rawURL, Err: err}
}

// errTooBig marks a meter that went over its limit.
var errTooBig = errors.New("too big")

// meter counts the bytes read through it, fails with errTooBig past max (0: no limit)
// and calls warn once past warnAt (0: never). err keeps the first error of r other than
// io.EOF, so a decoder's error can be told apart from the connection's.
type meter struct {
	r      io.Reader
	n      int64
	max    int64
	warnAt int64
	warn   func(n int64)
	err    error
}

func (m *meter) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.r.Read(p)
	m.n += int64(n)
	if m.max > 0 && m.n > m.max {
		m.err = errTooBig
		return n, errTooBig
	}
	if m.warnAt > 0 && m.n > m.warnAt && m.warn != nil {
		m.warn(m.n)
		m.warn = nil
	}
	if err != nil && err != io.EOF {
		m.err = err
	}
	return n, err
}

// readBody reads hresp.Body through its Content-Encoding decoders, enforcing the size
// limits on the raw and the decoded bytes as they stream. It returns the decoded body and
// the raw length, and removes Content-Encoding and Content-Length once decoded (Scrapy:
// HttpCompressionMiddleware).
func (d *HTTPDownloader) readBody(ctx context.Context, req *types.Request, hresp *http.Response, lim limits) ([]byte, int, error) {
	cl := hresp.ContentLength
	if lim.maxSize > 0 && cl > lim.maxSize {
		return nil, 0, &DownloadError{Name: NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: expected response size (%d) larger than %s (%d)", cl, types.DownloadMaxSize, lim.maxSize)}
	}
	warned := false
	warn := func(n int64) {
		if !warned {
			warned = true
			d.logger.Warn(fmt.Sprintf("Received more bytes than download warn size (%d) in request %s", lim.warnSize, reqString(req)))
		}
	}
	if lim.warnSize > 0 && cl > lim.warnSize {
		warned = true
		d.logger.Warn(fmt.Sprintf("Expected response size (%d) larger than download warn size (%d) in request %s", cl, lim.warnSize, reqString(req)))
	}
	raw := &meter{r: hresp.Body, max: lim.maxSize, warnAt: lim.warnSize, warn: warn}
	var encs []string
	if cl != 0 && hresp.StatusCode != http.StatusNoContent && hresp.StatusCode != http.StatusNotModified &&
		hresp.Request.Method != http.MethodHead {
		encs = contentEncodings(hresp.Header.Get("Content-Encoding"))
	}
	var r io.Reader = raw
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	decoded := true
	for i := len(encs) - 1; i >= 0; i-- {
		var err error
		var next io.Reader
		switch encs[i] {
		case "identity":
			continue
		case "gzip", "x-gzip":
			var z *gzip.Reader
			if z, err = gzip.NewReader(r); err == nil {
				next = z
			}
		case "deflate":
			next = newDeflateReader(r)
		case "br":
			next = brotli.NewReader(r)
		case "zstd":
			var z *zstd.Decoder
			// One goroutine, and the 8 MB window RFC 9659 allows zstd in HTTP: a frame
			// asking for more is refused instead of allocated.
			if z, err = zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(8<<20)); err == nil {
				next = z
				closers = append(closers, closerFunc(func() error { z.Close(); return nil }))
			}
		default:
			decoded = false // unknown encoding: hand the body over as it came
		}
		if !decoded {
			r = raw
			break
		}
		if err != nil {
			if raw.n == 0 && raw.err == nil {
				return nil, 0, nil // an empty body, whatever its Content-Encoding says
			}
			return nil, 0, d.bodyError(ctx, lim, req, hresp, raw, err, encs[i])
		}
		r = next
	}
	out := r
	var dm *meter
	if r != io.Reader(raw) {
		dm = &meter{r: r, max: lim.maxSize, warnAt: lim.warnSize, warn: warn}
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
		return nil, 0, d.bodyError(ctx, lim, req, hresp, raw, err, enc)
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
func (d *HTTPDownloader) bodyError(ctx context.Context, lim limits, req *types.Request, hresp *http.Response, raw *meter, err error, enc string) error {
	if errors.Is(err, errTooBig) || errors.Is(raw.err, errTooBig) {
		what := "body"
		if !errors.Is(raw.err, errTooBig) {
			what = "decoded " + enc + " body"
		}
		return &DownloadError{Name: NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: %s larger than %s (%d)", what, types.DownloadMaxSize, raw.max)}
	}
	if ctx.Err() != nil {
		return d.wrap(ctx, lim, req.URL, err, NameConnectionLost, NameConnectionLost)
	}
	if raw.err != nil {
		if errors.Is(raw.err, io.ErrUnexpectedEOF) && hresp.ContentLength >= 0 && raw.n < hresp.ContentLength {
			return &DownloadError{Name: NameBadResponse, URL: req.URL,
				Err: fmt.Errorf("body shorter than Content-Length: got %d of %d bytes", raw.n, hresp.ContentLength)}
		}
		return d.wrap(ctx, lim, req.URL, raw.err, NameConnectionLost, NameConnectionLost)
	}
	if enc != "" {
		return &DownloadError{Name: NameBadResponse, URL: req.URL, Err: fmt.Errorf("decode %s body: %w", enc, err)}
	}
	return d.wrap(ctx, lim, req.URL, err, NameConnectionLost, NameConnectionLost)
}

// contentEncodings splits a Content-Encoding header into lower-case codings, in the order
// they were applied.
func contentEncodings(h string) []string {
	if h == "" {
		return nil
	}
	var out []string
	for _, e := range strings.Split(h, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			out = append(out, e)
		}
	}
	return out
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// deflateReader reads zlib-wrapped deflate, or raw deflate from servers that leave the
// zlib header out, deciding on the first read.
type deflateReader struct {
	src io.Reader
	r   io.Reader
}

func newDeflateReader(src io.Reader) io.Reader { return &deflateReader{src: src} }

func (d *deflateReader) Read(p []byte) (int, error) {
	if d.r == nil {
		var hdr [2]byte
		n, err := io.ReadFull(d.src, hdr[:])
		if err != nil && n == 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		head := io.MultiReader(bytes.NewReader(hdr[:n]), d.src)
		// A zlib header: CM 8, window ≤ 32K, and a checksum making it a multiple of 31.
		if n == 2 && hdr[0]&0x0f == 8 && hdr[0]>>4 <= 7 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
			z, err := zlib.NewReader(head)
			if err != nil {
				return 0, err
			}
			d.r = z
		} else {
			d.r = flate.NewReader(head)
		}
	}
	return d.r.Read(p)
}

// fetchFile reads a local file (Scrapy: FileDownloadHandler): status 200 with the file as
// the body, 404 when it does not exist.
func (d *HTTPDownloader) fetchFile(ctx context.Context, req *types.Request, u *url.URL, lim limits) (*types.Response, error) {
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: fmt.Errorf("file URL with a host (%s)", u.Host)}
	}
	path := filepath.FromSlash(u.Path)
	if u.Path == "" {
		path = filepath.FromSlash(u.Opaque)
	}
	d.countRequest(req.HTTPMethod(), len(req.URL))
	resp := &types.Response{URL: req.URL, Headers: http.Header{}, Request: req}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		resp.Status = http.StatusNotFound
		d.countResponse(resp.Status, 0)
		return resp, nil
	}
	if err != nil {
		return nil, &DownloadError{Name: NameError, URL: req.URL, Err: err}
	}
	defer f.Close()
	size := int64(-1) // unknown: read in chunks
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if lim.maxSize > 0 && fi.Size() > lim.maxSize {
			return nil, &DownloadError{Name: NameMaxSize, URL: req.URL,
				Err: fmt.Errorf("cancelling download: file size (%d) larger than %s (%d)", fi.Size(), types.DownloadMaxSize, lim.maxSize)}
		}
		size = fi.Size()
	}
	m := &meter{r: f, max: lim.maxSize}
	res := d.budget.reserve()
	defer res.release()
	body, err := readBodyExact(ctx, m, size, res)
	if err != nil {
		if errors.Is(err, errTooBig) {
			return nil, &DownloadError{Name: NameMaxSize, URL: req.URL,
				Err: fmt.Errorf("cancelling download: file larger than %s (%d)", types.DownloadMaxSize, lim.maxSize)}
		}
		if ctx.Err() != nil { // waiting for DOWNLOAD_MEMORY_BUDGET
			return nil, d.wrap(ctx, lim, req.URL, err, NameConnectionLost, NameError)
		}
		return nil, &DownloadError{Name: NameError, URL: req.URL, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, d.wrap(ctx, lim, req.URL, err, NameConnectionLost, NameError)
	}
	resp.Status = http.StatusOK
	resp.Body = body
	if ct := mime.TypeByExtension(filepath.Ext(path)); ct != "" {
		resp.Headers.Set("Content-Type", ct)
	}
	resp.Headers.Set("Content-Length", strconv.Itoa(len(body)))
	d.countResponse(resp.Status, len(body))
	return resp, nil
}

// fetchData decodes a data: URL (RFC 2397; Scrapy: DataURIDownloadHandler): status 200,
// the media type as Content-Type (default text/plain;charset=US-ASCII).
func (d *HTTPDownloader) fetchData(req *types.Request, lim limits) (*types.Response, error) {
	d.countRequest(req.HTTPMethod(), len(req.URL))
	body, ct, err := parseDataURL(req.URL)
	if err != nil {
		return nil, &DownloadError{Name: NameInvalidURL, URL: req.URL, Err: err}
	}
	if lim.maxSize > 0 && int64(len(body)) > lim.maxSize {
		return nil, &DownloadError{Name: NameMaxSize, URL: req.URL,
			Err: fmt.Errorf("cancelling download: data (%d bytes) larger than %s (%d)", len(body), types.DownloadMaxSize, lim.maxSize)}
	}
	h := http.Header{"Content-Type": {ct}, "Content-Length": {strconv.Itoa(len(body))}}
	d.countResponse(http.StatusOK, len(body))
	return &types.Response{URL: req.URL, Status: http.StatusOK, Headers: h, Body: body, Request: req}, nil
}

// parseDataURL returns the data and media type of a data: URL.
func parseDataURL(raw string) ([]byte, string, error) {
	_, rest, _ := strings.Cut(raw, ":")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, "", errors.New("data URL without a comma")
	}
	b64 := false
	if i := strings.LastIndexByte(meta, ';'); i >= 0 && strings.EqualFold(strings.TrimSpace(meta[i+1:]), "base64") {
		b64 = true
		meta = meta[:i]
	}
	meta = strings.TrimSpace(meta)
	if m, err := url.PathUnescape(meta); err == nil {
		meta = m
	}
	switch {
	case meta == "":
		meta = "text/plain;charset=US-ASCII"
	case strings.HasPrefix(meta, ";"):
		meta = "text/plain" + meta
	}
	if mt, params, err := mime.ParseMediaType(meta); err == nil {
		meta = mime.FormatMediaType(mt, params)
	}
	body, err := url.PathUnescape(data)
	if err != nil {
		return nil, "", fmt.Errorf("data URL: %w", err)
	}
	if !b64 {
		return []byte(body), meta, nil
	}
	body = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, body)
	dec, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		if dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(body, "=")); err != nil {
			return nil, "", fmt.Errorf("data URL: bad base64: %w", err)
		}
	}
	return dec, meta, nil
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
