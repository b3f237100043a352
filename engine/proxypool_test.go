package engine_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// proxiedSite is a test site on 127.0.0.1 that records, for each request, its path, the
// address it came from and its headers.
type proxiedSite struct {
	*httptest.Server
	mu   sync.Mutex
	seen []siteHit
	hook func(n int) // called with the number of each request, before it is answered
}

type siteHit struct {
	path   string
	client string // the client's IP
	header http.Header
	at     time.Time
}

func newProxiedSite(t *testing.T, tls bool) *proxiedSite {
	t.Helper()
	s := &proxiedSite{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		s.mu.Lock()
		s.seen = append(s.seen, siteHit{path: r.URL.Path, client: host, header: r.Header.Clone(), at: time.Now()})
		n, hook := len(s.seen), s.hook
		s.mu.Unlock()
		if hook != nil {
			hook(n)
		}
		if strings.HasPrefix(r.URL.Path, "/redirect") {
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			return
		}
		fmt.Fprintf(w, "<html>%s</html>", r.URL.Path)
	})
	if tls {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

func (s *proxiedSite) hits() []siteHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// clients returns how many requests came from each client IP.
func (s *proxiedSite) clients() map[string]int {
	out := map[string]int{}
	for _, h := range s.hits() {
		out[h.client]++
	}
	return out
}

// pathCounts returns how many times each path was requested.
func (s *proxiedSite) pathCounts() map[string]int {
	out := map[string]int{}
	for _, h := range s.hits() {
		out[h.path]++
	}
	return out
}

// threeProxies starts HTTP proxies on 127.0.0.2, .3 and .4, with the credentials u:pwN
// (N = 2, 3, 4).
func threeProxies(t *testing.T) []*enginetest.HTTPProxy {
	t.Helper()
	var ps []*enginetest.HTTPProxy
	for i := 2; i <= 4; i++ {
		ps = append(ps, enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{
			Addr: fmt.Sprintf("127.0.0.%d:0", i), User: "u", Pass: fmt.Sprintf("sekrit-pw%d", i)}))
	}
	return ps
}

func proxyURLs[P interface{ URL() string }](ps []P) []any {
	var out []any
	for _, p := range ps {
		out = append(out, p.URL())
	}
	return out
}

// pages returns the spider that requests base/p/0 ... base/p/n-1 and checks that the
// pool's proxy is not in response.meta.
func pages(t *testing.T, base string, n int) *enginetest.Spider {
	var urls []string
	for i := range n {
		urls = append(urls, fmt.Sprintf("%s/p/%d", base, i))
	}
	return &enginetest.Spider{StartURLs: urls, ParseFunc: func(_ context.Context, resp *types.Response, _ engine.Emit) error {
		if _, ok := resp.Request.Meta.Get(types.MetaProxy); ok {
			t.Errorf("%s: the pool's proxy is in response.meta: %v", resp.URL, resp.Request.Meta)
		}
		return nil
	}}
}

// maskedKey returns the per-proxy stat key of proxy URL u.
func maskedKey(u, name string) string { return "proxy/" + types.MaskURL(u) + "/" + name }

