package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// startHeapProfile checks the heap in use every interval and, each time it reaches a new
// peak, writes a heap profile (for go tool pprof) to path, replacing the previous one; the
// returned func stops it after a last check. A profile taken at the peak shows what a crawl
// holds when it needs the most memory, which one taken at the end (an empty frontier) does not.
func startHeapProfile(ctx context.Context, path string, interval time.Duration) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var peak uint64
		check := func() {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse <= peak {
				return
			}
			peak = ms.HeapInuse
			if err := writeHeapProfile(path); err != nil {
				slog.Error("memprofile", "err", err)
				return
			}
			slog.Info(fmt.Sprintf("memprofile: heap in use %d MiB (alloc %d MiB, sys %d MiB, %d GCs) written to %s; "+
				"outside the heap: stacks %d KiB, spans %d KiB, GC metadata %d KiB, other %d KiB; heap free not returned %d KiB",
				ms.HeapInuse>>20, ms.HeapAlloc>>20, ms.Sys>>20, ms.NumGC, path,
				ms.StackSys>>10, (ms.MSpanSys+ms.MCacheSys)>>10, ms.GCSys>>10, (ms.OtherSys+ms.BuckHashSys)>>10,
				(ms.HeapIdle-ms.HeapReleased)>>10))
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				check()
			case <-done:
				check()
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return fmt.Errorf("write heap profile: %w", err)
	}
	return f.Close()
}
