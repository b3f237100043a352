package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// fetchEcho downloads u inline on e and returns what the server saw.
func fetchEcho(t *testing.T, e *engine.Engine, req *types.Request) echo {
	t.Helper()
	resp, err := e.Download(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return decodeEcho(t, resp)
}

func get(t *testing.T, e *engine.Engine, req *types.Request) *types.Response {
	t.Helper()
	resp, err := e.Download(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestCookies(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	newE := func(kv map[string]any) (*engine.Engine, *enginetest.Buffer) {
		return newEngine(t, &enginetest.Spider{}, kv, engine.WithHTTPClient(s.client()))
	}
	jar := func(k any) types.Item { return types.Item{{Key: "cookiejar", Value: k}} }

	t.Run("set by a server, sent back", func(t *testing.T) {
		t.Parallel()
		e, _ := newE(nil)
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=sid=abc%3B%20Path=/"})
		if c := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo"}).Headers.Get("Cookie"); c != "sid=abc" {
			t.Errorf("Cookie = %q", c)
		}
		if c := fetchEcho(t, e, &types.Request{URL: "http://other.test/echo"}).Headers.Get("Cookie"); c != "" {
			t.Errorf("another site got Cookie %q", c)
		}
	})
	t.Run("scheduled requests", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var cookie string
		sp := &enginetest.Spider{
			StartURLs: []string{"http://site.test/setcookie?c=sid=xyz"},
			ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
				if strings.Contains(resp.URL, "/setcookie") {
					emit(types.Output{Request: &types.Request{URL: "http://site.test/echo"}})
					return nil
				}
				mu.Lock()
				defer mu.Unlock()
				cookie = decodeEcho(t, resp).Headers.Get("Cookie")
				return nil
			},
		}
		crawl(t, sp, nil, engine.WithHTTPClient(s.client()))
		if cookie != "sid=xyz" {
			t.Errorf("Cookie = %q", cookie)
		}
	})
	t.Run("separate jars", func(t *testing.T) {
		t.Parallel()
		e, _ := newE(nil)
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=a=default"})
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=a=one", Meta: jar(int64(1))})
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=a=two", Meta: jar("two")})
		for _, tc := range []struct {
			meta types.Item
			want string
		}{
			{nil, "a=default"},
			{jar(int64(1)), "a=one"},
			{jar(1.0), "a=one"},
			{jar("two"), "a=two"},
			{jar("three"), ""},
		} {
			if c := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo", Meta: tc.meta}).Headers.Get("Cookie"); c != tc.want {
				t.Errorf("jar %v: Cookie = %q, want %q", tc.meta, c, tc.want)
			}
		}
	})
	t.Run("request cookies", func(t *testing.T) {
		t.Parallel()
		e, _ := newE(nil)
		ec := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo", Cookies: []types.Cookie{{Name: "k", Value: "v"}}})
		if c := ec.Headers.Get("Cookie"); c != "k=v" {
			t.Errorf("Cookie = %q", c)
		}
		// They stay in the jar, for the whole site (Path "/").
		if c := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo?again"}).Headers.Get("Cookie"); c != "k=v" {
			t.Errorf("next Cookie = %q", c)
		}
		// A domain cookie reaches subdomains.
		get(t, e, &types.Request{URL: "http://www.site.test/d", Cookies: []types.Cookie{{Name: "d", Value: "1", Domain: "site.test"}}})
		if c := fetchEcho(t, e, &types.Request{URL: "http://api.site.test/echo"}).Headers.Get("Cookie"); c != "d=1" {
			t.Errorf("subdomain Cookie = %q", c)
		}
		// An explicit Cookie header wins.
		ec = fetchEcho(t, e, &types.Request{URL: "http://site.test/echo", Headers: http.Header{"Cookie": {"mine=1"}}})
		if c := ec.Headers.Get("Cookie"); c != "mine=1" {
			t.Errorf("explicit Cookie = %q", c)
		}
	})
	t.Run("dontMergeCookies", func(t *testing.T) {
		t.Parallel()
		e, _ := newE(nil)
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=a=1"})
		dm := types.Item{{Key: "dontMergeCookies", Value: true}}
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=a=2", Meta: dm})
		if c := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo", Meta: dm}).Headers.Get("Cookie"); c != "" {
			t.Errorf("dontMergeCookies request got Cookie %q", c)
		}
		if c := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo"}).Headers.Get("Cookie"); c != "a=1" {
			t.Errorf("Cookie = %q, want a=1 (the dontMergeCookies response is not stored)", c)
		}
	})
	t.Run("COOKIES_ENABLED false", func(t *testing.T) {
		t.Parallel()
		e, _ := newE(map[string]any{types.CookiesEnabled: false})
		get(t, e, &types.Request{URL: "http://site.test/setcookie?c=a=1"})
		if c := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo", Cookies: []types.Cookie{{Name: "k", Value: "v"}}}).Headers.Get("Cookie"); c != "" {
			t.Errorf("Cookie = %q", c)
		}
	})
	t.Run("kept across redirects", func(t *testing.T) {
		t.Parallel()
		e, logs := newE(map[string]any{types.CookiesDebug: true})
		ec := fetchEcho(t, e, &types.Request{URL: "http://site.test/to?status=302&url=/echo&cookie=r=1"})
		if c := ec.Headers.Get("Cookie"); c != "r=1" {
			t.Errorf("Cookie after redirect = %q", c)
		}
		// To another host: neither the jar's cookies nor an explicit Cookie header follow.
		ec = fetchEcho(t, e, &types.Request{URL: "http://site.test/to?status=302&url=http://other.test/echo",
			Headers: http.Header{"Cookie": {"mine=1"}}})
		if c := ec.Headers.Get("Cookie"); c != "" {
			t.Errorf("other host got Cookie %q", c)
		}
		for _, want := range []string{
			"Received cookies from: <302 http://site.test/to?status=302&url=/echo&cookie=r=1>\nSet-Cookie: r=1",
			"Sending cookies to: <GET http://site.test/echo>\nCookie: r=1",
		} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("COOKIES_DEBUG log lacks %q:\n%s", want, logs)
			}
		}
	})
}

