package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// site is a test server for HTTP behaviour. It answers for any host name: the client from
// client() dials it for every host, so http://site.test and http://other.test are two
// sites on one server. Routes:
//
//	/to?status=S&url=U[&cookie=C]  a redirect with status S to Location U (setting cookie C)
//	/a → 301 /b → 302 /c (meta refresh to /d) → /d  a chain of three redirects
//	/loop1 ⇄ /loop2                a redirect loop
//	/many/{n}                      302 to /many/{n+1}, forever
//	/refresh?delay=N&url=U[&in=T]  HTML with a meta refresh (inside tag T)
//	/setcookie?c=NAME=VALUE        sets a cookie
//	/echo                          the request as JSON: method, host, body, headers
type redirectSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int // host+path → hits
}

func newRedirectSite(t *testing.T) *redirectSite {
	t.Helper()
	s := &redirectSite{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *redirectSite) client() *http.Client { return dialTo(s.Listener.Addr().String()) }

func (s *redirectSite) Hits(hostPath string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[hostPath]
}

func (s *redirectSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.Host+r.URL.Path]++
	s.mu.Unlock()
	q := r.URL.Query()
	page := func(body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	switch p := r.URL.Path; {
	case p == "/to":
		if c := q.Get("cookie"); c != "" {
			w.Header().Add("Set-Cookie", c)
		}
		if u := q.Get("url"); u != "" {
			w.Header().Set("Location", u)
		}
		code, _ := strconv.Atoi(q.Get("status"))
		w.WriteHeader(code)
	case p == "/login" && r.Method == http.MethodPost:
		http.Redirect(w, r, "/home", http.StatusFound)
	case p == "/login":
		page(`<html><body><form method="post">log in</form></body></html>`)
	case p == "/home":
		http.Redirect(w, r, "/login", http.StatusFound) // not logged in
	case p == "/a":
		http.Redirect(w, r, "/b", http.StatusMovedPermanently)
	case p == "/b":
		http.Redirect(w, r, "/c", http.StatusFound)
	case p == "/c":
		page(`<html><head><meta http-equiv="Refresh" content="0; URL='/d'"></head><body>c</body></html>`)
	case p == "/d":
		page(`<html><head><title>d</title></head><body>final</body></html>`)
	case p == "/loop1":
		http.Redirect(w, r, "/loop2", http.StatusFound)
	case p == "/loop2":
		http.Redirect(w, r, "/loop1", http.StatusFound)
	case strings.HasPrefix(p, "/many/"):
		n, _ := strconv.Atoi(strings.TrimPrefix(p, "/many/"))
		http.Redirect(w, r, fmt.Sprintf("/many/%d", n+1), http.StatusFound)
	case p == "/refresh":
		meta := fmt.Sprintf(`<meta http-equiv="refresh" content="%s; url=%s">`, q.Get("delay"), q.Get("url"))
		if t := q.Get("in"); t != "" {
			meta = "<" + t + ">" + meta + "</" + t + ">"
		}
		page("<html><head><title>r</title>" + meta + "</head><body>refresh</body></html>")
	case p == "/setcookie":
		w.Header().Add("Set-Cookie", q.Get("c"))
		page("<p>set</p>")
	case p == "/echo":
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(echo{Method: r.Method, Host: r.Host, Body: string(body), Headers: r.Header})
	default:
		http.NotFound(w, r)
	}
}

type echo struct {
	Method  string
	Host    string
	Body    string
	Headers http.Header
}

func decodeEcho(t *testing.T, resp *types.Response) echo {
	t.Helper()
	var e echo
	if err := json.Unmarshal(resp.Body, &e); err != nil {
		t.Fatalf("%s: %v: %s", resp.URL, err, resp.Body)
	}
	return e
}

// download runs an inline download on a fresh engine for s.
func download(t *testing.T, s *redirectSite, kv map[string]any, req *types.Request) (*engine.Engine, *types.Response, error) {
	t.Helper()
	e, _ := newEngine(t, &enginetest.Spider{}, kv, engine.WithHTTPClient(s.client()))
	resp, err := e.Download(context.Background(), req)
	return e, resp, err
}

func TestRedirectMethodAndBody(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for _, tc := range []struct {
		status int
		method string
		want   string // method after the redirect
		body   bool   // body and Content-Type kept
	}{
		{301, "POST", "GET", false},
		{302, "POST", "GET", false},
		{303, "POST", "GET", false},
		{303, "PUT", "GET", false},
		{307, "POST", "POST", true},
		{308, "POST", "POST", true},
		{307, "PUT", "PUT", true},
		{301, "GET", "GET", false},
		{302, "HEAD", "HEAD", false},
		{303, "HEAD", "HEAD", false},
		{308, "GET", "GET", true},
	} {
		t.Run(fmt.Sprint(tc.status, tc.method), func(t *testing.T) {
			t.Parallel()
			req := &types.Request{URL: fmt.Sprintf("http://site.test/to?status=%d&url=/echo", tc.status), Method: tc.method,
				Headers: http.Header{"Content-Type": {"text/plain"}, "X-Keep": {"1"}}}
			if tc.method != "GET" && tc.method != "HEAD" {
				req.Body = []byte("payload")
			}
			e, resp, err := download(t, s, nil, req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 200 || resp.URL != "http://site.test/echo" {
				t.Fatalf("status %d URL %s", resp.Status, resp.URL)
			}
			if got := resp.Request.HTTPMethod(); got != tc.want {
				t.Errorf("method = %s, want %s", got, tc.want)
			}
			if tc.method != "HEAD" {
				ec := decodeEcho(t, resp)
				if ec.Method != tc.want {
					t.Errorf("server saw %s, want %s", ec.Method, tc.want)
				}
				if kept := ec.Body == "payload"; kept != (tc.body && req.Body != nil) {
					t.Errorf("body %q", ec.Body)
				}
				if kept := ec.Headers.Get("Content-Type") != ""; kept != tc.body {
					t.Errorf("Content-Type %q", ec.Headers.Get("Content-Type"))
				}
				if ec.Headers.Get("X-Keep") != "1" {
					t.Error("other headers dropped")
				}
			}
			if got := resp.Request.RedirectURLs(); !slices.Equal(got, []string{req.URL}) {
				t.Errorf("redirectUrls = %v", got)
			}
			if r, _ := resp.Request.Meta.Get("redirectReasons"); fmt.Sprint(r) != fmt.Sprintf("[%d]", tc.status) {
				t.Errorf("redirectReasons = %v", r)
			}
			if stat(e, "downloader/response_status_count/"+fmt.Sprint(tc.status)) != 1 {
				t.Errorf("the 3xx response is not counted: %v", e.Stats().Snapshot())
			}
		})
	}
}

func TestRedirectLocation(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for _, tc := range []struct {
		name, location string
		status         int
		final          string // "" when the 3xx comes back as is
	}{
		{"relative path", "echo?x=1", 302, "http://site.test/echo?x=1"},
		{"absolute path", "/echo", 302, "http://site.test/echo"},
		{"scheme-relative", "//other.test/echo", 302, "http://other.test/echo"},
		{"absolute", "http://other.test/echo", 302, "http://other.test/echo"},
		{"ftp is not followed", "ftp://other.test/x", 302, ""},
		{"javascript is not followed", "javascript:alert(1)", 302, ""},
		{"no Location", "", 302, ""},
		{"not a redirect status", "/echo", 300, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := fmt.Sprintf("http://site.test/to?status=%d&url=%s", tc.status, urlQueryEscape(tc.location))
			_, resp, err := download(t, s, nil, &types.Request{URL: u})
			if err != nil {
				t.Fatal(err)
			}
			if tc.final == "" {
				if resp.Status != tc.status || resp.URL != u {
					t.Errorf("got %d %s, want the %d as is", resp.Status, resp.URL, tc.status)
				}
				return
			}
			if resp.Status != 200 || resp.URL != tc.final {
				t.Errorf("got %d %s, want 200 %s", resp.Status, resp.URL, tc.final)
			}
		})
	}
}

// TestRedirectLocationMadeSafe: a Location is made safe as Scrapy makes it
// (safe_url_string): an internationalised host in punycode, raw UTF-8 and characters a URL
// may not carry percent-encoded.
func TestRedirectLocationMadeSafe(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for location, final := range map[string]string{
		"http://www.Bücher.test/echo?q=ü": "http://www.xn--bcher-kva.test/echo?q=%C3%BC",
		"/echo?x=a b|c":                   "http://site.test/echo?x=a%20b%7Cc",
	} {
		u := "http://site.test/to?status=302&url=" + url.QueryEscape(location)
		_, resp, err := download(t, s, nil, &types.Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || resp.URL != final {
			t.Errorf("Location %q: got %d %s, want 200 %s", location, resp.Status, resp.URL, final)
		}
	}
}

func urlQueryEscape(s string) string {
	return strings.NewReplacer("?", "%3F", "&", "%26", "=", "%3D", "#", "%23").Replace(s)
}

func TestRedirectChainMeta(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	var mu sync.Mutex
	var got *types.Response
	sp := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: "http://site.test/a", Priority: 5, Meta: types.Item{{Key: "cookiejar", Value: "j1"}}}})
			return nil
		},
		ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
			mu.Lock()
			got = resp
			mu.Unlock()
			return nil
		},
	}
	e, logs := crawl(t, sp, nil, engine.WithHTTPClient(s.client()))
	if got == nil {
		t.Fatalf("no response parsed\n%s", logs)
	}
	if got.URL != "http://site.test/d" || !strings.Contains(string(got.Body), "final") {
		t.Errorf("final response %s %q", got.URL, got.Body)
	}
	want := []string{"http://site.test/a", "http://site.test/b", "http://site.test/c"}
	if urls := got.Request.RedirectURLs(); !slices.Equal(urls, want) {
		t.Errorf("redirectUrls = %v, want %v", urls, want)
	}
	reasons, _ := got.Request.Meta.Get("redirectReasons")
	if fmt.Sprint(reasons) != "[301 302 meta refresh]" {
		t.Errorf("redirectReasons = %v", reasons)
	}
	if n, _ := got.Request.Meta.Get("redirectTimes"); n != int64(3) {
		t.Errorf("redirectTimes = %v", n)
	}
	if j, _ := got.Request.Meta.Get("cookiejar"); j != "j1" {
		t.Errorf("meta.cookiejar = %v, want it kept", j)
	}
	if got.Request.Priority != 5+3*2 {
		t.Errorf("priority = %d, want 11 (REDIRECT_PRIORITY_ADJUST 2 per redirect)", got.Request.Priority)
	}
	// Each redirect went back through the scheduler; only the page counts as received.
	if n := stat(e, "response_received_count"); n != 1 {
		t.Errorf("response_received_count = %d, want 1", n)
	}
	if n := stat(e, "scheduler/enqueued"); n != 4 {
		t.Errorf("scheduler/enqueued = %d, want 4", n)
	}
	if n := stat(e, "downloader/response_count"); n != 4 {
		t.Errorf("downloader/response_count = %d, want 4 (three redirects and the page)", n)
	}
	if !strings.Contains(logs, "Redirecting (301) to <GET http://site.test/b> from <GET http://site.test/a>") ||
		!strings.Contains(logs, "Redirecting (meta refresh) to <GET http://site.test/d> from <GET http://site.test/c>") {
		t.Errorf("redirects not logged:\n%s", logs)
	}
}

func TestRedirectFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		url  string
		kv   map[string]any
		hits map[string]int // host+path → hits, to show where it stopped
	}{
		{"loop fails at once", "http://site.test/loop1", nil, map[string]int{"site.test/loop1": 1, "site.test/loop2": 1}},
		{"too many", "http://site.test/many/0", map[string]any{types.RedirectMaxTimes: 3}, map[string]int{"site.test/many/3": 1, "site.test/many/4": 0}},
		{"default limit 20", "http://site.test/many/100", nil, map[string]int{"site.test/many/120": 1, "site.test/many/121": 0}},
	} {
		for _, inline := range []bool{false, true} {
			t.Run(fmt.Sprint(tc.name, " inline=", inline), func(t *testing.T) {
				t.Parallel()
				s := newRedirectSite(t)
				var failures enginetest.Recorder[*types.Failure]
				var e *engine.Engine
				if inline {
					var err error
					e, _, err = download(t, s, tc.kv, &types.Request{URL: tc.url})
					if err == nil {
						t.Fatal("no error")
					}
					failures.Add(&types.Failure{Name: engine.ErrorName(err), Message: err.Error()})
				} else {
					sp := &enginetest.Spider{
						StartFunc: func(_ context.Context, emit engine.Emit) error {
							emit(types.Output{Request: &types.Request{URL: tc.url, Errback: "onError"}})
							return nil
						},
						ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
							failures.Add(f)
							return nil
						},
					}
					e, _ = crawl(t, sp, tc.kv, engine.WithHTTPClient(s.client()))
				}
				got := failures.All()
				if len(got) != 1 || got[0].Name != "MaxRedirectsError" {
					t.Fatalf("failures = %+v", got)
				}
				if !strings.Contains(got[0].Message, tc.url) {
					t.Errorf("message %q does not name %s", got[0].Message, tc.url)
				}
				if n := stat(e, "downloader/exception_type_count/MaxRedirectsError"); n != 1 {
					t.Errorf("downloader/exception_type_count/MaxRedirectsError = %d, want 1", n)
				}
				for hp, n := range tc.hits {
					if got := s.Hits(hp); got != n {
						t.Errorf("hits of %s = %d, want %d", hp, got, n)
					}
				}
			})
		}
	}
}

