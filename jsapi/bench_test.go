package jsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// benchPage renders a page shaped like the shared benchmark site's: 10 div.product blocks
// and 32 links (about 6 KB).
func benchPage(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Page %d</title></head><body>\n", n)
	fmt.Fprintf(&b, "<header><nav><a href=\"/page/0\">Home</a></nav></header><h1>Catalogue page %d</h1><main><section>\n", n)
	for i := range 10 {
		id := n*10 + i
		fmt.Fprintf(&b, "<div class=\"product\" id=\"p%d\">\n <h2 class=\"name\">Product %d</h2>\n <span class=\"price\">$%d.99</span>\n"+
			" <a class=\"detail\" href=\"/page/%d#p%d\">details</a>\n <p class=\"desc\">Description of product %d, long enough to look real.</p>\n</div>\n", id, id, id%100, n, id, id)
	}
	b.WriteString("</section><section><ul>\n")
	for k := range 20 {
		fmt.Fprintf(&b, "<li><a href=\"/page/%d\">Page</a></li>\n", (n*7+k*13)%2000)
	}
	fmt.Fprintf(&b, "<li><a class=\"next\" href=\"/page/%d\">Next</a></li></ul></section></main></body></html>\n", n+1)
	return []byte(b.String())
}

// benchParser returns a function that parses the i-th response of a benchmark with sp: the
// benchPage pages in turn (64 of them), as served at http://127.0.0.1:1/page/N.
func benchParser(b *testing.B, sp *jsapi.Spider, emit engine.Emit) func(i int) {
	pages := make([][]byte, 64)
	for i := range pages {
		pages[i] = benchPage(i)
	}
	hdr := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	ctx := context.Background()
	return func(i int) {
		u := fmt.Sprintf("http://127.0.0.1:1/page/%d", i%len(pages))
		resp := &types.Response{URL: u, Status: 200, Headers: hdr, Body: pages[i%len(pages)], Request: &types.Request{URL: u}}
		if err := sp.Parse(ctx, resp, emit); err != nil {
			b.Error(err)
		}
	}
}

// BenchmarkParseCallback measures one spider callback per page, as the benchmark spider
// writes it (10 items and 32 follows per page): HTML parsing, the Go↔JS crossing, the
// generator, selectors and the conversion of outputs. pages/s is the figure to compare.
func BenchmarkParseCallback(b *testing.B) { benchParse(b, false) }

// BenchmarkParseCallbackParallel runs callbacks from 16 goroutines, as the engine does with
// CONCURRENT_REQUESTS=16: HTML parsing overlaps the JS loop, so pages/s is the loop's
// throughput, the ceiling of a CPU-bound crawl with JS_VMS=1.
func BenchmarkParseCallbackParallel(b *testing.B) { benchParse(b, true) }

func benchParse(b *testing.B, parallel bool) {
	sp := benchSpider(b, w1Css)
	var outs atomic.Int64
	parse := benchParser(b, sp, func(types.Output) { outs.Add(1) })
	b.ResetTimer()
	if parallel {
		var next atomic.Int64
		b.SetParallelism(8) // 16 goroutines on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				parse(int(next.Add(1)))
			}
		})
	} else {
		for i := 0; i < b.N; i++ {
			parse(i)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	if got, want := outs.Load(), int64(b.N)*42; got != want {
		b.Fatalf("outputs = %d, want %d", got, want)
	}
}

// BenchmarkPipeline measures the per-item overhead of a JS item pipeline: the item crosses
// to the VM, processItem runs (async, as users write it), and the result comes back.
func BenchmarkPipeline(b *testing.B) {
	sp := benchSpider(b, `export default class S { name = "pipe"; }
export const pipelines = [{
  async processItem(item) { item.price = Number(item.price.slice(1)); return item; },
}];
`)
	p := sp.Pipelines()[0]
	ctx := context.Background()
	item := types.Item{{Key: "name", Value: "Product 7"}, {Key: "price", Value: "$554.33"},
		{Key: "url", Value: "http://127.0.0.1:18081/page/0#p7"}}
	b.ResetTimer()
	for b.Loop() {
		out, err := p.ProcessItem(ctx, item)
		if err != nil {
			b.Fatal(err)
		}
		if v, _ := out.Get("price"); v != 554.33 {
			b.Fatalf("price = %v", v)
		}
	}
}

// BenchmarkDownloaderMiddleware measures the per-request overhead of a JS downloader
// middleware with async processRequest (changing a header) and processResponse hooks; the
// download itself is a Go function returning a ready response.
func BenchmarkDownloaderMiddleware(b *testing.B) {
	sp := benchSpider(b, `export default class S { name = "mw"; }
export const downloaderMiddlewares = [{
  async processRequest(request) { request.headers["X-Tag"] = "1"; },
  async processResponse(request, response) { return response; },
}];
`)
	mw := sp.DownloaderMiddlewares([]int{0})
	next := engine.DownloaderFunc(func(_ context.Context, req *types.Request) (*types.Response, error) {
		if req.Headers.Get("X-Tag") != "1" {
			return nil, fmt.Errorf("header not sent")
		}
		return &types.Response{URL: req.URL, Status: 200, Headers: http.Header{}, Body: []byte("ok"), Request: req}, nil
	})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := mw.Fetch(ctx, &types.Request{URL: "http://127.0.0.1:1/page/1"}, next); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSpider bundles and loads a spider module for a benchmark and binds it to an engine
// with default settings (the engine is not run).
func benchSpider(b *testing.B, code string) *jsapi.Spider { return boundSpider(b, code) }

// boundSpider bundles and loads the spider module code and binds it to an engine with
// default settings (the engine is not run).
func boundSpider(tb testing.TB, code string) *jsapi.Spider {
	tb.Helper()
	src := filepath.Join(tb.TempDir(), "spider.js")
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		tb.Fatal(err)
	}
	prog, err := runtime.Bundle(src, runtime.BundleOptions{External: jsapi.NativeModules})
	if err != nil {
		tb.Fatal(err)
	}
	return bindProgram(tb, prog, types.NewSettings())
}

// bindProgram loads the bundled spider module prog, closed when the test ends, and binds
// it to an engine with settings (the engine is not run).
func bindProgram(tb testing.TB, prog *runtime.Program, settings *types.Settings) *jsapi.Spider {
	tb.Helper()
	sp, err := jsapi.Load(prog, jsapi.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = sp.Close() })
	if err := sp.Bind(engine.New(sp, settings)); err != nil {
		tb.Fatal(err)
	}
	return sp
}
