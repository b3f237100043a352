package browser_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/browser"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

func TestBrowserRendersPage(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, enginetest.BrowserMux())
	var mu sync.Mutex
	got := map[string]*types.Response{}
	sp := &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			for _, r := range []*types.Request{
				{URL: srv.URL + "/app", Meta: types.Item{{Key: "browser", Value: types.Item{{Key: "waitUntil", Value: "networkidle"}}}}, CbKwargs: types.Item{{Key: "k", Value: "browser"}}},
				{URL: srv.URL + "/app", CbKwargs: types.Item{{Key: "k", Value: "plain"}}},
				{URL: srv.URL + "/late", Meta: types.Item{{Key: "browser", Value: types.Item{{Key: "waitFor", Value: "#late"}}}}, CbKwargs: types.Item{{Key: "k", Value: "waitFor"}}},
				{URL: srv.URL + "/missing", Meta: types.Item{{Key: "browser", Value: true}, {Key: types.MetaHandleHTTPStatusAll, Value: true}}, CbKwargs: types.Item{{Key: "k", Value: "404"}}},
			} {
				emit(types.Output{Request: r})
			}
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			k, _ := resp.Request.CbKwargs.Get("k")
			mu.Lock()
			got[k.(string)] = resp
			mu.Unlock()
			return nil
		},
	}
	e, logs := enginetest.Crawl(t, sp, nil)
	if len(got) != 4 {
		t.Fatalf("got responses %v, want 4; log:\n%s", got, logs)
	}
	if b := got["browser"]; !bytes.Contains(b.Body, []byte(`<li class="product">pear</li>`)) || b.Status != 200 || b.Headers.Get("X-Doc") != "main" {
		t.Errorf("rendered /app: status %d, X-Doc %q, body:\n%s", b.Status, b.Headers.Get("X-Doc"), b.Body)
	}
	if p := got["plain"]; bytes.Contains(p.Body, []byte("pear")) {
		t.Errorf("plain /app has the rendered products:\n%s", p.Body)
	}
	if b := got["waitFor"]; !bytes.Contains(b.Body, []byte(`<div id="late">arrived</div>`)) {
		t.Errorf("waitFor #late: body without it:\n%s", b.Body)
	}
	if b := got["404"]; b.Status != 404 || !strings.Contains(string(b.Body), "not here") {
		t.Errorf("/missing: status %d, body:\n%s", b.Status, b.Body)
	}
	if n := srv.Hits("/app"); n != 2 {
		t.Errorf("/app hits = %d, want 2 (a browser and a plain request are different requests)", n)
	}
	if n := enginetest.Stat(e, "browser/page_count"); n != 3 {
		t.Errorf("browser/page_count = %d, want 3", n)
	}
	if n := strings.Count(logs, "WARNING: Running Chromium without its sandbox"); os.Geteuid() == 0 && n != 1 {
		t.Errorf("as root: %d sandbox warnings, want 1:\n%s", n, logs)
	}
	if s, _ := e.Stats().Get("browser/page_seconds").(float64); s <= 0 {
		t.Errorf("browser/page_seconds = %v, want > 0", e.Stats().Get("browser/page_seconds"))
	}
}

