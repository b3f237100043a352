package enginetest_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"syscall"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// TestProxies: the HTTP proxy and the SOCKS5 server dial out from their own address, the
// HTTP proxy strips hop-by-hop and Proxy-* headers and refuses wrong credentials, both
// record what they saw, and both can be killed and restarted on their address.
func TestProxies(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got *http.Request
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Clone(r.Context())
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(site.Close)
	hp := enginetest.StartHTTPProxy(t, enginetest.ProxyOptions{Addr: "127.0.0.6:0", User: "u", Pass: "p"})
	sp := enginetest.StartSOCKS5(t, enginetest.ProxyOptions{Addr: "127.0.0.7:0", User: "u", Pass: "p"})
	get := func(proxy string) (*http.Response, error) {
		pu, _ := url.Parse(proxy)
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}}
		req, _ := http.NewRequest("GET", site.URL+"/x", nil)
		req.Header.Set("Proxy-Foo", "secret")
		req.Header.Set("Connection", "X-Hop")
		req.Header.Set("X-Hop", "1")
		resp, err := c.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return resp, err
	}
	for _, tc := range []struct {
		name, proxy, client string
		via                 string
		seen                func() []enginetest.ProxyRequest
	}{
		{"http", hp.URL(), "127.0.0.6", enginetest.ProxyVia, hp.Seen},
		{"socks5", sp.URL("socks5"), "127.0.0.7", "", sp.Seen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := get(tc.proxy)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%v %v", resp, err)
			}
			mu.Lock()
			r := got
			mu.Unlock()
			if host, _, _ := net.SplitHostPort(r.RemoteAddr); host != tc.client {
				t.Errorf("the site saw %s, want %s", r.RemoteAddr, tc.client)
			}
			if tc.name == "http" {
				for _, h := range []string{"Proxy-Authorization", "Proxy-Foo", "X-Hop"} {
					if v := r.Header.Get(h); v != "" {
						t.Errorf("the site got %s: %q", h, v)
					}
				}
			}
			if r.Header.Get("Via") != tc.via {
				t.Errorf("Via %q, want %q", r.Header.Get("Via"), tc.via)
			}
			seen := tc.seen()
			if len(seen) != 1 || seen[0].Refused || seen[0].Auth == "" {
				t.Errorf("seen %+v", seen)
			}

			bad := *must(url.Parse(tc.proxy))
			bad.User = url.UserPassword("u", "wrong")
			resp, err = get(bad.String())
			if tc.name == "http" && (err != nil || resp.StatusCode != http.StatusProxyAuthRequired) {
				t.Errorf("wrong credentials: %v %v", resp, err)
			}
			if tc.name == "socks5" && err == nil {
				t.Error("wrong SOCKS5 credentials: no error")
			}
			if s := tc.seen(); len(s) != 2 || !s[1].Refused {
				t.Errorf("seen %+v", s)
			}

			p := tc.proxy
			closer := map[string]interface {
				Close()
				Restart() error
			}{"http": hp, "socks5": sp}[tc.name]
			closer.Close()
			// Refused, or reset when the request met the listener while it closed.
			if _, err := get(p); !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("killed proxy: %v, want connection refused (or reset)", err)
			}
			if err := closer.Restart(); err != nil {
				t.Fatal(err)
			}
			if resp, err := get(p); err != nil || resp.StatusCode != 200 {
				t.Errorf("restarted proxy: %v %v", resp, err)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