// TestRedirectLoopAfterMethodChange: POST /login → 302 GET /home → 302 GET /login is not a
// loop (the POST is another request than the GET), for a scheduled and an inline download.
func TestRedirectLoopAfterMethodChange(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	_, resp, err := download(t, s, nil, &types.Request{URL: "http://site.test/login", Method: http.MethodPost, Body: []byte("u=x")})
	if err != nil {
		t.Fatalf("inline: %v", err)
	}
	if resp.Status != 200 || !strings.Contains(string(resp.Body), "log in") || resp.Request.HTTPMethod() != http.MethodGet {
		t.Errorf("inline: %d %s %q", resp.Status, resp.Request.HTTPMethod(), resp.Body)
	}
	if got := resp.Request.RedirectURLs(); len(got) != 2 || got[0] != "http://site.test/login" || got[1] != "http://site.test/home" {
		t.Errorf("redirectUrls = %v", got)
	}
	var scheduled enginetest.Recorder[string]
	sp := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: "http://site.test/login", Method: http.MethodPost, Errback: "onError"}})
			return nil
		},
		ParseFunc: func(_ context.Context, r *types.Response, _ engine.Emit) error {
			scheduled.Add(r.Request.HTTPMethod() + " " + r.URL)
			return nil
		},
		ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
			scheduled.Add("error " + f.Name)
			return nil
		},
	}
	crawl(t, sp, nil, engine.WithHTTPClient(s.client()))
	if got := scheduled.All(); len(got) != 1 || got[0] != "GET http://site.test/login" {
		t.Errorf("scheduled: %v", got)
	}
}

