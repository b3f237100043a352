package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

func TestCrawlLinkGraph(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		total int
		kv    map[string]any
	}{
		{"lifo", 20, nil},
		{"fifo", 20, map[string]any{types.SchedulerMemoryQueue: "fifo"}},
		{"one at a time", 15, map[string]any{types.ConcurrentRequests: 1}},
		{"large", 300, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := enginetest.Start(t)
			sp := &enginetest.Spider{
				StartURLs: []string{fmt.Sprintf("%s/links/0?total=%d", srv.URL, tc.total)},
				ParseFunc: enginetest.FollowAll,
			}
			e, _ := crawl(t, sp, tc.kv)
			for i := range tc.total {
				if h := srv.Hits(fmt.Sprintf("/links/%d", i)); h != 1 {
					t.Errorf("/links/%d fetched %d times, want 1", i, h)
				}
			}
			want := map[string]int64{
				"response_received_count":              int64(tc.total),
				"downloader/request_count":             int64(tc.total),
				"downloader/response_count":            int64(tc.total),
				"downloader/response_status_count/200": int64(tc.total),
				"downloader/request_method_count/GET":  int64(tc.total),
				"scheduler/enqueued":                   int64(tc.total),
				"scheduler/enqueued/memory":            int64(tc.total),
				"scheduler/dequeued":                   int64(tc.total),
				"scheduler/dequeued/memory":            int64(tc.total),
				"dupefilter/filtered":                  int64(3*tc.total + 1 - tc.total),
				"item_scraped_count":                   0,
			}
			for k, v := range want {
				if got := stat(e, k); got != v {
					t.Errorf("%s = %d, want %d", k, got, v)
				}
			}
			if r := e.Stats().Get("finish_reason"); r != "finished" {
				t.Errorf("finish_reason = %v", r)
			}
		})
	}
}

func TestDupeFilterCanonical(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		paths []string
		dont  bool
		hits  int
	}{
		{"fragment", []string{"/echo?x=1#a", "/echo?x=1#b", "/echo?x=1"}, false, 1},
		{"query order", []string{"/echo?a=1&b=2", "/echo?b=2&a=1"}, false, 1},
		{"different query", []string{"/echo?a=1", "/echo?a=2"}, false, 2},
		{"dontFilter", []string{"/echo?a=1", "/echo?a=1", "/echo?a=1"}, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := enginetest.Start(t)
			sp := &enginetest.Spider{StartFunc: func(_ context.Context, emit engine.Emit) error {
				for _, p := range tc.paths {
					emit(types.Output{Request: &types.Request{URL: srv.URL + p, DontFilter: tc.dont}})
				}
				return nil
			}}
			e, logs := crawl(t, sp, nil)
			if h := srv.Hits("/echo"); h != tc.hits {
				t.Errorf("hits = %d, want %d", h, tc.hits)
			}
			if f := stat(e, "dupefilter/filtered"); f != int64(len(tc.paths)-tc.hits) {
				t.Errorf("dupefilter/filtered = %d", f)
			}
			if len(tc.paths) > tc.hits && strings.Count(logs, "Filtered duplicate request") != 1 {
				t.Errorf("want one duplicate log line, got:\n%s", logs)
			}
		})
	}
}

func TestSchedulerOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		queue string
		reqs  []types.Request
		want  []string
	}{
		{"lifo", "lifo", []types.Request{{URL: "http://a/1"}, {URL: "http://a/2"}, {URL: "http://a/3"}}, []string{"3", "2", "1"}},
		{"fifo", "fifo", []types.Request{{URL: "http://a/1"}, {URL: "http://a/2"}, {URL: "http://a/3"}}, []string{"1", "2", "3"}},
		{"priority", "fifo", []types.Request{{URL: "http://a/1", Priority: -1}, {URL: "http://a/2"}, {URL: "http://a/3", Priority: 5}, {URL: "http://a/4", Priority: 5}},
			[]string{"3", "4", "2", "1"}},
		{"priority lifo", "lifo", []types.Request{{URL: "http://a/1", Priority: 1}, {URL: "http://a/2"}, {URL: "http://a/3", Priority: 1}},
			[]string{"3", "1", "2"}},
		{"duplicates", "fifo", []types.Request{{URL: "http://a/1"}, {URL: "http://A:80/1#x"}, {URL: "http://a/1", DontFilter: true}, {URL: "https://a:443/1"}, {URL: "https://a/1"}},
			[]string{"1", "1", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := engine.NewMemoryScheduler(settings(t, map[string]any{types.SchedulerMemoryQueue: tc.queue}), nil, nil, nil)
			for i := range tc.reqs {
				s.Enqueue(&tc.reqs[i])
			}
			if s.Len() != len(tc.want) {
				t.Fatalf("Len = %d, want %d", s.Len(), len(tc.want))
			}
			var got []string
			for r := s.Next(); r != nil; r = s.Next() {
				got = append(got, r.URL[strings.LastIndexByte(r.URL, '/')+1:])
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOffsiteAllowed(t *testing.T) {
	t.Parallel()
	m := engine.NewOffsiteMiddleware([]string{"example.com", "localhost:8080", "https://other.org/path"}, engine.NewStats(), nil)
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"example.com", true},
		{"www.example.com", true},
		{"a.b.example.com", true},
		{"EXAMPLE.com", true},
		{"notexample.com", false},
		{"example.com.evil.net", false},
		{"localhost", true},
		{"127.0.0.1", false},
		{"other.org", true},
	} {
		if got := m.Allowed(tc.host); got != tc.want {
			t.Errorf("Allowed(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

// dialTo returns a client that connects every request to addr, whatever the host.
func dialTo(addr string) *http.Client {
	d := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func TestOffsite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		domains  []string
		urls     []string // %s is the server's port
		hits     int
		filtered int64
		domainsN int64
	}{
		{"no domains allows all", nil, []string{"http://127.0.0.1:%s/item/1"}, 1, 0, 0},
		{"ip with any port", []string{"127.0.0.1"}, []string{"http://127.0.0.1:%s/item/1"}, 1, 0, 0},
		{"localhost is not 127.0.0.1", []string{"localhost"}, []string{"http://127.0.0.1:%s/item/1", "http://127.0.0.1:%s/item/2"}, 0, 2, 1},
		{"subdomain", []string{"example.test"}, []string{"http://www.example.test:%s/item/1", "http://example.test:%s/item/2", "http://other.test:%s/item/3", "http://x.other.test:%s/item/3"}, 2, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := enginetest.Start(t)
			_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
			var urls []string
			for _, u := range tc.urls {
				urls = append(urls, fmt.Sprintf(u, port))
			}
			sp := &enginetest.Spider{Domains: tc.domains, StartURLs: urls}
			e, _ := crawl(t, sp, nil, engine.WithHTTPClient(dialTo(srv.Listener.Addr().String())))
			if h := srv.TotalHits(); h != tc.hits {
				t.Errorf("hits = %d, want %d", h, tc.hits)
			}
			if f := stat(e, "offsite/filtered"); f != tc.filtered {
				t.Errorf("offsite/filtered = %d, want %d", f, tc.filtered)
			}
			if f := stat(e, "offsite/domains"); f != tc.domainsN {
				t.Errorf("offsite/domains = %d, want %d", f, tc.domainsN)
			}
		})
	}
}

func TestDepthLimit(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var mu sync.Mutex
	depths := map[string]int{}
	// A binary tree of /item pages: page n links to 2n+1 and 2n+2, so each page has one
	// parent and its depth does not depend on crawl order.
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/item/0"},
		ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
			mu.Lock()
			depths[resp.URL] = resp.Request.Depth
			mu.Unlock()
			var n int
			fmt.Sscanf(resp.URL[strings.LastIndexByte(resp.URL, '/')+1:], "%d", &n)
			emit(req(fmt.Sprintf("%s/item/%d", srv.URL, 2*n+1)))
			emit(req(fmt.Sprintf("%s/item/%d", srv.URL, 2*n+2)))
			return nil
		},
	}
	e, logs := crawl(t, sp, map[string]any{types.DepthLimit: 2})
	if n := stat(e, "response_received_count"); n != 7 {
		t.Errorf("responses = %d, want 7 (depths 0-2)\n%s", n, logs)
	}
	if m := stat(e, "request_depth_max"); m != 2 {
		t.Errorf("request_depth_max = %d, want 2", m)
	}
	for u, d := range depths {
		if d > 2 {
			t.Errorf("%s crawled at depth %d", u, d)
		}
	}
	if got := strings.Count(logs, "DEBUG: Ignoring link (depth > 2)"); got != 8 {
		t.Errorf("%d depth log lines, want 8", got)
	}
}

func TestRetry(t *testing.T) {
	t.Parallel()
	refused := "http://" + enginetest.ClosedAddr(t) + "/x"
	for _, tc := range []struct {
		name       string
		path       string // on the server unless it starts with http
		meta       types.Item
		kv         map[string]any
		tries      int // server hits
		retries    int64
		reasonKey  string
		maxReached int64
		failure    string // errback's Failure.Name
	}{
		{"500 retried twice", "/status/500", nil, nil, 3, 2, "retry/reason_count/500", 1, "HttpError"},
		{"503 with RETRY_TIMES=4", "/status/503", nil, map[string]any{types.RetryTimes: 4}, 5, 4, "retry/reason_count/503", 1, "HttpError"},
		{"maxRetryTimes meta", "/status/502", types.Item{{Key: "maxRetryTimes", Value: 1.0}}, nil, 2, 1, "retry/reason_count/502", 1, "HttpError"},
		{"dontRetry meta", "/status/500", types.Item{{Key: "dontRetry", Value: true}}, nil, 1, 0, "", 0, "HttpError"},
		{"retry disabled", "/status/500", nil, map[string]any{types.RetryEnabled: false}, 1, 0, "", 0, "HttpError"},
		{"404 not retried", "/status/404", nil, nil, 1, 0, "", 0, "HttpError"},
		{"refused", refused, nil, nil, 0, 2, "retry/reason_count/ConnectionRefusedError", 1, "ConnectionRefusedError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := enginetest.Start(t)
			u := tc.path
			if !strings.HasPrefix(u, "http") {
				u = srv.URL + u
			}
			var failed enginetest.Recorder[*types.Failure]
			sp := &enginetest.Spider{
				StartFunc: func(_ context.Context, emit engine.Emit) error {
					emit(types.Output{Request: &types.Request{URL: u, Meta: tc.meta, Errback: "onError"}})
					return nil
				},
				ParseFunc: func(context.Context, *types.Response, engine.Emit) error {
					t.Error("callback called for a failed request")
					return nil
				},
				ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
					failed.Add(f)
					return nil
				},
			}
			e, logs := crawl(t, sp, tc.kv)
			failures := failed.All()
			if h := srv.TotalHits(); h != tc.tries {
				t.Errorf("server hits = %d, want %d", h, tc.tries)
			}
			if r := stat(e, "retry/count"); r != tc.retries {
				t.Errorf("retry/count = %d, want %d", r, tc.retries)
			}
			if tc.reasonKey != "" && stat(e, tc.reasonKey) != tc.retries {
				t.Errorf("%s = %v, want %d; stats %v", tc.reasonKey, e.Stats().Get(tc.reasonKey), tc.retries, e.Stats().Snapshot())
			}
			if m := stat(e, "retry/max_reached"); m != tc.maxReached {
				t.Errorf("retry/max_reached = %d, want %d", m, tc.maxReached)
			}
			if len(failures) != 1 || failures[0].Name != tc.failure {
				t.Fatalf("failures = %+v, want one %s", failures, tc.failure)
			}
			if !strings.Contains(failures[0].Message, u) {
				t.Errorf("failure message %q does not name %s", failures[0].Message, u)
			}
			if tc.maxReached > 0 && !strings.Contains(logs, "Gave up retrying") {
				t.Errorf("no give-up log line:\n%s", logs)
			}
			if tc.failure == "ConnectionRefusedError" {
				if n := stat(e, "downloader/exception_type_count/ConnectionRefusedError"); n != 3 {
					t.Errorf("exception_type_count = %d, want 3", n)
				}
				if !strings.Contains(logs, "ERROR: Error downloading <GET "+u+">") {
					t.Errorf("no download error log:\n%s", logs)
				}
			}
		})
	}
}

