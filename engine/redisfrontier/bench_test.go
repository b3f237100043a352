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
