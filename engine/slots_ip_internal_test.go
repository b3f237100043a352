package engine

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// startSpider yields its requests from Start and does nothing with the responses.
type startSpider []string

func (s startSpider) Start(_ context.Context, emit Emit) error {
	for _, u := range s {
		emit(types.Output{Request: &types.Request{URL: u}})
	}
	return nil
}
func (startSpider) Parse(context.Context, *types.Response, Emit) error  { return nil }
func (startSpider) Errback(context.Context, *types.Failure, Emit) error { return nil }

// TestPerIPSlots: with SLOT_BY=ip (and CONCURRENT_REQUESTS_PER_IP) two host names of one
// server share its slot once the DNS cache knows them, so the server sees their requests
// a DOWNLOAD_DELAY apart, as from one host; per host, the two names go side by side.
func TestPerIPSlots(t *testing.T) {
	const delay, perName = 300 * time.Millisecond, 5
	for _, tc := range []struct {
		name string
		kv   map[string]any
		ip   bool
	}{
		{name: "SLOT_BY=host", kv: map[string]any{}},
		{name: "SLOT_BY=ip", kv: map[string]any{types.SlotBy: "ip"}, ip: true},
		{name: "CONCURRENT_REQUESTS_PER_IP", kv: map[string]any{types.ConcurrentRequestsPerIP: 1}, ip: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.1.7:0")
			if err != nil {
				t.Skipf("cannot listen on 127.0.1.7: %v", err)
			}
			var mu sync.Mutex
			var at []time.Time
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				at = append(at, time.Now())
				mu.Unlock()
				w.Write([]byte("ok"))
			}))
			srv.Listener.Close()
			srv.Listener = ln
			srv.Start()
			t.Cleanup(srv.Close)
			port := ln.Addr().(*net.TCPAddr).Port
			d := newDNSResponder(t)

			s := types.NewSettings()
			for k, v := range map[string]any{
				types.RobotsTxtObey: false, types.LogStatsInterval: 0, types.DownloadDelay: delay.Seconds(),
				types.RandomizeDownloadDelay: false, types.ConcurrentRequestsPerDomain: 1,
			} {
				s.Set(k, v, types.PriorityCmdline)
			}
			for k, v := range tc.kv {
				s.Set(k, v, types.PriorityCmdline)
			}
			var urls []string
			for _, host := range []string{"a.test", "alias.test"} {
				for i := range perName {
					urls = append(urls, "http://"+host+":"+itoa(port)+"/"+itoa(i))
				}
			}
			e := New(startSpider(urls), s, WithLogger(orDiscard(nil)))
			h := e.dl.http.handlers["http"].(*httpHandler)
			h.dns.resolver = d.resolver()
			if err := e.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(at) != 2*perName {
				t.Fatalf("%d requests reached the server, want %d", len(at), 2*perName)
			}
			// Each name's first request may go before its name is in the DNS cache, under a
			// slot of its own: the other 2×perName-2 follow in the shared slot, a delay apart.
			span := at[len(at)-1].Sub(at[0])
			shared := time.Duration(2*perName-3) * delay * 9 / 10
			if tc.ip && span < shared {
				t.Errorf("%d requests to one IP in %v, want at least %v: the names did not share a slot", len(at), span, shared)
			}
			// Per host, each name's requests are perName-1 delays apart, side by side.
			if own := time.Duration(perName-1) * delay; !tc.ip && span > own*3/2 {
				t.Errorf("%d requests of two hosts in %v, want about %v: the hosts shared a slot", len(at), span, own)
			}
		})
	}
}
