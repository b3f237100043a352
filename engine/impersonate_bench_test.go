package engine_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// cpuTime is the CPU time (user and system) this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// w1Page is page n of total of the bench kit's w1 site: about 14 KB, with ten products and
// 20 links to other pages.
func w1Page(n, total int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<html><head><title>Page %d</title></head><body><h1>Page %d</h1>", n, n)
	for p := range 10 {
		fmt.Fprintf(&sb, `<div class="product"><span class="name">Product %d</span><span class="price">$%d.%02d</span><a class="detail" href="/page/%d#p%d">detail</a><p>%s</p></div>`,
			p, n*p%997, p, n, p, strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 22))
	}
	for k := range 20 {
		fmt.Fprintf(&sb, `<a href="/page/%d">link</a> `, (n*7+k*13)%total)
	}
	fmt.Fprintf(&sb, `<a href="/page/%d">next</a></body></html>`, (n+1)%total)
	return sb.String()
}

// BenchmarkImpersonate crawls the bench kit's w1 (2,000 pages of about 14 KB, ten
// products and 20 links each) from a local HTTP/2 server over TLS, once per iteration,
// with Go's own client (default) and with HTTP_IMPERSONATE=chrome. It reports pages/s
// and the CPU time per page (µs-cpu/page: the whole process's, the server's included).
// Compare the two in one run: -bench Impersonate -count N.
func BenchmarkImpersonate(b *testing.B) {
	const total = 2000 // w1
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/page/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, w1Page(n, total))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, profile := range []string{"", "chrome"} {
		name := "default"
		if profile != "" {
			name = profile
		}
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
			pages := 0
			for b.Loop() {
				sp := followSpider(srv.URL+"/page/0", func(resp *types.Response) error {
					if resp.Protocol != "HTTP/2.0" {
						return fmt.Errorf("%s over %s", resp.URL, resp.Protocol)
					}
					return nil
				})
				s := benchSettings(map[string]any{types.RobotsTxtObey: false, types.DownloadVerifyTLS: false, types.HTTPImpersonate: profile})
				e := engine.New(sp, s, engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
				start := cpuTime()
				if err := e.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - start
				if got := e.Stats().Get("response_received_count"); got != int64(total) {
					b.Fatalf("crawled %v pages, want %d (spider errors: %v)", got, total, e.Stats().Get("spider_exceptions/count"))
				}
				pages += total
			}
			b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(pages), "µs-cpu/page")
		})
	}
}
