package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHeapProfileWritten checks that --memprofile's writer leaves a heap profile
// (gzipped protobuf, as go tool pprof reads it) once stopped, even when stopped before its
// first tick.
func TestHeapProfileWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	stop := startHeapProfile(context.Background(), path, time.Hour)
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 64<<10))
	}
	stop()
	_ = keep
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no heap profile: %v", err)
	}
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("heap profile is not gzipped protobuf: % x", data[:min(len(data), 8)])
	}
}
