package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestServiceDownload: a service request (ServiceDownload, or Download with
// meta.dontCount) goes straight to the http(s) handler: no robots.txt, no redirect
// followed, no crawl stats (http_client/* instead); the sandbox's scheme and size limits
// still hold.
func TestServiceDownload(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	// proxy answers every request itself, 299: the request came through it.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(299) }))
	t.Cleanup(proxy.Close)
	for _, tc := range []struct {
		name    string
		url     string
		meta    bool // through Download with meta.dontCount
		kv      map[string]any
		errName string
		status  int
	}{
		{"ok", "/echo", false, nil, "", 200},
		{"ok via meta.dontCount", "/echo", true, nil, "", 200},
		{"404 is a response", "/status/404", false, nil, "", 404},
		{"redirect is the response", "/redirect/3", true, nil, "", 302},
		{"file scheme refused", "file:///etc/hostname", false, map[string]any{types.DownloadSchemes: []string{"http", "https", "file"}}, "NotSupported", 0},
		{"data scheme refused", "data:,x", true, nil, "NotSupported", 0},
		{"maxsize", "/big?bytes=5000", false, map[string]any{types.DownloadMaxSize: 1000}, "MaxSizeError", 0},
		{"meta.proxy", "CLOSED", false, nil, "", 299},
		{"direct without meta.proxy", "CLOSED", true, nil, "ConnectionRefusedError", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kv := map[string]any{types.RobotsTxtObey: true}
			for k, v := range tc.kv {
				kv[k] = v
			}
			e, _ := newEngine(t, &enginetest.Spider{}, kv)
			r := &types.Request{URL: tc.url}
			if r.URL == "CLOSED" { // nothing listens there
				r.URL = "http://" + enginetest.ClosedAddr(t) + "/x"
			}
			if strings.HasPrefix(r.URL, "/") {
				r.URL = srv.URL + r.URL
			}
			var resp *types.Response
			var err error
			if tc.name == "meta.proxy" {
				r.Meta = types.Item{{Key: types.MetaProxy, Value: proxy.URL}}
			}
			if tc.meta {
				r.Meta = append(r.Meta, types.Field{Key: types.MetaDontCount, Value: true})
				resp, err = e.Download(context.Background(), r)
			} else {
				resp, err = e.ServiceDownload(context.Background(), r)
			}
			if tc.errName != "" {
				if n := engine.ErrorName(err); err == nil || n != tc.errName {
					t.Fatalf("error %v (%s), want a %s", err, n, tc.errName)
				}
				if got := stat(e, "http_client/exception_count/"+tc.errName); got != 1 && strings.HasPrefix(tc.url, "/") {
					t.Errorf("http_client/exception_count/%s = %d, want 1", tc.errName, got)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Status != tc.status {
					t.Errorf("status %d, want %d", resp.Status, tc.status)
				}
				if got := stat(e, "http_client/response_count"); got != 1 {
					t.Errorf("http_client/response_count = %d, want 1", got)
				}
			}
			for _, key := range []string{"downloader/request_count", "downloader/response_count", "response_received_count",
				"robotstxt/request_count", "downloader/exception_count", "download/maxsize"} {
				if got := stat(e, key); got != 0 {
					t.Errorf("%s = %d, want 0 (a crawl stat)", key, got)
				}
			}
		})
	}
}
