package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
)

func TestLogHandler(t *testing.T) {
	t.Parallel()
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[(.+?)\] ([A-Z]+): (.*)$`)
	for _, tc := range []struct {
		name    string
		level   slog.Level
		log     func(l *slog.Logger)
		want    []string // "[logger] LEVEL: msg" per line that starts a record
		counts  map[string]int64
		rawHave string
	}{
		{"levels", slog.LevelDebug, func(l *slog.Logger) {
			l.Debug("d")
			l.Info("i")
			l.Warn("w")
			l.Error("e")
			l.Log(context.Background(), engine.LevelCritical, "c")
		}, []string{"[jscrawl] DEBUG: d", "[jscrawl] INFO: i", "[jscrawl] WARNING: w", "[jscrawl] ERROR: e", "[jscrawl] CRITICAL: c"},
			map[string]int64{"log_count/DEBUG": 1, "log_count/INFO": 1, "log_count/WARNING": 1, "log_count/ERROR": 1, "log_count/CRITICAL": 1}, ""},
		{"filtered below level", slog.LevelWarn, func(l *slog.Logger) {
			l.Debug("d")
			l.Info("i")
			l.Warn("w")
		}, []string{"[jscrawl] WARNING: w"}, map[string]int64{"log_count/INFO": 0, "log_count/WARNING": 1}, ""},
		{"logger attr", slog.LevelInfo, func(l *slog.Logger) {
			l.With("logger", "quotes").Info("hello", "n", 3, "s", "two words")
			l.Info("direct", "logger", "books")
		}, []string{`[quotes] INFO: hello n=3 s="two words"`, "[books] INFO: direct"}, nil, ""},
		{"groups", slog.LevelInfo, func(l *slog.Logger) {
			l.WithGroup("g").With("a", 1).Info("m", "b", 2)
		}, []string{"[jscrawl] INFO: m g.a=1 g.b=2"}, nil, ""},
		{"multi-line", slog.LevelInfo, func(l *slog.Logger) {
			l.Error("Spider error\nTypeError: x\n    at parse (a.js:1:2)")
		}, []string{"[jscrawl] ERROR: Spider error"}, nil, "Spider error\nTypeError: x\n    at parse (a.js:1:2)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			stats := engine.NewStats()
			tc.log(slog.New(engine.NewLogHandler(&b, tc.level, stats)))
			var got []string
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if m := line.FindStringSubmatch(l); m != nil {
					got = append(got, "["+m[1]+"] "+m[2]+": "+m[3])
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines = %q, want %q\n%s", got, tc.want, b.String())
			}
			for k, v := range tc.counts {
				if n, _ := stats.Get(k).(int64); n != v {
					t.Errorf("%s = %d, want %d", k, n, v)
				}
			}
			if !strings.Contains(b.String(), tc.rawHave) {
				t.Errorf("output lacks %q", tc.rawHave)
			}
		})
	}
	// nil stats are allowed
	slog.New(engine.NewLogHandler(&bytes.Buffer{}, slog.LevelInfo, nil)).Info("x")
}

func TestParseLogLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want slog.Level
		err  bool
	}{
		{"DEBUG", slog.LevelDebug, false},
		{"info", slog.LevelInfo, false},
		{"WARNING", slog.LevelWarn, false},
		{"WARN", slog.LevelWarn, false},
		{"ERROR", slog.LevelError, false},
		{"CRITICAL", engine.LevelCritical, false},
		{"LOUD", 0, true},
	} {
		got, err := engine.ParseLogLevel(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseLogLevel(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	s := engine.NewStats()
	s.Inc("a", 2)
	s.Inc("a", 3)
	s.Max("m", 5)
	s.Max("m", 3)
	s.Min("n", 5)
	s.Min("n", 3)
	s.Set("x", "y")
	snap := s.Snapshot()
	if snap["a"] != int64(5) || snap["m"] != int64(5) || snap["n"] != int64(3) || snap["x"] != "y" {
		t.Errorf("snapshot = %v", snap)
	}
	snap["a"] = int64(0)
	if s.Get("a") != int64(5) {
		t.Error("Snapshot is not a copy")
	}
}

// TestStatsKinds pins what a key holds when integer and other values replace each other
// (Stats keeps the two kinds apart) and that counting allocates nothing.
func TestStatsKinds(t *testing.T) {
	s := engine.NewStats()
	s.Set("k", "text")
	s.Inc("k", 300) // a counter over a non-integer value starts at 0
	if got := s.Get("k"); got != int64(300) {
		t.Errorf("Inc over a string: Get = %#v, want 300", got)
	}
	s.Set("k", 1.5)
	if got, n := s.Get("k"), s.Int("k"); got != 1.5 || n != 0 {
		t.Errorf("Set float over a counter: Get = %#v, Int = %d", got, n)
	}
	s.Max("k", 7)
	if got := s.Get("k"); got != int64(7) {
		t.Errorf("Max over a float: Get = %#v, want 7", got)
	}
	s.Set("k", int64(1000))
	s.Min("k", 999)
	s.Set("i", 5) // an int, not an int64: kept as it is, and Int does not read it
	snap := s.Snapshot()
	if len(snap) != 2 || snap["k"] != int64(999) || snap["i"] != 5 || s.Int("i") != 0 {
		t.Errorf("snapshot = %#v, Int(i) = %d", snap, s.Int("i"))
	}
	if s.Get("none") != nil || s.Int("none") != 0 {
		t.Error("an unset key is not nil/0")
	}
	if n := testing.AllocsPerRun(100, func() { s.Inc("dupefilter/filtered", 1000) }); n != 0 {
		t.Errorf("Inc allocates %v times", n)
	}
}
