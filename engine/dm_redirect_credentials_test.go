package engine_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// credSite is one server of TestRedirectCredentials: /to?url=U redirects (302) to U, and
// /echo answers with the server's name and the headers it received.
type credSite struct {
	*httptest.Server
	name string
}

type credEcho struct {
	Server  string
	Headers http.Header
}

// downloadCredEcho downloads req inline with e and returns the echo of the site that
// answered, failing the test unless it is a 200.
func downloadCredEcho(t *testing.T, e *engine.Engine, req *types.Request) credEcho {
	t.Helper()
	resp, err := e.Download(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	var got credEcho
	if err := json.Unmarshal(resp.Body, &got); err != nil {
		t.Fatalf("%v: %s", err, resp.Body)
	}
	return got
}

func newCredSite(t *testing.T, name, ip string, useTLS bool) *credSite {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("listen on %s: %v", ip, err)
	}
	s := &credSite{name: name}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to":
			http.Redirect(w, r, r.URL.Query().Get("url"), http.StatusFound)
		case "/echo":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(credEcho{Server: name, Headers: r.Header})
		default:
			http.NotFound(w, r)
		}
	}))
	s.Listener.Close()
	s.Listener = l
	if useTLS {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

// credClient dials the address a host:port is mapped to in hosts, and any other address
// as it is; it trusts any certificate (the test servers' names are made up).
func credClient(hosts map[string]string) *http.Client {
	d := &net.Dialer{}
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if to, ok := hosts[addr]; ok {
				addr = to
			}
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // test servers
	}}
}

// TestRedirectCredentials: which of the credentials a spider set by hand reach the server
// a redirect leads to, checked on what that server receives. The cases are those of
// Scrapy's tests/utils/bases/redirect.py, TestRedirectBase (inherited by the redirect and
// meta refresh tests of tests/test_downloadermiddleware_redirect.py), on real servers:
// Authorization and Proxy-Authorization are dropped when the origin changes (scheme, host
// or port), Cookie when the host changes or the scheme goes to http.
func TestRedirectCredentials(t *testing.T) {
	t.Parallel()
	a := newCredSite(t, "a", "127.0.0.1", false)   // http
	a2 := newCredSite(t, "a2", "127.0.0.1", false) // http, same host, another port
	b := newCredSite(t, "b", "127.0.0.2", false)   // http, another host
	s := newCredSite(t, "s", "127.0.0.1", true)    // https
	hostOf := func(srv *credSite) string {
		return strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://")
	}
	// site.test is a and s on the default ports, so that only the scheme changes.
	client := credClient(map[string]string{"site.test:80": hostOf(a), "site.test:443": hostOf(s)})

	proxyCreds := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
	var proxied enginetest.Recorder[string]
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() || r.Header.Get("Proxy-Authorization") != proxyCreds {
			http.Error(w, "proxy auth", http.StatusProxyAuthRequired)
			return
		}
		proxied.Add(r.URL.Host)
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), nil)
		out.Header = r.Header.Clone()
		out.Header.Del("Proxy-Authorization")
		relay(w, client.Transport, out)
	}))
	t.Cleanup(proxy.Close)
	proxyURL := "http://u:p@" + strings.TrimPrefix(proxy.URL, "http://")

	const (
		cookie = "Cookie"
		auth   = "Authorization"
		pauth  = "Proxy-Authorization"
	)
	all := []string{cookie, auth, pauth}
	for _, tc := range []struct {
		name, source string // source: Scrapy's test and the part of it ported
		from, to     string // the redirecting URL and the echo URL it redirects to
		server       string // the server that must answer the echo
		proxy        string // meta.proxy
		kept         []string
	}{
		{"same origin https", "test_cross_origin_header_dropping: same origin",
			s.URL + "/to", s.URL + "/echo", "s", "", all},
		{"same origin http", "test_cross_origin_header_dropping: same origin, http",
			a.URL + "/to", a.URL + "/echo", "a", "", all},
		{"to the explicit default port", "test_cross_origin_header_dropping: explicit default port",
			"https://site.test/to", "https://site.test:443/echo", "s", "", all},
		{"to the implicit default port", "test_cross_origin_header_dropping: implicit default port",
			"https://site.test:443/to", "https://site.test/echo", "s", "", all},
		{"another port", "test_cross_origin_header_dropping: port change",
			a.URL + "/to", a2.URL + "/echo", "a2", "", []string{cookie}},
		{"another host", "test_cross_origin_header_dropping: domain change",
			a.URL + "/to", b.URL + "/echo", "b", "", nil},
		{"http to https", "test_cross_origin_header_dropping: scheme upgrade",
			"http://site.test/to", "https://site.test/echo", "s", "", []string{cookie}},
		{"https to http", "test_cross_origin_header_dropping: scheme downgrade",
			"https://site.test/to", "http://site.test/echo", "a", "", nil},
		// meta.proxy keeps working after a redirect: its credentials come from its URL for
		// each request, so the redirected one is proxied too (Scrapy: the
		// test_meta_proxy_* cases, there with the header the proxy middleware sets again).
		{"meta.proxy, same origin", "test_meta_proxy_http_absolute",
			a.URL + "/to", a.URL + "/echo", "a", proxyURL, []string{cookie, auth}},
		{"meta.proxy, another host", "test_meta_proxy_http_absolute, to another host as in test_cross_origin_header_dropping",
			a.URL + "/to", b.URL + "/echo", "b", proxyURL, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("Scrapy: %s", tc.source)
			e, _ := newEngine(t, &enginetest.Spider{}, nil, engine.WithHTTPClient(client))
			h := http.Header{}
			h.Set(cookie, "session=s3cr3t")
			h.Set(auth, "Bearer t0k3n")
			if tc.proxy == "" {
				h.Set(pauth, "Basic aGFuZDpzZXQ=")
			}
			req := &types.Request{URL: tc.from + "?url=" + url.QueryEscape(tc.to), Headers: h}
			if tc.proxy != "" {
				req.Meta = types.Item{{Key: "proxy", Value: tc.proxy}}
			}
			got := downloadCredEcho(t, e, req)
			if got.Server != tc.server {
				t.Fatalf("answered by %s, want %s", got.Server, tc.server)
			}
			for _, k := range all {
				want := slices.Contains(tc.kept, k) && (k != pauth || tc.proxy == "")
				if has := got.Headers.Get(k) != ""; has != want {
					t.Errorf("%s received: %v, want %v (%q)", k, has, want, got.Headers.Get(k))
				}
			}
		})
	}
	if want := fmt.Sprint([]string{hostOf(a), hostOf(a), hostOf(a), hostOf(b)}); fmt.Sprint(proxied.All()) != want {
		t.Errorf("proxied %v, want %v", proxied.All(), want)
	}
}

