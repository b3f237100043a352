package engine_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// toSite is a test proxy's Upstream that sends every request to s, whatever host it names.
func toSite(s interface{ Addr() net.Addr }) func(string) string {
	return func(string) string { return s.Addr().String() }
}

func TestProxy(t *testing.T) {
	t.Parallel()
	s := newRedirectSite(t)
	up := toSite(s.Listener)
	open := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Upstream: up})
	authed := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{User: "alice", Pass: "s3cret", Upstream: up})
	socks := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Upstream: up})
	socksAuthed := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{User: "bob", Pass: "pw", Upstream: up})
	last := func(p interface {
		Seen() []enginetest.ProxyRequest
	}) string {
		seen := p.Seen()
		if len(seen) == 0 {
			return ""
		}
		return seen[len(seen)-1].Target
	}

	for _, tc := range []struct {
		name   string
		proxy  any
		kv     map[string]any
		status int
		via    string // the Via header the HTTP proxy adds
		check  func(t *testing.T)
	}{
		{"http proxy", open.URL(), nil, 200, enginetest.ProxyVia, func(t *testing.T) {
			if h := last(open); h != "http://site.test/echo" {
				t.Errorf("proxy saw %v", open.Seen())
			}
		}},
		{"bare host:port", open.Addr(), nil, 200, enginetest.ProxyVia, nil},
		{"http proxy with credentials", authed.URL(), nil, 200, enginetest.ProxyVia, nil},
		{"http proxy, wrong credentials", "http://alice:nope@" + authed.Addr(), nil, 407, "", nil},
		{"socks5", socks.URL("socks5"), nil, 200, "", func(t *testing.T) {
			if len(socks.Seen()) == 0 {
				t.Error("the SOCKS5 server saw nothing")
			}
		}},
		{"socks5h with credentials", socksAuthed.URL("socks5h"), nil, 200, "", func(t *testing.T) {
			if a := last(socksAuthed); a != "site.test:80" {
				t.Errorf("SOCKS5 CONNECT to %v, want site.test:80 (resolved by the proxy)", socksAuthed.Seen())
			}
		}},
		{"HTTPPROXY_ENABLED false ignores meta.proxy", "http://127.0.0.1:1", map[string]any{types.HTTPProxyEnabled: false}, 200, "", nil},
		{"null is no proxy", nil, nil, 200, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Not parallel: the proxies' records are shared.
			e, _ := newEngine(t, &enginetest.Spider{}, tc.kv, engine.WithHTTPClient(s.client()))
			if tc.proxy != nil && !strings.Contains(tc.name, "HTTPPROXY_ENABLED") {
				// A real client, so the proxy is dialled (dialTo would skip it).
				e, _ = newEngine(t, &enginetest.Spider{}, tc.kv)
			}
			resp, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/echo",
				Meta: types.Item{{Key: "proxy", Value: tc.proxy}}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
			}
			if tc.status == 200 {
				ec := decodeEcho(t, resp)
				if ec.Headers.Get("Via") != tc.via {
					t.Errorf("Via = %q, want %q", ec.Headers.Get("Via"), tc.via)
				}
				if ec.Headers.Get("Proxy-Authorization") != "" {
					t.Error("Proxy-Authorization reached the site")
				}
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}

	t.Run("bad meta.proxy", func(t *testing.T) {
		e, _ := newEngine(t, &enginetest.Spider{}, nil)
		for _, tc := range []struct {
			proxy any
			want  string // in the error; never the password
		}{
			{"ftp://x:1", `meta.proxy "ftp://x:1": scheme "ftp" is not http, https, socks5 or socks5h`},
			{int64(3), "meta.proxy must be a URL string, got int64"},
			{"http://bob:hunter2@:8080", `meta.proxy "http://bob:****@:8080" has no host`},
			{"http://bob:hunter2@proxy.test:", `meta.proxy "http://bob:****@proxy.test:" has an empty port`},
			{"http://bob:hunter2@proxy.test:80\x7f", "meta.proxy: parse"},
		} {
			_, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/echo", Meta: types.Item{{Key: "proxy", Value: tc.proxy}}})
			if engine.ErrorName(err) != engine.NameInvalidURL || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("proxy %v: %v, want InvalidURLError with %q, password masked", tc.proxy, err, tc.want)
			}
		}
		if n := stat(e, "downloader/exception_type_count/InvalidURLError"); n != 5 {
			t.Errorf("downloader/exception_type_count/InvalidURLError = %d, want 5", n)
		}
	})
}

// TestProxyConnect: an https URL goes through an HTTP proxy with CONNECT, the credentials
// of meta.proxy in the CONNECT request, and the request's own Proxy-Authorization not
// through the tunnel to the site; WithHTTPClient's Transport (here trusting the test
// certificate) is kept.
func TestProxyConnect(t *testing.T) {
	t.Parallel()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls %s %s", r.Host, r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(tlsSrv.Close)
	proxy := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{User: "u", Pass: "p", Upstream: toSite(tlsSrv.Listener)})

	e, _ := newEngine(t, &enginetest.Spider{}, nil, engine.WithHTTPClient(tlsSrv.Client()))
	resp, err := e.Download(context.Background(), &types.Request{URL: "https://example.com/x",
		Meta:    types.Item{{Key: "proxy", Value: proxy.URL()}},
		Headers: http.Header{"Proxy-Authorization": {"Basic b3duOmhlYWRlcg=="}}}) // not for the tunnel
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "tls example.com " {
		t.Errorf("body %q (the site must not see Proxy-Authorization)", resp.Body)
	}
	var connects []string
	for _, r := range proxy.Seen() {
		connects = append(connects, fmt.Sprint(r.Method, " ", r.Target, " ", r.Refused))
	}
	if got := fmt.Sprint(connects); got != "[CONNECT example.com:443 false]" {
		t.Errorf("CONNECTs %s", got)
	}
}
