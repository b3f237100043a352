package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/engine"
)

// logSwitch is a slog.Handler whose destination is set once the spider's customSettings
// are known (LOG_FILE, LOG_FORMAT), while loggers derived before that keep working: a
// derived handler replays its WithAttrs/WithGroup on the current destination, once per
// destination.
type logSwitch struct {
	dest    *atomic.Pointer[slog.Handler]
	ops     []func(slog.Handler) slog.Handler
	derived *atomic.Pointer[derivedHandler] // ops applied to a destination
}

type derivedHandler struct {
	dest *slog.Handler
	h    slog.Handler
}

func newLogSwitch(h slog.Handler) *logSwitch {
	s := &logSwitch{dest: new(atomic.Pointer[slog.Handler]), derived: new(atomic.Pointer[derivedHandler])}
	s.set(h)
	return s
}

// set sends every record from now on to h.
func (s *logSwitch) set(h slog.Handler) { s.dest.Store(&h) }

func (s *logSwitch) handler() slog.Handler {
	dest := s.dest.Load()
	if len(s.ops) == 0 {
		return *dest
	}
	if d := s.derived.Load(); d != nil && d.dest == dest {
		return d.h
	}
	h := *dest
	for _, op := range s.ops {
		h = op(h)
	}
	s.derived.Store(&derivedHandler{dest: dest, h: h})
	return h
}

func (s *logSwitch) Enabled(ctx context.Context, l slog.Level) bool {
	return (*s.dest.Load()).Enabled(ctx, l)
}

func (s *logSwitch) Handle(ctx context.Context, r slog.Record) error {
	return s.handler().Handle(ctx, r)
}

func (s *logSwitch) with(op func(slog.Handler) slog.Handler) *logSwitch {
	return &logSwitch{dest: s.dest, ops: append(s.ops[:len(s.ops):len(s.ops)], op), derived: new(atomic.Pointer[derivedHandler])}
}

func (s *logSwitch) WithAttrs(as []slog.Attr) slog.Handler {
	return s.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(as) })
}

func (s *logSwitch) WithGroup(name string) slog.Handler {
	return s.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

// logHandler returns the handler for LOG_FORMAT ("text" or "json") writing to w.
func logHandler(format string, w io.Writer, level slog.Leveler, stats *engine.Stats) (slog.Handler, error) {
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "text":
		return engine.NewLogHandler(w, level, stats), nil
	case "json":
		return engine.NewJSONLogHandler(w, level, stats), nil
	}
	return nil, fmt.Errorf("LOG_FORMAT %q: want text or json", format)
}

// isTerminal reports whether v (a writer or reader) is a terminal (a character device).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// statusLine keeps one live status line at the bottom of a terminal: log lines written
// through it go above the line, which is redrawn after each. Safe for concurrent use.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	line  string
	shown bool
}

const clearLine = "\r\x1b[K"

// Write writes p (whole log lines) above the status line.
func (s *statusLine) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		io.WriteString(s.w, clearLine)
	}
	n, err := s.w.Write(p)
	if s.line != "" {
		io.WriteString(s.w, s.line)
		s.shown = true
	}
	return n, err
}

// set redraws the status line as line ("" removes it).
func (s *statusLine) set(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.line = line
	if s.shown || line != "" {
		io.WriteString(s.w, clearLine+line)
	}
	s.shown = line != ""
}

// progress is what the status line shows, read from the running crawl.
type progress struct {
	stats    *engine.Stats
	inFlight func() int
	queued   func() int
	start    time.Time
}

// line formats the status: elapsed time, pages and items with their rates, downloads in
// flight, queued requests (and, queued at more than one host, how many hosts have work and
// how many of them wait on delays), errors and retries.
func (p progress) line(now time.Time) string {
	el := now.Sub(p.start)
	mins := max(el.Minutes(), 1.0/60)
	pages := p.stats.Int("response_received_count")
	items := p.stats.Int("item_scraped_count")
	hosts := ""
	if n := p.stats.Int("scheduler/slots"); n > 1 {
		hosts = fmt.Sprintf(" (%d hosts, %d waiting on delays)", n, p.stats.Int("scheduler/waiting"))
	}
	return fmt.Sprintf("%s | %d pages (%.0f/min) | %d items (%.0f/min) | %d in flight | %d queued%s | %d errors | %d retries",
		el.Truncate(time.Second), pages, float64(pages)/mins, items, float64(items)/mins,
		p.inFlight(), p.queued(), hosts, p.stats.Int("log_count/ERROR"), p.stats.Int("retry/count"))
}

// run redraws the status line every interval until ctx ends, then removes it.
func (p progress) run(ctx context.Context, s *statusLine, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.set("")
			return
		case now := <-t.C:
			s.set(p.line(now))
		}
	}
}

// writeStatsJSON writes the stats snapshot to path as one JSON object: numbers as JSON
// numbers, times as RFC 3339 strings.
func writeStatsJSON(path string, stats map[string]any) error {
	b, err := json.MarshalIndent(stats, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// checkThresholds writes a line per threshold to w and reports whether all passed.
func checkThresholds(w io.Writer, ths []engine.Threshold, stats map[string]any) bool {
	if len(ths) == 0 {
		return true
	}
	ok := true
	fmt.Fprintln(w, "Thresholds:")
	for _, th := range ths {
		pass, v := th.Check(stats)
		mark := "✓"
		if !pass {
			mark, ok = "✗", false
		}
		fmt.Fprintf(w, "  %s %s (value %s)\n", mark, th, formatNumber(v))
	}
	if !ok {
		fmt.Fprintln(w, "Some thresholds failed: exit code 99")
	}
	return ok
}

func formatNumber(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%g", v)
}
