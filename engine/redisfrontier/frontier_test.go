package redisfrontier_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
	"github.com/jscrawl/jscrawl/types"
)

// TestExactlyOnceLeasing has four workers take 1000 requests at once: each is leased by
// exactly one of them.
func TestExactlyOnceLeasing(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	const n = 1000
	producer := open(t, r, "once", nil)
	for i := range n {
		producer.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
	}
	flushed(t, producer)
	startNothing(t, producer)
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for i := range 4 {
		f := open(t, r, "once", func(o *redisfrontier.Options) { o.Capacity = 8; o.Prefetch = i % 2 * 4 })
		wg.Go(func() {
			for {
				rq := next(f, 20*time.Second)
				if rq == nil {
					return
				}
				mu.Lock()
				got[rq.URL]++
				mu.Unlock()
				f.Done(rq)
			}
		})
	}
	wg.Wait()
	if len(got) != n {
		t.Errorf("%d requests leased, want %d", len(got), n)
	}
	for u, c := range got {
		if c != 1 {
			t.Errorf("%s leased %d times", u, c)
		}
	}
}

// TestLeaseRenewedThenRecovered: a worker's leases outlive FRONTIER_LEASE_TIMEOUT while
// it renews them; once it stops (killed), another worker recovers them.
func TestLeaseRenewedThenRecovered(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	a := open(t, r, "lease", func(o *redisfrontier.Options) { o.LeaseTimeout = 600 * time.Millisecond; o.Capacity = 5 })
	held := leaseAll(t, a, 5)
	first, err := c.ZRangeWithScores(ctx, "jscrawl:lease:leased", 0, 0).Result()
	if err != nil || len(first) != 1 {
		t.Fatalf("leased: %v %v", first, err)
	}
	bStats := engine.NewStats()
	b := open(t, r, "lease", func(o *redisfrontier.Options) { o.Stats = bStats })
	// Renewed past the first deadline plus a lease timeout: the lease would have expired.
	waitFor(t, "a's leases to be renewed twice over", func() bool {
		s, err := c.ZScore(ctx, "jscrawl:lease:leased", first[0].Member.(string)).Result()
		if b.Next() != nil {
			t.Fatal("worker b leased a request that a holds and renews")
		}
		return err == nil && s > first[0].Score+600
	})
	if n := bStats.Int("frontier/leases_recovered"); n != 0 {
		t.Fatalf("b recovered %d leases a renews", n)
	}
	a.Kill()
	var recovered []string
	for len(recovered) < len(held) {
		rq := next(b, 20*time.Second)
		if rq == nil {
			t.Fatalf("b recovered %d of a's %d requests", len(recovered), len(held))
		}
		recovered = append(recovered, rq.URL)
		b.Done(rq)
	}
	var want []string
	for _, rq := range held {
		want = append(want, rq.URL)
	}
	slices.Sort(want)
	slices.Sort(recovered)
	if !slices.Equal(recovered, want) {
		t.Errorf("b got %v, want a's %v", recovered, want)
	}
	if n := bStats.Int("frontier/leases_recovered"); n != 5 {
		t.Errorf("frontier/leases_recovered = %d, want 5", n)
	}
}

// order takes every request of f's crawl one at a time and returns their URLs' paths.
func order(t *testing.T, f *redisfrontier.Frontier) []string {
	t.Helper()
	var out []string
	for {
		rq := next(f, 10*time.Second)
		if rq == nil {
			return out
		}
		out = append(out, strings.TrimPrefix(rq.URL, "http://example.com/"))
		f.Done(rq)
	}
}

// TestPriorities: higher priorities first; LIFO within a priority, or FIFO.
func TestPriorities(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	for _, tc := range []struct {
		fifo bool
		want []string
	}{
		{false, []string{"b2", "b1", "a3", "a2", "a1", "c1"}},
		{true, []string{"b1", "b2", "a1", "a2", "a3", "c1"}},
	} {
		crawl := fmt.Sprintf("prio-%v", tc.fifo)
		mod := func(o *redisfrontier.Options) { o.FIFO = tc.fifo; o.Capacity = 1 }
		p := open(t, r, crawl, mod)
		for _, e := range []struct {
			path string
			prio int
		}{{"a1", 0}, {"b1", 5}, {"c1", -3}, {"a2", 0}, {"b2", 5}, {"a3", 0}} {
			p.Enqueue(&types.Request{URL: "http://example.com/" + e.path, Priority: e.prio})
		}
		flushed(t, p)
		startNothing(t, p)
		if got := order(t, open(t, r, crawl, mod)); !slices.Equal(got, tc.want) {
			t.Errorf("fifo=%v: order %v, want %v", tc.fifo, got, tc.want)
		}
	}
}

