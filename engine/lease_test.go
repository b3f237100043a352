package engine_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// leaseSched is a LeaseScheduler whose leases the test takes away: lost lists the paths
// whose lease this process no longer holds.
type leaseSched struct {
	*sharedSched
	mu      sync.Mutex
	lost    map[string]bool
	parents map[string]string // child path → parent path, from EnqueueFrom
	done    []string
}

func (s *leaseSched) Holds(req *types.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.lost[reqPath(req)]
}

func (s *leaseSched) EnqueueFrom(parent, req *types.Request) bool {
	s.mu.Lock()
	s.parents[reqPath(req)] = reqPath(parent)
	s.mu.Unlock()
	return s.Enqueue(req)
}

func (s *leaseSched) Done(req *types.Request) {
	s.mu.Lock()
	s.done = append(s.done, reqPath(req))
	s.mu.Unlock()
	s.sharedSched.Done(req)
}

func (s *leaseSched) lose(p string) {
	s.mu.Lock()
	s.lost[p] = true
	s.mu.Unlock()
}

// reqPath is the path of req.URL.
func reqPath(req *types.Request) string {
	_, p, _ := strings.Cut(strings.TrimPrefix(req.URL, "http://"), "/")
	return "/" + p
}

// TestLeaseLost: on a LeaseScheduler, a response whose lease is lost before its callback
// is not parsed, an item whose request's lease is lost by the time it is exported is
// dropped, both requests are Done; the requests a callback yields and a redirect's
// replacement are scheduled with their parent (EnqueueFrom).
func TestLeaseLost(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	set := settings(t, nil)
	s := &leaseSched{sharedSched: &sharedSched{MemoryScheduler: engine.NewMemoryScheduler(set, nil, nil, nil),
		wake: make(chan struct{}, 1), startDone: make(chan error, 1)},
		lost: map[string]bool{"/item/2": true}, parents: map[string]string{}}
	s.settled.Store(true)
	var parsed, items enginetest.Recorder[string]
	spider := &enginetest.Spider{
		StartURLs: []string{srv.URL + "/item/1", srv.URL + "/item/2", srv.URL + "/item/3", srv.URL + "/redirect/1"},
		ParseFunc: func(ctx context.Context, resp *types.Response, emit engine.Emit) error {
			p := reqPath(resp.Request)
			parsed.Add(p)
			if p == "/item/3" {
				s.lose(p) // while its callback runs
			}
			emit(types.Output{Item: types.Item{{Key: "path", Value: p}}})
			if p == "/item/1" {
				emit(types.Output{Request: &types.Request{URL: srv.URL + "/item/4"}})
			}
			return nil
		},
	}
	stats := engine.NewStats()
	e := engine.New(spider, set, engine.WithScheduler(s, engine.SchedulerParts{Slots: s, Sizes: s, Shared: s, Leases: s}), engine.WithStats(stats), engine.WithLogger(discard()))
	e.Connect(engine.ItemScraped, func(_ context.Context, ev engine.SignalEvent) error {
		items.Add(ev.Item[0].Value.(string))
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Run(ctx); err != nil {
		t.Fatal(err)
	}
	gotParsed, gotItems := parsed.All(), items.All()
	slices.Sort(gotParsed)
	slices.Sort(gotItems)
	if want := []string{"/item/1", "/item/3", "/item/4", "/redirect/0"}; !slices.Equal(gotParsed, want) {
		t.Errorf("parsed %v, want %v (not /item/2, whose lease was lost)", gotParsed, want)
	}
	if want := []string{"/item/1", "/item/4", "/redirect/0"}; !slices.Equal(gotItems, want) {
		t.Errorf("items scraped %v, want %v (not /item/3's, whose lease was lost in its callback)", gotItems, want)
	}
	for _, p := range []string{"/item/2", "/item/3"} {
		if !slices.Contains(s.done, p) {
			t.Errorf("%s was not Done", p)
		}
	}
	if want := map[string]string{"/item/4": "/item/1", "/redirect/0": "/redirect/1"}; len(s.parents) != 2 || s.parents["/item/4"] != want["/item/4"] || s.parents["/redirect/0"] != want["/redirect/0"] {
		t.Errorf("EnqueueFrom got child → parent %v, want %v", s.parents, want)
	}
	if n := stats.Int("item_dropped_reasons_count/lease_lost"); n != 1 {
		t.Errorf("item_dropped_reasons_count/lease_lost = %d, want 1", n)
	}
	if n := stats.Int("frontier/responses_lease_lost"); n != 1 {
		t.Errorf("frontier/responses_lease_lost = %d, want 1", n)
	}
}
