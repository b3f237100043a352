package engine

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// DownloadHandler downloads the requests of the URL schemes DOWNLOAD_HANDLERS gives it
// (Scrapy: a download handler). HTTPDownloader calls it from the download goroutines, so
// calls overlap, after checking the scheme against DOWNLOAD_SCHEMES and putting
// DOWNLOAD_TIMEOUT on ctx. A status code is a Response, not an error; errors are
// *DownloadError naming the URL. The handler counts the downloader/request_* and
// downloader/response_* stats of what it sends and receives.
type DownloadHandler interface {
	Download(ctx context.Context, req *types.Request, lim DownloadLimits) (*types.Response, error)
}

// DownloadLimits are one request's DOWNLOAD_TIMEOUT, DOWNLOAD_MAXSIZE and
// DOWNLOAD_WARNSIZE, after its meta overrides (0: no limit).
type DownloadLimits struct {
	Timeout           time.Duration
	MaxSize, WarnSize int64
}

// handlersBase is the default of DOWNLOAD_HANDLERS: URL scheme → download handler name
// (Scrapy: DOWNLOAD_HANDLERS_BASE).
var handlersBase = map[string]string{
	"http":  "HTTPDownloadHandler",
	"https": "HTTPDownloadHandler",
	"file":  "FileDownloadHandler",
	"data":  "DataURIDownloadHandler",
}

// builtinHandlers makes the built-in download handlers by name.
var builtinHandlers = map[string]func(settings *types.Settings, client *http.Client, env *downloadEnv) DownloadHandler{
	"HTTPDownloadHandler": func(settings *types.Settings, client *http.Client, env *downloadEnv) DownloadHandler {
		return newHTTPHandler(settings, client, env)
	},
	"FileDownloadHandler":    func(_ *types.Settings, _ *http.Client, env *downloadEnv) DownloadHandler { return fileHandler{env} },
	"DataURIDownloadHandler": func(_ *types.Settings, _ *http.Client, env *downloadEnv) DownloadHandler { return dataHandler{env} },
}

// downloadHandlers returns the handler of each URL scheme: DOWNLOAD_HANDLERS (scheme →
// handler name, or null or "" to disable the scheme) over handlersBase. One handler
// serves all its schemes. A scheme without a handler maps to the error its requests fail
// with (an unknown handler name is named there, as Scrapy logs it when loading).
func downloadHandlers(settings *types.Settings, client *http.Client, env *downloadEnv) (map[string]DownloadHandler, map[string]error) {
	names := maps.Clone(handlersBase)
	for scheme, v := range settings.Map(types.DownloadHandlers) {
		name := ""
		if v != nil {
			name = fmt.Sprint(v)
		}
		names[strings.ToLower(scheme)] = name
	}
	handlers := map[string]DownloadHandler{}
	missing := map[string]error{}
	made := map[string]DownloadHandler{}
	for scheme, name := range names {
		if name == "" {
			missing[scheme] = fmt.Errorf("no download handler for URL scheme %q (%s disables it)", scheme, types.DownloadHandlers)
			continue
		}
		h, ok := made[name]
		if !ok {
			newHandler, known := builtinHandlers[name]
			if !known {
				missing[scheme] = fmt.Errorf("no download handler for URL scheme %q: %s names an unknown handler %q (known: %s)",
					scheme, types.DownloadHandlers, name, strings.Join(slices.Sorted(maps.Keys(builtinHandlers)), ", "))
				continue
			}
			h = newHandler(settings, client, env)
			made[name] = h
		}
		handlers[scheme] = h
	}
	return handlers, missing
}

// downloadEnv is what the download handlers share with their HTTPDownloader: the stats
// they count in, the logger (the engine sets it after NewHTTPDownloader) and the memory
// budget of the bodies being received.
type downloadEnv struct {
	stats  *Stats
	logger *slog.Logger
	budget *memBudget
}

func (d *downloadEnv) countRequest(method string, n int) {
	d.stats.Inc("downloader/request_count", 1)
	d.stats.Inc("downloader/request_method_count/"+method, 1)
	d.stats.Inc("downloader/request_bytes", int64(n))
}

func (d *downloadEnv) countResponse(status, n int) {
	d.stats.Inc("downloader/response_count", 1)
	d.stats.Inc("downloader/response_status_count/"+itoa(status), 1)
	d.stats.Inc("downloader/response_bytes", int64(n))
}