func TestHTTPAuth(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	const basic = "Basic dXNlcjpwYXNz" // user:pass
	for _, tc := range []struct {
		name   string
		domain any // nil: unset
		urls   []string
		want   []bool // Authorization sent to each URL, in order
	}{
		{"first request's domain", nil,
			[]string{"http://site.test/echo", "http://www.site.test/echo", "http://other.test/echo"}, []bool{true, true, false}},
		{"first request decides", nil,
			[]string{"http://other.test/echo", "http://site.test/echo"}, []bool{true, false}},
		{"HTTP_AUTH_DOMAIN", "site.test",
			[]string{"http://other.test/echo", "http://sub.site.test/echo", "http://site.test/echo", "http://notsite.test/echo"}, []bool{false, true, true, false}},
		{"every domain", "",
			[]string{"http://other.test/echo", "http://site.test/echo"}, []bool{true, true}},
		{"redirect to another domain drops it", "site.test",
			[]string{"http://site.test/to?status=307&url=http://other.test/echo", "http://site.test/to?status=302&url=/echo"}, []bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kv := map[string]any{types.HTTPUser: "user", types.HTTPPass: "pass"}
			if tc.domain != nil {
				kv[types.HTTPAuthDomain] = tc.domain
			}
			e, _ := newEngine(t, &enginetest.Spider{}, kv, engine.WithHTTPClient(s.client()))
			for i, u := range tc.urls {
				got := fetchEcho(t, e, &types.Request{URL: u}).Headers.Get("Authorization")
				if (got == basic) != tc.want[i] || (got != "" && got != basic) {
					t.Errorf("%s: Authorization = %q, want sent=%v", u, got, tc.want[i])
				}
			}
		})
	}
	t.Run("explicit Authorization kept", func(t *testing.T) {
		t.Parallel()
		e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.HTTPUser: "user", types.HTTPPass: "pass"}, engine.WithHTTPClient(s.client()))
		if got := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo", Headers: http.Header{"Authorization": {"Bearer t"}}}).Headers.Get("Authorization"); got != "Bearer t" {
			t.Errorf("Authorization = %q", got)
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		t.Parallel()
		e, _ := newEngine(t, &enginetest.Spider{}, nil, engine.WithHTTPClient(s.client()))
		if got := fetchEcho(t, e, &types.Request{URL: "http://site.test/echo"}).Headers.Get("Authorization"); got != "" {
			t.Errorf("Authorization = %q", got)
		}
	})
}

