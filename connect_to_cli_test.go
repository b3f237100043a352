package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestDownloadConnectTo: `jscrawl run -s DOWNLOAD_CONNECT_TO=host:port=ip:port` sends the
// crawl's connections for host:port to ip:port while the request keeps its URL (the Host
// header the server sees), a bare host takes any port, and a rule without an address is
// refused before the crawl starts (exit code 2).
func TestDownloadConnectTo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Host+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	dir := t.TempDir()
	spider := writeFile(t, dir, "s.js", `import { Request } from "jscrawl";
export default class S {
  name = "s";
  *start() {
    yield new Request("http://shop.invalid/a");
    yield new Request("http://www.shop.invalid:8080/b");
  }
  async *parse(response) { yield { url: response.url, seen: await response.text() }; }
}
`)
	for _, tc := range []struct {
		name, rules string
		want        []string // "url seen", sorted; nil: refused
	}{
		{"host:port and bare host", "shop.invalid:80=" + addr + ",www.shop.invalid=" + addr,
			[]string{"http://shop.invalid/a shop.invalid/a", "http://www.shop.invalid:8080/b www.shop.invalid:8080/b"}},
		{"no address", "shop.invalid:80", nil},
		{"address without port", "shop.invalid=127.0.0.1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := jscrawlIn(t, dir, "", "run", spider, "-o", "-:jsonl", "-s", "DOWNLOAD_CONNECT_TO="+tc.rules)
			if tc.want == nil {
				if code != 2 || !strings.Contains(stderr, "DOWNLOAD_CONNECT_TO") {
					t.Fatalf("exit code %d, want 2 with DOWNLOAD_CONNECT_TO named\n%s", code, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			var got []string
			for _, it := range jsonLines(t, stdout) {
				got = append(got, it["url"].(string)+" "+it["seen"].(string))
			}
			if strings.Join(slices.Sorted(slices.Values(got)), "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("items:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), stderr)
			}
		})
	}
}