// TestProxyPoolRotates: three proxies, each dialling from its own address, take the
// downloads in turn (round_robin): the site sees three client addresses, none of them
// the crawler's own, and each proxy's response_count.
func TestProxyPoolRotates(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	ps := threeProxies(t)
	e, _ := crawl(t, pages(t, site.URL, 9), map[string]any{types.ProxyList: proxyURLs(ps), types.ConcurrentRequests: 3})
	if n := stat(e, "proxy/healthy"); n != 3 {
		t.Errorf("proxy/healthy = %d, want 3", n)
	}
	want := map[string]int{"127.0.0.2": 3, "127.0.0.3": 3, "127.0.0.4": 3}
	if got := site.clients(); !mapsEqual(got, want) {
		t.Errorf("clients at the site %v, want %v", got, want)
	}
	for _, p := range ps {
		if n := stat(e, maskedKey(p.URL(), "response_count")); n != 3 {
			t.Errorf("%s = %d, want 3", maskedKey(p.URL(), "response_count"), n)
		}
	}
	if n := stat(e, "proxy/benched_count"); n != 0 {
		t.Errorf("proxy/benched_count = %d", n)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestProxyPoolKinds: an HTTP proxy, a SOCKS5 and a SOCKS5h server, all with credentials,
// in one rotation, for an http and an https site (CONNECT through the HTTP proxy).
func TestProxyPoolKinds(t *testing.T) {
	t.Parallel()
	plain := newProxiedSite(t, false)
	secure := newProxiedSite(t, true)
	hp := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.2:0", User: "h", Pass: "pw-http"})
	s5 := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Addr: "127.0.0.3:0", User: "s", Pass: "pw-socks"})
	s5h := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Addr: "127.0.0.4:0", User: "s", Pass: "pw-socks"})
	list := []any{hp.URL(), s5.URL("socks5"), s5h.URL("socks5h")}
	var urls []string
	for i := range 3 {
		urls = append(urls, fmt.Sprintf("%s/p/%d", plain.URL, i), fmt.Sprintf("%s/p/%d", secure.URL, i))
	}
	e, _ := crawl(t, &enginetest.Spider{StartURLs: urls}, map[string]any{types.ProxyList: list,
		types.ConcurrentRequests: 1, types.DownloadVerifyTLS: false})
	all := map[string]int{}
	for _, s := range []*proxiedSite{plain, secure} {
		for c, n := range s.clients() {
			all[c] += n
		}
	}
	if want := map[string]int{"127.0.0.2": 2, "127.0.0.3": 2, "127.0.0.4": 2}; !mapsEqual(all, want) {
		t.Errorf("clients at the sites %v, want %v", all, want)
	}
	if n := stat(e, "downloader/response_status_count/200"); n != 6 {
		t.Errorf("200s = %d, want 6", n)
	}
	for _, r := range hp.Seen() {
		if r.Method == http.MethodConnect && r.Auth != "Basic "+base64.StdEncoding.EncodeToString([]byte("h:pw-http")) {
			t.Errorf("CONNECT %s with Proxy-Authorization %q", r.Target, r.Auth)
		}
	}
	for _, r := range append(s5.Seen(), s5h.Seen()...) {
		if r.Auth != "s:pw-socks" || r.Refused {
			t.Errorf("SOCKS5 %+v", r)
		}
	}
}

// TestProxyPoolBenchesKilledProxy: a proxy killed mid-crawl fails to connect, is benched
// (once: it stays out for PROXY_BENCH_DELAY) and the download goes at once to the next
// proxy, not counted as a retry of the site; the crawl completes through the two others,
// each page fetched exactly once, none directly.
func TestProxyPoolBenchesKilledProxy(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	ps := threeProxies(t)
	// With one download at a time the fourth goes through 127.0.0.2: 127.0.0.3 has no
	// request in flight when it is killed.
	site.hook = func(n int) {
		if n == 4 {
			ps[1].Close()
		}
	}
	e, logs := crawl(t, pages(t, site.URL, 12), map[string]any{types.ProxyList: proxyURLs(ps), types.ConcurrentRequests: 1})
	for path, n := range site.pathCounts() {
		if n != 1 {
			t.Errorf("%s fetched %d times", path, n)
		}
	}
	if n := len(site.hits()); n != 12 {
		t.Errorf("the site got %d requests, want 12", n)
	}
	for i, h := range site.hits() {
		if h.client == "127.0.0.1" || (i >= 4 && h.client == "127.0.0.3") {
			t.Errorf("request %d (%s) came from %s", i+1, h.path, h.client)
		}
	}
	killed := ps[1].URL()
	for key, want := range map[string]int64{
		"proxy/healthy":                        2,
		"proxy/benched_count":                  1,
		"proxy/retry_count":                    1,
		maskedKey(killed, "benched_count"):     1,
		maskedKey(killed, "error_count"):       1,
		"retry/count":                          0,
		"downloader/response_status_count/200": 12,
	} {
		if n := stat(e, key); n != want {
			t.Errorf("%s = %d, want %d", key, n, want)
		}
	}
	if !strings.Contains(logs, "Benched proxy "+types.MaskURL(killed)+" until ") {
		t.Errorf("no bench in the log:\n%s", logs)
	}
	if strings.Contains(logs, "sekrit") {
		t.Errorf("a proxy password is in the log:\n%s", logs)
	}
}