func TestBrowserBlocksResources(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := http.NewServeMux()
	img := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
	}
	mux.HandleFunc("/img-a.png", img)
	mux.HandleFunc("/img-b.png", img)
	mux.HandleFunc("/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		_, _ = w.Write([]byte("body { color: black }"))
	})
	for _, name := range []string{"a", "b"} {
		mux.HandleFunc("/page-"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><head><link rel="stylesheet" href="/style.css"></head><body><img src="/img-` + name + `.png"></body></html>`))
		})
	}
	srv := enginetest.StartWith(t, mux)
	var shot []byte
	sp := &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			emit(types.Output{Request: enginetest.BrowserRequest(srv.URL+"/page-a", types.Item{{Key: "screenshot", Value: true}})})
			emit(types.Output{Request: enginetest.BrowserRequest(srv.URL+"/page-b", types.Item{{Key: "blockResources", Value: []any{}}})})
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			if strings.HasSuffix(resp.URL, "/page-a") {
				shot = resp.Screenshot
			}
			return nil
		},
	}
	e, logs := enginetest.Crawl(t, sp, nil)
	if srv.Hits("/img-a.png") != 0 || srv.Hits("/img-b.png") != 1 || srv.Hits("/style.css") != 2 {
		t.Errorf("hits: img-a %d (blocked: want 0), img-b %d (blockResources []: want 1), style.css %d (want 2); log:\n%s",
			srv.Hits("/img-a.png"), srv.Hits("/img-b.png"), srv.Hits("/style.css"), logs)
	}
	if n := enginetest.Stat(e, "browser/blocked_resource_count"); n != 1 {
		t.Errorf("browser/blocked_resource_count = %d, want 1", n)
	}
	if !bytes.HasPrefix(shot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot is not a PNG: % x", shot[:min(len(shot), 16)])
	}
}

func TestBrowserCookiesBothWays(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "srv=1; Path=/")
		_, _ = w.Write([]byte("set"))
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><p id="sent">` + r.Header.Get("Cookie") + `</p><script>document.cookie = "js=2; path=/";</script></body></html>`))
	})
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.Header.Get("Cookie")))
	})
	srv := enginetest.StartWith(t, mux)
	var sent, after string
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/set"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			switch {
			case strings.HasSuffix(resp.URL, "/set"):
				emit(types.Output{Request: enginetest.BrowserRequest(srv.URL+"/page", nil)})
			case strings.HasSuffix(resp.URL, "/page"):
				sent = string(resp.Body)
				emit(types.Output{Request: &types.Request{URL: srv.URL + "/show"}})
			default:
				after = string(resp.Body)
			}
			return nil
		},
	}
	_, logs := enginetest.Crawl(t, sp, nil)
	if !strings.Contains(sent, `<p id="sent">srv=1</p>`) {
		t.Errorf("the page was not sent the jar's cookie srv=1:\n%s\nlog:\n%s", sent, logs)
	}
	if !strings.Contains(after, "js=2") || !strings.Contains(after, "srv=1") {
		t.Errorf("after the page, a plain request sent Cookie %q, want srv=1 and the page's js=2; log:\n%s", after, logs)
	}
}

func TestBrowserRobotsAndOffsite(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, enginetest.BrowserMux())
	local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	var failures enginetest.Recorder[string]
	sp := &enginetest.Spider{
		Domains:   []string{"127.0.0.1"},
		StartURLs: []string{srv.URL + "/app"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			for _, u := range []string{srv.URL + "/private", local + "/late"} {
				r := enginetest.BrowserRequest(u, nil)
				r.Errback = "errback"
				emit(types.Output{Request: r})
			}
			return nil
		},
		ErrbackFunc: func(ctx context.Context, f *types.Failure, emit engine.Emit) error {
			failures.Add(f.Name + " " + f.Request.URL)
			return nil
		},
	}
	e, logs := enginetest.Crawl(t, sp, map[string]any{types.RobotsTxtObey: true})
	if srv.Hits("/private") != 0 || srv.Hits("/late") != 0 {
		t.Errorf("hits: /private %d (robots.txt disallows it), /late %d (offsite), want 0; log:\n%s", srv.Hits("/private"), srv.Hits("/late"), logs)
	}
	wantStats(t, e, logs, map[string]int64{"robotstxt/forbidden": 1, "offsite/filtered": 1, "browser/page_count": 0})
	if got, want := failures.All(), []string{"IgnoreRequest " + srv.URL + "/private"}; !slices.Equal(got, want) {
		t.Errorf("errbacks got %v, want %v", got, want)
	}
}