func TestRedirectTurnedOff(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for _, tc := range []struct {
		name string
		kv   map[string]any
		meta types.Item
	}{
		{"meta.dontRedirect", nil, types.Item{{Key: "dontRedirect", Value: true}}},
		{"REDIRECT_ENABLED false", map[string]any{types.RedirectEnabled: false}, nil},
		{"meta.handleHttpStatusList", nil, types.Item{{Key: "handleHttpStatusList", Value: []any{int64(302)}}}},
		{"meta.handleHttpStatusAll", nil, types.Item{{Key: "handleHttpStatusAll", Value: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := "http://site.test/to?status=302&url=/echo"
			_, resp, err := download(t, s, tc.kv, &types.Request{URL: u, Meta: tc.meta})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 302 || resp.Headers.Get("Location") != "/echo" || resp.URL != u {
				t.Errorf("got %d %s, want the 302", resp.Status, resp.URL)
			}
		})
	}
}

func TestMetaRefresh(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for _, tc := range []struct {
		name     string
		query    string
		kv       map[string]any
		followed bool
	}{
		{"followed", "delay=5&url=/d", nil, true},
		{"over METAREFRESH_MAXDELAY", "delay=100&url=/d", nil, false},
		{"under a raised max delay", "delay=100&url=/d", map[string]any{types.MetaRefreshMaxDelay: 200}, true},
		{"METAREFRESH_ENABLED false", "delay=0&url=/d", map[string]any{types.MetaRefreshEnabled: false}, false},
		{"in an ignored tag", "delay=0&url=/d&in=noscript", map[string]any{types.MetaRefreshIgnoreTags: []any{"noscript"}}, false},
		{"in a tag not ignored", "delay=0&url=/d&in=noscript", nil, true},
		{"refresh of the page itself", "delay=0&url=/refresh", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, resp, err := download(t, s, tc.kv, &types.Request{URL: "http://site.test/refresh?" + tc.query})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.URL == "http://site.test/d"; got != tc.followed {
				t.Errorf("final URL %s, followed = %v, want %v", resp.URL, got, tc.followed)
			}
			if tc.followed {
				if r, _ := resp.Request.Meta.Get("redirectReasons"); fmt.Sprint(r) != "[meta refresh]" {
					t.Errorf("redirectReasons = %v", r)
				}
			}
		})
	}
}