// notify is a slog.Handler that passes records on to inner and closes ch at the first
// whose message contains substr.
type notify struct {
	slog.Handler
	substr string
	once   *sync.Once
	ch     chan struct{}
}

func (n notify) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, n.substr) {
		n.once.Do(func() { close(n.ch) })
	}
	return n.Handler.Handle(ctx, r)
}

func (n notify) WithAttrs(as []slog.Attr) slog.Handler {
	return notify{n.Handler.WithAttrs(as), n.substr, n.once, n.ch}
}

func (n notify) WithGroup(g string) slog.Handler {
	return notify{n.Handler.WithGroup(g), n.substr, n.once, n.ch}
}

// crawlPaused closes the proxies ps and starts a crawl of n pages of site through them
// with the settings kv, and returns once the crawl has paused because every proxy is
// benched: the engine, its DEBUG log and the channel that gets Run's result.
func crawlPaused(t *testing.T, site *proxiedSite, ps []*enginetest.HTTPProxy, n int, kv map[string]any) (*engine.Engine, *enginetest.Buffer, <-chan error) {
	t.Helper()
	for _, p := range ps {
		p.Close()
	}
	logs := &enginetest.Buffer{}
	paused := make(chan struct{})
	stats := engine.NewStats()
	logger := slog.New(notify{engine.NewLogHandler(logs, slog.LevelDebug, stats), "proxies benched; pausing until", &sync.Once{}, paused})
	kv[types.ProxyList] = proxyURLs(ps)
	e := engine.New(pages(t, site.URL, n), settings(t, kv), engine.WithLogger(logger), engine.WithStats(stats))
	done := make(chan error, 1)
	go func() { done <- e.Run(context.Background()) }()
	<-paused
	return e, logs, done
}

// TestProxyPoolAllBenched: with every proxy down the crawl pauses and says so, and no
// request goes to the site directly; once one proxy is back (restarted on its address)
// and its bench is over, the crawl resumes and completes through it.
func TestProxyPoolAllBenched(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	ps := threeProxies(t)
	e, logs, done := crawlPaused(t, site, ps, 5, map[string]any{types.ProxyBenchDelay: 0.2, types.ProxyBenchMaxDelay: 0.2})
	if n := len(site.hits()); n != 0 {
		t.Errorf("the site got %d requests while every proxy was down", n)
	}
	if err := ps[1].Restart(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := site.clients(), map[string]int{"127.0.0.3": 5}; !mapsEqual(got, want) {
		t.Errorf("clients at the site %v, want %v", got, want)
	}
	out := logs.String()
	for _, want := range []string{"WARNING: all 3 proxies benched; pausing until ", "WARNING: proxies back; resuming"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the log:\n%s", want, out)
		}
	}
	if n := stat(e, "response_received_count"); n != 5 {
		t.Errorf("responses received %d, want 5", n)
	}
}

// TestProxyPoolShutdownEndsPause: a crawl paused for its proxies closes when asked to,
// without waiting for them.
func TestProxyPoolShutdownEndsPause(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	ps := threeProxies(t)
	e, _, done := crawlPaused(t, site, ps, 3, map[string]any{types.ProxyBenchDelay: 600})
	e.CloseSpider("shutdown")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(site.hits()); n != 0 {
		t.Errorf("the site got %d requests", n)
	}
	if r := e.Stats().Get("finish_reason"); r != "shutdown" {
		t.Errorf("finish_reason %v", r)
	}
}

