package engine_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// arrivalLog records the requests a set of test hosts got, in the order they came.
type arrivalLog struct {
	mu   sync.Mutex
	seen []arrival
}

type arrival struct {
	host, path string
	at         time.Time
}

func (l *arrivalLog) add(r *http.Request) {
	l.mu.Lock()
	l.seen = append(l.seen, arrival{host: r.Host, path: r.URL.Path, at: time.Now()})
	l.mu.Unlock()
}

func (l *arrivalLog) all() []arrival {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// order returns "host/path" of every arrival, in order.
func (l *arrivalLog) order() []string {
	var out []string
	for _, a := range l.all() {
		out = append(out, a.host+a.path)
	}
	return out
}

// loopbackHosts starts n servers on the loopback addresses 127.0.2.1… (one host each,
// as a broad crawl sees many hosts) running h, and returns their base URLs. A test skips
// when the machine does not route 127.0.2.0/24 to the loopback interface.
func loopbackHosts(t *testing.T, n int, log *arrivalLog, h http.HandlerFunc) []string {
	t.Helper()
	var urls []string
	for i := 1; i <= n; i++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.2.%d:0", i))
		if err != nil {
			t.Skipf("loopback address 127.0.2.%d: %v", i, err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			log.add(r)
			h(w, r)
		}))
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	return urls
}

func hostOf(u string) string { return strings.TrimPrefix(u, "http://") }

// TestIdleHostsDoNotWaitBehindDelayedOnes: with two download places and a 1 s delay, the
// requests for five other hosts do not wait behind the six of one host, though those come
// first by priority (head-of-line blocking): they are downloaded while that host waits
// out its delay, before its third request; a scheduler blind to the slots hands out the
// six first and the others wait ~5 s.
func TestIdleHostsDoNotWaitBehindDelayedOnes(t *testing.T) {
	log := &arrivalLog{}
	hosts := loopbackHosts(t, 6, log, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	busy, others := hosts[0], hosts[1:]
	spider := &spiderFuncs{start: func(emit engine.Emit) {
		for _, o := range others {
			emit(req(o + "/one"))
		}
		for i := range 6 { // first in line: a higher priority
			emit(types.Output{Request: &types.Request{URL: fmt.Sprintf("%s/page/%d", busy, i), Priority: 1}})
		}
	}}
	e, _ := crawl(t, spider, map[string]any{
		types.ConcurrentRequests: 2, types.DownloadDelay: 1.0, types.RandomizeDownloadDelay: false,
	})
	if got := stat(e, "response_received_count"); got != 11 {
		t.Fatalf("response_received_count = %d, want 11", got)
	}
	order := log.order()
	third := -1
	n := 0
	for i, a := range order {
		if strings.HasPrefix(a, hostOf(busy)) {
			if n++; n == 3 {
				third = i
				break
			}
		}
	}
	for _, o := range others {
		i := slices.Index(order, hostOf(o)+"/one")
		if i < 0 || i > third {
			t.Errorf("%s/one came at %d, after the busy host's third request (at %d): %q", o, i, third, order)
		}
	}
}

// TestRetryAfterPauseDoesNotBlockOtherHosts: a host that answers 503 with Retry-After
// pauses its slot; its other queued requests are not handed out meanwhile, so the other
// hosts' requests, behind them by priority, are downloaded during the pause.
func TestRetryAfterPauseDoesNotBlockOtherHosts(t *testing.T) {
	log := &arrivalLog{}
	var paused atomic.Bool
	hosts := loopbackHosts(t, 4, log, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "127.0.2.1:") && paused.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	})
	spider := &spiderFuncs{start: func(emit engine.Emit) {
		for _, o := range hosts[1:] {
			emit(req(o + "/one"))
		}
		for i := range 4 { // first in line: a higher priority
			emit(types.Output{Request: &types.Request{URL: fmt.Sprintf("%s/page/%d", hosts[0], i), Priority: 1}})
		}
	}}
	e, _ := crawl(t, spider, map[string]any{types.ConcurrentRequests: 2, types.ConcurrentRequestsPerDomain: 1, types.RetryTimes: 2})
	if got := stat(e, "downloader/response_status_count/200"); got != 7 {
		t.Fatalf("200 responses = %d, want 7", got)
	}
	all := log.all()
	var pauseStart, pauseEnd time.Time // the paused host's 503, and its next request
	for _, a := range all {
		if strings.HasPrefix(a.host, "127.0.2.1:") {
			if pauseStart.IsZero() {
				pauseStart = a.at
				continue
			}
			pauseEnd = a.at
			break
		}
	}
	if pauseEnd.Sub(pauseStart) < 1900*time.Millisecond {
		t.Errorf("the paused host was asked again %v after its 503, want the 2 s Retry-After", pauseEnd.Sub(pauseStart))
	}
	for _, a := range all {
		if !strings.HasPrefix(a.host, "127.0.2.1:") && a.at.After(pauseEnd) {
			t.Errorf("%s%s came after the pause ended: other hosts waited behind the paused one", a.host, a.path)
		}
	}
}

