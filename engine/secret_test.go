package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestSecretProxyErrors: a bad meta.proxy fails with InvalidURLError whose message shows
// the proxy with its password masked, also when the URL does not parse.
func TestSecretProxyErrors(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, &enginetest.Spider{}, nil)
	for _, tc := range []struct{ proxy, secret string }{
		{"http://u:pw-secret-1@proxy.test:notaport", "pw-secret-1"},
		{"ftp://u:pw-secret-2@proxy.test:1", "pw-secret-2"},
		{"http://u:pw-secret-3@", "pw-secret-3"},
	} {
		_, err := e.Download(context.Background(), &types.Request{URL: "http://site.test/",
			Meta: types.Item{{Key: types.MetaProxy, Value: tc.proxy}}})
		if engine.ErrorName(err) != engine.NameInvalidURL {
			t.Errorf("proxy %s: %v, want an InvalidURLError", tc.proxy, err)
			continue
		}
		if strings.Contains(err.Error(), tc.secret) {
			t.Errorf("proxy %s: the error %q shows the password", tc.proxy, err)
		}
		if !strings.Contains(err.Error(), "u:****@") {
			t.Errorf("proxy %s: the error %q does not show the masked proxy", tc.proxy, err)
		}
	}
}

// TestSecretHTTPAuthForgotten: HttpAuthMiddleware sends HTTP_USER and HTTP_PASS, but the
// response's request, which the spider reads, does not carry them.
func TestSecretHTTPAuthForgotten(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "hunter2" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.HTTPUser: "alice", types.HTTPPass: "hunter2"})
	resp, err := e.Download(context.Background(), &types.Request{URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("status %d: the credentials were not sent", resp.Status)
	}
	if a := resp.Request.Headers.Get("Authorization"); a != "" {
		t.Errorf("the response's request carries Authorization %q", a)
	}
}

// TestSecretHTTPAuthNotToSpiderProxy: a spider that points a plain-http request inside
// HTTP_AUTH_DOMAIN at a proxy of its own (meta.proxy) does not get the operator's
// credentials sent to that proxy, which reads every header of such a request.
func TestSecretHTTPAuthNotToSpiderProxy(t *testing.T) {
	t.Parallel()
	var auths enginetest.Recorder[string]
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auths.Add(r.Header.Get("Authorization"))
		fmt.Fprint(w, "via proxy")
	}))
	t.Cleanup(proxy.Close)
	e, _ := newEngine(t, &enginetest.Spider{}, map[string]any{types.HTTPUser: "alice", types.HTTPPass: "hunter2", types.HTTPAuthDomain: "site.test"})
	req := &types.Request{URL: "http://site.test/private", Meta: types.Item{{Key: types.MetaProxy, Value: proxy.URL}}}
	resp, err := e.Download(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := auths.All()
	if string(resp.Body) != "via proxy" || len(got) != 1 {
		t.Fatalf("the request did not go through the proxy: %q, %d requests", resp.Body, len(got))
	}
	if got[0] != "" {
		t.Errorf("the spider's proxy received Authorization %q", got[0])
	}
}