// TestProxyPoolCredentials: the proxies' credentials go to each proxy in
// Proxy-Authorization only (for plain http and in CONNECT), never to a site in any header
// (the forward proxy strips Proxy-Authorization, as real proxies do; here jscrawl must not
// put them anywhere else), neither after a redirect to another host nor on a direct
// request (meta.proxy null); nor are they in the DEBUG log or the stats.
func TestProxyPoolCredentials(t *testing.T) {
	t.Parallel()
	a := newProxiedSite(t, false)
	b := newProxiedSite(t, false)
	secure := newProxiedSite(t, true)
	ps := threeProxies(t)
	spider := &enginetest.Spider{StartFunc: func(_ context.Context, emit engine.Emit) error {
		emit(types.Output{Request: &types.Request{URL: a.URL + "/redirect?to=" + b.URL + "/landed"}})
		emit(types.Output{Request: &types.Request{URL: a.URL + "/plain"}})
		emit(types.Output{Request: &types.Request{URL: secure.URL + "/tls", Headers: http.Header{"Proxy-Authorization": {"Basic c3BpZGVyOm93bg=="}}}})
		emit(types.Output{Request: &types.Request{URL: a.URL + "/direct", Meta: types.Item{{Key: types.MetaProxy, Value: nil}},
			Headers: http.Header{"Proxy-Authorization": {"Basic c3BpZGVyOm93bg=="}}}})
		return nil
	}}
	e, logs := crawl(t, spider, map[string]any{types.ProxyList: proxyURLs(ps), types.DownloadVerifyTLS: false})
	secrets := []string{"sekrit"}
	for i := 2; i <= 4; i++ {
		secrets = append(secrets, base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "u:sekrit-pw%d", i)))
	}
	leaks := func(where string, h http.Header, allowed string) {
		for k, vs := range h {
			for _, v := range vs {
				for _, s := range secrets {
					if strings.Contains(v, s) && k != allowed {
						t.Errorf("%s: credentials in %s: %q", where, k, v)
					}
				}
			}
		}
	}
	var direct []siteHit
	for _, s := range []*proxiedSite{a, b, secure} {
		for _, h := range s.hits() {
			leaks("site "+h.path, h.header, "")
			if h.header.Get("Proxy-Authorization") != "" {
				t.Errorf("site %s got Proxy-Authorization", h.path)
			}
			if h.client == "127.0.0.1" {
				direct = append(direct, h)
			}
		}
	}
	if len(direct) != 1 || direct[0].path != "/direct" {
		t.Errorf("direct requests %v, want /direct only", direct)
	}
	if b.pathCounts()["/landed"] != 1 {
		t.Errorf("the redirect was not followed: %v", b.pathCounts())
	}
	proxied := 0
	for _, p := range ps {
		for _, r := range p.Seen() {
			proxied++
			leaks("proxy "+r.Target, r.Header, "Proxy-Authorization")
			if r.Auth == "" || r.Refused {
				t.Errorf("proxy %s: %s %s with Proxy-Authorization %q", p.Addr(), r.Method, r.Target, r.Auth)
			}
		}
	}
	if proxied != 4 {
		t.Errorf("the proxies got %d requests, want 4 (redirect, landed, plain, CONNECT)", proxied)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the DEBUG log holds a credential:\n%s", logs)
		}
		for k, v := range e.Stats().Snapshot() {
			if strings.Contains(k, s) || strings.Contains(fmt.Sprint(v), s) {
				t.Errorf("stat %s = %v", k, v)
			}
		}
	}
}