// TestPrioritiesAcrossSlots: a higher-priority request of a ready slot goes first, and a
// slot waiting out its delay lets lower-priority requests of other slots go before its
// own: with one download place, A's priority-10 page, then B's priority-5 one, then B's
// priority-0 one while A waits its 1 s delay, then A's priority-0 page.
func TestPrioritiesAcrossSlots(t *testing.T) {
	log := &arrivalLog{}
	hosts := loopbackHosts(t, 2, log, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	a, b := hosts[0], hosts[1]
	e, _ := newEngine(t, &spiderFuncs{start: func(engine.Emit) {}}, map[string]any{
		types.ConcurrentRequests: 1, types.RandomizeDownloadDelay: false,
		types.DownloadSlots: map[string]any{"127.0.2.1": map[string]any{"delay": 1.0}},
	}, engine.WithStartDone())
	// Queued before Run: all four are in the scheduler when the first is handed out.
	e.Crawl(&types.Request{URL: a + "/low"})
	e.Crawl(&types.Request{URL: b + "/low"})
	e.Crawl(&types.Request{URL: b + "/mid", Priority: 5})
	e.Crawl(&types.Request{URL: a + "/high", Priority: 10})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{hostOf(a) + "/high", hostOf(b) + "/mid", hostOf(b) + "/low", hostOf(a) + "/low"}
	if got := log.order(); !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
}

// TestDelayCountsFromTheServersView: the delay between two requests to a host holds as the
// host sees them, even when the first request took long to reach it: a slow TLS
// handshake, or a busy plain-HTTP server that accepts the connection late (the kernel took
// the request long before). The next one is timed from when the server got the first,
// not from when it got its turn or was written to the socket.
func TestDelayCountsFromTheServersView(t *testing.T) {
	for _, slow := range []string{"tls handshake", "accept"} {
		t.Run(slow, func(t *testing.T) {
			var (
				arrived enginetest.Recorder[time.Time]
				first   atomic.Bool
			)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived.Add(time.Now())
				fmt.Fprint(w, "ok")
			}))
			if slow == "accept" {
				srv.Listener = &slowAccept{Listener: srv.Listener, first: &first}
				srv.Start()
			} else {
				srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
					if first.CompareAndSwap(false, true) {
						time.Sleep(800 * time.Millisecond) // a slow server: the first handshake takes long
					}
					return nil, nil
				}}
				srv.StartTLS()
			}
			t.Cleanup(srv.Close)
			spider := &spiderFuncs{start: func(emit engine.Emit) {
				for i := range 3 {
					emit(req(fmt.Sprintf("%s/page/%d", srv.URL, i)))
				}
			}}
			const delay = time.Second
			crawl(t, spider, map[string]any{
				types.ConcurrentRequestsPerDomain: 2, types.DownloadDelay: delay.Seconds(),
				types.RandomizeDownloadDelay: false,
			}, engine.WithHTTPClient(srv.Client()))
			arrivals := arrived.All()
			if len(arrivals) != 3 {
				t.Fatalf("%d arrivals, want 3", len(arrivals))
			}
			for i := 1; i < len(arrivals); i++ {
				if gap := arrivals[i].Sub(arrivals[i-1]); gap < delay*9/10 {
					t.Errorf("gap %d at the server = %v, want at least %v (DOWNLOAD_DELAY %v)", i, gap, delay*9/10, delay)
				}
			}
		})
	}
}