func TestHTTPError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		meta    types.Item
		kv      map[string]any
		errback string
		parsed  bool
		failed  bool
	}{
		{"ignored, no errback", nil, nil, "", false, false},
		{"errback", nil, nil, "onError", false, true},
		{"handleHttpStatusList", types.Item{{Key: "handleHttpStatusList", Value: []any{404.0}}}, nil, "onError", true, false},
		{"handleHttpStatusList other", types.Item{{Key: "handleHttpStatusList", Value: []any{500.0}}}, nil, "onError", false, true},
		{"handleHttpStatusAll", types.Item{{Key: "handleHttpStatusAll", Value: true}}, nil, "", true, false},
		{"HTTPERROR_ALLOWED_CODES", nil, map[string]any{types.HTTPErrorAllowedCodes: "404"}, "", true, false},
		{"HTTPERROR_ALLOW_ALL", nil, map[string]any{types.HTTPErrorAllowAll: true}, "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := enginetest.Start(t)
			var parsed, failed atomic.Int32
			sp := &enginetest.Spider{
				StartFunc: func(_ context.Context, emit engine.Emit) error {
					emit(types.Output{Request: &types.Request{URL: srv.URL + "/status/404", Meta: tc.meta, Errback: tc.errback}})
					return nil
				},
				ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
					parsed.Add(1)
					if resp.Status != 404 {
						t.Errorf("status %d", resp.Status)
					}
					return nil
				},
				ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
					failed.Add(1)
					if f.Name != "HttpError" || f.Response == nil || f.Response.Status != 404 || !strings.Contains(f.Message, "404") {
						t.Errorf("failure %+v", f)
					}
					return nil
				},
			}
			e, logs := crawl(t, sp, tc.kv)
			if got := parsed.Load() == 1; got != tc.parsed {
				t.Errorf("parsed = %v, want %v", got, tc.parsed)
			}
			if got := failed.Load() == 1; got != tc.failed {
				t.Errorf("errback = %v, want %v", got, tc.failed)
			}
			ignored := !tc.parsed
			if got := stat(e, "httperror/response_ignored_count") == 1; got != ignored {
				t.Errorf("httperror/response_ignored_count = %d", stat(e, "httperror/response_ignored_count"))
			}
			if ignored {
				if stat(e, "httperror/response_ignored_status_count/404") != 1 {
					t.Error("no httperror/response_ignored_status_count/404")
				}
				want := "INFO: Ignoring response <404 " + srv.URL + "/status/404>: HTTP status code is not handled or not allowed"
				if !strings.Contains(logs, want) {
					t.Errorf("log lacks %q:\n%s", want, logs)
				}
			}
		})
	}
}