func TestBrowserCrashRestarts(t *testing.T) {
	enginetest.RequireBrowser(t)
	arrived := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/crash", func(w http.ResponseWriter, r *http.Request) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(arrived)
			<-r.Context().Done() // the browser dies while it waits for the page
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><p id="ok">after the crash</p></body></html>`))
	})
	srv := enginetest.StartWith(t, mux)
	killed := make(chan []int, 1)
	go func() {
		<-arrived
		pids := enginetest.ChildProcesses(os.Getpid(), "chrom")
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		killed <- pids
	}()
	var body string
	sp := &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			emit(types.Output{Request: enginetest.BrowserRequest(srv.URL+"/crash", nil)})
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			body = string(resp.Body)
			return nil
		},
	}
	e, logs := enginetest.Crawl(t, sp, map[string]any{types.RetryTimes: 2})
	if pids := <-killed; len(pids) == 0 {
		t.Fatal("found no chromium process to kill")
	}
	if !strings.Contains(body, "after the crash") {
		t.Errorf("the request was not retried in a new browser: body %q; log:\n%s", body, logs)
	}
	wantStats(t, e, logs, map[string]int64{"browser/crash_count": 1, "retry/reason_count/ConnectionLostError": 1})
}

// TestBrowserLeavesNoTabOpen: pages that fail close their tab; the tabs of pages that
// loaded are kept for the next page (BROWSER_PAGE_REUSE) or closed (1), and a kept page
// (includePage) holds its tab until it is closed.
func TestBrowserLeavesNoTabOpen(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := enginetest.BrowserMux()
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	srv := enginetest.StartWith(t, mux)
	for _, tc := range []struct {
		reuse int
		idle  int // tabs kept at the end: the kept page's, cleared
	}{{1, 0}, {100, 1}} {
		t.Run(fmt.Sprintf("BROWSER_PAGE_REUSE=%d", tc.reuse), func(t *testing.T) {
			e, _ := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.RetryEnabled: false, types.BrowserPageReuse: tc.reuse})
			defer func() { _ = e.CloseHandlers() }()
			ctx := context.Background()
			var kept []types.Page
			for _, r := range []*types.Request{
				enginetest.BrowserRequest(srv.URL+"/app", nil),
				enginetest.BrowserRequest(srv.URL+"/missing", nil),
				enginetest.BrowserRequest(srv.URL+"/hang", types.Item{{Key: "timeout", Value: 0.5}}),
				enginetest.BrowserRequest(srv.URL+"/late", types.Item{{Key: "includePage", Value: true}}),
				enginetest.BrowserRequest(srv.URL+"/late", types.Item{{Key: "includePage", Value: true}, {Key: "waitFor", Value: "#nothing"}, {Key: "timeout", Value: 0.5}}),
			} {
				resp, err := e.Download(ctx, r)
				if err == nil && resp.Page != nil {
					kept = append(kept, resp.Page)
				}
			}
			if len(kept) != 1 {
				t.Fatalf("kept %d pages, want 1 (the includePage request that loaded)", len(kept))
			}
			// The first two pages rendered in one tab, which the hung page then lost.
			idle := browser.IdleTabs(e)
			pages, contexts, err := browser.Tabs(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			if idle != 0 || pages != 2 || contexts != 1 {
				t.Errorf("with one page kept: %d tabs, %d incognito contexts, %d idle; want 2 (about:blank and the kept one), 1 and 0", pages, contexts, idle)
			}
			_ = kept[0].Close()
			idle = browser.IdleTabs(e)
			pages, contexts, err = browser.Tabs(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			if idle != tc.idle || pages != 1+tc.idle || contexts != tc.idle {
				t.Errorf("at the end: %d tabs, %d incognito contexts, %d idle; want %d (the browser's about:blank and the idle ones), %d and %d",
					pages, contexts, idle, 1+tc.idle, tc.idle, tc.idle)
			}
		})
	}
}

func TestBrowserProxyAndCache(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, enginetest.BrowserMux())
	target, _ := url.Parse(srv.URL)
	var proxied enginetest.Recorder[string]
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("u:p")) {
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusProxyAuthRequired)
			return
		}
		proxied.Add(r.URL.Host + r.URL.Path)
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Host = target.Host // every host is the test site
		out.Header.Del("Proxy-Authorization")
		enginetest.Relay(w, http.DefaultTransport, out)
	}))
	t.Cleanup(proxy.Close)
	proxyURL := strings.Replace(proxy.URL, "http://", "http://u:p@", 1)
	dir := t.TempDir()
	for _, run := range []string{"first", "cached"} {
		var got *types.Response
		sp := &enginetest.Spider{
			StartFunc: func(ctx context.Context, emit engine.Emit) error {
				r := enginetest.BrowserRequest("http://site.test/app", types.Item{{Key: "waitUntil", Value: "networkidle"}})
				r.Meta = append(r.Meta, types.Field{Key: types.MetaProxy, Value: proxyURL})
				emit(types.Output{Request: r})
				return nil
			},
			ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
				got = resp
				return nil
			},
		}
		e, logs := enginetest.Crawl(t, sp, map[string]any{types.HTTPCacheEnabled: true, types.HTTPCacheDir: dir})
		if got == nil || !bytes.Contains(got.Body, []byte(`<li class="product">plum</li>`)) {
			t.Fatalf("%s run: no rendered page through the proxy: %v; log:\n%s", run, got, logs)
		}
		cached := slices.Contains(got.Flags, "cached")
		if cached != (run == "cached") || (enginetest.Stat(e, "browser/page_count") == 1) == cached {
			t.Errorf("%s run: flags %v, browser/page_count %d", run, got.Flags, enginetest.Stat(e, "browser/page_count"))
		}
	}
	seen := slices.DeleteFunc(proxied.All(), func(s string) bool { return strings.HasSuffix(s, "/favicon.ico") })
	if !slices.Equal(seen, []string{"site.test/app", "site.test/api/products"}) {
		t.Errorf("the proxy served %v, want the page and its API call once (the second run is cached)", seen)
	}
}

// crawlFailing crawls r, with an errback, and plain: it returns the Failure the errback got
// (nil: none) and how many responses reached the callback.
func crawlFailing(t *testing.T, r *types.Request, plain []string, kv map[string]any) (failure *types.Failure, parsed int, e *engine.Engine, logs string) {
	t.Helper()
	var mu sync.Mutex
	var n atomic.Int64
	r.Errback = "errback"
	sp := &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			emit(types.Output{Request: r})
			for _, u := range plain {
				emit(types.Output{Request: &types.Request{URL: u}})
			}
			return nil
		},
		ParseFunc: func(context.Context, *types.Response, engine.Emit) error { n.Add(1); return nil },
		ErrbackFunc: func(ctx context.Context, f *types.Failure, emit engine.Emit) error {
			mu.Lock()
			defer mu.Unlock()
			failure = f
			return nil
		},
	}
	e, logs = enginetest.Crawl(t, sp, kv)
	return failure, int(n.Load()), e, logs
}

// wantStats checks integer stats.
func wantStats(t *testing.T, e *engine.Engine, logs string, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		if n := enginetest.Stat(e, k); n != v {
			t.Errorf("%s = %d, want %d; log:\n%s", k, n, v, logs)
		}
	}
}

func TestBrowserFailures(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="data.bin"`)
		_, _ = w.Write(bytes.Repeat([]byte("x"), 1000))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("plain")) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		// A small page whose script renders 10,000 characters.
		_, _ = w.Write([]byte(`<html><body><div id="out"></div><script>document.getElementById("out").textContent = "x".repeat(10000);</script></body></html>`))
	})
	for _, tc := range []struct {
		name     string
		browser  bool // needs Chromium
		path     string
		opts     types.Item
		kv       map[string]any
		wantName string
		wantMsg  string
		hits     int // of path (-1: not checked: a loaded machine may not send the request in time)
		stats    map[string]int64
	}{
		{"a page that never loads times out and is retried", true, "/hang", types.Item{{Key: "timeout", Value: 1.5}},
			map[string]any{types.RetryTimes: 1}, engine.NameTimeout, "did not load within 1.5s", -1,
			map[string]int64{"retry/reason_count/TimeoutError": 1, "browser/page_count": 2, "downloader/request_count": 3}},
		{"a file download is refused, not retried", true, "/file", nil, nil,
			engine.NameNotSupported, "file download", 1, map[string]int64{"retry/count": 0}},
		{"a rendered page over DOWNLOAD_MAXSIZE fails with MaxSizeError", true, "/big", nil,
			map[string]any{types.DownloadMaxSize: 4000}, engine.NameMaxSize, "rendered page size", 1,
			map[string]int64{"browser/page_count": 1, "retry/count": 0}},
		{"no Chromium: BrowserNotFoundError, the plain request goes on", false, "/hang", nil,
			map[string]any{types.BrowserExecutable: "/nonexistent/chromium"}, engine.NameBrowserNotFound, "apt-get install chromium", 0,
			map[string]int64{"browser/page_count": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.browser {
				enginetest.RequireBrowser(t)
			}
			srv := enginetest.StartWith(t, mux)
			f, parsed, e, logs := crawlFailing(t, enginetest.BrowserRequest(srv.URL+tc.path, tc.opts), []string{srv.URL + "/plain"}, tc.kv)
			if f == nil || f.Name != tc.wantName || !strings.Contains(f.Message, tc.wantMsg) {
				t.Fatalf("errback got %v, want a %s saying %q; log:\n%s", f, tc.wantName, tc.wantMsg, logs)
			}
			if n := srv.Hits(tc.path); tc.hits >= 0 && n != tc.hits {
				t.Errorf("%s hits = %d, want %d; log:\n%s", tc.path, n, tc.hits, logs)
			}
			if parsed != 1 {
				t.Errorf("the plain request was parsed %d times, want 1", parsed)
			}
			wantStats(t, e, logs, tc.stats)
		})
	}
}

