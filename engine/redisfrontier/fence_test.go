package redisfrontier_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
)

// TestFenceStart: the worker running start() is frozen (no round trip: a SIGSTOP, a
// partition) past its lease while its start() goes on yielding; another worker takes
// start() over. When the first one thaws, Redis refuses the start requests it yielded
// since, so each of the dontFilter start requests is in the crawl once, and the first
// worker stops its start().
func TestFenceStart(t *testing.T) {
	t.Parallel()
	const n = 20
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	short := func(stats *engine.Stats) func(*redisfrontier.Options) {
		return func(o *redisfrontier.Options) { o.LeaseTimeout = 600 * time.Millisecond; o.Stats = stats }
	}
	startReq := func(i int) types.Output {
		return types.Output{Request: &types.Request{URL: fmt.Sprintf("http://example.com/s%d", i), DontFilter: true}}
	}
	aStats := engine.NewStats()
	a := open(t, r, "fence", short(aStats))
	step := make(chan int) // a's start() yields the position it receives
	var aEmitted int
	aDone := make(chan error, 1)
	go func() {
		aDone <- a.WrapStart(func(ctx context.Context, emit engine.Emit) error {
			for {
				select {
				case i := <-step:
					emit(startReq(i))
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})(ctx, func(o types.Output) {
			aEmitted++
			a.Enqueue(o.Request) // as the engine: on the start goroutine only here
		})
	}()
	for i := 1; i <= 5; i++ {
		step <- i
	}
	waitFor(t, "a's first five start requests to be recorded", func() bool {
		y, _ := c.HGet(ctx, "jscrawl:fence:start", "yielded").Int()
		return y == 5
	})
	a.Freeze()
	for i := 6; i <= 8; i++ { // in a's outbox when it stops
		step <- i
	}
	bStats := engine.NewStats()
	b := open(t, r, "fence", short(bStats))
	var bPos []int
	err := b.WrapStart(func(ctx context.Context, emit engine.Emit) error {
		for i := 1; i <= n; i++ {
			emit(startReq(i))
		}
		return nil
	})(ctx, func(o types.Output) {
		var i int
		fmt.Sscanf(o.Request.URL, "http://example.com/s%d", &i)
		bPos = append(bPos, i)
		b.Enqueue(o.Request)
	})
	if err != nil {
		t.Fatalf("b's start: %v", err)
	}
	b.StartDone(nil)
	if want := []int{6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}; !slices.Equal(bPos, want) {
		t.Fatalf("b took start() over at positions %v, want %v", bPos, want)
	}
	flushed(t, b)
	a.Thaw()
	select {
	case err := <-aDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a's start returned %v, want it stopped (context.Canceled)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a's start() was not stopped once fenced")
	}
	a.StartDone(context.Canceled)
	if aEmitted != 8 {
		t.Errorf("a emitted %d start outputs, want 8", aEmitted)
	}
	if n := aStats.Int("frontier/start_fenced"); n != 1 {
		t.Errorf("a: frontier/start_fenced = %d, want 1", n)
	}
	if n := aStats.Int("frontier/requests_fenced"); n != 3 {
		t.Errorf("a: frontier/requests_fenced = %d, want 3 (positions 6 to 8)", n)
	}
	if done, _ := c.HGet(ctx, "jscrawl:fence:start", "done").Result(); done != "1" {
		t.Errorf("start done = %q, want 1", done)
	}
	got := order(t, b)
	slices.Sort(got)
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("s%d", i))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the crawl's requests: %v, want each of s1..s%d once", got, n)
	}
	waitFor(t, "the crawl to settle", b.Settled)
}

// TestFenceLease: a worker frozen past its leases, with a request yielded by one of them
// and an acknowledgement of another in its outbox, thaws after another worker took the
// requests over: Redis refuses the request and the acknowledgement, the first worker
// knows it lost them (Holds, EnqueueFrom), and the other worker's leases stay whole.
func TestFenceLease(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	aStats := engine.NewStats()
	a := open(t, r, "fencel", func(o *redisfrontier.Options) {
		o.LeaseTimeout = 600 * time.Millisecond
		o.Capacity = 3
		o.Stats = aStats
	})
	held := leaseAll(t, a, 3)
	a.Freeze()
	child := &types.Request{URL: "http://example.com/child", DontFilter: true}
	if !a.EnqueueFrom(held[0], child) { // yielded while a's lease is live: queued
		t.Fatal("a dropped a request of a live lease")
	}
	a.Done(held[1])
	b := open(t, r, "fencel", func(o *redisfrontier.Options) { o.Capacity = 3 })
	var taken []*types.Request
	for len(taken) < 3 {
		rq := next(b, 20*time.Second)
		if rq == nil {
			t.Fatalf("b took over %d of a's 3 requests", len(taken))
		}
		taken = append(taken, rq)
	}
	if a.Holds(held[0]) || a.Holds(held[2]) {
		t.Error("a says it holds leases it did not renew for longer than they last")
	}
	a.Thaw()
	if a.EnqueueFrom(held[2], &types.Request{URL: "http://example.com/late", DontFilter: true}) {
		t.Error("a queued a request of a lease it knows it lost")
	}
	a.Done(held[0])
	a.Done(held[2])
	if err := a.Close(ctx); err != nil { // sends the outbox
		t.Fatal(err)
	}
	if n := aStats.Int("frontier/requests_fenced"); n != 2 {
		t.Errorf("a: frontier/requests_fenced = %d, want 2 (one refused by Redis, one dropped)", n)
	}
	if n := aStats.Int("frontier/leases_lost"); n < 1 {
		t.Errorf("a: frontier/leases_lost = %d, want its acknowledgement refused", n)
	}
	tokens, err := c.HGetAll(ctx, "jscrawl:fencel:lease").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 3 {
		t.Errorf("%d leases after a thawed, want b's 3: %v", len(tokens), tokens)
	}
	for m, tok := range tokens {
		if !strings.HasPrefix(tok, b.WorkerID()+"#") {
			t.Errorf("lease %s is %s's, want b's", m, tok)
		}
	}
	if p := c.ZCard(ctx, "jscrawl:fencel:pending").Val(); p != 0 {
		t.Errorf("%d requests pending after a thawed, want none (its child refused, its releases of b's leases refused)", p)
	}
	for _, rq := range taken {
		b.Done(rq)
	}
	waitFor(t, "the crawl to settle", func() bool { b.Next(); return b.Settled() })
}