func TestDownload(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	for _, tc := range []struct {
		name      string
		req       types.Request
		kv        map[string]any
		errName   string
		status    int
		bodyHas   string
		finalPath string
		redirects int
	}{
		{"ok", types.Request{URL: "/item/3"}, nil, "", 200, "<h1>Item 3</h1>", "/item/3", 0},
		{"404 is a response", types.Request{URL: "/status/404"}, nil, "", 404, "status 404", "/status/404", 0},
		{"gzip", types.Request{URL: "/gzip"}, nil, "", 200, `{"gzipped":true}`, "/gzip", 0},
		{"deflate", types.Request{URL: "/deflate"}, nil, "", 200, `{"deflated":true}`, "/deflate", 0},
		{"brotli", types.Request{URL: "/brotli"}, nil, "", 200, `{"brotli":true}`, "/brotli", 0},
		{"redirects", types.Request{URL: "/redirect/3"}, nil, "", 200, "Redirected", "/redirect/0", 3},
		{"redirect disabled", types.Request{URL: "/redirect/3"}, map[string]any{types.RedirectEnabled: false}, "", 302, "", "/redirect/3", 0},
		{"too many redirects", types.Request{URL: "/redirect/3"}, map[string]any{types.RedirectMaxTimes: 2}, "MaxRedirectsError", 0, "", "", 0},
		{"redirect loop", types.Request{URL: "/redirect-loop"}, nil, "MaxRedirectsError", 0, "", "", 0},
		{"POST 302 becomes GET", types.Request{URL: "/redirect-to?url=/echo&status=302", Method: "POST", Body: []byte("hello")}, nil, "", 200, `"method":"GET"`, "/echo", 1},
		{"POST 307 stays POST", types.Request{URL: "/redirect-to?url=/echo&status=307", Method: "POST", Body: []byte("hello")}, nil, "", 200, `"body":"hello"`, "/echo", 1},
		{"POST 308 stays POST", types.Request{URL: "/redirect-to?url=/echo&status=308", Method: "POST", Body: []byte("hello")}, nil, "", 200, `"method":"POST"`, "/echo", 1},
		{"redirect to ftp not followed", types.Request{URL: "/redirect-to?url=ftp://example.com/x"}, nil, "", 302, "", "/redirect-to", 0},
		{"headers", types.Request{URL: "/echo", Headers: http.Header{"Accept": {"text/x"}}}, nil, "", 200, `"Accept":["text/x"]`, "/echo", 0},
		{"user agent", types.Request{URL: "/echo"}, map[string]any{types.UserAgent: "ua-test"}, "", 200, `"User-Agent":["ua-test"]`, "/echo", 0},
		{"default headers", types.Request{URL: "/echo"}, nil, "", 200, `"Accept-Language":["en"]`, "/echo", 0},
		{"accept-encoding", types.Request{URL: "/echo"}, nil, "", 200, `"Accept-Encoding":["gzip, deflate, br, zstd"]`, "/echo", 0},
		{"maxsize", types.Request{URL: "/big?bytes=5000"}, map[string]any{types.DownloadMaxSize: 1000}, "MaxSizeError", 0, "", "", 0},
		{"maxsize decompressed", types.Request{URL: "/big?bytes=5000&gzip=1"}, map[string]any{types.DownloadMaxSize: 1000}, "MaxSizeError", 0, "", "", 0},
		{"under maxsize", types.Request{URL: "/big?bytes=1000&gzip=1"}, map[string]any{types.DownloadMaxSize: 1000}, "", 200, "xxxx", "/big", 0},
		{"timeout", types.Request{URL: "/delay?ms=60000"}, map[string]any{types.DownloadTimeout: 0.05, types.RetryEnabled: false}, "TimeoutError", 0, "", "", 0},
		{"timeout while body trickles", types.Request{URL: "/trickle?chunks=1000&ms=10"}, map[string]any{types.DownloadTimeout: 0.1, types.RetryEnabled: false}, "TimeoutError", 0, "", "", 0},
		{"bad scheme", types.Request{URL: "ftp://example.com/"}, nil, "NotSupported", 0, "", "", 0},
		{"invalid url", types.Request{URL: "http://[::1"}, nil, "InvalidURLError", 0, "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := newEngine(t, &enginetest.Spider{}, tc.kv)
			r := tc.req
			if strings.HasPrefix(r.URL, "/") {
				r.URL = srv.URL + r.URL
			}
			resp, err := e.Download(context.Background(), &r)
			if tc.errName != "" {
				if err == nil {
					t.Fatalf("no error, status %d", resp.Status)
				}
				if n := engine.ErrorName(err); n != tc.errName {
					t.Errorf("ErrorName = %s, want %s (%v)", n, tc.errName, err)
				}
				if !strings.Contains(err.Error(), r.URL) {
					t.Errorf("error %q does not name %s", err, r.URL)
				}
				if stat(e, "downloader/exception_type_count/"+tc.errName) < 1 {
					t.Errorf("no exception stat: %v", e.Stats().Snapshot())
				}
				if tc.errName == "MaxSizeError" && stat(e, "download/maxsize") != 1 {
					t.Error("no download/maxsize stat")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.status {
				t.Errorf("status = %d, want %d", resp.Status, tc.status)
			}
			if !strings.Contains(string(resp.Body), tc.bodyHas) {
				t.Errorf("body %q lacks %q", resp.Body, tc.bodyHas)
			}
			if !strings.HasPrefix(resp.URL, srv.URL+tc.finalPath) {
				t.Errorf("URL = %s, want %s", resp.URL, tc.finalPath)
			}
			if len(resp.Request.RedirectURLs()) != tc.redirects {
				t.Errorf("RedirectURLs = %v, want %d", resp.Request.RedirectURLs(), tc.redirects)
			}
			if resp.Headers.Get("Content-Encoding") != "" {
				t.Error("Content-Encoding kept after decoding")
			}
			if stat(e, "downloader/response_status_count/"+fmt.Sprint(tc.status)) != 1 || stat(e, "response_received_count") != 1 {
				t.Errorf("stats %v", e.Stats().Snapshot())
			}
		})
	}
}

func TestRedirectURLsRecorded(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	e, _ := newEngine(t, &enginetest.Spider{}, nil)
	resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/redirect/2"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{srv.URL + "/redirect/2", srv.URL + "/redirect/1"}
	if fmt.Sprint(resp.Request.RedirectURLs()) != fmt.Sprint(want) {
		t.Errorf("RedirectURLs = %v, want %v", resp.Request.RedirectURLs(), want)
	}
}

func TestPerDomainConcurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		global, perSlot int
		want            int
	}{
		{"per domain 2", 16, 2, 2},
		{"global 3", 3, 8, 3},
		{"per domain 1", 8, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := enginetest.Start(t)
			var urls []string
			for i := range 24 {
				urls = append(urls, fmt.Sprintf("%s/delay?ms=5&i=%d", srv.URL, i))
			}
			e, _ := crawl(t, &enginetest.Spider{StartURLs: urls}, map[string]any{
				types.ConcurrentRequests: tc.global, types.ConcurrentRequestsPerDomain: tc.perSlot,
			})
			if m := srv.MaxInFlight(); m > tc.want || m < 1 {
				t.Errorf("max in flight = %d, limit %d", m, tc.want)
			}
			if n := stat(e, "response_received_count"); n != 24 {
				t.Errorf("responses = %d", n)
			}
		})
	}
}

