package redisfrontier_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
)

// BenchmarkSlotGate measures a download's acquisition and release of a shared slot, from
// 16 goroutines over 4 slots of concurrency 8 with no delay, for a download that takes no
// time and one that takes a millisecond, and reports the script calls (round trips) per
// download: the acquisition's, and the releases that no acquisition carried.
func BenchmarkSlotGate(b *testing.B) {
	for _, d := range []time.Duration{0, time.Millisecond} {
		b.Run(d.String(), func(b *testing.B) { benchSlotGate(b, d) })
	}
}

func benchSlotGate(b *testing.B, download time.Duration) {
	r := enginetest.StartRedis(b, enginetest.RedisOptions{})
	ctx := context.Background()
	f, err := redisfrontier.Open(ctx, redisfrontier.Options{URL: r.URL(0), CrawlID: "bench", Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = f.Close(cctx)
	}()
	opts, _ := redis.ParseURL(r.URL(0))
	c := redis.NewClient(opts)
	defer c.Close()
	before := scriptCalls(b, c)
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			h, err := f.AcquireSlot(ctx, fmt.Sprintf("h%d", i%4), 8, 0)
			if err != nil {
				b.Error(err)
				return
			}
			if download > 0 {
				time.Sleep(download) // the download
			}
			h.Release(0)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(scriptCalls(b, c)-before)/float64(b.N), "trips/op")
}

// scriptCalls returns how many EVAL and EVALSHA calls the server has run.
func scriptCalls(b *testing.B, c *redis.Client) int64 {
	b.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_eval:") && !strings.HasPrefix(line, "cmdstat_evalsha:") {
			continue
		}
		_, rest, _ := strings.Cut(line, "calls=")
		calls, _, _ := strings.Cut(rest, ",")
		v, _ := strconv.ParseInt(calls, 10, 64)
		n += v
	}
	return n
}