// TestDuplicates: a fingerprint enters the crawl once, whichever worker sends it; a
// dontFilter request bypasses the seen-set.
func TestDuplicates(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	aStats, bStats := engine.NewStats(), engine.NewStats()
	a := open(t, r, "dupes", func(o *redisfrontier.Options) { o.Stats = aStats })
	b := open(t, r, "dupes", func(o *redisfrontier.Options) { o.Stats = bStats })
	if !a.Enqueue(req("http://example.com/u1")) || !a.Enqueue(req("http://example.com/u2")) {
		t.Fatal("new requests refused")
	}
	if a.Enqueue(req("http://example.com/u1")) {
		t.Error("a's own duplicate accepted")
	}
	flushed(t, a)
	b.Enqueue(req("http://example.com/u1")) // accepted here, dropped by the seen-set
	b.Enqueue(&types.Request{URL: "http://example.com/u1", DontFilter: true})
	b.Enqueue(&types.Request{URL: "http://example.com/u1", DontFilter: true})
	flushed(t, b)
	startNothing(t, b)
	got := order(t, open(t, r, "dupes", nil))
	slices.Sort(got)
	if want := []string{"u1", "u1", "u1", "u2"}; !slices.Equal(got, want) {
		t.Errorf("crawl got %v, want %v", got, want)
	}
	if n := aStats.Int("dupefilter/filtered"); n != 1 {
		t.Errorf("a: dupefilter/filtered = %d, want 1", n)
	}
	if n := bStats.Int("dupefilter/filtered"); n != 1 {
		t.Errorf("b: dupefilter/filtered = %d, want 1", n)
	}
}

// startSeq is a start() that yields n outputs: requests for /s1.../sN, except position 4,
// which repeats position 3 with dontFilter, and position 5, an item. It then waits for
// ctx unless done is true.
func startSeq(n int, block bool, emitted *[]int) func(context.Context, engine.Emit) error {
	return func(ctx context.Context, emit engine.Emit) error {
		for i := 1; i <= n; i++ {
			*emitted = append(*emitted, i)
			switch i {
			case 4:
				emit(types.Output{Request: &types.Request{URL: "http://example.com/s3", DontFilter: true}})
			case 5:
				emit(types.Output{Item: types.Item{{Key: "pos", Value: 5}}})
			default:
				emit(types.Output{Request: req(fmt.Sprintf("http://example.com/s%d", i))})
			}
		}
		if block {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
}

// TestStartHandOver: the worker running start() dies; another takes the start lease over
// and yields only the outputs after those recorded, while the crawl stays open.
func TestStartHandOver(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := open(t, r, "start", func(o *redisfrontier.Options) { o.LeaseTimeout = 600 * time.Millisecond })
	var aSeq []int
	aDone := make(chan error, 1)
	go func() {
		aDone <- a.WrapStart(startSeq(10, true, &aSeq))(ctx, func(o types.Output) {
			if o.Request != nil {
				a.Enqueue(o.Request) // as the engine: on the start goroutine only here
			}
		})
	}()
	waitFor(t, "a's ten start outputs to be recorded", func() bool {
		y, _ := c.HGet(ctx, "jscrawl:start:start", "yielded").Int()
		return y == 10
	})
	bStats := engine.NewStats()
	b := open(t, r, "start", func(o *redisfrontier.Options) { o.Stats = bStats })
	var bSeq, bPos []int
	var bReqs []string
	bDone := make(chan error, 1)
	go func() {
		bDone <- b.WrapStart(startSeq(15, false, &bSeq))(ctx, func(o types.Output) {
			bPos = append(bPos, len(bSeq))
			if o.Request != nil {
				bReqs = append(bReqs, o.Request.URL)
				b.Enqueue(o.Request)
			}
		})
	}()
	if b.Settled() {
		t.Error("b settled while a runs start()")
	}
	a.Kill()
	if err := <-bDone; err != nil {
		t.Fatalf("b's start: %v", err)
	}
	b.StartDone(nil)
	if want := []int{11, 12, 13, 14, 15}; !slices.Equal(bPos, want) {
		t.Errorf("b emitted positions %v, want %v", bPos, want)
	}
	if n := bStats.Int("frontier/start_taken_over"); n != 1 {
		t.Errorf("frontier/start_taken_over = %d, want 1", n)
	}
	flushed(t, b)
	got := order(t, b)
	slices.Sort(got)
	want := []string{"s1", "s10", "s11", "s12", "s13", "s14", "s15", "s2", "s3", "s3", "s6", "s7", "s8", "s9"}
	if !slices.Equal(got, want) {
		t.Errorf("the crawl's requests: %v, want %v", got, want)
	}
	waitFor(t, "the crawl to settle", b.Settled)
	cancel()
	<-aDone
}

// TestCrawlsKeptApart: two crawl ids in one Redis share nothing, and every key starts
// with jscrawl:<crawl-id>:.
func TestCrawlsKeptApart(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	one := open(t, r, "one", nil)
	two := open(t, r, "two", nil)
	one.Enqueue(req("http://example.com/x"))
	one.Enqueue(req("http://example.com/only-one"))
	two.Enqueue(req("http://example.com/x"))
	flushed(t, one)
	flushed(t, two)
	startNothing(t, one)
	startNothing(t, two)
	if got := order(t, two); !slices.Equal(got, []string{"x"}) {
		t.Errorf("crawl two got %v, want [x]", got)
	}
	if two.Finished() != true || one.Finished() {
		t.Errorf("finished: one %v, two %v; want false, true", one.Finished(), two.Finished())
	}
	got := order(t, one)
	slices.Sort(got)
	if !slices.Equal(got, []string{"only-one", "x"}) {
		t.Errorf("crawl one got %v", got)
	}
	keys, err := client(t, r).Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "jscrawl:one:") && !strings.HasPrefix(k, "jscrawl:two:") {
			t.Errorf("key %q outside the crawls' prefixes", k)
		}
	}
}

