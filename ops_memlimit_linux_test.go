//go:build linux

package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEndlessBodiesMemory: eight endless bodies cut at DOWNLOAD_MAXSIZE 64 MiB with a
// 32 MiB DOWNLOAD_MEMORY_BUDGET keep the process's peak RSS well under what doubling
// buffers and piled-up garbage cost (870–950 MB before; about 350 MB now).
func TestEndlessBodiesMemory(t *testing.T) {
	t.Parallel()
	block := bytes.Repeat([]byte("x"), 32<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	spider := writeFile(t, dir, "endless.js", `import { Request } from "jscrawl";
export default class Endless {
  name = "endless";
  *start() { for (let i = 0; i < 8; i++) yield new Request("`+srv.URL+`/" + i); }
  parse() {}
}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", spider, "-s", "DOWNLOAD_MAXSIZE=67108864", "-s", "DOWNLOAD_MEMORY_BUDGET=33554432",
		"-s", "RETRY_ENABLED=false", "-s", "ROBOTSTXT_OBEY=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"download/maxsize": 8,`) {
		t.Fatalf("the bodies were not all cut at DOWNLOAD_MAXSIZE:\n%s", stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatalf("no rusage: %T", cmd.ProcessState.SysUsage())
	}
	rss := int64(ru.Maxrss) << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB", rss>>20)
	if rss > 640<<20 {
		t.Errorf("peak RSS %d MiB for 8 bodies cut at 64 MiB with a 32 MiB budget, want < 640 MiB", rss>>20)
	}
}
