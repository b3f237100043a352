package engine_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestDialRules: under WithDialRules the http(s) handler connects to the rule's address
// while the request keeps its URL's host (the Host header); an address no rule names is
// dialled as it is.
func TestDialRules(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/host", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.Host) })
	srv := enginetest.StartWith(t, mux)
	addr := srv.Listener.Addr().String()
	closed := enginetest.ClosedAddr(t)
	for _, tc := range []struct {
		name  string
		url   string
		rules engine.DialRules
		host  string // "": the download fails (refused)
	}{
		{"host:port", "http://shop.invalid:8080/host", engine.DialRules{"shop.invalid:8080": addr}, "shop.invalid:8080"},
		{"host", "http://shop.invalid:8080/host", engine.DialRules{"shop.invalid": addr}, "shop.invalid:8080"},
		{"any", "http://shop.invalid:8080/host", engine.DialRules{"*": addr}, "shop.invalid:8080"},
		{"other address", "http://" + addr + "/host", engine.DialRules{"shop.invalid:8080": closed}, addr},
		{"to a closed port", "http://" + addr + "/host", engine.DialRules{addr: closed}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := engine.NewHTTPDownloader(settings(t, map[string]any{types.RetryEnabled: false}), nil, nil)
			resp, err := d.Fetch(engine.WithDialRules(context.Background(), tc.rules), &types.Request{URL: tc.url})
			if tc.host == "" {
				if err == nil {
					t.Fatalf("dialled %s, want the closed port: %d", addr, resp.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 200 || string(resp.Body) != tc.host {
				t.Errorf("status %d, host %q, want %q", resp.Status, resp.Body, tc.host)
			}
		})
	}
}
