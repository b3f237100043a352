package broadsite_test

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/internal/broadsite"
)

type page = broadsite.Page

// TestLimit runs the simulation on small graphs computed by hand (host A is 0, B is 1).
func TestLimit(t *testing.T) {
	t.Parallel()
	a := func(n int) page { return page{Host: 0, N: n} }
	b := func(n int) page { return page{Host: 1, N: n} }
	for _, tc := range []struct {
		name   string
		starts []page
		links  map[page][]page
		delay  time.Duration
		want   broadsite.LimitResult
	}{
		{
			// t=0 A0 (A1 and B0 known), t=0 B0 (B1, A2 known), t=1 A1 and B1, t=2 A2.
			name:   "two hosts",
			starts: []page{a(0)},
			links:  map[page][]page{a(0): {a(1), b(0)}, b(0): {b(1), a(2)}},
			delay:  time.Second,
			want:   broadsite.LimitResult{Pages: 5, Span: 2 * time.Second},
		},
		{
			// A fetch takes no time: B0 is fetched at 0 too; A1 waits for A's delay (1),
			// and B1, known at 1, goes at once since B's delay ended at 1.
			name:   "chain across hosts",
			starts: []page{a(0)},
			links:  map[page][]page{a(0): {b(0)}, b(0): {a(1)}, a(1): {b(1)}},
			delay:  time.Second,
			want:   broadsite.LimitResult{Pages: 4, Span: time.Second},
		},
		{
			// First known, first fetched: A1 at 1 before A2 at 2, so B0 (linked from A2)
			// starts at 2 and B2 ends at 4 (A2 first would have ended at 3).
			name:   "known order",
			starts: []page{a(0)},
			links:  map[page][]page{a(0): {a(1), a(2)}, a(2): {b(0)}, b(0): {b(1)}, b(1): {b(2)}},
			delay:  time.Second,
			want:   broadsite.LimitResult{Pages: 6, Span: 4 * time.Second},
		},
		{
			// Both starts at 0; A1 is linked twice and fetched once; C0 (host 2 of 2) is
			// outside the site; B9 is never linked.
			name:   "starts on both hosts",
			starts: []page{a(0), b(0)},
			links:  map[page][]page{a(0): {a(1)}, b(0): {a(1), b(1), {Host: 2}}, b(1): {a(1)}},
			delay:  500 * time.Millisecond,
			want:   broadsite.LimitResult{Pages: 4, Span: 500 * time.Millisecond},
		},
		{
			name:   "no delay",
			starts: []page{a(0)},
			links:  map[page][]page{a(0): {a(1)}, a(1): {a(2)}},
			want:   broadsite.LimitResult{Pages: 3},
		},
		{
			name: "no starts",
			want: broadsite.LimitResult{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := broadsite.Limit(2, tc.starts, func(p page) []page { return tc.links[p] }, tc.delay)
			if got != tc.want {
				t.Errorf("Limit = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestGraphLimit: with page 0 of every host a start, each host always has a known page
// (the next of one it fetched), so the limit is the pages of one host less one, times
// the delay: issue 26's 29 s for 30 pages at 1 s.
func TestGraphLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hosts, pages int
		want         broadsite.LimitResult
	}{
		{100, 30, broadsite.LimitResult{Pages: 3000, Span: 29 * time.Second}},
		{2000, 10, broadsite.LimitResult{Pages: 20000, Span: 9 * time.Second}},
		{1, 3, broadsite.LimitResult{Pages: 3, Span: 2 * time.Second}},
		{3, 1, broadsite.LimitResult{Pages: 3, Span: 0}},
	} {
		g, err := broadsite.NewGraph(tc.hosts, tc.pages)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Limit(time.Second); got != tc.want {
			t.Errorf("%d hosts × %d pages: Limit = %+v, want %+v", tc.hosts, tc.pages, got, tc.want)
		}
	}
}

// TestGraphLinks: the next page first, then Links distinct pages of other hosts, the same
// on every call.
func TestGraphLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hosts, pages int
		wantCross    int // cross-host links per page
	}{
		{100, 30, broadsite.Links},
		{20, 6, broadsite.Links},
		{2, 2, 2}, // host 1 of 2 has only 2 pages on the other host
		{1, 4, 0},
	} {
		g, err := broadsite.NewGraph(tc.hosts, tc.pages)
		if err != nil {
			t.Fatal(err)
		}
		for h := range tc.hosts {
			for n := range tc.pages {
				p := page{Host: h, N: n}
				links := g.Links(p)
				cross := links
				if n+1 < tc.pages {
					if links[0] != (page{Host: h, N: n + 1}) {
						t.Fatalf("%v: first link %v, want the next page", p, links[0])
					}
					cross = links[1:]
				}
				if len(cross) != tc.wantCross {
					t.Fatalf("%v: %d cross-host links %v, want %d", p, len(cross), cross, tc.wantCross)
				}
				seen := map[page]bool{}
				for _, q := range cross {
					if q.Host == h || q.Host < 0 || q.Host >= tc.hosts || q.N < 0 || q.N >= tc.pages || seen[q] {
						t.Fatalf("%v: bad or repeated cross-host link %v in %v", p, q, cross)
					}
					seen[q] = true
				}
				if again := g.Links(p); !slices.Equal(again, links) {
					t.Fatalf("%v: links %v, then %v", p, links, again)
				}
			}
		}
	}
	if _, err := broadsite.NewGraph(broadsite.MaxHosts+1, 1); err == nil {
		t.Error("NewGraph(MaxHosts+1, 1): no error")
	}
	if _, err := broadsite.NewGraph(1, 0); err == nil {
		t.Error("NewGraph(1, 0): no error")
	}
}

func TestHostAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host int
		addr string
	}{
		{0, "127.0.1.1"}, {99, "127.0.1.100"}, {253, "127.0.1.254"}, {254, "127.0.2.1"},
		{1999, "127.0.8.222"}, {broadsite.MaxHosts - 1, "127.0.254.254"},
	} {
		a := broadsite.HostAddr(tc.host)
		if a.String() != tc.addr {
			t.Errorf("HostAddr(%d) = %v, want %s", tc.host, a, tc.addr)
		}
		if h := broadsite.HostOf(a); h != tc.host {
			t.Errorf("HostOf(%v) = %d, want %d", a, h, tc.host)
		}
	}
	for _, s := range []string{"127.0.0.1", "127.0.1.0", "127.0.1.255", "127.1.1.1", "10.0.1.1", "::1"} {
		if h := broadsite.HostOf(netip.MustParseAddr(s)); h != -1 {
			t.Errorf("HostOf(%s) = %d, want -1", s, h)
		}
	}
}

