package warc_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkWrite writes one download of a 14.5 KB HTML page (the bench kit's page size):
// a request and a response record, gzipped.
func BenchmarkWrite(b *testing.B) {
	w, err := warc.Create(filepath.Join(b.TempDir(), "b.warc.gz"), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	body := []byte(strings.Repeat(`<div class="product"><span class="name">Product 7</span><span class="price">$554.33</span><a class="detail" href="/page/0#p7">detail</a></div>`, 110))[:14500]
	req := &types.Request{URL: "http://127.0.0.1:18081/page/0", Headers: http.Header{"Referer": {"http://127.0.0.1:18081/"}}}
	header := http.Header{"User-Agent": {"jscrawl/0.1.0"}, "Accept": {"text/html"}, "Accept-Encoding": {"gzip, deflate, br, zstd"}, "Accept-Language": {"en"}}
	resp := &types.Response{URL: req.URL, Status: 200, Protocol: "HTTP/1.1",
		Headers: http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Date": {"Tue, 01 Dec 2026 09:00:00 GMT"}}, Body: body}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := w.Write(req, header, resp, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup reads a 14.5 KB page back from an archive of 100 (a replay's work per
// download).
func BenchmarkLookup(b *testing.B) {
	path := filepath.Join(b.TempDir(), "b.warc.gz")
	w, err := warc.Create(path, 0)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(strings.Repeat(`<div class="product"><span class="name">Product 7</span><span class="price">$554.33</span><a class="detail" href="/page/0#p7">detail</a></div>`, 110))[:14500]
	var reqs []*types.Request
	for i := range 100 {
		req := &types.Request{URL: fmt.Sprintf("http://127.0.0.1:18081/page/%d", i)}
		resp := &types.Response{Status: 200, Headers: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: body}
		if _, err := w.Write(req, nil, resp, time.Now()); err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	a, err := warc.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.SetBytes(int64(len(body)))
	for i := 0; b.Loop(); i++ {
		if resp, ok, err := a.Lookup(reqs[i%len(reqs)]); err != nil || !ok || len(resp.Body) != len(body) {
			b.Fatalf("lookup: %v %v", ok, err)
		}
	}
}