func TestDownloadDelay(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var urls []string
	for i := range 6 {
		urls = append(urls, fmt.Sprintf("%s/echo?i=%d", srv.URL, i))
	}
	crawl(t, &enginetest.Spider{StartURLs: urls}, map[string]any{
		types.DownloadDelay: 0.2, types.RandomizeDownloadDelay: false,
	})
	at := srv.Arrivals("/echo")
	if len(at) != 6 {
		t.Fatalf("arrivals = %d", len(at))
	}
	// Server-side arrival times jitter by a dial or a scheduling delay (the first request's
	// dial, on a loaded machine, took 60 ms more than the others), which can shorten one gap
	// and lengthen the next; their sum cannot shrink by more than one such lag. 5 gaps of
	// 200 ms are 1 s; without the delay the six requests arrive within a few milliseconds.
	if span := at[len(at)-1].Sub(at[0]); span < 800*time.Millisecond {
		t.Errorf("6 requests with DOWNLOAD_DELAY=0.2 arrived within %v, want ≥ ~1s", span)
	}
}

func TestPipelines(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var order enginetest.Recorder[string]
	trace := order.Add
	p1 := pipelineFunc(func(_ context.Context, it types.Item) (types.Item, error) {
		trace("p1")
		it.Set("p1", true)
		return it, nil
	})
	p2 := pipelineFunc(func(_ context.Context, it types.Item) (types.Item, error) {
		trace("p2")
		if n, _ := it.Get("n"); n.(int)%2 == 1 {
			return nil, fmt.Errorf("odd n %d: %w", n, engine.ErrDropItem)
		}
		if n, _ := it.Get("n"); n.(int) == 4 {
			return nil, errors.New("boom")
		}
		return it, nil
	})
	p3 := pipelineFunc(func(_ context.Context, it types.Item) (types.Item, error) {
		trace("p3")
		n, _ := it.Get("n")
		p, _ := it.Get("p1")
		return types.Item{{Key: "replaced", Value: n}, {Key: "sawP1", Value: p}}, nil
	})
	rec := &recorder{t: t}
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/"},
		ParseFunc: func(_ context.Context, _ *types.Response, emit engine.Emit) error {
			for n := range 10 {
				emit(types.Output{Item: types.Item{{Key: "n", Value: n}}})
			}
			return nil
		},
	}
	e, logs := crawl(t, sp, map[string]any{types.ConcurrentItems: 3}, engine.WithPipelines(p1, p2, p3), engine.WithExporters(rec))
	items := rec.Items()
	if len(items) != 4 { // 0, 2, 6, 8
		t.Fatalf("exported %d items: %v", len(items), items)
	}
	for _, it := range items {
		if fmt.Sprint(it.Keys()) != "[replaced sawP1]" {
			t.Errorf("item %v not replaced by p3", it)
		}
		if v, _ := it.Get("sawP1"); v != true {
			t.Errorf("p3 ran before p1: %v", it)
		}
	}
	for k, v := range map[string]int64{
		"item_scraped_count": 4, "item_dropped_count": 5, "item_dropped_reasons_count/DropItem": 5, "item_error_count": 1,
	} {
		if got := stat(e, k); got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
	if strings.Count(logs, "WARNING: Dropped: odd n") != 5 || !strings.Contains(logs, "ERROR: Error processing {\"n\":4,\"p1\":true}\nboom") {
		t.Errorf("drop/error logs missing:\n%s", logs)
	}
	if !strings.Contains(logs, "DEBUG: Scraped from <200 "+srv.URL+"/>\n{\"replaced\":0,\"sawP1\":true}") {
		t.Errorf("no scraped log:\n%s", logs)
	}
	if rec.closed != 1 {
		t.Errorf("exporter closed %d times", rec.closed)
	}
	if order.Len() != 10+10+4 {
		t.Errorf("pipeline calls = %d", order.Len())
	}
}