func TestRedirectOffsite(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	var parsed, failures enginetest.Recorder[string]
	sp := &enginetest.Spider{
		Domains: []string{"site.test"},
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			for _, u := range []string{
				"http://site.test/to?status=302&url=http://other.test/d",
				"http://site.test/to?status=301&url=http://sub.site.test/d",
			} {
				emit(types.Output{Request: &types.Request{URL: u, Errback: "e"}})
			}
			emit(types.Output{Request: &types.Request{URL: "http://site.test/to?status=302&url=http://other.test/echo", DontFilter: true}})
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, _ engine.Emit) error {
			parsed.Add(resp.URL)
			return nil
		},
		ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
			failures.Add(f.Name)
			return nil
		},
	}
	e, logs := crawl(t, sp, nil, engine.WithHTTPClient(s.client()))
	got := parsed.All()
	slices.Sort(got)
	if want := []string{"http://other.test/echo", "http://sub.site.test/d"}; !slices.Equal(got, want) {
		t.Errorf("parsed %v, want %v", got, want)
	}
	if s.Hits("other.test/d") != 0 {
		t.Error("the offsite redirect was downloaded")
	}
	if fmt.Sprint(failures.All()) != "[IgnoreRequest]" {
		t.Errorf("errbacks %v, want one IgnoreRequest", failures.All())
	}
	if stat(e, "offsite/filtered") != 1 || stat(e, "offsite/domains") != 1 || stat(e, "downloader/exception_type_count/IgnoreRequest") != 1 {
		t.Errorf("offsite stats %v", e.Stats().Snapshot())
	}
	if !strings.Contains(logs, `Filtered offsite request to "other.test": <GET http://other.test/d>`) {
		t.Errorf("not logged:\n%s", logs)
	}

	// An inline download follows a redirect anywhere.
	resp, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/to?status=302&url=http://other.test/d"})
	if err != nil || resp.URL != "http://other.test/d" {
		t.Errorf("inline: %v %v", resp, err)
	}
}

func TestRedirectDupeFilter(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	var parsed enginetest.Recorder[string]
	sp := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: "http://site.test/d"}})
			emit(types.Output{Request: &types.Request{URL: "http://site.test/to?status=301&url=/d"}})
			emit(types.Output{Request: &types.Request{URL: "http://site.test/to?status=302&url=/d", DontFilter: true}})
			return nil
		},
		ParseFunc: func(ctx context.Context, resp *types.Response, _ engine.Emit) error {
			parsed.Add(resp.URL + " " + fmt.Sprint(resp.Request.DontFilter))
			return nil
		},
	}
	crawl(t, sp, map[string]any{types.ConcurrentRequests: 1}, engine.WithHTTPClient(s.client()))
	got := parsed.All()
	slices.Sort(got)
	// The 301 to /d is a duplicate of the start request; the dontFilter one is kept.
	if want := []string{"http://site.test/d false", "http://site.test/d true"}; !slices.Equal(got, want) {
		t.Errorf("parsed %v, want %v", got, want)
	}
}

