package engine_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// gzipped returns s gzip-compressed, one member.
func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := z.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGzipTrailingGarbage: a gzip body followed by bytes that are not another gzip member
// (a newline, padding, an appended error page) is accepted with the decoded part, as curl
// accepts it, and counted in httpcompression/repaired_count; concatenated members are
// all decoded, and a second member that is corrupt still fails. Before, every one of the
// garbage cases failed the request with "gzip: invalid header".
func TestGzipTrailingGarbage(t *testing.T) {
	t.Parallel()
	page := gzipped(t, "<h1>page</h1>")
	two := append(append([]byte{}, page...), gzipped(t, "<p>more</p>")...)
	corrupt := append(append([]byte{}, page...), gzipped(t, "<p>more</p>")[:15]...)
	for _, tc := range []struct {
		name     string
		body     []byte
		want     string // "" for a failure
		repaired int64
	}{
		{"newline after", append(append([]byte{}, page...), '\n'), "<h1>page</h1>", 1},
		{"zero padding", append(append([]byte{}, page...), make([]byte, 100)...), "<h1>page</h1>", 1},
		{"error page after", append(append([]byte{}, page...), "<html>500 Internal Server Error</html>"...), "<h1>page</h1>", 1},
		{"two members", two, "<h1>page</h1><p>more</p>", 0},
		{"clean", page, "<h1>page</h1>", 0},
		{"corrupt second member", corrupt, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write(tc.body)
			}))
			defer srv.Close()
			stats := engine.NewStats()
			d := engine.NewHTTPDownloader(settings(t, nil), nil, stats)
			resp, err := d.Fetch(context.Background(), &types.Request{URL: srv.URL})
			if tc.want == "" {
				if err == nil {
					t.Fatalf("got %q, want an error", resp.Body)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != tc.want {
				t.Errorf("body %q, want %q", resp.Body, tc.want)
			}
			if n := stats.Int("httpcompression/repaired_count"); n != tc.repaired {
				t.Errorf("httpcompression/repaired_count = %d, want %d", n, tc.repaired)
			}
		})
	}
}
