package redisfrontier_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/redisfrontier"
)

// commandStats returns how many commands Redis ran in all, and how many EVALSHA (round
// trips of the frontier), since the last CONFIG RESETSTAT.
func commandStats(b *testing.B, c *redis.Client) (all, evalsha float64) {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseFloat(strings.SplitN(rest, ",", 2)[0], 64)
		if name == "cmdstat_info" || name == "cmdstat_config" {
			continue
		}
		all += n
		if name == "cmdstat_evalsha" {
			evalsha += n
		}
	}
	return all, evalsha
}

// BenchmarkRoundTrips measures a request's way through the frontier (Enqueue, Next, Done)
// and reports Redis commands and round trips per request: "busy" is a worker that
// enqueues everything and then works with 64 slots, "lone" one that has a single request
// at a time (enqueue, lease, ack before the next).
func BenchmarkRoundTrips(b *testing.B) {
	r := enginetest.StartRedis(b, enginetest.RedisOptions{})
	opts, _ := redis.ParseURL(r.URL(0))
	c := redis.NewClient(opts)
	defer c.Close()
	for _, tc := range []struct {
		name     string
		capacity int
		serial   bool
	}{{"busy", 64, false}, {"lone", 1, true}} {
		b.Run(tc.name, func(b *testing.B) {
			crawl := fmt.Sprintf("bench-%s-%d", tc.name, b.N)
			f, err := redisfrontier.Open(context.Background(), redisfrontier.Options{URL: r.URL(0), CrawlID: crawl, Logger: quiet, Capacity: tc.capacity})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close(context.Background())
			if err := c.ConfigResetStat(context.Background()).Err(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			if tc.serial {
				for i := range b.N {
					f.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
					rq := next(f, 10*time.Second)
					if rq == nil {
						b.Fatal("no request")
					}
					f.Done(rq)
				}
			} else {
				for i := range b.N {
					f.Enqueue(req(fmt.Sprintf("http://example.com/%d", i)))
				}
				for range b.N {
					rq := next(f, 10*time.Second)
					if rq == nil {
						b.Fatal("no request")
					}
					f.Done(rq)
				}
			}
			for f.Len() > 0 { // the last acknowledgements
				time.Sleep(time.Millisecond)
			}
			b.StopTimer()
			all, trips := commandStats(b, c)
			b.ReportMetric(all/float64(b.N), "cmds/req")
			b.ReportMetric(trips/float64(b.N), "trips/req")
		})
	}
}

// BenchmarkCrawl crawls the test server's /links graph of 2000 pages with one engine,
// on the memory scheduler and on the Redis frontier, and reports pages/s and Redis round
// trips per page (the target: the frontier at 0.7× the memory scheduler or more
// on a CPU-bound site).
func BenchmarkCrawl(b *testing.B) {
	r := enginetest.StartRedis(b, enginetest.RedisOptions{})
	srv := enginetest.Start(b)
	opts, _ := redis.ParseURL(r.URL(0))
	c := redis.NewClient(opts)
	defer c.Close()
	const total = 2000
	for _, name := range []string{"memory", "redis"} {
		b.Run(name, func(b *testing.B) {
			var pages, trips float64
			start := time.Now()
			for i := range b.N {
				settings := crawlSettings()
				spider := &enginetest.Spider{StartURLs: []string{fmt.Sprintf("%s/links/0?total=%d", srv.URL, total)}, ParseFunc: enginetest.FollowAll}
				stats := engine.NewStats()
				eopts := []engine.Option{engine.WithStats(stats), engine.WithLogger(quiet)}
				var f *redisfrontier.Frontier
				if name == "redis" {
					o := redisfrontier.OptionsFromSettings(settings, fmt.Sprintf("crawl-%d-%d", b.N, i))
					o.URL, o.Stats, o.Logger = r.URL(0), stats, quiet
					var err error
					if f, err = redisfrontier.Open(context.Background(), o); err != nil {
						b.Fatal(err)
					}
					eopts = append(eopts, engine.WithScheduler(f, f.Parts()))
					_ = c.ConfigResetStat(context.Background()).Err()
				}
				if err := engine.New(spider, settings, eopts...).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				if f != nil {
					_ = f.Close(context.Background())
					_, n := commandStats(b, c)
					trips += n
				}
				pages += float64(stats.Int("response_received_count"))
			}
			b.ReportMetric(pages/time.Since(start).Seconds(), "pages/s")
			if trips > 0 {
				b.ReportMetric(trips/pages, "trips/page")
			}
		})
	}
}