// openFails opens a frontier on url, which must fail (RetryTimeout is an hour, so an
// error that is retried fails only when the 20 s given run out: late), and returns
// Open's error.
func openFails(t *testing.T, url string) (late bool, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := redisfrontier.Open(ctx, redisfrontier.Options{URL: url, CrawlID: "x", Logger: quiet, RetryTimeout: time.Hour})
	if err == nil {
		_ = f.Close(ctx)
		t.Fatal("opened")
	}
	return ctx.Err() != nil, err
}

// TestOpenErrors: a malformed URL, a wrong or missing password and a database that does
// not exist fail at Open, at once (RetryTimeout is an hour).
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{Password: "right"})
	for _, tc := range []struct {
		name, url, want string
	}{
		{"scheme", "http://" + r.Addr + "/0", "bad URL"},
		{"port", "redis://127.0.0.1:notaport/0", "bad URL"},
		{"db syntax", "redis://" + r.Addr + "/x", "bad URL"},
		{"wrong password", "redis://:wrong@" + r.Addr + "/0", "WRONGPASS"},
		{"no password", "redis://" + r.Addr + "/0", "NOAUTH"},
		{"missing db", "redis://:right@" + r.Addr + "/99", "DB index is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			late, err := openFails(t, tc.url)
			if late || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one with %q, at once", err, tc.want)
			}
			if strings.Contains(err.Error(), "right") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
	ok := open(t, r, "x", func(o *redisfrontier.Options) { o.URL = r.URL(3) })
	if ok.Finished() {
		t.Error("a new crawl is finished")
	}
}