// TestProxyPoolRefused: a proxy that refuses the pool's credentials (407 to a plain-http
// request, to CONNECT, or a failed SOCKS5 authentication) is benched and the download goes
// to the next; a site that cannot be reached through a proxy (502 to CONNECT, a SOCKS5
// "connection refused") is the site's failure: no proxy is benched.
func TestProxyPoolRefused(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	secure := newProxiedSite(t, true)
	good := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.4:0"})
	httpBad := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.2:0", User: "u", Pass: "right"})
	socksBad := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Addr: "127.0.0.3:0", User: "u", Pass: "right"})
	wrongHTTP := "http://u:wrong@" + httpBad.Addr()
	wrongSOCKS := "socks5://u:wrong@" + socksBad.Addr()
	for _, tc := range []struct {
		name  string
		list  []any
		url   string
		bench string // the proxy benched
	}{
		{"407 to plain http", []any{wrongHTTP, good.URL()}, site.URL + "/x", wrongHTTP},
		{"407 to CONNECT", []any{wrongHTTP, good.URL()}, secure.URL + "/x", wrongHTTP},
		{"SOCKS5 authentication", []any{wrongSOCKS, good.URL()}, site.URL + "/x", wrongSOCKS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, logs := crawl(t, &enginetest.Spider{StartURLs: []string{tc.url}}, map[string]any{types.ProxyList: tc.list, types.DownloadVerifyTLS: false})
			if n := stat(e, "downloader/response_status_count/200"); n != 1 {
				t.Errorf("200s = %d, want 1", n)
			}
			if n := stat(e, maskedKey(tc.bench, "benched_count")); n != 1 {
				t.Errorf("%s = %d, want 1", maskedKey(tc.bench, "benched_count"), n)
			}
			if n := stat(e, maskedKey(good.URL(), "response_count")); n != 1 {
				t.Errorf("good proxy response_count = %d, want 1", n)
			}
			if strings.Contains(logs, "wrong") {
				t.Errorf("the password is in the log:\n%s", logs)
			}
		})
	}

	closed := enginetest.ClosedAddr(t)
	openHTTP := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.2:0"})
	openSOCKS := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Addr: "127.0.0.3:0"})
	for _, tc := range []struct {
		name, proxy, url, err string
	}{
		{"CONNECT 502", openHTTP.URL(), "https://" + closed + "/x", engine.NameTunnel},
		{"SOCKS5 connection refused", openSOCKS.URL("socks5"), "http://" + closed + "/x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := crawl(t, &enginetest.Spider{StartURLs: []string{tc.url}}, map[string]any{types.ProxyList: []any{tc.proxy}, types.RetryEnabled: false})
			if n := stat(e, "proxy/benched_count"); n != 0 {
				t.Errorf("proxy/benched_count = %d: the site's failure benched the proxy", n)
			}
			if n := stat(e, "downloader/exception_count"); n != 1 {
				t.Errorf("downloader/exception_count = %d, want 1", n)
			}
			if n := stat(e, "downloader/exception_type_count/"+tc.err); tc.err != "" && n != 1 {
				t.Errorf("%s = %d, want 1: %v", tc.err, n, e.Stats().Snapshot())
			}
		})
	}
}

// TestProxyPoolMetaProxyWins: meta.proxy sends one request through its own proxy, and
// null directly; HTTPPROXY_ENABLED false turns the pool off.
func TestProxyPoolMetaProxyWins(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	pool := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.2:0"})
	own := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.5:0"})
	spider := &enginetest.Spider{StartFunc: func(_ context.Context, emit engine.Emit) error {
		emit(types.Output{Request: &types.Request{URL: site.URL + "/own", Meta: types.Item{{Key: types.MetaProxy, Value: own.URL()}}}})
		emit(types.Output{Request: &types.Request{URL: site.URL + "/direct", Meta: types.Item{{Key: types.MetaProxy, Value: ""}}}})
		emit(types.Output{Request: &types.Request{URL: site.URL + "/pool"}})
		return nil
	}}
	crawl(t, spider, map[string]any{types.ProxyList: []any{pool.URL()}})
	got := map[string]string{}
	for _, h := range site.hits() {
		got[h.path] = h.client
	}
	if want := map[string]string{"/own": "127.0.0.5", "/direct": "127.0.0.1", "/pool": "127.0.0.2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("clients %v, want %v", got, want)
	}

	off := newProxiedSite(t, false)
	crawl(t, pages(t, off.URL, 2), map[string]any{types.ProxyList: []any{pool.URL()}, types.HTTPProxyEnabled: false})
	if got := off.clients(); !mapsEqual(got, map[string]int{"127.0.0.1": 2}) {
		t.Errorf("HTTPPROXY_ENABLED false: clients %v", got)
	}
}

