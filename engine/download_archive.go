package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// WithWARC records every download of the http and https handlers to w (WARC_FILE,
// run --warc): scheduled requests, inline downloads, robots.txt and each redirect hop,
// as the handler sent and received them, and the main document of each browser request
// as rendered (see warc.Writer.Write). The caller closes w after the crawl.
func WithWARC(w *warc.Writer) Option { return func(c *config) { c.warcOut = w } }

// WithReplay serves the downloads of the http and https handlers and browser requests
// from a (REPLAY_FILES, run --replay) instead of the network (and Chromium): a request a
// has no response for fails with NotInArchive, or with fallback (REPLAY_FALLBACK) is
// downloaded. A browser request with includePage needs a live page: it fails with
// NotSupported, or with fallback is rendered. The caller closes a after the crawl.
func WithReplay(a *warc.Archive, fallback bool) Option {
	return func(c *config) { c.replay, c.replayFallback = a, fallback }
}

// HandlerDecorator wraps one download handler of an engine (caddy: a middleware around a
// handler): it returns a DownloadHandler that calls h, or h itself. The engine calls it
// once per handler it made (a handler serving several schemes is wrapped once) and once
// per route's handler, when it is made. A wrapper implements Unwrap() DownloadHandler,
// returning the handler it wraps, so the engine can still find what is inside
// (HTTPDownloader.DNSCache).
type HandlerDecorator func(h DownloadHandler, env *HandlerEnv) DownloadHandler

// WithHandlerDecorator adds d around every download handler of the engine, outside the
// replay and recording wrappers (WithReplay, WithWARC); decorators given later wrap
// those given earlier.
func WithHandlerDecorator(d HandlerDecorator) Option {
	return func(c *config) { c.decorators = append(c.decorators, d) }
}

// wrapHandlers puts wrap around each download handler (once for a handler that serves
// several schemes) and around each route's (the browser handler's).
func (d *HTTPDownloader) wrapHandlers(wrap func(DownloadHandler) DownloadHandler) {
	for i := range d.routes {
		d.routes[i].h = wrap(d.routes[i].h)
	}
	done := map[DownloadHandler]DownloadHandler{}
	for scheme, h := range d.handlers {
		w, ok := done[h]
		if !ok {
			w = wrap(h)
			done[h] = w
		}
		d.handlers[scheme] = w
	}
}

// archiveHandlers wraps the downloader's handlers for the engine's replay, then its
// recording (so a replayed crawl can be recorded again), then in the engine's decorators
// (WithHandlerDecorator).
func archiveHandlers(d *HTTPDownloader, c *config, warcFailed func(error)) {
	if c.replay != nil {
		d.replaying = true
		d.wrapHandlers(func(h DownloadHandler) DownloadHandler {
			return &replayHandler{wrapped: wrapped{h}, archive: c.replay, fallback: c.replayFallback, env: d.env}
		})
	}
	if c.warcOut != nil {
		d.wrapHandlers(func(h DownloadHandler) DownloadHandler {
			return &recordHandler{wrapped: wrapped{h}, w: c.warcOut, env: d.env, failed: warcFailed}
		})
	}
	for _, dec := range c.decorators {
		d.wrapHandlers(func(h DownloadHandler) DownloadHandler { return dec(h, d.env) })
	}
}

// The values of WARC_ERRORS.
const (
	WARCErrorsStop   = "stop"   // a WARC file that fails closes the spider (finish_reason warc_error)
	WARCErrorsIgnore = "ignore" // a WARC file that fails is left as it is; the crawl goes on
)

// warcFailed is called once when the WARC file cannot be written: the file holds whole
// records only (see warc.Writer), and the crawl stops unless WARC_ERRORS is ignore.
func warcFailed(cfg *crawlConfig, logger *slog.Logger, closeSpider func(string), err error) {
	if cfg.warcErrorsIgnore {
		logger.Error(fmt.Sprintf("WARC file failed, downloads are no longer recorded (WARC_ERRORS=ignore): %v", err))
		return
	}
	logger.Error(fmt.Sprintf("WARC file failed, closing the spider (WARC_ERRORS=stop): %v", err))
	closeSpider("warc_error")
}