func TestRedirectReferer(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	for _, tc := range []struct {
		name, referer string
		meta          types.Item
		kv            map[string]any
		want          string
	}{
		{"kept", "http://a.test/page?q=1", nil, nil, "http://a.test/page?q=1"},
		{"dropped on a downgrade", "https://a.test/page", nil, nil, ""},
		{"meta.referrerPolicy", "https://a.test/page", types.Item{{Key: "referrerPolicy", Value: "origin"}}, nil, "https://a.test/"},
		{"REFERRER_POLICY", "http://a.test/page", nil, map[string]any{types.ReferrerPolicy: "same-origin"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, resp, err := download(t, s, tc.kv, &types.Request{URL: "http://site.test/to?status=302&url=/echo",
				Headers: http.Header{"Referer": {tc.referer}}, Meta: tc.meta})
			if err != nil {
				t.Fatal(err)
			}
			if got := decodeEcho(t, resp).Headers.Get("Referer"); got != tc.want {
				t.Errorf("Referer = %q, want %q", got, tc.want)
			}
		})
	}
}

// rescheduler replaces every request with another one, forever.
type rescheduler struct{}

func (rescheduler) Fetch(_ context.Context, req *types.Request, _ engine.Downloader) (*types.Response, error) {
	n := req.Copy()
	n.URL = req.URL + "x"
	return nil, engine.Reschedule(n)
}

func TestInlineRescheduleBounded(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.RedirectMaxTimes: 5}, engine.WithDownloaderMiddlewares(rescheduler{}))
	_, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/"})
	if engine.ErrorName(err) != "MaxRedirectsError" || !strings.Contains(err.Error(), "http://site.test/") {
		t.Fatalf("err = %v", err)
	}
	if n := stat(e, "downloader/exception_type_count/MaxRedirectsError"); n != 1 {
		t.Errorf("downloader/exception_type_count/MaxRedirectsError = %d", n)
	}
}

// disallow stands in for RobotsTxtMiddleware (order 100): it refuses paths under /private
// and records every URL it sees.
type disallow struct {
	mu   sync.Mutex
	seen []string
}

func (d *disallow) Fetch(ctx context.Context, req *types.Request, next engine.Downloader) (*types.Response, error) {
	d.mu.Lock()
	d.seen = append(d.seen, req.URL)
	d.mu.Unlock()
	if u, _ := req.ParsedURL(); u != nil && strings.HasPrefix(u.Path, "/private") {
		return nil, fmt.Errorf("forbidden by robots.txt: %w", engine.ErrIgnoreRequest)
	}
	return next.Fetch(ctx, req)
}

// TestRedirectPassesChainAgain: a redirected scheduled request goes through the middlewares
// above RedirectMiddleware again, so a robots.txt check at order 100 sees and can refuse it.
func TestRedirectPassesChainAgain(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	robots := &disallow{}
	var failures, parsed enginetest.Recorder[string]
	sp := &enginetest.Spider{
		StartFunc: func(_ context.Context, emit engine.Emit) error {
			emit(types.Output{Request: &types.Request{URL: "http://site.test/to?status=302&url=/private/x", Errback: "e"}})
			emit(types.Output{Request: &types.Request{URL: "http://site.test/to?status=302&url=/d", Errback: "e"}})
			return nil
		},
		ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
			parsed.Add(resp.URL)
			return nil
		},
		ErrbackFunc: func(_ context.Context, f *types.Failure, _ engine.Emit) error {
			failures.Add(f.Name + " " + f.Request.URL)
			return nil
		},
	}
	crawl(t, sp, nil, engine.WithHTTPClient(s.client()),
		engine.WithOrderedDownloaderMiddlewares(engine.OrderedMiddleware{Order: 100, M: robots}))
	if fmt.Sprint(parsed.All()) != "[http://site.test/d]" {
		t.Errorf("parsed %v", parsed.All())
	}
	if fmt.Sprint(failures.All()) != "[IgnoreRequest http://site.test/private/x]" {
		t.Errorf("errbacks %v", failures.All())
	}
	if s.Hits("site.test/private/x") != 0 {
		t.Error("the disallowed redirect target was downloaded")
	}
	slices.Sort(robots.seen)
	if want := []string{"http://site.test/d", "http://site.test/private/x", "http://site.test/to?status=302&url=/d", "http://site.test/to?status=302&url=/private/x"}; !slices.Equal(robots.seen, want) {
		t.Errorf("order-100 middleware saw %v, want %v", robots.seen, want)
	}
}