func TestBrowserOpenPageHoldsItsPlace(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, enginetest.BrowserMux())
	e, _ := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.BrowserConcurrency: 1})
	defer func() { _ = e.CloseHandlers() }()
	ctx := context.Background()
	resp, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/app", types.Item{{Key: "includePage", Value: true}}))
	if err != nil || resp.Page == nil {
		t.Fatalf("includePage: %v, page %v", err, resp)
	}
	// With BROWSER_CONCURRENCY 1 the open page leaves no place: the next page waits.
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if _, err := e.Download(short, enginetest.BrowserRequest(srv.URL+"/late", nil)); err == nil {
		t.Fatal("a second page loaded while the first was open")
	}
	if n := srv.Hits("/late"); n != 0 {
		t.Errorf("/late hits = %d while the only place was taken, want 0", n)
	}
	_ = resp.Page.Close()
	if _, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/late", nil)); err != nil {
		t.Errorf("after the page was closed: %v", err)
	}
}

func TestBrowserRetriedPageIsClosed(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := http.NewServeMux()
	var mu sync.Mutex
	tries := 0
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tries++
		n := tries
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_, _ = w.Write([]byte("<p>try</p>"))
	})
	srv := enginetest.StartWith(t, mux)
	// BROWSER_CONCURRENCY 1: the retry gets a place only if the 503's page was closed.
	e, _ := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.BrowserConcurrency: 1, types.RetryTimes: 1})
	defer func() { _ = e.CloseHandlers() }()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resp, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/flaky", types.Item{{Key: "includePage", Value: true}}))
	if err != nil || resp.Status != 200 || resp.Page == nil {
		t.Fatalf("Download: %v, %v", err, resp)
	}
	_ = resp.Page.Close()
}

