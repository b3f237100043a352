package engine

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// pathSpider is a Spider with allowed domains for the request-path tests.
type pathSpider struct{ domains []string }

func (s *pathSpider) Start(context.Context, Emit) error                   { return nil }
func (s *pathSpider) Parse(context.Context, *types.Response, Emit) error  { return nil }
func (s *pathSpider) Errback(context.Context, *types.Failure, Emit) error { return nil }
func (s *pathSpider) AllowedDomains() []string                            { return s.domains }

// benchSitePage returns the response for page p of the bench kit's site (total pages)
// and the 33 hrefs it links to, joined as response.follow joins them: the home page, ten
// product links with a fragment, twenty other pages, the next page and one offsite link.
func benchSitePage(p, total int) (*types.Response, []string) {
	const base = "http://127.0.0.1:18081/page/"
	resp := &types.Response{URL: base + strconv.Itoa(p), Status: 200,
		Headers: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		Request: &types.Request{URL: base + strconv.Itoa(p), Depth: 3}}
	links := []string{base + "0"}
	for k := range 10 {
		t := (p*10 + k) % total
		links = append(links, base+strconv.Itoa(t)+"#p"+strconv.Itoa(k))
	}
	for k := range 20 {
		links = append(links, base+strconv.Itoa((p*7+k*13)%total))
	}
	links = append(links, base+strconv.Itoa((p+1)%total), "https://example.invalid/elsewhere")
	return resp, links
}

// newPathEngine returns an engine for the request-path benchmark and tests: the bench
// spider's allowed domains, a discarding logger.
func newPathEngine(tb testing.TB, kv map[string]any) *Engine {
	tb.Helper()
	s := types.NewSettings()
	for k, v := range kv {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			tb.Fatal(err)
		}
	}
	return New(&pathSpider{domains: []string{"127.0.0.1"}}, s, WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
}

// routePage pushes page p's follows through the engine's spider output handling and
// scheduler, as requests a callback of p yielded.
func routePage(e *Engine, p, total int) {
	resp, links := benchSitePage(p, total)
	for _, l := range links {
		e.route(context.Background(), resp, nil, types.Output{Request: &types.Request{URL: l}}, false)
	}
}

// BenchmarkRoutePage measures the Go-side path of one page's 33 followed links after the
// spider yielded them (the requests as jsapi makes them, the spider output filters, the
// scheduler's duplicate filter): "dupes" once every page was seen (the bench crawl's
// steady state: 32 duplicates and one offsite link), "new" with new pages each time.
func BenchmarkRoutePage(b *testing.B) {
	const total = 2000
	b.Run("dupes", func(b *testing.B) {
		e := newPathEngine(b, nil)
		for p := range total {
			routePage(e, p, total)
		}
		for e.sched.Next() != nil {
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			routePage(e, i%total, total)
		}
	})
	b.Run("new", func(b *testing.B) {
		e := newPathEngine(b, nil)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			routePage(e, i, 1<<30)
			for e.sched.Next() != nil {
			}
		}
	})
}
