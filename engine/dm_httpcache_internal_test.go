package engine

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// cacheStep is one download through the cache: the clock advanced by after, what the
// network (if asked) answers, and what must happen.
type cacheStep struct {
	after      time.Duration
	reply      func(now time.Time, req *types.Request) (*types.Response, error)
	wantNet    bool   // the network is asked
	wantCached bool   // the response served is the cached one
	wantBody   string // body served
	wantHeader string // a header the network request must carry ("K: V")
}

func reply(status int, body string, headers ...string) func(time.Time, *types.Request) (*types.Response, error) {
	return func(now time.Time, req *types.Request) (*types.Response, error) {
		h := http.Header{"Date": {now.UTC().Format(http.TimeFormat)}}
		for i := 0; i+1 < len(headers); i += 2 {
			v := headers[i+1]
			if v == "NOW-100S" {
				v = now.Add(-100 * time.Second).UTC().Format(http.TimeFormat)
			}
			h.Set(headers[i], v)
		}
		return &types.Response{URL: req.URL, Status: status, Headers: h, Body: []byte(body), Request: req}, nil
	}
}

func TestHTTPCachePolicies(t *testing.T) {
	t.Parallel()
	netErr := func(time.Time, *types.Request) (*types.Response, error) {
		return nil, &DownloadError{Name: NameConnectionRefused, URL: "x", Err: errors.New("refused")}
	}
	for _, tc := range []struct {
		name  string
		kv    map[string]any
		url   string
		meta  types.Item
		steps []cacheStep
		stats map[string]int64
	}{
		{"dummy stores and serves forever", nil, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one"), true, false, "one", ""},
			{1000 * time.Hour, reply(200, "two"), false, true, "one", ""},
		}, map[string]int64{"httpcache/miss": 1, "httpcache/store": 1, "httpcache/hit": 1, "httpcache/firsthand": 1}},
		{"dummy expiration", map[string]any{types.HTTPCacheExpirationSecs: 10}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one"), true, false, "one", ""},
			{5 * time.Second, reply(200, "two"), false, true, "one", ""},
			{6 * time.Second, reply(200, "two"), true, false, "two", ""},
			{time.Second, reply(200, "three"), false, true, "two", ""},
		}, map[string]int64{"httpcache/miss": 2, "httpcache/store": 2, "httpcache/hit": 2}},
		{"ignored status", map[string]any{types.HTTPCacheIgnoreHTTPCodes: []any{404}}, "http://x/a", nil, []cacheStep{
			{0, reply(404, "nope"), true, false, "nope", ""},
			{0, reply(404, "nope"), true, false, "nope", ""},
		}, map[string]int64{"httpcache/miss": 2, "httpcache/uncacheable": 2, "httpcache/store": 0}},
		{"ignored scheme", nil, "file:///tmp/x", nil, []cacheStep{
			{0, reply(200, "f"), true, false, "f", ""},
			{0, reply(200, "f"), true, false, "f", ""},
		}, map[string]int64{"httpcache/uncacheable": 2, "httpcache/miss": 0}},
		{"dontCache", nil, "http://x/a", types.Item{{Key: "dontCache", Value: true}}, []cacheStep{
			{0, reply(200, "one"), true, false, "one", ""},
			{0, reply(200, "two"), true, false, "two", ""},
		}, map[string]int64{"httpcache/miss": 0, "httpcache/store": 0}},
		{"rfc max-age then 304 revalidation", map[string]any{types.HTTPCachePolicy: "rfc2616"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one", "Cache-Control", "max-age=60", "ETag", `"v1"`), true, false, "one", ""},
			{30 * time.Second, reply(200, "two"), false, true, "one", ""},
			{60 * time.Second, reply(304, ""), true, true, "one", `If-None-Match: "v1"`},
		}, map[string]int64{"httpcache/hit": 1, "httpcache/revalidate": 1, "httpcache/store": 1}},
		{"rfc stale and changed", map[string]any{types.HTTPCachePolicy: "rfc9111"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one", "Cache-Control", "max-age=10", "Last-Modified", "NOW-100S"), true, false, "one", ""},
			{20 * time.Second, reply(200, "two", "Cache-Control", "max-age=10"), true, false, "two", "If-Modified-Since: "},
			{5 * time.Second, reply(200, "three"), false, true, "two", ""},
		}, map[string]int64{"httpcache/invalidate": 1, "httpcache/store": 2, "httpcache/hit": 1}},
		{"rfc no-store", map[string]any{types.HTTPCachePolicy: "rfc2616"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one", "Cache-Control", "no-store, max-age=60"), true, false, "one", ""},
			{0, reply(200, "two"), true, false, "two", ""},
		}, map[string]int64{"httpcache/uncacheable": 2, "httpcache/store": 0}},
		{"rfc no validators, no lifetime: not stored", map[string]any{types.HTTPCachePolicy: "rfc2616"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one"), true, false, "one", ""},
			{0, reply(200, "two"), true, false, "two", ""},
		}, map[string]int64{"httpcache/uncacheable": 2}},
		{"rfc always store", map[string]any{types.HTTPCachePolicy: "rfc2616", types.HTTPCacheAlwaysStore: true}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one"), true, false, "one", ""},
			{0, reply(304, ""), true, true, "one", ""},
		}, map[string]int64{"httpcache/store": 1, "httpcache/revalidate": 1}},
		{"rfc Last-Modified heuristic", map[string]any{types.HTTPCachePolicy: "rfc2616"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one", "Last-Modified", "NOW-100S"), true, false, "one", ""},
			{5 * time.Second, reply(200, "two"), false, true, "one", ""}, // lifetime 100s/10
			{10 * time.Second, reply(304, ""), true, true, "one", "If-Modified-Since: "},
		}, map[string]int64{"httpcache/hit": 1, "httpcache/revalidate": 1}},
		{"rfc no-cache always revalidates", map[string]any{types.HTTPCachePolicy: "rfc2616"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one", "Cache-Control", "no-cache, max-age=600", "ETag", "e"), true, false, "one", ""},
			{time.Second, reply(304, ""), true, true, "one", "If-None-Match: e"},
		}, map[string]int64{"httpcache/revalidate": 1}},
		{"rfc stale entry recovers a network error", map[string]any{types.HTTPCachePolicy: "rfc2616"}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one", "Cache-Control", "max-age=1"), true, false, "one", ""},
			{time.Minute, netErr, true, true, "one", ""},
		}, map[string]int64{"httpcache/errorrecovery": 1}},
		{"ignore missing", map[string]any{types.HTTPCacheIgnoreMissing: true}, "http://x/a", nil, []cacheStep{
			{0, reply(200, "one"), false, false, "", ""},
		}, map[string]int64{"httpcache/ignore": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := types.NewSettings()
			s.Set(types.HTTPCacheEnabled, true, types.PriorityCmdline)
			s.Set(types.HTTPCacheDir, t.TempDir(), types.PriorityCmdline)
			for k, v := range tc.kv {
				if err := s.Set(k, v, types.PriorityCmdline); err != nil {
					t.Fatal(err)
				}
			}
			stats := NewStats()
			m := NewHTTPCacheMiddleware(s, "spider", stats, nil)
			now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			m.now = func() time.Time { return now }
			for i, st := range tc.steps {
				now = now.Add(st.after)
				asked := false
				var sent *types.Request
				next := DownloaderFunc(func(ctx context.Context, req *types.Request) (*types.Response, error) {
					asked, sent = true, req
					return st.reply(now, req)
				})
				resp, err := m.Fetch(context.Background(), &types.Request{URL: tc.url, Meta: tc.meta}, next)
				if asked != st.wantNet {
					t.Errorf("step %d: network asked = %v, want %v", i, asked, st.wantNet)
				}
				if st.wantBody == "" && !st.wantNet {
					if !errors.Is(err, ErrIgnoreRequest) {
						t.Errorf("step %d: err = %v, want IgnoreRequest", i, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if string(resp.Body) != st.wantBody {
					t.Errorf("step %d: body %q, want %q", i, resp.Body, st.wantBody)
				}
				if got := slices.Contains(resp.Flags, "cached"); got != st.wantCached {
					t.Errorf("step %d: cached flag = %v, want %v", i, got, st.wantCached)
				}
				if st.wantHeader != "" && sent != nil {
					k, v, _ := cutHeader(st.wantHeader)
					if sent.Headers.Get(k) == "" || (v != "" && sent.Headers.Get(k) != v) {
						t.Errorf("step %d: request header %s = %q, want %q", i, k, sent.Headers.Get(k), v)
					}
				}
			}
			for k, want := range tc.stats {
				got, _ := stats.Get(k).(int64)
				if got != want {
					t.Errorf("%s = %d, want %d (%v)", k, got, want, stats.Snapshot())
				}
			}
		})
	}
}

func cutHeader(s string) (string, string, bool) {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == ':' && s[i+1] == ' ' {
			return s[:i], s[i+2:], true
		}
	}
	return s, "", false
}
