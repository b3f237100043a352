package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// DownloadHandler downloads the requests of the URL schemes DOWNLOAD_HANDLERS gives it
// (Scrapy: a download handler), or those of its route (RegisterRoute). HTTPDownloader
// calls it from the download goroutines, so calls overlap, after checking the scheme
// against DOWNLOAD_SCHEMES and putting DOWNLOAD_TIMEOUT on ctx (a route's handler gets
// ctx without it and sets its own timeout). A status code is a Response, not an error;
// errors are *DownloadError naming the URL. The handler counts the downloader/request_*
// and downloader/response_* stats of what it sends and receives (HandlerEnv.CountRequest).
//
// A handler that holds resources (a browser, connections) implements io.Closer: the
// engine closes every handler when the crawl ends (Engine.CloseHandlers).
type DownloadHandler interface {
	Download(ctx context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error)
}

// Preparer is a DownloadHandler that gets ready for a request before the request's
// download slot times it (for the browser handler: Chromium starts). The engine goroutine
// calls Prepare as the request is scheduled, once per request; it must not block for long
// and it reports nothing: an error is left for Download to return.
type Preparer interface {
	Prepare(req *types.Request)
}

// DownloadLimits are one request's DOWNLOAD_TIMEOUT, DOWNLOAD_MAXSIZE and
// DOWNLOAD_WARNSIZE, after its meta overrides (0: no limit).
type DownloadLimits struct {
	Timeout           time.Duration
	MaxSize, WarnSize int64
}

// HandlerFactory makes the download handler of one HTTPDownloader from the crawl's
// settings (Scrapy: a handler's from_crawler). It is called once per downloader and
// handler name, when the downloader is made. An error leaves the handler's schemes
// without a handler: their requests fail with it.
type HandlerFactory func(settings *types.Settings, env *HandlerEnv) (DownloadHandler, error)

// The names of the built-in download handlers (DOWNLOAD_HANDLERS values).
const (
	HTTPDownloadHandler    = "HTTPDownloadHandler"
	FileDownloadHandler    = "FileDownloadHandler"
	DataURIDownloadHandler = "DataURIDownloadHandler"
)

// handlersBase is the default of DOWNLOAD_HANDLERS: URL scheme → download handler name
// (Scrapy: DOWNLOAD_HANDLERS_BASE).
var handlersBase = map[string]string{
	"http":  HTTPDownloadHandler,
	"https": HTTPDownloadHandler,
	"file":  FileDownloadHandler,
	"data":  DataURIDownloadHandler,
}

// route is a handler that takes the requests match reports true for (RegisterRoute).
type route struct {
	name    string
	match   func(*types.Request) bool
	factory HandlerFactory
}

// registry holds the download handlers DOWNLOAD_HANDLERS can name and the routes, in the
// order they were registered (caddy: the module registry).
var registry = struct {
	mu       sync.RWMutex
	handlers map[string]HandlerFactory
	routes   []route
}{handlers: map[string]HandlerFactory{}}