func TestGapsOf(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		arrivals []time.Time
		want     broadsite.Gaps
	}{
		{"none", nil, broadsite.Gaps{}},
		{"one", at(5), broadsite.Gaps{}},
		{"polite", at(0, 1000, 2000, 3100), broadsite.Gaps{N: 3, Min: time.Second}},
		{"two short", at(0, 1000, 1240, 2140, 3039), broadsite.Gaps{N: 4, Short: 2, Min: 240 * time.Millisecond}},
		{"at once", at(0, 0), broadsite.Gaps{N: 1, Short: 1}},
	} {
		if got := broadsite.GapsOf(tc.arrivals, 900*time.Millisecond); got != tc.want {
			t.Errorf("%s: GapsOf = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestSite serves 3 hosts × 2 pages on real listeners: each page's HTML has its links, and
// the report counts pages, duplicates, missing pages, gaps and requests in flight at once.
func TestSite(t *testing.T) {
	t.Parallel()
	g, err := broadsite.NewGraph(3, 2)
	if err != nil {
		t.Fatal(err)
	}
	site, err := broadsite.Start(g, broadsite.Options{Latency: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	if got := site.StartURLs(); len(got) != 3 || !strings.HasPrefix(got[2], "http://127.0.1.3:") || !strings.HasSuffix(got[2], "/page/0") {
		t.Fatalf("StartURLs = %v", got)
	}

	// Two requests for host 2's page 0 are held at once by the latency, then cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, site.URL(page{Host: 1}), nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for site.MaxInFlight(1) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the site never had 2 requests in flight at host 2 (MaxInFlight %d)", site.MaxInFlight(1))
		}
		time.Sleep(10 * time.Millisecond) // polling an observable condition, with a deadline
	}
	cancel()
	wg.Wait()

	fast, err := broadsite.Start(g, broadsite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	body := get(t, fast.URL(page{Host: 0, N: 0}))
	for _, q := range g.Links(page{Host: 0, N: 0}) {
		href := fast.URL(q)
		if q.Host == 0 {
			href = "/page/1"
		}
		if !strings.Contains(body, `href="`+href+`"`) {
			t.Errorf("page 0 of host 1 has no link to %s:\n%s", href, body)
		}
	}
	get(t, fast.URL(page{Host: 0, N: 1}))
	get(t, fast.URL(page{Host: 0, N: 1}))
	get(t, fast.URL(page{Host: 2, N: 1}))
	rep := fast.Report(time.Hour)
	if rep.Requests != 4 || rep.Pages != 3 || rep.Duplicates != 1 || rep.Missing != 3 || rep.Gaps != 2 || rep.ShortGaps != 2 || rep.MaxInFlight != 1 {
		t.Errorf("Report = %+v, want 4 requests, 3 pages, 1 duplicate, 3 missing, 2 gaps both short, 1 in flight at most", rep)
	}
	if a := fast.Arrivals(0); len(a) != 3 || rep.MinGap != min(a[1].Sub(a[0]), a[2].Sub(a[1])) || rep.Span < a[2].Sub(a[0]) {
		t.Errorf("Report = %+v for arrivals %v at host 1", rep, a)
	}
	if n := fast.Hits(page{Host: 0, N: 1}); n != 2 {
		t.Errorf("Hits(host 1 page 1) = %d, want 2", n)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