// slowChromium returns a script that starts the machine's Chromium after sleeping the
// given seconds: a browser whose start-up takes that long.
func slowChromium(t *testing.T, seconds string) string {
	chromium := enginetest.RequireBrowser(t)
	slow := filepath.Join(t.TempDir(), "slow-chromium")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nsleep "+seconds+"\nexec '"+chromium+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return slow
}

// threeBrowserPages is a spider that starts with browser requests for prefix 0, 1 and 2
// and whose callback does nothing.
func threeBrowserPages(prefix string) *enginetest.Spider {
	return &enginetest.Spider{
		StartFunc: func(ctx context.Context, emit engine.Emit) error {
			for n := range 3 {
				emit(types.Output{Request: enginetest.BrowserRequest(prefix+strconv.Itoa(n), nil)})
			}
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error { return nil },
	}
}

// TestBrowserDownloadDelay checks that browser requests keep DOWNLOAD_DELAY between them
// like plain ones: three pages of one host, with room for three at once in Chromium,
// reach the server a delay apart. Chromium is started through a script that makes its
// start-up take 1.5 s, longer than the delay: before SlotPrepare the requests passed their
// slot while it started and reached the server together once it was up.
func TestBrowserDownloadDelay(t *testing.T) {
	slow := slowChromium(t, "1.5")
	const delay = 1200 * time.Millisecond
	var arrived enginetest.Recorder[time.Time]
	mux := enginetest.BrowserMux()
	mux.HandleFunc("/d/{n}", func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(time.Now())
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>d</title><p>" + r.PathValue("n") + "</p>"))
	})
	srv := enginetest.StartWith(t, mux)
	sp := threeBrowserPages(srv.URL + "/d/")
	e, logs := enginetest.Crawl(t, sp, map[string]any{types.DownloadDelay: delay.Seconds(), types.RandomizeDownloadDelay: false,
		types.BrowserConcurrency: 3, types.ConcurrentRequestsPerDomain: 3, types.BrowserExecutable: slow})
	wantStats(t, e, logs, map[string]int64{"browser/page_count": 3})
	arrivals := arrived.All()
	if len(arrivals) != 3 {
		t.Fatalf("%d page requests reached the server, want 3; log:\n%s", len(arrivals), logs)
	}
	// The delay spaces the starts of the downloads, and each page opens a tab in a new
	// incognito context (50-150 ms here, over half a second on a loaded machine) or reuses
	// one (a few ms) before its request reaches the server: a slow set-up before a fast one
	// shortens the gap between them. So the span from the first page to the last must hold
	// both delays, less a set-up's slack; without SlotPrepare the three came within 200 ms.
	if span, want := arrivals[2].Sub(arrivals[0]), 2*delay-800*time.Millisecond; span < want {
		t.Errorf("the three pages came within %v (gaps %v, %v), want at least %v: DOWNLOAD_DELAY (%v) apart",
			span, arrivals[1].Sub(arrivals[0]), arrivals[2].Sub(arrivals[1]), want, delay)
	}
}