// TestRedirectSchemeProxy: a redirect that changes the scheme changes the proxy when each
// scheme has its own (http_proxy, https_proxy; here the Transport's Proxy function): the
// Proxy-Authorization set by hand for the http proxy does not go along, neither to the
// https proxy nor through its tunnel to the site, while the https proxy gets the
// credentials of its own URL (Scrapy: tests/utils/bases/redirect.py,
// test_system_proxy_proxied_http_to_proxied_https).
func TestRedirectSchemeProxy(t *testing.T) {
	t.Parallel()
	s := newCredSite(t, "s", "127.0.0.1", true)
	handSet := "Basic " + base64.StdEncoding.EncodeToString([]byte("http:proxy"))
	httpsCreds := "Basic " + base64.StdEncoding.EncodeToString([]byte("v:q"))
	var seen enginetest.Recorder[string] // what each proxy was asked, with the credentials it got
	httpProxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add("http " + r.URL.String() + " " + r.Header.Get("Proxy-Authorization"))
		if r.Header.Get("Proxy-Authorization") != handSet {
			http.Error(w, "proxy auth", http.StatusProxyAuthRequired)
			return
		}
		http.Redirect(w, r, "https://site.test/echo", http.StatusFound)
	}))
	t.Cleanup(httpProxy.Close)
	httpsProxy := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{User: "v", Pass: "q", Upstream: toSite(s.Listener)})
	forScheme := map[string]*url.URL{
		"http":  {Scheme: "http", Host: strings.TrimPrefix(httpProxy.URL, "http://")},
		"https": {Scheme: "http", Host: httpsProxy.Addr(), User: url.UserPassword("v", "q")},
	}
	client := &http.Client{Transport: &http.Transport{
		Proxy:           func(r *http.Request) (*url.URL, error) { return forScheme[r.URL.Scheme], nil },
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // test server
	}}
	e, _ := newEngine(t, &enginetest.Spider{}, nil, engine.WithHTTPClient(client))
	got := downloadCredEcho(t, e, &types.Request{URL: "http://site.test/to",
		Headers: http.Header{"Proxy-Authorization": {handSet}}})
	if got.Server != "s" || got.Headers.Get("Proxy-Authorization") != "" {
		t.Errorf("the https site (%s) received Proxy-Authorization %q", got.Server, got.Headers.Get("Proxy-Authorization"))
	}
	for _, r := range httpsProxy.Seen() {
		seen.Add("https " + r.Method + " " + r.Target + " " + r.Auth)
	}
	want := []string{"http http://site.test/to " + handSet, "https CONNECT site.test:443 " + httpsCreds}
	if got := seen.All(); !slices.Equal(got, want) {
		t.Errorf("proxies saw %q, want %q", got, want)
	}
}