// slowAccept is a listener whose first Accept returns 800 ms late: a busy server.
type slowAccept struct {
	net.Listener
	first *atomic.Bool
}

func (l *slowAccept) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil && l.first.CompareAndSwap(false, true) {
		time.Sleep(800 * time.Millisecond)
	}
	return c, err
}

// TestSlotKey: a request's slot is meta.downloadSlot, else its host name in lower case,
// without port or credentials, as net/url reads it (the fast path without a parse agrees).
func TestSlotKey(t *testing.T) {
	for _, tc := range []struct {
		url, slot string
		meta      string
	}{
		{url: "http://example.com/a", slot: "example.com"},
		{url: "https://Example.COM:8443/a?b#c", slot: "example.com"},
		{url: "http://user:pa:ss@host.test:81/", slot: "host.test"},
		{url: "http://127.0.2.7:8080", slot: "127.0.2.7"},
		{url: "http://[::1]:8080/x", slot: "::1"},
		{url: "http://[2001:DB8::1]/", slot: "2001:db8::1"},
		{url: "http://ÉCOLE.fr/", slot: "école.fr"},
		{url: "http://a.test?x=1", slot: "a.test"},
		{url: "http://a.test#top", slot: "a.test"},
		{url: "http://a.test/", meta: "shared", slot: "shared"},
	} {
		req := &types.Request{URL: tc.url}
		if tc.meta != "" {
			req.Meta = types.Item{{Key: types.MetaDownloadSlot, Value: tc.meta}}
		}
		if got := engine.SlotKey(req); got != tc.slot {
			t.Errorf("SlotKey(%q) = %q, want %q", tc.url, got, tc.slot)
		}
	}
}

// TestRobotsTxtTurnDoesNotHoldAPlace: a host's first request, whose turn its robots.txt
// took, goes back to the scheduler instead of waiting out the delay in one of the
// CONCURRENT_REQUESTS places: with 2 places, 10 hosts and a 1 s delay, every host's first
// page comes about a delay after its robots.txt, not 10 / 2 delays in (the places taken
// by pages waiting behind their robots.txt); and the delay still holds between the two.
func TestRobotsTxtTurnDoesNotHoldAPlace(t *testing.T) {
	log := &arrivalLog{}
	hosts := loopbackHosts(t, 10, log, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		fmt.Fprint(w, "ok")
	})
	spider := &spiderFuncs{start: func(emit engine.Emit) {
		for _, h := range hosts {
			emit(req(h + "/page"))
		}
	}}
	const delay = time.Second
	e, _ := crawl(t, spider, map[string]any{
		types.RobotsTxtObey: true, types.ConcurrentRequests: 2, types.DownloadDelay: delay.Seconds(),
		types.RandomizeDownloadDelay: false,
	})
	if got := stat(e, "response_received_count"); got != 10 {
		t.Fatalf("response_received_count = %d, want 10", got)
	}
	all := log.all()
	if len(all) != 20 {
		t.Fatalf("%d requests reached the hosts, want 20 (10 robots.txt, 10 pages)", len(all))
	}
	robots := map[string]time.Time{}
	var last time.Time
	for _, a := range all {
		if a.path == "/robots.txt" {
			robots[a.host] = a.at
			continue
		}
		if gap := a.at.Sub(robots[a.host]); gap < delay*9/10 {
			t.Errorf("%s/page came %v after its robots.txt, want the %v delay", a.host, gap, delay)
		}
		last = a.at
	}
	if span := last.Sub(all[0].at); span > 3*delay {
		t.Errorf("the 10 pages took %v from the first request, want about %v: pages waited in the download places", span, delay)
	}
}