// TestBrowserAutoThrottle: AutoThrottle spaces browser pages by their latency, measured
// from the slot's start to the rendered page, so Chromium's start-up (3 s here, through a
// wrapper script) is not counted: every AUTOTHROTTLE_DEBUG latency stays under it, and the
// slot's delay rises toward the page's own latency (the server answers after 300 ms).
func TestBrowserAutoThrottle(t *testing.T) {
	slow := slowChromium(t, "3")
	const serverLatency = 300 * time.Millisecond
	mux := enginetest.BrowserMux()
	mux.HandleFunc("/t/{n}", func(w http.ResponseWriter, r *http.Request) {
		<-time.After(serverLatency)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>t</title><p>" + r.PathValue("n") + "</p>"))
	})
	srv := enginetest.StartWith(t, mux)
	sp := threeBrowserPages(srv.URL + "/t/")
	e, logs := enginetest.Crawl(t, sp, map[string]any{types.AutoThrottleEnabled: true, types.AutoThrottleDebug: true,
		types.AutoThrottleStartDelay: 0.0, types.AutoThrottleMaxDelay: 60.0, types.RandomizeDownloadDelay: false,
		types.ConcurrentRequestsPerDomain: 1, types.BrowserExecutable: slow})
	wantStats(t, e, logs, map[string]int64{"browser/page_count": 3})
	re := regexp.MustCompile(`delay:\s*(\d+) ms \([-+]\d+\) \| latency:\s*(\d+) ms`)
	lines := re.FindAllStringSubmatch(logs, -1)
	if len(lines) != 3 {
		t.Fatalf("%d AUTOTHROTTLE_DEBUG lines, want one per page:\n%s", len(lines), logs)
	}
	var delay time.Duration
	for i, m := range lines {
		d, _ := strconv.Atoi(m[1])
		lat, _ := strconv.Atoi(m[2])
		latency := time.Duration(lat) * time.Millisecond
		if latency < serverLatency || latency >= 3*time.Second {
			t.Errorf("page %d: latency %v, want the page's own (%v or a little more), not Chromium's start-up", i, latency, serverLatency)
		}
		delay = time.Duration(d) * time.Millisecond
	}
	// From 0, each page takes the delay halfway to the latency: after 3, 7/8 of it.
	if delay < serverLatency*7/8 || delay >= 3*time.Second {
		t.Errorf("the slot's delay after 3 pages is %v, want about the page's latency (%v or a little more)", delay, serverLatency)
	}
}

// TestBrowserReusesTabs: pages render one after another in one tab, up to
// BROWSER_PAGE_REUSE pages a tab, each page its own document: a page of the same URL as
// the one before but for its fragment is loaded again, not scrolled to.
func TestBrowserReusesTabs(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := enginetest.BrowserMux()
	var mu sync.Mutex
	hits := map[string]int{}
	mux.HandleFunc("/n/{n}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.PathValue("n")]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>n</title><p id=n></p><script>document.getElementById("n").textContent = "page " + ` +
			jsStringLit(r.PathValue("n")) + ` + " " + location.hash;</script>`))
	})
	srv := enginetest.StartWith(t, mux)
	urls := []string{"/n/1", "/n/2", "/n/2#frag", "/n/3", "/n/4"}
	for _, tc := range []struct {
		reuse, tabs int
	}{{100, 1}, {2, 3}, {1, 5}} {
		t.Run(fmt.Sprintf("BROWSER_PAGE_REUSE=%d", tc.reuse), func(t *testing.T) {
			mu.Lock()
			clear(hits)
			mu.Unlock()
			e, logs := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.BrowserConcurrency: 1, types.BrowserPageReuse: tc.reuse})
			defer func() { _ = e.CloseHandlers() }()
			for _, u := range urls {
				resp, err := e.Download(context.Background(), enginetest.BrowserRequest(srv.URL+u, nil))
				if err != nil {
					t.Fatalf("%s: %v", u, err)
				}
				n, hash, _ := strings.Cut(strings.TrimPrefix(u, "/n/"), "#")
				if hash != "" {
					hash = "#" + hash
				}
				if want := `<p id="n">page ` + n + " " + hash + `</p>`; !bytes.Contains(resp.Body, []byte(want)) || resp.URL != srv.URL+u {
					t.Errorf("%s: URL %s, body without %s:\n%s", u, resp.URL, want, resp.Body)
				}
			}
			wantStats(t, e, logs.String(), map[string]int64{"browser/page_count": int64(len(urls)), "browser/tab_count": int64(tc.tabs)})
			mu.Lock()
			defer mu.Unlock()
			if hits["2"] != 2 {
				t.Errorf("/n/2 reached the server %d times, want 2 (with and without the fragment)", hits["2"])
			}
		})
	}
}