func TestReferrerPolicy(t *testing.T) {
	t.Parallel()
	const (
		page      = "https://user:pw@a.test/dir/page?q=1#frag"
		full      = "https://a.test/dir/page?q=1"
		origin    = "https://a.test/"
		sameSite  = "https://a.test/other"
		crossSite = "https://b.test/x"
		downgrade = "http://a.test/x"
	)
	for _, tc := range []struct {
		policy                string
		same, cross, insecure string
	}{
		{"scrapy-default", full, full, ""},
		{"no-referrer-when-downgrade", full, full, ""},
		{"no-referrer", "", "", ""},
		{"same-origin", full, "", ""},
		{"origin", origin, origin, origin},
		{"strict-origin", origin, origin, ""},
		{"origin-when-cross-origin", full, origin, origin},
		{"strict-origin-when-cross-origin", full, origin, ""},
		{"unsafe-url", full, full, full},
	} {
		for _, c := range []struct{ target, want string }{{sameSite, tc.same}, {crossSite, tc.cross}, {downgrade, tc.insecure}} {
			if got := engine.Referrer(tc.policy, page, c.target); got != c.want {
				t.Errorf("%s to %s: %q, want %q", tc.policy, c.target, got, c.want)
			}
		}
	}
	// The default policy's fast path (no URL parsing) agrees with the full rules.
	for _, policy := range []string{"", "scrapy-default", "no-referrer-when-downgrade"} {
		for _, c := range []struct{ source, target, want string }{
			{full, sameSite, full}, {full, crossSite, full}, {full, downgrade, ""},
			{full, "HTTPS://b.test/x", full}, {full, "ftp://b.test/x", ""},
			{"http://a.test/p", "https://b.test/", "http://a.test/p"}, {"http://a.test/p", "http://b.test/", "http://a.test/p"},
			{"https://a.test/p#top", "https://a.test/q", "https://a.test/p"},
		} {
			if got := engine.Referrer(policy, c.source, c.target); got != c.want {
				t.Errorf("%q from %s to %s: %q, want %q", policy, c.source, c.target, got, c.want)
			}
		}
	}
	if got := engine.Referrer("unsafe-url", "file:///etc/passwd", "http://a.test/"); got != "" {
		t.Errorf("file: referrer %q", got)
	}
}

func TestRefererMiddlewarePolicies(t *testing.T) {
	t.Parallel()
	srv := enginetest.NewServer(t)
	for _, tc := range []struct {
		name string
		kv   map[string]any
		meta types.Item
		want string // %s is the server's URL
	}{
		{"default", nil, nil, "%s/"},
		{"REFERRER_POLICY", map[string]any{types.ReferrerPolicy: "origin"}, nil, "%s/"},
		{"meta.referrerPolicy", nil, types.Item{{Key: "referrerPolicy", Value: "no-referrer"}}, ""},
		{"REFERER_ENABLED false", map[string]any{types.RefererEnabled: false}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var got *string
			sp := &enginetest.Spider{
				StartURLs: []string{srv.URL + "/?p=1"},
				ParseFunc: func(_ context.Context, resp *types.Response, emit engine.Emit) error {
					if strings.Contains(resp.URL, "/echo") {
						mu.Lock()
						defer mu.Unlock()
						r := resp.Request.Headers.Get("Referer")
						got = &r
						return nil
					}
					emit(types.Output{Request: &types.Request{URL: srv.URL + "/echo", Meta: tc.meta}})
					return nil
				},
			}
			crawl(t, sp, tc.kv)
			want := tc.want
			if want != "" {
				want = fmt.Sprintf(want, srv.URL)
				if tc.name == "default" {
					want += "?p=1"
				}
			}
			if got == nil || *got != want {
				t.Errorf("Referer = %v, want %q", got, want)
			}
		})
	}
}