// TestCloseSpiderItemCount checks that CLOSESPIDER_ITEMCOUNT gives exactly that many items
// in the feeds: items still coming from callbacks in flight are dropped and counted.
func TestCloseSpiderItemCount(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	rec := &recorder{t: t}
	var emitted atomic.Int64
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/links/0?total=200"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			for i := range 3 {
				emitted.Add(1)
				emit(types.Output{Item: types.Item{{Key: "url", Value: resp.URL}, {Key: "i", Value: i}}})
			}
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
	e, logs := crawl(t, sp, map[string]any{types.CloseSpiderItemCount: 5, types.ConcurrentRequests: 2}, engine.WithExporters(rec))
	if n := stat(e, "item_scraped_count"); n != 5 {
		t.Errorf("item_scraped_count = %d, want 5", n)
	}
	if r := e.Stats().Get("finish_reason"); r != "closespider_itemcount" {
		t.Errorf("finish_reason = %v", r)
	}
	if len(rec.Items()) != 5 || rec.closed != 1 {
		t.Errorf("exported %d, closed %d", len(rec.Items()), rec.closed)
	}
	dropped := stat(e, "item_dropped_reasons_count/closespider_itemcount")
	if dropped != emitted.Load()-5 || dropped == 0 || stat(e, "item_dropped_count") != dropped {
		t.Errorf("dropped %d (item_dropped_count %d), want the %d emitted past the limit", dropped, stat(e, "item_dropped_count"), emitted.Load()-5)
	}
	if !strings.Contains(logs, "Spider closed (closespider_itemcount)") {
		t.Errorf("no close line:\n%s", logs)
	}
}

func TestCloseSpiderPageCount(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	sp := &enginetest.Spider{StartURLs: []string{srv.URL + "/links/0?total=200"}, ParseFunc: enginetest.FollowAll}
	e, _ := crawl(t, sp, map[string]any{types.CloseSpiderPageCount: 3, types.ConcurrentRequests: 1})
	if n := stat(e, "response_received_count"); n != 3 {
		t.Errorf("responses = %d, want 3 with CONCURRENT_REQUESTS=1", n)
	}
	if r := e.Stats().Get("finish_reason"); r != "closespider_pagecount" {
		t.Errorf("finish_reason = %v", r)
	}
}

func TestCloseSpiderGraceful(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var e *engine.Engine
	var parsed atomic.Int32
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/links/0?total=100"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			if parsed.Add(1) == 2 {
				e.CloseSpider("enough")
			}
			return enginetest.FollowAll(ctx, resp, emit)
		},
	}
	rec := &recorder{t: t}
	e, _ = newEngine(t, sp, nil, engine.WithExporters(rec))
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := e.Stats().Get("finish_reason"); r != "enough" {
		t.Errorf("finish_reason = %v", r)
	}
	if n := stat(e, "response_received_count"); n >= 100 {
		t.Errorf("crawled everything (%d) despite CloseSpider", n)
	}
	if rec.closed != 1 {
		t.Error("exporter not closed")
	}
}