// TestRedisGone: a Redis that stays unreachable past FRONTIER_RETRY_TIMEOUT fails the
// frontier (OnFatal, Err), and Open on it fails after the same time.
func TestRedisGone(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	fatal := make(chan error, 1)
	f := open(t, r, "gone", func(o *redisfrontier.Options) {
		o.RetryTimeout = 300 * time.Millisecond
		o.OnFatal = func(err error) { fatal <- err }
	})
	r.Stop()
	f.Enqueue(req("http://example.com/a"))
	select {
	case err := <-fatal:
		if !strings.Contains(err.Error(), "unreachable") {
			t.Errorf("fatal error %q does not say unreachable", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no fatal error")
	}
	if f.Err() == nil {
		t.Error("Err is nil after the fatal error")
	}
	if f.Settled() {
		t.Error("settled with a request never sent")
	}
	_, err := redisfrontier.Open(context.Background(), redisfrontier.Options{URL: r.URL(0), CrawlID: "gone", Logger: quiet, RetryTimeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("open on a stopped server: %v, want unreachable", err)
	}
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "unreachable") {
		t.Error(err)
	}
}

// TestRequestAfterTheEnd: a request scheduled after the crawl was found over (by a
// spider_idle handler) makes it unfinished again, and is crawled.
func TestRequestAfterTheEnd(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	f := open(t, r, "again", nil)
	startNothing(t, f)
	waitFor(t, "the crawl to settle", func() bool { f.Next(); return f.Settled() })
	f.Enqueue(req("http://example.com/late"))
	if f.Settled() {
		t.Error("settled with a request not sent")
	}
	rq := next(f, 10*time.Second)
	if rq == nil || rq.URL != "http://example.com/late" {
		t.Fatalf("got %v, want the late request", rq)
	}
	if open(t, r, "again", nil).Finished() {
		t.Error("a worker joining sees the crawl finished while its late request is leased")
	}
	f.Done(rq)
	waitFor(t, "the crawl to settle again", func() bool { f.Next(); return f.Settled() })
}

// TestHeldAcks: with HoldAcks a Done request stays leased (and renewed) until
// ReleaseAcks; a worker killed before that leaves it to another worker.
func TestHeldAcks(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	c := client(t, r)
	ctx := context.Background()
	hold := func(o *redisfrontier.Options) { o.HoldAcks = true; o.LeaseTimeout = 600 * time.Millisecond }
	a := open(t, r, "acks", hold)
	a.Enqueue(req("http://example.com/kept"))
	a.Enqueue(req("http://example.com/released"))
	flushed(t, a)
	startNothing(t, a)
	first, second := next(a, 10*time.Second), next(a, 10*time.Second)
	if first == nil || second == nil {
		t.Fatal("no requests")
	}
	a.Done(first)
	a.Done(second)
	a.ReleaseAcks()
	waitFor(t, "the released acknowledgements", func() bool { return c.ZCard(ctx, "jscrawl:acks:leased").Val() == 0 })
	a.Enqueue(req("http://example.com/unreleased"))
	third := next(a, 10*time.Second)
	if third == nil {
		t.Fatal("no third request")
	}
	a.Done(third)
	// Held back, its lease is renewed past its first deadline.
	var s0 float64
	waitFor(t, "the held lease to be renewed", func() bool {
		ms, err := c.ZRangeWithScores(ctx, "jscrawl:acks:leased", 0, 0).Result()
		if err != nil || len(ms) != 1 {
			t.Fatalf("leased: %v %v", ms, err)
		}
		if s0 == 0 {
			s0 = ms[0].Score
		}
		return ms[0].Score > s0+600
	})
	a.Kill()
	b := open(t, r, "acks", nil)
	if got := order(t, b); !slices.Equal(got, []string{"unreleased"}) {
		t.Errorf("after the kill, b got %v, want [unreleased]", got)
	}
}

// TestStateLost: a worker whose crawl's keys vanish (Redis restarted without its data, or
// the crawl cleared under it) fails for good with ErrStateLost instead of waiting forever
// for a crawl that can no longer end, and calls OnFatal.
func TestStateLost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, r *enginetest.Redis)
	}{
		{"restarted empty", func(t *testing.T, r *enginetest.Redis) { r.Restart() }},
		{"cleared", func(t *testing.T, r *enginetest.Redis) {
			if _, err := redisfrontier.Clear(context.Background(), r.URL(0), "lost"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := enginetest.StartRedis(t, enginetest.RedisOptions{}) // no AOF: a restart loses everything
			fatal := make(chan error, 1)
			f := open(t, r, "lost", func(o *redisfrontier.Options) {
				o.LeaseTimeout = 300 * time.Millisecond
				o.OnFatal = func(err error) { fatal <- err }
			})
			f.Enqueue(req("http://example.com/1"))
			flushed(t, f)
			tc.lose(t, r)
			select {
			case err := <-fatal:
				if !errors.Is(err, redisfrontier.ErrStateLost) {
					t.Fatalf("OnFatal(%v), want ErrStateLost", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the worker did not notice that the crawl's state is gone")
			}
			if !errors.Is(f.Err(), redisfrontier.ErrStateLost) {
				t.Errorf("Err() = %v, want ErrStateLost", f.Err())
			}
		})
	}
}

// leaseAll enqueues n requests (http://example.com/0, /1, ...) on f, which has no start(),
// and takes the n leases on them.
func leaseAll(t *testing.T, f *redisfrontier.Frontier, n int) []*types.Request {
	t.Helper()
	for i := range n {
		f.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
	}
	flushed(t, f)
	startNothing(t, f)
	var held []*types.Request
	for range n {
		rq := next(f, 10*time.Second)
		if rq == nil {
			t.Fatal("the worker got no request")
		}
		held = append(held, rq)
	}
	return held
}