// TestProxyPoolPoliteness: DOWNLOAD_DELAY holds per site across the proxies (the slot is
// the site's, not the proxy's): the requests reach the site a delay apart, though three
// proxies and eight download places could send them at once. The first download goes to a
// dead proxy: its retry on the next proxy takes a turn of the site's slot too, a delay
// after the failed one.
func TestProxyPoolPoliteness(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	dead := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.5:0"})
	dead.Close()
	ps := threeProxies(t)
	const delay = 150 * time.Millisecond
	start := time.Now()
	e, _ := crawl(t, pages(t, site.URL, 6), map[string]any{types.ProxyList: append([]any{dead.URL()}, proxyURLs(ps)...),
		types.ConcurrentRequests: 8, types.DownloadDelay: delay.Seconds(), types.RandomizeDownloadDelay: false})
	if n := stat(e, "proxy/retry_count"); n != 1 {
		t.Fatalf("proxy/retry_count = %d, want 1", n)
	}
	hits := site.hits()
	if len(hits) > 0 && hits[0].at.Sub(start) < delay*9/10 {
		t.Errorf("the first request reached the site %v after the start: its retry did not wait for the slot's delay", hits[0].at.Sub(start))
	}
	if len(hits) != 6 {
		t.Fatalf("%d requests, want 6", len(hits))
	}
	clients := map[string]bool{}
	var at []time.Time
	for _, h := range hits {
		clients[h.client] = true
		at = append(at, h.at)
	}
	enginetest.CheckSpacing(t, at, delay, enginetest.ArrivalSlack)
	if len(clients) != 3 {
		t.Errorf("clients %v, want the three proxies", clients)
	}
}

// TestProxyPoolHTTPSProxy: an https:// proxy (TLS to the proxy) serves downloads when its
// certificate is accepted; when it is not (DOWNLOAD_VERIFY_TLS true and a self-signed
// one), the TLS failure is the proxy's: it is benched and the next proxy serves.
func TestProxyPoolHTTPSProxy(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	tlsProxy := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.2:0", User: "u", Pass: "pw", TLS: true})
	plain := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.3:0"})
	list := []any{tlsProxy.URL(), plain.URL()}

	crawl(t, pages(t, site.URL, 2), map[string]any{types.ProxyList: list, types.DownloadVerifyTLS: false, types.ConcurrentRequests: 1})
	if got := site.clients(); !mapsEqual(got, map[string]int{"127.0.0.2": 1, "127.0.0.3": 1}) {
		t.Errorf("clients %v", got)
	}

	verified := newProxiedSite(t, false)
	e, _ := crawl(t, pages(t, verified.URL, 2), map[string]any{types.ProxyList: list, types.ConcurrentRequests: 1})
	if got := verified.clients(); !mapsEqual(got, map[string]int{"127.0.0.3": 2}) {
		t.Errorf("clients %v, want the plain proxy's only", got)
	}
	if n := stat(e, maskedKey(tlsProxy.URL(), "benched_count")); n != 1 {
		t.Errorf("the https proxy benched %d times, want 1", n)
	}
}

// fakeSession is a DownloadSession for the per_session rotation (the session pool puts the
// real ones in the context).
type fakeSession struct {
	name string
	mu   sync.Mutex
	used []string
}

func (s *fakeSession) Name() string        { return s.name }
func (s *fakeSession) Jar() http.CookieJar { return nil }
func (s *fakeSession) Profile() string     { return "" }
func (s *fakeSession) UsedProxy(masked string) {
	s.mu.Lock()
	s.used = append(s.used, masked)
	s.mu.Unlock()
}