func TestHardStop(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{t: t}
	closed := false
	sp := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(req(srv.URL + "/item/1"))
			for i := range 5 {
				emit(req(fmt.Sprintf("%s/delay?ms=60000&i=%d", srv.URL, i)))
			}
			return nil
		},
		ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
			emit(types.Output{Item: types.Item{{Key: "url", Value: resp.URL}}})
			return nil
		},
		CloseFunc: func() error { closed = true; return nil },
	}
	e, _ := newEngine(t, sp, nil, engine.WithExporters(rec))
	e.Connect(engine.ItemScraped, func(context.Context, engine.SignalEvent) error {
		cancel()
		return nil
	})
	if err := e.Run(ctx); err != nil {
		t.Fatalf("Run = %v, want nil after a hard stop", err)
	}
	if r := e.Stats().Get("finish_reason"); r != "shutdown" {
		t.Errorf("finish_reason = %v", r)
	}
	if rec.closed != 1 || len(rec.Items()) != 1 || !closed {
		t.Errorf("exporter closed %d with %d items; spider closed %v", rec.closed, len(rec.Items()), closed)
	}
}

func TestInlineDownloadFromParse(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var e *engine.Engine
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			var wg sync.WaitGroup
			errs := make(chan error, 10)
			for i := range 10 {
				wg.Go(func() {
					r, err := e.Download(ctx, &types.Request{URL: fmt.Sprintf("%s/item/%d", srv.URL, i)})
					if err != nil {
						errs <- err
						return
					}
					emit(types.Output{Item: types.Item{{Key: "n", Value: i}, {Key: "len", Value: len(r.Body)}}})
				})
			}
			wg.Wait()
			close(errs)
			return <-errs
		},
	}
	rec := &recorder{t: t}
	e, _ = newEngine(t, sp, map[string]any{types.ConcurrentRequests: 4}, engine.WithExporters(rec))
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Items()); n != 10 {
		t.Errorf("items = %d, want 10", n)
	}
	if n := stat(e, "response_received_count"); n != 11 {
		t.Errorf("responses = %d, want 11", n)
	}
	if n := stat(e, "scheduler/enqueued"); n != 1 {
		t.Errorf("inline downloads went through the scheduler: enqueued %d", n)
	}
	if m := srv.MaxInFlight(); m > 4 {
		t.Errorf("max in flight %d > CONCURRENT_REQUESTS", m)
	}
}

// jsError names itself like jsapi's ScriptError.
type jsError struct{ msg string }

func (e *jsError) Error() string     { return e.msg }
func (e *jsError) ErrorName() string { return "TypeError" }

func TestSpiderErrors(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var failed enginetest.Recorder[*types.Failure]
	sp := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: srv.URL + "/item/1", Errback: "onError"}})
			emit(types.Output{Request: &types.Request{URL: srv.URL + "/item/2", Errback: "onError"}})
			emit(req("ftp://example.com/file"))
			return fmt.Errorf("start failed: %w", &jsError{"x is undefined\n    at start (spider.js:3:5)"})
		},
		ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
			return &jsError{"cannot read property of null\n    at parse (spider.js:9:1)"}
		},
		ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
			failed.Add(f)
			if strings.HasSuffix(f.Request.URL, "/2") {
				return errors.New("errback failed")
			}
			return nil
		},
	}
	e, logs := crawl(t, sp, nil)
	if n := stat(e, "spider_exceptions/TypeError"); n != 3 {
		t.Errorf("spider_exceptions/TypeError = %d, want 3 (start + 2 parses)", n)
	}
	if n := stat(e, "spider_exceptions/Error"); n != 1 {
		t.Errorf("spider_exceptions/Error = %d, want 1 (errback)", n)
	}
	if failures := failed.All(); len(failures) != 2 || failures[0].Name != "TypeError" {
		t.Errorf("failures = %+v", failures)
	}
	for _, want := range []string{
		"ERROR: Spider error processing <GET " + srv.URL + "/item/1> (referer: None)\ncannot read property of null\n    at parse (spider.js:9:1)",
		"ERROR: Error while obtaining start requests\nstart failed: x is undefined",
		"ERROR: Ignoring request <GET ftp://example.com/file>: URL scheme \"ftp\" is not in DOWNLOAD_SCHEMES",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if r := e.Stats().Get("finish_reason"); r != "finished" {
		t.Errorf("finish_reason = %v", r)
	}
}

func TestCloseSpiderErrorCount(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/links/0?total=100"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			enginetest.FollowAll(ctx, resp, emit)
			return errors.New("bad page")
		},
	}
	e, _ := crawl(t, sp, map[string]any{types.CloseSpiderErrorCount: 2, types.ConcurrentRequests: 1})
	if r := e.Stats().Get("finish_reason"); r != "closespider_errorcount" {
		t.Errorf("finish_reason = %v", r)
	}
}

func TestOpenError(t *testing.T) {
	t.Parallel()
	rec := &recorder{t: t}
	sp := &enginetest.Spider{OpenFunc: func(context.Context) error { return errors.New("no script") }}
	e, _ := newEngine(t, sp, nil, engine.WithExporters(rec))
	err := e.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no script") {
		t.Fatalf("Run = %v, want the Open error", err)
	}
	if rec.closed != 1 {
		t.Error("exporter not closed after a failed open")
	}
}