// isHTTP reports whether rawURL is http or https, the schemes an archive holds.
func isHTTP(rawURL string) bool {
	scheme, _, _ := strings.Cut(rawURL, ":")
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// headerSender is a handler that tells the header it sends with a request (httpHandler).
type headerSender interface {
	sentHeader(ctx context.Context, req *types.Request) http.Header
}

// wrapped is what the archive's handlers share about the handler they wrap: Unwrap, and
// the header it sends.
type wrapped struct{ inner DownloadHandler }

// Unwrap returns the wrapped handler.
func (w wrapped) Unwrap() DownloadHandler { return w.inner }

// sentHeader implements headerSender with the wrapped handler's (nil when it has none).
func (w wrapped) sentHeader(ctx context.Context, req *types.Request) http.Header {
	if s, ok := w.inner.(headerSender); ok {
		return s.sentHeader(ctx, req)
	}
	return nil
}

// recordHandler writes what its handler downloads over http(s) to a WARC file: a request
// and a response record per download. A failed download writes nothing; a failed write
// is counted (warc/errors) and the download returned all the same. A write that leaves the
// file unusable (a *warc.WriteError: a full disk) goes to failed, once.
type recordHandler struct {
	wrapped
	w      *warc.Writer
	env    *HandlerEnv
	failed func(err error)
	once   sync.Once
}

// Download implements DownloadHandler.
func (h *recordHandler) Download(ctx context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error) {
	resp, err := h.inner.Download(ctx, req, lim)
	if err != nil || !isHTTP(req.URL) {
		return resp, err
	}
	n, werr := h.w.Write(req, h.sentHeader(ctx, req), resp, time.Now())
	if werr != nil {
		h.env.stats.Inc("warc/errors", 1)
		if !isFatal(werr) {
			h.env.logger.Error(fmt.Sprintf("Could not record %s: %v", reqString(req), werr))
		} else if h.failed != nil {
			h.once.Do(func() { h.failed(werr) })
		}
		return resp, nil
	}
	h.env.stats.Inc("warc/record_count", 2)
	h.env.stats.Inc("warc/bytes", n)
	return resp, nil
}

// replayHandler serves http(s) downloads from an archive: a request found there gets its
// recorded response (counted in replay/response_count and the downloader stats as a
// download would be); one not found counts in replay/miss_count and fails with
// NotInArchive, or with fallback goes to the inner handler. Other schemes (file, data) go
// to the inner handler: they are not the network.
type replayHandler struct {
	wrapped
	archive  *warc.Archive
	fallback bool
	env      *HandlerEnv
}

// Download implements DownloadHandler.
func (h *replayHandler) Download(ctx context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error) {
	if !isHTTP(req.URL) {
		return h.inner.Download(ctx, req, lim)
	}
	if err := ctx.Err(); err != nil {
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: err}
	}
	opts, browser, _ := req.Browser()
	if browser && opts.IncludePage {
		h.env.stats.Inc("replay/miss_count", 1)
		if h.fallback {
			return h.inner.Download(ctx, req, lim)
		}
		return nil, &DownloadError{Name: NameNotSupported, URL: req.URL,
			Err: errors.New("a browser request with includePage needs a live page, which a replay does not have (--replay-fallback renders it)")}
	}
	rec, ok, err := h.archive.LookupStream(req)
	if err != nil {
		return nil, &DownloadError{Name: NameBadResponse, URL: req.URL, Err: err}
	}
	if !ok {
		h.env.stats.Inc("replay/miss_count", 1)
		if h.fallback {
			return h.inner.Download(ctx, req, lim)
		}
		return nil, &DownloadError{Name: NameNotInArchive, URL: req.URL,
			Err: errors.New("not in the replayed archive (no response recorded for this method, URL and body)")}
	}
	// The recorded body streams from the file through the live path's limits: refused
	// past DOWNLOAD_MAXSIZE (raw or decoded: archives of other tools keep the bytes from
	// the wire, jscrawl records bodies decoded) and held under DOWNLOAD_MEMORY_BUDGET.
	defer rec.HTTP.Body.Close()
	body, rawLen, err := h.env.ReadBody(ctx, req, rec.HTTP, lim)
	if err != nil {
		return nil, err
	}
	resp := &types.Response{
		URL:      rec.URL,
		Status:   rec.HTTP.StatusCode,
		Headers:  rec.HTTP.Header,
		Body:     body,
		Request:  req,
		Protocol: rec.HTTP.Proto,
	}
	// A browser response keeps the rendered page's URL, after the redirects Chromium
	// followed (the archive has it).
	if u, err := url.Parse(req.URL); err == nil && !browser {
		resp.URL = u.String() // as the http handler makes it
	}
	h.env.stats.Inc("replay/response_count", 1)
	h.env.CountRequest(req.HTTPMethod(), len(req.HTTPMethod())+len(req.URL)+12+len(req.Body))
	h.env.CountResponse(resp.Status, rawLen+15)
	return resp, nil
}

// Interface guards
var (
	_ DownloadHandler = (*recordHandler)(nil)
	_ DownloadHandler = (*replayHandler)(nil)
	_ headerSender    = (*httpHandler)(nil)
)
