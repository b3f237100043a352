package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LevelCritical is Scrapy's CRITICAL level, above slog.LevelError.
const LevelCritical = slog.LevelError + 4

// ParseLogLevel converts a Scrapy LOG_LEVEL name (DEBUG, INFO, WARNING or WARN, ERROR,
// CRITICAL; any case) to a slog.Level.
func ParseLogLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "DEBUG":
		return slog.LevelDebug, nil
	case "INFO":
		return slog.LevelInfo, nil
	case "WARNING", "WARN":
		return slog.LevelWarn, nil
	case "ERROR":
		return slog.LevelError, nil
	case "CRITICAL":
		return LevelCritical, nil
	}
	return 0, fmt.Errorf("parse log level %q: want DEBUG, INFO, WARNING, ERROR or CRITICAL", s)
}

// levelName returns Scrapy's name for l.
func levelName(l slog.Level) string {
	switch {
	case l >= LevelCritical:
		return "CRITICAL"
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARNING"
	case l >= slog.LevelInfo:
		return "INFO"
	}
	return "DEBUG"
}

// logHandler writes Scrapy-style lines; see NewLogHandler.
type logHandler struct {
	out    *logOutput
	level  slog.Leveler
	stats  *Stats
	logger string // from a "logger" attr given to WithAttrs
	attrs  []byte // preformatted " key=value" pairs from WithAttrs
	group  string // prefix for keys, "g." per WithGroup
}

type logOutput struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLogHandler returns a slog.Handler that writes Scrapy-style lines to w:
//
//	2026-11-30 01:02:03 [logger] INFO: msg key=value ...
//
// where logger is the "logger" attribute if present (a spider's name, say) and "jscrawl"
// otherwise. Level names are Scrapy's (WARNING, not WARN). Records below level are dropped.
// Each written record counts log_count/<LEVEL> in stats, which may be nil. Multi-line
// messages are written as they are. Safe for concurrent use; handlers derived with
// WithAttrs and WithGroup share w.
func NewLogHandler(w io.Writer, level slog.Leveler, stats *Stats) slog.Handler {
	return &logHandler{out: &logOutput{w: w}, level: level, stats: stats}
}

// Enabled implements slog.Handler.
func (h *logHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// Handle implements slog.Handler.
func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	name := levelName(r.Level)
	if h.stats != nil {
		h.stats.Inc("log_count/"+name, 1)
	}
	logger := h.logger
	var attrs bytes.Buffer
	attrs.Write(h.attrs)
	var dump []byte
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "logger" && h.group == "" {
			logger = a.Value.String()
			return true
		}
		if m, ok := a.Value.Any().(map[string]any); ok && a.Key == "stats" && h.group == "" {
			// Scrapy's "Dumping stats:" block, indented JSON on the following lines.
			if b, err := json.MarshalIndent(m, "", "  "); err == nil {
				dump = b
				return true
			}
		}
		appendAttr(&attrs, h.group, a)
		return true
	})
	if logger == "" {
		logger = "jscrawl"
	}
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	var b bytes.Buffer
	b.Grow(64 + len(r.Message) + attrs.Len())
	b.WriteString(t.Format(time.DateTime))
	b.WriteString(" [")
	b.WriteString(logger)
	b.WriteString("] ")
	b.WriteString(name)
	b.WriteString(": ")
	b.WriteString(r.Message)
	b.Write(attrs.Bytes())
	if dump != nil {
		b.WriteString(":\n")
		b.Write(dump)
	}
	b.WriteByte('\n')
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := h.out.w.Write(b.Bytes())
	return err
}

func appendAttr(b *bytes.Buffer, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, ga := range a.Value.Group() {
			appendAttr(b, p, ga)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(prefix)
	b.WriteString(a.Key)
	b.WriteByte('=')
	s := a.Value.String()
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		s = strconv.Quote(s)
	}
	b.WriteString(s)
}

// WithAttrs implements slog.Handler.
func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	var b bytes.Buffer
	b.Write(h.attrs)
	for _, a := range as {
		if a.Key == "logger" && h.group == "" {
			c.logger = a.Value.String()
			continue
		}
		appendAttr(&b, h.group, a)
	}
	c.attrs = b.Bytes()
	return &c
}

// WithGroup implements slog.Handler.
func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group += name + "."
	return &c
}

// NewJSONLogHandler returns a slog.Handler that writes one JSON object per record to w
// (LOG_FORMAT=json): time, level (Scrapy's names), logger, msg and the attributes; the
// stats dump is one record with a "stats" object. Like NewLogHandler it counts
// log_count/<LEVEL> in stats, which may be nil.
func NewJSONLogHandler(w io.Writer, level slog.Leveler, stats *Stats) slog.Handler {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.LevelKey {
				if l, ok := a.Value.Any().(slog.Level); ok {
					a.Value = slog.StringValue(levelName(l))
				}
			}
			return a
		},
	})
	return countingHandler{h, stats}
}

// countingHandler counts log_count/<LEVEL> for each record its Handler writes.
type countingHandler struct {
	slog.Handler
	stats *Stats
}

// Handle implements slog.Handler.
func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.stats != nil {
		h.stats.Inc("log_count/"+levelName(r.Level), 1)
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return countingHandler{h.Handler.WithAttrs(as), h.stats}
}

// WithGroup implements slog.Handler.
func (h countingHandler) WithGroup(name string) slog.Handler {
	return countingHandler{h.Handler.WithGroup(name), h.stats}
}

// Interface guards
var (
	_ slog.Handler = (*logHandler)(nil)
	_ slog.Handler = countingHandler{}
)