// RegisterHandler makes the download handler name available to DOWNLOAD_HANDLERS
// (scheme → name): a downloader made afterwards calls factory when a scheme maps to
// name. Call it from an init function or before the engine is made. It panics on an
// empty or already registered name, or a nil factory (a wiring error). Safe for
// concurrent use.
func RegisterHandler(name string, factory HandlerFactory) {
	if name == "" || factory == nil {
		panic("engine: RegisterHandler needs a name and a factory")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.handlers[name]; dup {
		panic(fmt.Sprintf("engine: download handler %q registered twice", name))
	}
	registry.handlers[name] = factory
}

// RegisterRoute registers a download handler that takes every request match reports true
// for, whatever its URL scheme, before DOWNLOAD_SCHEMES and DOWNLOAD_HANDLERS are
// looked at (the browser handler takes the requests with the browser option this way).
// Routes are tried in the order they were registered; match runs on the engine
// goroutine and the download goroutines, so it must be fast and safe for concurrent use.
// The handler gets ctx without DOWNLOAD_TIMEOUT: it sets the timeout it documents. It
// panics on an empty or already registered name, or a nil match or factory. Safe for
// concurrent use.
func RegisterRoute(name string, match func(*types.Request) bool, factory HandlerFactory) {
	if name == "" || match == nil || factory == nil {
		panic("engine: RegisterRoute needs a name, a match and a factory")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if slices.ContainsFunc(registry.routes, func(r route) bool { return r.name == name }) {
		panic(fmt.Sprintf("engine: download route %q registered twice", name))
	}
	registry.routes = append(registry.routes, route{name: name, match: match, factory: factory})
}

// HandlerNames returns the names of the registered download handlers, sorted.
func HandlerNames() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	return slices.Sorted(maps.Keys(registry.handlers))
}

func init() {
	RegisterHandler(HTTPDownloadHandler, func(settings *types.Settings, env *HandlerEnv) (DownloadHandler, error) {
		return newHTTPHandler(settings, env.client, env), nil
	})
	RegisterHandler(FileDownloadHandler, func(_ *types.Settings, env *HandlerEnv) (DownloadHandler, error) {
		return fileHandler{env}, nil
	})
	RegisterHandler(DataURIDownloadHandler, func(_ *types.Settings, env *HandlerEnv) (DownloadHandler, error) {
		return dataHandler{env}, nil
	})
}

// routeHandler is a route's handler in one downloader: raw as made, h as wrapped for
// --warc and --replay (download_archive.go).
type routeHandler struct {
	name  string
	match func(*types.Request) bool
	raw   DownloadHandler
	h     DownloadHandler
}

// downloadHandlers returns the handler of each URL scheme: DOWNLOAD_HANDLERS (scheme →
// handler name, or null or "" to disable the scheme) over handlersBase. One handler
// serves all its schemes. A scheme without a handler maps to the error its requests fail
// with (an unknown handler name is named there, as Scrapy logs it when loading). made
// holds each handler by name; routes are the registered routes' handlers, in order.
func downloadHandlers(settings *types.Settings, env *HandlerEnv) (handlers map[string]DownloadHandler, missing map[string]error, made map[string]DownloadHandler, routes []routeHandler) {
	registry.mu.RLock()
	factories := maps.Clone(registry.handlers)
	regRoutes := slices.Clone(registry.routes)
	registry.mu.RUnlock()
	names := maps.Clone(handlersBase)
	for scheme, v := range settings.Map(types.DownloadHandlers) {
		name := ""
		if v != nil {
			name = fmt.Sprint(v)
		}
		names[strings.ToLower(scheme)] = name
	}
	handlers = map[string]DownloadHandler{}
	missing = map[string]error{}
	made = map[string]DownloadHandler{}
	failed := map[string]error{}
	for _, scheme := range slices.Sorted(maps.Keys(names)) {
		name := names[scheme]
		if name == "" {
			missing[scheme] = fmt.Errorf("no download handler for URL scheme %q (%s disables it)", scheme, types.DownloadHandlers)
			continue
		}
		h, ok := made[name]
		if !ok {
			if err := failed[name]; err != nil {
				missing[scheme] = err
				continue
			}
			newHandler, known := factories[name]
			if !known {
				missing[scheme] = fmt.Errorf("no download handler for URL scheme %q: %s names an unknown handler %q (known: %s)",
					scheme, types.DownloadHandlers, name, strings.Join(slices.Sorted(maps.Keys(factories)), ", "))
				continue
			}
			var err error
			if h, err = newHandler(settings, env); err != nil {
				failed[name] = fmt.Errorf("download handler %s for URL scheme %q: %w", name, scheme, err)
				missing[scheme] = failed[name]
				continue
			}
			made[name] = h
		}
		handlers[scheme] = h
	}
	for _, r := range regRoutes {
		h, err := r.factory(settings, env)
		if err != nil {
			h = failingHandler{fmt.Errorf("download route %s: %w", r.name, err)}
		}
		routes = append(routes, routeHandler{name: r.name, match: r.match, raw: h, h: h})
	}
	return handlers, missing, made, routes
}

// failingHandler fails every download with err: a route whose factory failed.
type failingHandler struct{ err error }

// Download implements DownloadHandler.
func (f failingHandler) Download(_ context.Context, req *types.Request, _ DownloadLimits) (*types.Response, error) {
	return nil, &DownloadError{Name: NameNotSupported, URL: req.URL, Err: f.err}
}

// HandlerEnv is what the download handlers share with their HTTPDownloader: the stats
// they count in, the logger (the engine sets it after NewHTTPDownloader), the memory
// budget of the bodies being received and the http(s) handler's client. A handler keeps
// it and reads the logger when it logs.
type HandlerEnv struct {
	stats  *Stats
	logger *slog.Logger
	budget *memBudget
	client *http.Client
}

// Stats returns the crawl's stats.
func (d *HandlerEnv) Stats() *Stats { return d.stats }

// Logger returns the crawl's logger.
func (d *HandlerEnv) Logger() *slog.Logger { return d.logger }

// CountRequest counts a request of method sent in n bytes in the downloader/request_*
// stats (Scrapy: DownloaderStats).
func (d *HandlerEnv) CountRequest(method string, n int) {
	d.stats.Inc("downloader/request_count", 1)
	d.stats.Inc("downloader/request_method_count/"+method, 1)
	d.stats.Inc("downloader/request_bytes", int64(n))
}

// CountResponse counts a response of status received in n bytes in the
// downloader/response_* stats.
func (d *HandlerEnv) CountResponse(status, n int) {
	d.stats.Inc("downloader/response_count", 1)
	d.stats.Inc("downloader/response_status_count/"+itoa(status), 1)
	d.stats.Inc("downloader/response_bytes", int64(n))
}

// closeHandler closes h if it is an io.Closer.
func closeHandler(h DownloadHandler) error {
	if c, ok := h.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
