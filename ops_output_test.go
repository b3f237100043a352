package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
)

// TestStatusLine: log lines go above the status line, which is redrawn after each and
// removed at the end.
func TestStatusLine(t *testing.T) {
	var b bytes.Buffer
	s := &statusLine{w: &b}
	s.Write([]byte("first\n"))
	s.set("3 pages")
	s.Write([]byte("second\n"))
	s.set("")
	want := "first\n" + clearLine + "3 pages" + clearLine + "second\n" + "3 pages" + clearLine
	if b.String() != want {
		t.Errorf("terminal got %q\nwant %q", b.String(), want)
	}
}

func TestProgressLine(t *testing.T) {
	stats := engine.NewStats()
	stats.Inc("response_received_count", 120)
	stats.Inc("item_scraped_count", 60)
	stats.Inc("log_count/ERROR", 2)
	stats.Inc("retry/count", 5)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := progress{stats: stats, inFlight: func() int { return 7 }, queued: func() int { return 300 }, start: start}
	got := p.line(start.Add(2 * time.Minute))
	want := "2m0s | 120 pages (60/min) | 60 items (30/min) | 7 in flight | 300 queued | 2 errors | 5 retries"
	if got != want {
		t.Errorf("line = %q\nwant %q", got, want)
	}
	// Queued at many hosts: how many have work, and how many wait on delays.
	stats.Set("scheduler/slots", int64(40))
	stats.Set("scheduler/waiting", int64(31))
	got = p.line(start.Add(2 * time.Minute))
	want = "2m0s | 120 pages (60/min) | 60 items (30/min) | 7 in flight | 300 queued (40 hosts, 31 waiting on delays) | 2 errors | 5 retries"
	if got != want {
		t.Errorf("line = %q\nwant %q", got, want)
	}
}

// TestLogSwitch: a logger derived before the switch (a spider's, with its name) writes to
// the new destination with its attributes.
func TestLogSwitch(t *testing.T) {
	var before, after bytes.Buffer
	sw := newLogSwitch(engine.NewLogHandler(&before, slog.LevelInfo, nil))
	spiderLog := slog.New(sw).With("logger", "books")
	spiderLog.Info("one")
	sw.set(engine.NewJSONLogHandler(&after, slog.LevelInfo, nil))
	spiderLog.Info("two", "n", 2)
	if !strings.Contains(before.String(), "[books] INFO: one") || strings.Contains(before.String(), "two") {
		t.Errorf("before the switch: %q", before.String())
	}
	if !strings.Contains(after.String(), `"logger":"books"`) || !strings.Contains(after.String(), `"msg":"two"`) ||
		!strings.Contains(after.String(), `"level":"INFO"`) || !strings.Contains(after.String(), `"n":2`) {
		t.Errorf("after the switch: %q", after.String())
	}
}
