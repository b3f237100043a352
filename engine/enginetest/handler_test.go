package enginetest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// testHandler serves test: URLs from pages, a map path → body, and counts its closes: a
// download handler made outside the engine package.
type testHandler struct {
	env    *engine.HandlerEnv
	pages  map[string]string
	closed *atomic.Int32
}

// Download implements engine.DownloadHandler.
func (h *testHandler) Download(ctx context.Context, req *types.Request, lim engine.DownloadLimits) (*types.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, &engine.DownloadError{Name: engine.NameCancelled, URL: req.URL, Err: err}
	}
	h.env.CountRequest(req.HTTPMethod(), len(req.URL))
	path := strings.TrimPrefix(req.URL, "test:")
	body, ok := h.pages[path]
	status := http.StatusOK
	if !ok {
		status, body = http.StatusNotFound, "no such page"
	}
	if lim.MaxSize > 0 && int64(len(body)) > lim.MaxSize {
		return nil, &engine.DownloadError{Name: engine.NameMaxSize, URL: req.URL, Err: fmt.Errorf("%d bytes", len(body))}
	}
	h.env.CountResponse(status, len(body))
	return &types.Response{URL: req.URL, Status: status, Headers: http.Header{"Content-Type": {"text/html"}},
		Body: []byte(body), Request: req}, nil
}

// Close implements io.Closer: the engine closes its handlers when the crawl ends.
func (h *testHandler) Close() error {
	h.closed.Add(1)
	return nil
}

var (
	registerOnce sync.Once
	closes       atomic.Int32 // of TestDownloadHandler's handlers
	routeCloses  atomic.Int32 // of the echo route's handlers
)

// register registers the test: handler and the echo route (requests whose meta.echo is
// set, whatever their scheme) once for the test binary.
func register() {
	registerOnce.Do(func() {
		pages := map[string]string{
			"/":  `<a href="test:/a">a</a> <a href="test:/b">b</a>`,
			"/a": `<a href="test:/b">b</a> <a href="test:/missing">m</a>`,
			"/b": `the end`,
		}
		engine.RegisterHandler("TestDownloadHandler", func(_ *types.Settings, env *engine.HandlerEnv) (engine.DownloadHandler, error) {
			return &testHandler{env: env, pages: pages, closed: &closes}, nil
		})
		engine.RegisterHandler("BrokenDownloadHandler", func(*types.Settings, *engine.HandlerEnv) (engine.DownloadHandler, error) {
			return nil, io.ErrUnexpectedEOF
		})
		engine.RegisterRoute("EchoRoute", func(req *types.Request) bool { return req.MetaValue("echo") != nil },
			func(_ *types.Settings, env *engine.HandlerEnv) (engine.DownloadHandler, error) {
				return &testHandler{env: env, pages: map[string]string{"/echo": "echoed"}, closed: &routeCloses}, nil
			})
	})
}

