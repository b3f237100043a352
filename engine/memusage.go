package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/metrics"
	"strconv"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// ReasonMemUsageExceeded is the finish_reason of a crawl closed because the process used
// more than MEMUSAGE_LIMIT_MB.
const ReasonMemUsageExceeded = "memusage_exceeded"

// Interrupter is implemented by spiders whose running code can be stopped from outside
// (jsapi.Spider interrupts the JS of every VM). The engine's memory watcher calls it, from
// its own goroutine and at most once, when MEMUSAGE_LIMIT_MB is exceeded: the callbacks
// running then fail, and the spider may refuse to run more.
type Interrupter interface {
	Interrupt(reason string)
}

// memUsage watches the process's memory while the crawl runs (Scrapy: the MemoryUsage
// extension, with its settings and stats: memusage/startup, memusage/max,
// memusage/warning_reached, memusage/limit_reached). It reads the resident set size every
// MEMUSAGE_CHECK_INTERVAL_SECONDS (1 s by default rather than Scrapy's 60 s: the check is
// a small file read, and a runaway allocation reaches gigabytes in a minute).
type memUsage struct {
	e              *Engine
	limit, warning int64 // bytes, 0: off
	interval       time.Duration
	warned         bool
}

// watchMemory starts the memory watcher unless MEMUSAGE_ENABLED is false; the returned stop
// ends it and waits for it.
func (e *Engine) watchMemory() (stop func()) {
	s := e.settings
	if !s.Bool(types.MemUsageEnabled) {
		return func() {}
	}
	m := &memUsage{
		e:        e,
		limit:    int64(s.Int(types.MemUsageLimitMB)) << 20,
		warning:  int64(s.Int(types.MemUsageWarningMB)) << 20,
		interval: s.Duration(types.MemUsageCheckInterval),
	}
	if m.interval <= 0 {
		m.interval = time.Second
	}
	rss := processMemory()
	e.stats.Set("memusage/startup", rss)
	e.stats.Max("memusage/max", rss)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.run(ctx)
	}()
	return func() { cancel(); <-done }
}

func (m *memUsage) run(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !m.check(processMemory()) {
				return
			}
		}
	}
}

// check records rss and acts on the thresholds; it returns false once the limit was
// reached (nothing more to watch).
func (m *memUsage) check(rss int64) bool {
	e := m.e
	e.stats.Max("memusage/max", rss)
	if m.limit > 0 && rss > m.limit {
		e.stats.Set("memusage/limit_reached", int64(1))
		reason := fmt.Sprintf("memory usage %d MiB exceeded MEMUSAGE_LIMIT_MB (%d MiB)", rss>>20, m.limit>>20)
		e.logger.Error(fmt.Sprintf("Memory usage exceeded %d MiB (%d MiB now). Interrupting the running callbacks and closing the spider", m.limit>>20, rss>>20))
		e.stop.memExceeded.Store(true)
		if i, ok := e.spider.(Interrupter); ok {
			i.Interrupt(reason)
		}
		e.in.post(event{kind: evClose, reason: ReasonMemUsageExceeded})
		return false
	}
	if m.warning > 0 && rss > m.warning && !m.warned {
		m.warned = true
		e.stats.Set("memusage/warning_reached", int64(1))
		e.logger.Warn(fmt.Sprintf("Memory usage reached %d MiB (MEMUSAGE_WARNING_MB); %d MiB now", m.warning>>20, rss>>20))
	}
	return true
}

// processMemory returns the process's resident set size in bytes: from /proc/self/statm
// where it exists (Linux), else the memory the Go runtime holds from the OS (which leaves
// out memory the Go runtime does not manage).
func processMemory() int64 {
	if goruntime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/self/statm"); err == nil {
			if f := bytes.Fields(b); len(f) >= 2 {
				if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
					return pages * int64(os.Getpagesize())
				}
			}
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
