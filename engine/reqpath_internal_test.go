package engine

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
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
// scheduler, as requests a callback of p yielded: each emitted to the engine's inbox
// (what the spider's goroutine does), then the inbox handled as the engine goroutine
// does.
func routePage(e *Engine, p, total int) {
	resp, links := benchSitePage(p, total)
	for _, l := range links {
		e.in.post(event{kind: evOutput, parent: resp, out: types.Output{Request: &types.Request{URL: l}}})
	}
	e.drain(context.Background())
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

// headerScheduler is a MemoryScheduler that records the Referer of every request offered
// to it, duplicates included: a scheduler the engine knows nothing about.
type headerScheduler struct {
	*MemoryScheduler
	seen []string
}

func (s *headerScheduler) Enqueue(req *types.Request) bool {
	s.seen = append(s.seen, req.Headers.Get("Referer"))
	return s.MemoryScheduler.Enqueue(req)
}

// headerDupeFilter is a DupeFilter that reads headers: the Referer is part of what it
// compares.
type headerDupeFilter struct{ seen map[string]bool }

func (f *headerDupeFilter) Seen(req *types.Request) bool {
	k := req.URL + "\x00" + req.Headers.Get("Referer")
	if f.seen[k] {
		return true
	}
	f.seen[k] = true
	return false
}

// pathOutputs returns what routeAll routes: pages of the bench site with duplicates and
// an offsite link, a request that brings its own Referer, one with its own referrer
// policy, one from an https page to an http one (no Referer by default), and a
// dontFilter duplicate.
func pathOutputs() []struct {
	parent *types.Response
	req    *types.Request
} {
	var outs []struct {
		parent *types.Response
		req    *types.Request
	}
	add := func(parent *types.Response, req *types.Request) {
		outs = append(outs, struct {
			parent *types.Response
			req    *types.Request
		}{parent, req})
	}
	for p := range 6 {
		resp, links := benchSitePage(p, 10)
		for _, l := range links {
			add(resp, &types.Request{URL: l})
		}
	}
	resp, _ := benchSitePage(1, 10)
	add(resp, &types.Request{URL: "http://127.0.0.1:18081/own", Headers: http.Header{"Referer": {"http://own.example/"}}})
	add(resp, &types.Request{URL: "http://127.0.0.1:18081/origin", Meta: types.Item{{Key: types.MetaReferrerPolicy, Value: "origin"}}})
	add(resp, &types.Request{URL: "http://127.0.0.1:18081/page/0", DontFilter: true})
	secure := &types.Response{URL: "https://127.0.0.1:18443/s", Status: 200, Request: &types.Request{URL: "https://127.0.0.1:18443/s"}}
	add(secure, &types.Request{URL: "http://127.0.0.1:18081/downgrade"})
	add(secure, &types.Request{URL: "https://127.0.0.1:18443/same"})
	add(nil, &types.Request{URL: "http://127.0.0.1:18081/start"})
	return outs
}

// routeResult is what routing pathOutputs leaves: the scheduled requests' URLs and
// Referer headers in order, the Referer of each dropped request as a request_dropped
// handler saw it (when one is connected), and the stats.
type routeResult struct {
	scheduled []string
	dropped   []string
	stats     map[string]any
}

func routeAll(e *Engine, dropHandler bool) routeResult {
	var r routeResult
	if dropHandler {
		e.Connect(RequestDropped, func(_ context.Context, ev SignalEvent) error {
			r.dropped = append(r.dropped, ev.Request.URL+" "+ev.Request.Headers.Get("Referer"))
			return nil
		})
	}
	for _, o := range pathOutputs() {
		e.route(context.Background(), o.parent, nil, types.Output{Request: o.req}, false)
	}
	if ss, ok := e.sched.(SlotScheduler); ok {
		ss.UseSlots(nil) // no downloads: every slot stays ready as Next drains it
	}
	for req := e.sched.Next(); req != nil; req = e.sched.Next() {
		r.scheduled = append(r.scheduled, req.URL+" "+req.Headers.Get("Referer"))
	}
	r.stats = e.stats.Snapshot()
	return r
}

// TestLateReferer pins the Referer headers, the requests scheduled and dropped, and the
// stats of the request path whether RefererMiddleware runs in its place in the chain or
// after the duplicate filter (route), and when the engine takes either way.
func TestLateReferer(t *testing.T) {
	// The reference: a request_dropped handler makes the engine run the middleware in its
	// place, so the handler sees the Referer of dropped requests.
	ref := routeAll(newPathEngine(t, nil), true)
	for _, want := range []string{
		"http://127.0.0.1:18081/page/0 http://127.0.0.1:18081/page/0",
		"http://127.0.0.1:18081/own http://own.example/",
		"http://127.0.0.1:18081/origin http://127.0.0.1:18081/",
		"http://127.0.0.1:18081/downgrade ",
		"https://127.0.0.1:18443/same https://127.0.0.1:18443/s",
		"http://127.0.0.1:18081/start ",
	} {
		if !slices.Contains(ref.scheduled, want) {
			t.Errorf("scheduled %q, want it among %q", want, ref.scheduled)
		}
	}
	if len(ref.dropped) == 0 || ref.dropped[0] != "http://127.0.0.1:18081/page/0#p0 http://127.0.0.1:18081/page/0" {
		t.Errorf("dropped = %q..., want the first with its Referer", ref.dropped[:min(3, len(ref.dropped))])
	}

	for _, tc := range []struct {
		name string
		kv   map[string]any
		opts []Option
		late bool // route may run RefererMiddleware after the duplicate filter
		same bool // the scheduled requests are those of ref (else only checked for late)
	}{
		{name: "default", late: true, same: true},
		{name: "referer nearer the engine than offsite", kv: map[string]any{types.SpiderMiddlewares: map[string]any{"RefererMiddleware": 450}}, late: true, same: true},
		{name: "referer nearest the engine", kv: map[string]any{types.SpiderMiddlewares: map[string]any{"RefererMiddleware": 10}}, late: true, same: true},
		{name: "referer disabled", kv: map[string]any{types.SpiderMiddlewares: map[string]any{"RefererMiddleware": nil}}},
		{name: "REFERER_ENABLED false", kv: map[string]any{types.RefererEnabled: false}, late: true},
		{name: "spilled to disk", kv: map[string]any{types.SchedulerMemoryMax: 5}, late: true},
		{name: "other scheduler", opts: []Option{withHeaderScheduler()}, same: true},
		{name: "dupefilter reading headers", opts: []Option{withMemoryScheduler(NewMemoryScheduler(types.NewSettings(), &headerDupeFilter{seen: map[string]bool{}}, nil, nil))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := types.NewSettings()
			for k, v := range tc.kv {
				if err := s.Set(k, v, types.PriorityCmdline); err != nil {
					t.Fatal(err)
				}
			}
			stats := NewStats()
			opts := append([]Option{WithStats(stats), WithLogger(slog.New(slog.DiscardHandler))}, tc.opts...)
			if len(tc.opts) > 0 {
				// A scheduler given as an option counts in the stats it was made with: give it
				// the engine's.
				if ms, ok := schedOf(tc.opts); ok {
					ms.stats = stats
				}
			}
			e := New(&pathSpider{domains: []string{"127.0.0.1"}}, s, opts...)
			if got := e.chain.lateRef >= 0; got != tc.late {
				t.Fatalf("late referer = %v, want %v", got, tc.late)
			}
			got := routeAll(e, false)
			if _, spill := tc.kv[types.SchedulerMemoryMax]; spill {
				if n, _ := got.stats["scheduler/enqueued/disk"].(int64); n == 0 || !slices.Contains(got.scheduled, "http://127.0.0.1:18081/origin http://127.0.0.1:18081/") {
					t.Errorf("spilled: scheduler/enqueued/disk %v, scheduled %q", n, got.scheduled)
				}
			}
			if tc.same {
				if !slices.Equal(got.scheduled, ref.scheduled) {
					t.Errorf("scheduled\n%q\nwant\n%q", got.scheduled, ref.scheduled)
				}
				if !maps.Equal(got.stats, ref.stats) {
					t.Errorf("stats\n%v\nwant\n%v", got.stats, ref.stats)
				}
			}
			if hs, ok := e.sched.(*headerScheduler); ok {
				// A scheduler the engine does not know sees every request with its Referer,
				// duplicates included.
				if hs.seen[1] != "http://127.0.0.1:18081/page/0" || len(hs.seen) != len(pathOutputs())-6 {
					t.Errorf("the scheduler saw %d requests, Referers %q", len(hs.seen), hs.seen[:3])
				}
			}
			// The same engine set-up with a request_dropped handler: it takes the other way
			// and schedules the same.
			opts2 := []Option{WithLogger(slog.New(slog.DiscardHandler))}
			if _, ok := schedOf(tc.opts); !ok {
				again := routeAll(New(&pathSpider{domains: []string{"127.0.0.1"}}, s, opts2...), true)
				if !slices.Equal(got.scheduled, again.scheduled) || !maps.Equal(got.stats, again.stats) {
					t.Errorf("with a request_dropped handler: scheduled\n%q\nwant\n%q\nstats %v, want %v", again.scheduled, got.scheduled, again.stats, got.stats)
				}
			}
		})
	}
}

// withHeaderScheduler gives the engine a headerScheduler, which queues per slot as the
// MemoryScheduler it wraps.
func withHeaderScheduler() Option {
	hs := &headerScheduler{MemoryScheduler: NewMemoryScheduler(types.NewSettings(), nil, nil, nil)}
	return WithScheduler(hs, SchedulerParts{Slots: hs, Sizes: hs})
}

// withMemoryScheduler gives the engine ms with its parts.
func withMemoryScheduler(ms *MemoryScheduler) Option { return WithScheduler(ms, ms.Parts()) }

// schedOf returns the MemoryScheduler a WithScheduler option among opts sets.
func schedOf(opts []Option) (*MemoryScheduler, bool) {
	for _, o := range opts {
		var c config
		o(&c)
		switch s := c.sched.(type) {
		case *MemoryScheduler:
			return s, true
		case *headerScheduler:
			return s.MemoryScheduler, true
		}
	}
	return nil, false
}

// TestDuplicateCostsNoHeader checks that a duplicate follow through the default chain
// allocates nothing but the request itself: no Referer header, no parsed URL, no boxed
// counter.
func TestDuplicateCostsNoHeader(t *testing.T) {
	e := newPathEngine(t, nil)
	routePage(e, 0, 10)
	resp, links := benchSitePage(0, 10)
	n := testing.AllocsPerRun(100, func() {
		e.route(context.Background(), resp, nil, types.Output{Request: &types.Request{URL: links[1]}}, false)
	})
	if n > 1 {
		t.Errorf("routing a duplicate allocates %v times, want 1 (the request)", n)
	}
}