// TestRegisteredHandlerCrawls: a download handler registered from outside the engine
// package serves a URL scheme through DOWNLOAD_HANDLERS and DOWNLOAD_SCHEMES, with the
// downloader stats, the middlewares (a 404 is filtered) and the handler's Close at the
// end; a route takes the requests it matches whatever their scheme.
func TestRegisteredHandlerCrawls(t *testing.T) {
	register()
	handlers := map[string]any{"test": "TestDownloadHandler"}
	testSchemes := []any{"http", "https", "test"}
	tests := []struct {
		name     string
		start    []*types.Request
		kv       map[string]any
		parsed   []string // the URLs parsed, sorted
		failures []string // "URL: error" of the errback, sorted
		stats    map[string]int64
	}{
		{
			name:     "test scheme",
			start:    []*types.Request{{URL: "test:/"}},
			kv:       map[string]any{types.DownloadHandlers: handlers, types.DownloadSchemes: testSchemes},
			parsed:   []string{"test:/", "test:/a", "test:/b"},
			failures: []string{"test:/missing: " + engine.NameHTTPError},
			stats: map[string]int64{"downloader/request_count": 4, "downloader/response_count": 4,
				"downloader/response_status_count/404": 1},
		},
		{
			name:  "scheme not in DOWNLOAD_SCHEMES", // SchemeMiddleware drops the request
			start: []*types.Request{{URL: "test:/"}},
			kv:    map[string]any{types.DownloadHandlers: handlers},
			stats: map[string]int64{"downloader/request_count": 0},
		},
		{
			name:     "scheme without a handler",
			start:    []*types.Request{{URL: "test:/"}},
			kv:       map[string]any{types.DownloadSchemes: testSchemes},
			failures: []string{"test:/: " + engine.NameNotSupported},
		},
		{
			name:     "factory fails",
			start:    []*types.Request{{URL: "test:/"}},
			kv:       map[string]any{types.DownloadHandlers: map[string]any{"test": "BrokenDownloadHandler"}, types.DownloadSchemes: testSchemes},
			failures: []string{"test:/: " + engine.NameNotSupported},
		},
		{
			// engine/browser is not registered in this binary: a browser request fails
			// rather than being downloaded without rendering.
			name:     "browser request without the browser handler",
			start:    []*types.Request{{URL: "test:/", Meta: types.Item{{Key: types.MetaBrowser, Value: true}}}},
			kv:       map[string]any{types.DownloadHandlers: handlers, types.DownloadSchemes: testSchemes},
			failures: []string{"test:/: " + engine.NameNotSupported},
			stats:    map[string]int64{"downloader/request_count": 0},
		},
		{
			name:   "route", // no handler for the scheme: the route takes the request
			start:  []*types.Request{{URL: "test:/echo", Meta: types.Item{{Key: "echo", Value: true}}}},
			kv:     map[string]any{types.DownloadSchemes: testSchemes},
			parsed: []string{"test:/echo"},
			stats:  map[string]int64{"downloader/request_count": 1, "downloader/response_status_count/200": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Not parallel: the close counters are shared by the cases.
			var parsedRec, failuresRec enginetest.Recorder[string]
			spider := &enginetest.Spider{
				StartFunc: func(_ context.Context, emit engine.Emit) error {
					for _, r := range tc.start {
						r.Errback = "failed"
						emit(types.Output{Request: r})
					}
					return nil
				},
				ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
					parsedRec.Add(resp.URL)
					for _, u := range enginetest.Links(resp) {
						emit(types.Output{Request: &types.Request{URL: u, Errback: "failed"}})
					}
					return nil
				},
				ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
					failuresRec.Add(f.Request.URL + ": " + f.Name)
					return nil
				},
			}
			s := types.NewSettings()
			for k, v := range map[string]any{types.LogStatsInterval: 0, types.RobotsTxtObey: false} {
				if err := s.Set(k, v, types.PriorityCmdline); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tc.kv {
				if err := s.Set(k, v, types.PriorityCmdline); err != nil {
					t.Fatal(err)
				}
			}
			before, routeBefore := closes.Load(), routeCloses.Load()
			e := engine.New(spider, s)
			if err := e.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			parsed, failures := parsedRec.All(), failuresRec.All()
			slices.Sort(parsed)
			slices.Sort(failures)
			if !slices.Equal(parsed, tc.parsed) {
				t.Errorf("parsed %q, want %q", parsed, tc.parsed)
			}
			if !slices.Equal(failures, tc.failures) {
				t.Errorf("failures %q, want %q", failures, tc.failures)
			}
			for k, want := range tc.stats {
				if got, _ := e.Stats().Get(k).(int64); got != want {
					t.Errorf("stat %s = %d, want %d", k, got, want)
				}
			}
			wantCloses := int32(0)
			if tc.kv[types.DownloadHandlers] != nil && fmt.Sprint(tc.kv[types.DownloadHandlers]) == fmt.Sprint(handlers) {
				wantCloses = 1
			}
			if got := closes.Load() - before; got != wantCloses {
				t.Errorf("TestDownloadHandler closed %d times, want %d", got, wantCloses)
			}
			if got := routeCloses.Load() - routeBefore; got != 1 {
				t.Errorf("the route's handler closed %d times, want 1", got)
			}
		})
	}
}

// TestRegisterPanics: a name registered twice, or a registration without a name or a
// factory, is a wiring error.
func TestRegisterPanics(t *testing.T) {
	register()
	factory := func(*types.Settings, *engine.HandlerEnv) (engine.DownloadHandler, error) { return nil, nil }
	match := func(*types.Request) bool { return false }
	tests := []struct {
		name string
		do   func()
	}{
		{"handler twice", func() { engine.RegisterHandler("TestDownloadHandler", factory) }},
		{"built-in name", func() { engine.RegisterHandler(engine.HTTPDownloadHandler, factory) }},
		{"no name", func() { engine.RegisterHandler("", factory) }},
		{"no factory", func() { engine.RegisterHandler("NilFactory", nil) }},
		{"route twice", func() { engine.RegisterRoute("EchoRoute", match, factory) }},
		{"route without match", func() { engine.RegisterRoute("NoMatch", nil, factory) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.do()
		})
	}
	if names := engine.HandlerNames(); !slices.Contains(names, "TestDownloadHandler") || !slices.Contains(names, engine.FileDownloadHandler) {
		t.Errorf("HandlerNames() = %q", names)
	}
}