// renderedPage is what renderInOneTab read of a page.
type renderedPage struct {
	url string // the page's URL when it was read
	out string // the text of its <pre id=out>
}

// renderInOneTab renders the paths of base one after another, each until body[data-done],
// in one tab (BROWSER_CONCURRENCY 1), without the cookie jar (so no cookie comes back
// through it).
func renderInOneTab(t *testing.T, base string, paths ...string) (*engine.Engine, string, []renderedPage) {
	t.Helper()
	e, logs := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.BrowserConcurrency: 1, types.CookiesEnabled: false})
	t.Cleanup(func() { _ = e.CloseHandlers() })
	var got []renderedPage
	for _, u := range paths {
		resp, err := e.Download(context.Background(), enginetest.BrowserRequest(base+u, types.Item{{Key: "waitFor", Value: "body[data-done]"}}))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		_, after, _ := strings.Cut(string(resp.Body), `<pre id="out">`)
		out, _, _ := strings.Cut(after, "</pre>")
		got = append(got, renderedPage{url: resp.URL, out: html.UnescapeString(out)})
	}
	return e, logs.String(), got
}

// jsStringLit quotes s for a script.
func jsStringLit(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestBrowserReusedTabIsClean: a page rendered in a reused tab finds none of what the page
// before it left: cookies (set by the server and by script), local and session storage,
// IndexedDB, and the HTTP cache (a script cached for an hour is fetched again). The
// cookie jar is off, so that no cookie comes back through it.
func TestBrowserReusedTabIsClean(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := http.NewServeMux()
	var scripts atomic.Int64
	mux.HandleFunc("/cached.js", func(w http.ResponseWriter, r *http.Request) {
		scripts.Add(1)
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write([]byte(`window.cachedLoaded = true;`))
	})
	mux.HandleFunc("/state", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("set") != "" {
			http.SetCookie(w, &http.Cookie{Name: "server", Value: "1", Path: "/", MaxAge: 3600})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>s</title><script src="/cached.js"></script><pre id=out></pre><script>
const set = location.search.includes("set");
const out = (s) => { document.getElementById("out").textContent = s; document.body.setAttribute("data-done", "1"); };
if (set) {
  document.cookie = "script=1; max-age=3600; path=/";
  localStorage.setItem("local", "1");
  sessionStorage.setItem("session", "1");
}
const open = indexedDB.open("db", 1);
open.onupgradeneeded = () => open.result.createObjectStore("s");
open.onsuccess = () => {
  const db = open.result;
  const tx = db.transaction("s", "readwrite");
  const st = tx.objectStore("s");
  if (set) st.put("1", "k");
  const get = st.get("k");
  get.onsuccess = () => out(JSON.stringify({cookie: document.cookie, local: localStorage.getItem("local"),
    session: sessionStorage.getItem("session"), idb: get.result ?? null}));
};
</script>`))
	})
	srv := enginetest.StartWith(t, mux)
	e, logs, got := renderInOneTab(t, srv.URL, "/state?set=1", "/state")
	if want := `{"cookie":"server=1; script=1","local":"1","session":"1","idb":"1"}`; got[0].out != want {
		t.Errorf("the first page's own state: %s, want %s", got[0].out, want)
	}
	if want := `{"cookie":"","local":null,"session":null,"idb":null}`; got[1].out != want {
		t.Errorf("the next page in the same tab found %s, want %s", got[1].out, want)
	}
	if n := scripts.Load(); n != 2 {
		t.Errorf("the cached script reached the server %d times, want 2: the next page used the last one's cache", n)
	}
	wantStats(t, e, logs, map[string]int64{"browser/page_count": 2, "browser/tab_count": 1})
}

// TestBrowserSessionStorageOfALeftOrigin: session storage is the tab's, reached through a
// frame of its origin, so a page that went on to another origin leaves its first origin's
// out of reach: the tab is closed rather than reused, and the next page on that origin
// finds none.
func TestBrowserSessionStorageOfALeftOrigin(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := http.NewServeMux()
	var other string // the test server as localhost: another origin
	page := func(body func() string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!doctype html><title>s</title>" + body()))
		}
	}
	mux.HandleFunc("/set", page(func() string {
		return `<script>sessionStorage.setItem("session", "1");
addEventListener("load", () => setTimeout(() => { location.href = ` + jsStringLit(other+"/elsewhere") + `; }, 10));</script>`
	}))
	mux.HandleFunc("/elsewhere", page(func() string { return `<body data-done=1>elsewhere</body>` }))
	mux.HandleFunc("/get", page(func() string {
		return `<pre id=out></pre><script>document.getElementById("out").textContent = String(sessionStorage.getItem("session"));
document.body.setAttribute("data-done", "1");</script>`
	}))
	srv := enginetest.StartWith(t, mux)
	other = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	e, logs, got := renderInOneTab(t, srv.URL, "/set", "/get")
	if want := other + "/elsewhere"; got[0].url != want {
		t.Errorf("the first page ended at %q, want %q", got[0].url, want)
	}
	if got[1].out != "null" {
		t.Errorf("the next page found session storage %q, want null", got[1].out)
	}
	wantStats(t, e, logs, map[string]int64{"browser/page_count": 2, "browser/tab_count": 2})
}

// TestBrowserIdleTabClosed: a tab no page has used for the idle timeout (30 s; 300 ms
// here) is closed, so a crawl whose browser requests are over does not keep their
// renderers.
func TestBrowserIdleTabClosed(t *testing.T) {
	enginetest.RequireBrowser(t)
	srv := enginetest.StartWith(t, enginetest.BrowserMux())
	e, _ := enginetest.NewEngine(t, &enginetest.Spider{}, nil)
	defer func() { _ = e.CloseHandlers() }()
	browser.SetIdleTimeout(e, 300*time.Millisecond)
	ctx := context.Background()
	if _, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/app", nil)); err != nil {
		t.Fatal(err)
	}
	if n := browser.IdleTabs(e); n != 1 {
		t.Fatalf("%d idle tabs after a page, want 1", n)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		pages, contexts, err := browser.Tabs(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		if browser.IdleTabs(e) == 0 && pages == 1 && contexts == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("15 s after the page: %d tabs, %d incognito contexts, %d idle; want 1 (about:blank), 0 and 0", pages, contexts, browser.IdleTabs(e))
		}
		<-time.After(50 * time.Millisecond) // polling Chromium's list of tabs
	}
	// A page after that opens a new tab.
	if _, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/app", nil)); err != nil {
		t.Fatal(err)
	}
	if n := enginetest.Stat(e, "browser/tab_count"); n != 2 {
		t.Errorf("browser/tab_count = %d, want 2", n)
	}
}

// TestBrowserDialogs: dialogs are answered as Playwright does by default: alert, confirm
// and prompt are dismissed, so a page that opens one while loading still loads; a
// beforeunload prompt (a page the callback clicked on, which gives it the user activation
// the prompt needs) is accepted, so the next page in the same tab loads.
func TestBrowserDialogs(t *testing.T) {
	enginetest.RequireBrowser(t)
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!doctype html><title>d</title>" + body))
		}
	}
	mux.HandleFunc("/alert", page(`<script>alert("hi"); const ok = confirm("sure?"); const p = prompt("name?", "x");
document.write("<p id=after>" + ok + " " + p + "</p>");</script>`))
	mux.HandleFunc("/guarded", page(`<button onclick="this.textContent='clicked'">b</button><script>
window.addEventListener("beforeunload", (e) => { e.preventDefault(); e.returnValue = ""; });</script>`))
	mux.HandleFunc("/next", page(`<p id=next>next</p>`))
	srv := enginetest.StartWith(t, mux)
	e, logs := enginetest.NewEngine(t, &enginetest.Spider{}, map[string]any{types.BrowserConcurrency: 1, types.RetryEnabled: false})
	defer func() { _ = e.CloseHandlers() }()
	ctx := context.Background()
	resp, err := e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/alert", types.Item{{Key: "timeout", Value: 10.0}}))
	if err != nil {
		t.Fatalf("a page that opens dialogs while loading: %v", err)
	}
	if want := `<p id="after">false null</p>`; !bytes.Contains(resp.Body, []byte(want)) {
		t.Errorf("/alert: body without %s (dialogs dismissed):\n%s", want, resp.Body)
	}
	resp, err = e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/guarded", types.Item{{Key: "includePage", Value: true}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Page.Click(ctx, "button"); err != nil {
		t.Fatal(err)
	}
	_ = resp.Page.Close()
	resp, err = e.Download(ctx, enginetest.BrowserRequest(srv.URL+"/next", types.Item{{Key: "timeout", Value: 10.0}}))
	if err != nil {
		t.Fatalf("the page after one with a beforeunload prompt: %v", err)
	}
	if !bytes.Contains(resp.Body, []byte(`<p id="next">next</p>`)) {
		t.Errorf("/next: body:\n%s", resp.Body)
	}
	wantStats(t, e, logs.String(), map[string]int64{"browser/page_count": 3, "browser/tab_count": 1})
}
