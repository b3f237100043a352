package engine

import (
	"context"
	"math/rand/v2"
	goruntime "runtime"
	"sync"
	"testing"
	"time"
)

// TestMemBudgetNoDeadlock drives a small budget with many concurrent bodies of known and
// unknown length, some larger than the budget, growing a chunk at a time: every body
// finishes, and the room held exceeds the budget only when an overdraft was counted.
func TestMemBudgetNoDeadlock(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		stats := NewStats()
		const size = 1 << 20
		b := newMemBudget(size, 4, stats)
		rng := rand.New(rand.NewPCG(seed, 1))
		var wg sync.WaitGroup
		for range 12 {
			body := rng.Int64N(3 * size / 2)
			exact := rng.IntN(2) == 0
			wg.Go(func() {
				r := b.reserve()
				defer r.release()
				if exact {
					r.exact = true
					if err := r.cover(context.Background(), body); err != nil {
						t.Error(err)
					}
					return
				}
				for got := int64(0); got < body; got += chunkSize {
					if err := r.cover(context.Background(), got+chunkSize); err != nil {
						t.Error(err)
						return
					}
					goruntime.Gosched()
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("seed %d: bodies still waiting for room after a minute (deadlock)", seed)
		}
		over, _ := stats.Get("downloader/memory_budget_overdraft_count").(int64)
		if peak := b.peakUsed(); peak > size && over == 0 {
			t.Errorf("seed %d: peak %d over the budget %d without an overdraft", seed, peak, size)
		}
		if b.used != 0 || b.holders != 0 || b.blocked != 0 || b.token != nil || len(b.starts)+len(b.tokenQ) != 0 || b.grow != nil {
			t.Errorf("seed %d: budget not back to empty: used %d holders %d blocked %d", seed, b.used, b.holders, b.blocked)
		}
	}
}

// TestMemBudgetBodiesUnderHalf: bodies of unknown length up to half the budget never
// overdraw it, even with twice CONCURRENT_REQUESTS of them at once.
func TestMemBudgetBodiesUnderHalf(t *testing.T) {
	t.Parallel()
	stats := NewStats()
	const size = 1 << 20
	b := newMemBudget(size, 8, stats)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			r := b.reserve()
			defer r.release()
			body := int64(size/2) - int64(i)*1000
			for got := int64(0); got < body; got += chunkSize {
				if err := r.cover(context.Background(), got+chunkSize); err != nil {
					t.Error(err)
					return
				}
				goruntime.Gosched() // let the others take room meanwhile
			}
		})
	}
	wg.Wait()
	if over, _ := stats.Get("downloader/memory_budget_overdraft_count").(int64); over != 0 {
		t.Errorf("downloader/memory_budget_overdraft_count = %d, want 0", over)
	}
	if peak := b.peakUsed(); peak > size {
		t.Errorf("peak %d over the budget %d", peak, size)
	}
}