// TestImpersonateNeedsPlugin: without engine/impersonate registered (this binary does
// not), HTTP_IMPERSONATE is refused before the crawl and fails its downloads, rather than
// downloading with Go's own fingerprint.
func TestImpersonateNeedsPlugin(t *testing.T) {
	t.Parallel()
	s := types.NewSettings()
	for k, v := range map[string]any{types.LogStatsInterval: 0, types.RobotsTxtObey: false, types.HTTPImpersonate: "chrome"} {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	if err := engine.CheckImpersonate(s); err == nil || !strings.Contains(err.Error(), "engine/impersonate") {
		t.Errorf("CheckImpersonate = %v, want the missing plug-in", err)
	}
	srv := enginetest.Start(t)
	var failures enginetest.Recorder[string]
	spider := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: srv.URL + "/", Errback: "failed"}})
			return nil
		},
		ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
			failures.Add(f.Name)
			return nil
		},
	}
	if err := engine.New(spider, s).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := failures.All(); !slices.Equal(got, []string{engine.NameNotSupported}) {
		t.Errorf("failures %q, want [%s]", got, engine.NameNotSupported)
	}
	if n := srv.Hits("/"); n != 0 {
		t.Errorf("the site got %d requests, want 0", n)
	}
}

// decorated counts the downloads of the handler it wraps and marks their responses.
type decorated struct {
	inner engine.DownloadHandler
	n     *atomic.Int32
}

// Download implements engine.DownloadHandler.
func (d decorated) Download(ctx context.Context, req *types.Request, lim engine.DownloadLimits) (*types.Response, error) {
	d.n.Add(1)
	resp, err := d.inner.Download(ctx, req, lim)
	if resp != nil {
		resp.Headers.Set("X-Decorated", "yes")
	}
	return resp, err
}

// Unwrap returns the handler d wraps.
func (d decorated) Unwrap() engine.DownloadHandler { return d.inner }

// TestHandlerDecorator: a decorator given from outside the engine wraps every handler the
// engine made, once per handler, each download going through it; Engine.DownloadHandler
// still returns the handler as made.
func TestHandlerDecorator(t *testing.T) {
	register()
	var n, wrapped atomic.Int32
	var marks enginetest.Recorder[string]
	spider := &enginetest.Spider{
		StartURLs: []string{"test:/"},
		ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
			marks.Add(resp.Headers.Get("X-Decorated"))
			for _, u := range enginetest.Links(resp) {
				emit(types.Output{Request: &types.Request{URL: u}})
			}
			return nil
		},
	}
	s := types.NewSettings()
	for k, v := range map[string]any{types.LogStatsInterval: 0, types.RobotsTxtObey: false,
		types.DownloadHandlers: map[string]any{"test": "TestDownloadHandler"}, types.DownloadSchemes: []any{"test"}} {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	e := engine.New(spider, s, engine.WithHandlerDecorator(func(h engine.DownloadHandler, env *engine.HandlerEnv) engine.DownloadHandler {
		wrapped.Add(1)
		return decorated{inner: h, n: &n}
	}))
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// http and https share one handler; file, data, test and the echo route: 5 handlers.
	if got := wrapped.Load(); got != 5 {
		t.Errorf("the decorator wrapped %d handlers, want 5", got)
	}
	if got := n.Load(); got != 4 {
		t.Errorf("%d downloads through the decorator, want 4 (/, /a, /b, /missing)", got)
	}
	if got := marks.All(); !slices.Equal(got, []string{"yes", "yes", "yes"}) {
		t.Errorf("parsed responses marked %q, want 3 marked", got)
	}
	if _, ok := e.DownloadHandler("TestDownloadHandler").(*testHandler); !ok {
		t.Errorf("DownloadHandler = %T, want the handler as made", e.DownloadHandler("TestDownloadHandler"))
	}
}
