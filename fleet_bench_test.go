package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkFleet crawls a tree site of JSCRAWL_FLEET_PAGES pages (default 4,000), each
// answered after JSCRAWL_FLEET_DELAY (default 50ms: the bench kit's IO-bound w2 shape),
// with CONCURRENT_REQUESTS=16 per process (and CONCURRENT_REQUESTS_PER_DOMAIN 16 times the
// processes, as the workers share the per-domain limit): "memory" is one process without --frontier,
// "workers=N" N worker processes sharing the crawl through a redis-server. It reports
// pages/s (wall clock, start-up included), the workers' CPU per page, the Redis round
// trips (EVALSHA calls) per page, the commands Redis ran per page (the scripts' included)
// and redis-server's CPU per page. JSCRAWL_FLEET_CPUPROFILE=PREFIX writes each worker's CPU
// profile to PREFIX-<name>-<worker>.pprof, JSCRAWL_FLEET_COMMANDSTATS=1 logs Redis's
// commandstats after each crawl. Run it alone on a quiet machine:
//
//	go test -run '^$' -bench Fleet -benchtime 1x .
//	JSCRAWL_FLEET_PAGES=2000 JSCRAWL_FLEET_DELAY=0 go test -run '^$' -bench Fleet -benchtime 3x .   # CPU-bound
func BenchmarkFleet(b *testing.B) {
	pages, delay := 4000, 50*time.Millisecond
	if v, err := strconv.Atoi(os.Getenv("JSCRAWL_FLEET_PAGES")); err == nil && v > 0 {
		pages = v
	}
	if v, err := time.ParseDuration(os.Getenv("JSCRAWL_FLEET_DELAY")); err == nil {
		delay = v
	}
	r := enginetest.StartRedis(b, enginetest.RedisOptions{})
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer rdb.Close()
	dir := b.TempDir()
	writeFile(b, dir, "tree.js", treeSpider)
	for _, workers := range []int{0, 1, 2, 4} {
		name := fmt.Sprintf("workers=%d", workers)
		if workers == 0 {
			name = "memory"
		}
		b.Run(name, func(b *testing.B) {
			var wall, cpu time.Duration
			var trips, cmds int64
			var redisCPU float64
			for range b.N {
				site := newTreeSite(b, pages)
				site.delay = delay
				if err := rdb.ConfigResetStat(context.Background()).Err(); err != nil {
					b.Fatal(err)
				}
				cpu0 := redisCPUSeconds(b, rdb)
				// 16 requests in flight per process; per domain, room for all of them (the
				// site is one domain, and politeness is shared by the workers).
				args := []string{"run", "tree.js", "-a", "baseUrl=" + site.URL, "-s", "CONCURRENT_REQUESTS=16",
					"-s", fmt.Sprintf("CONCURRENT_REQUESTS_PER_DOMAIN=%d", 16*max(workers, 1)), "-L", "WARNING"}
				if workers > 0 {
					args = append(args, "--frontier", r.URL(0), "--crawl-id", fmt.Sprintf("bench-%d-%d", workers, fleetRuns.Add(1)))
				}
				start := time.Now()
				var procs []*exec.Cmd
				for w := range max(workers, 1) {
					wargs := args
					if prof := os.Getenv("JSCRAWL_FLEET_CPUPROFILE"); prof != "" {
						wargs = append(wargs[:len(wargs):len(wargs)], "--cpuprofile", fmt.Sprintf("%s-%s-%d.pprof", prof, name, w))
					}
					cmd := exec.Command(bin, wargs...)
					cmd.Dir = dir
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					procs = append(procs, cmd)
				}
				for _, cmd := range procs {
					if err := cmd.Wait(); err != nil {
						b.Fatalf("worker: %v", err)
					}
					cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
				wall += time.Since(start)
				info, err := rdb.Info(context.Background(), "commandstats").Result()
				if err != nil {
					b.Fatal(err)
				}
				if m := evalshaCalls.FindStringSubmatch(info); m != nil {
					n, _ := strconv.ParseInt(m[1], 10, 64)
					trips += n
				}
				if os.Getenv("JSCRAWL_FLEET_COMMANDSTATS") != "" {
					b.Log(info)
				}
				for _, m := range cmdCalls.FindAllStringSubmatch(info, -1) {
					n, _ := strconv.ParseInt(m[1], 10, 64)
					cmds += n
				}
				redisCPU += redisCPUSeconds(b, rdb) - cpu0
				site.mu.Lock()
				if site.n != pages {
					b.Errorf("%d pages downloaded, want %d", site.n, pages)
				}
				site.mu.Unlock()
			}
			total := float64(pages * b.N)
			b.ReportMetric(total/wall.Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/total, "cpu-µs/page")
			b.ReportMetric(float64(trips)/total, "trips/page")
			b.ReportMetric(float64(cmds)/total, "redis-cmds/page")
			b.ReportMetric(redisCPU*1e6/total, "redis-cpu-µs/page")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// fleetRuns numbers the benchmark's crawls: the testing package runs a benchmark again with
// a larger b.N, and a crawl id that finished already would crawl nothing.
var fleetRuns atomic.Int64

var (
	evalshaCalls = regexp.MustCompile(`cmdstat_evalsha:calls=(\d+)`)
	cmdCalls     = regexp.MustCompile(`cmdstat_[a-z|]+:calls=(\d+)`) // the scripts' commands included
	usedCPU      = regexp.MustCompile(`used_cpu_(?:sys|user):([0-9.]+)`)
)

// redisCPUSeconds returns the CPU time the redis-server has used (INFO cpu: user + sys).
func redisCPUSeconds(b *testing.B, rdb *redis.Client) float64 {
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, m := range usedCPU.FindAllStringSubmatch(info, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		sum += v
	}
	return sum
}