func TestStatsAndLogLines(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	sp := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/"},
		ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
			emit(types.Output{Item: types.Item{{Key: "title", Value: "Home"}}})
			return nil
		},
	}
	var signals enginetest.Recorder[engine.Signal]
	e, logs := newEngine(t, sp, map[string]any{types.LogStatsInterval: 60})
	for _, s := range []engine.Signal{engine.EngineStarted, engine.SpiderOpened, engine.SpiderIdle, engine.SpiderClosed,
		engine.ItemScraped, engine.RequestScheduled, engine.ResponseReceived} {
		e.Connect(s, func(context.Context, engine.SignalEvent) error {
			signals.Add(s)
			return nil
		})
	}
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap := e.Stats().Snapshot()
	for _, k := range []string{
		"start_time", "finish_time", "finish_reason", "elapsed_time_seconds", "item_scraped_count",
		"response_received_count", "downloader/request_count", "downloader/request_bytes",
		"downloader/response_bytes", "downloader/response_count", "downloader/response_status_count/200",
		"downloader/request_method_count/GET", "scheduler/enqueued", "scheduler/dequeued", "log_count/INFO", "log_count/DEBUG",
	} {
		if _, ok := snap[k]; !ok {
			t.Errorf("stat %s missing", k)
		}
	}
	if _, ok := snap["elapsed_time_seconds"].(float64); !ok {
		t.Errorf("elapsed_time_seconds is %T", snap["elapsed_time_seconds"])
	}
	out := logs.String()
	for _, want := range []string{
		"[jscrawl] INFO: Spider opened\n",
		"INFO: Crawled 0 pages (at 0 pages/min), scraped 0 items (at 0 items/min)\n",
		"DEBUG: Crawled (200) <GET " + srv.URL + "/> (referer: None)\n",
		"INFO: Closing spider (finished)\n",
		"INFO: Dumping stats:\n{\n  \"downloader/request_bytes\":",
		"INFO: Spider closed (finished)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	want := "[engine_started spider_opened request_scheduled response_received item_scraped spider_idle spider_closed]"
	if got := fmt.Sprint(signals.All()); got != want {
		t.Errorf("signals = %v, want %s", got, want)
	}
}

func TestErrorName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, "TimeoutError"},
		{fmt.Errorf("x: %w", engine.ErrIgnoreRequest), "IgnoreRequest"},
		{&net.DNSError{Err: "no such host", Name: "x.invalid"}, "DNSLookupError"},
		{fmt.Errorf("wrapped: %w", &jsError{"x"}), "TypeError"},
		{&engine.DownloadError{Name: "MaxSizeError", URL: "http://x/", Err: errors.New("big")}, "MaxSizeError"},
		{errors.New("plain"), "Error"},
		{nil, ""},
	} {
		if got := engine.ErrorName(tc.err); got != tc.want {
			t.Errorf("ErrorName(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestSignalCrawlOnIdle(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var e *engine.Engine
	e, _ = newEngine(t, &enginetest.Spider{StartURLs: []string{srv.URL + "/item/1"}}, nil)
	var once atomic.Bool
	e.Connect(engine.SpiderIdle, func(context.Context, engine.SignalEvent) error {
		if once.CompareAndSwap(false, true) {
			e.Crawl(&types.Request{URL: srv.URL + "/item/2"})
		}
		return nil
	})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if srv.Hits("/item/2") != 1 {
		t.Error("request crawled from spider_idle was not downloaded")
	}
}

func TestCloseSpiderTimeout(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	var urls []string
	for i := range 50 {
		urls = append(urls, fmt.Sprintf("%s/delay?ms=50&i=%d", srv.URL, i))
	}
	e, logs := crawl(t, &enginetest.Spider{StartURLs: urls}, map[string]any{
		types.CloseSpiderTimeout: 0.01, types.ConcurrentRequests: 2,
	})
	if r := e.Stats().Get("finish_reason"); r != "closespider_timeout" {
		t.Errorf("finish_reason = %v", r)
	}
	if n := stat(e, "response_received_count"); n >= 50 {
		t.Errorf("all %d pages crawled despite the timeout", n)
	}
	if n := stat(e, "downloader/exception_count"); n != 0 {
		t.Errorf("in-flight downloads failed on a graceful close: %d\n%s", n, logs)
	}
}

func TestRetryAfterRedirect(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	e, _ := newEngine(t, &enginetest.Spider{}, nil)
	resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/redirect-to?url=/status/503"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 503 || resp.Request.Retries != 2 || len(resp.Request.RedirectURLs()) != 1 {
		t.Errorf("status %d retries %d redirects %v", resp.Status, resp.Request.Retries, resp.Request.RedirectURLs())
	}
	if h := srv.Hits("/status/503"); h != 3 {
		t.Errorf("hits = %d, want 3", h)
	}
}