// TestProxyPoolPerSession: under per_session each session keeps its proxy (sessions take
// the proxies in turn), is told which one served it (UsedProxy, masked), and after Forget
// (a retired session) gets the next proxy in turn.
func TestProxyPoolPerSession(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	ps := threeProxies(t)
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.ProxyList: proxyURLs(ps), types.ProxyRotation: "per_session"})
	s1, s2 := &fakeSession{name: "s1"}, &fakeSession{name: "s2"}
	get := func(s *fakeSession, path string) string {
		t.Helper()
		if _, err := e.Download(engine.WithSession(t.Context(), s), &types.Request{URL: site.URL + path}); err != nil {
			t.Fatal(err)
		}
		hits := site.hits()
		return hits[len(hits)-1].client
	}
	var got []string
	for i := range 3 {
		got = append(got, get(s1, fmt.Sprintf("/s1/%d", i)), get(s2, fmt.Sprintf("/s2/%d", i)))
	}
	if want := "127.0.0.2 127.0.0.3 127.0.0.2 127.0.0.3 127.0.0.2 127.0.0.3"; strings.Join(got, " ") != want {
		t.Errorf("clients %v, want %s", got, want)
	}
	if want := strings.Repeat(types.MaskURL(ps[0].URL())+" ", 3); fmt.Sprint(strings.Join(s1.used, " ")+" ") != want {
		t.Errorf("s1 UsedProxy %v, want %s", s1.used, want)
	}
	e.ProxyPool().Forget("s1")
	if c := get(s1, "/s1/again"); c != "127.0.0.4" {
		t.Errorf("s1 after Forget came from %s, want 127.0.0.4 (the next in turn)", c)
	}
}

// TestSessionRetireForgetsProxy: with sessions and PROXY_ROTATION=per_session, a session
// keeps its proxy while it lives, its retirement takes the assignment with it, and the
// session list shows the proxy that served it, masked.
func TestSessionRetireForgetsProxy(t *testing.T) {
	t.Parallel()
	site := newProxiedSite(t, false)
	ps := threeProxies(t)
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{
		types.ProxyList: proxyURLs(ps), types.ProxyRotation: "per_session",
		types.SessionPoolEnabled: true, types.SessionPoolSize: 1, types.SessionMaxUsage: 0,
	})
	get := func(path string) (string, string) {
		t.Helper()
		resp, err := e.Download(t.Context(), &types.Request{URL: site.URL + path})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Session == nil {
			t.Fatal("response.session is nil with SESSION_POOL_ENABLED")
		}
		hits := site.hits()
		return resp.Session.Name, hits[len(hits)-1].client
	}
	name, first := get("/a")
	for _, p := range []string{"/b", "/c"} {
		if n, c := get(p); n != name || c != first {
			t.Fatalf("%s: session %s via %s, want the pool's one session %s via %s", p, n, c, name, first)
		}
	}
	if e.ProxyPool().Assigned(name) == nil {
		t.Fatalf("session %s has no proxy assigned under per_session", name)
	}
	var listed string
	for _, in := range e.Sessions().List() {
		if in.Name == name {
			listed = in.Proxy
		}
	}
	if strings.Contains(listed, "sekrit") || !strings.Contains(listed, "127.0.0.") {
		t.Errorf("session list shows proxy %q, want its masked URL", listed)
	}
	if !e.Sessions().RetireName(name, "manual") {
		t.Fatalf("RetireName(%s) = false", name)
	}
	if px := e.ProxyPool().Assigned(name); px != nil {
		t.Errorf("retired session %s still holds proxy %s", name, px)
	}
	n2, c2 := get("/d")
	if n2 == name {
		t.Fatalf("download after the retirement ran on retired session %s", name)
	}
	if c2 == first {
		t.Errorf("new session %s came from %s again, want the next proxy in turn", n2, c2)
	}
}
