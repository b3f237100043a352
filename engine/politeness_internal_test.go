package engine

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

func TestJitterBounds(t *testing.T) {
	t.Parallel()
	const d = 100 * time.Millisecond
	lo, hi := d*2, time.Duration(0)
	for range 2000 {
		j := jitter(d)
		if j < d/2 || j >= d*3/2 {
			t.Fatalf("jitter(%v) = %v, want in [50ms, 150ms)", d, j)
		}
		lo, hi = min(lo, j), max(hi, j)
	}
	if lo > 60*time.Millisecond || hi < 140*time.Millisecond {
		t.Errorf("jitter spans only %v–%v", lo, hi)
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	m := NewRetryMiddleware(settingsWith(t, map[string]any{types.RetryBackoffBase: 1.0, types.RetryBackoffMax: 5.0}), NewStats(), nil, nil)
	for _, tc := range []struct {
		n      int
		lo, hi time.Duration
	}{
		{1, 500 * time.Millisecond, 1500 * time.Millisecond},
		{2, 1 * time.Second, 3 * time.Second},
		{3, 2 * time.Second, 5 * time.Second}, // 4 s ±50%, capped at 5
		{10, 5 * time.Second, 5 * time.Second},
		{100, 5 * time.Second, 5 * time.Second},
	} {
		for range 200 {
			if b := m.backoff(tc.n); b < tc.lo || b > tc.hi {
				t.Fatalf("backoff(%d) = %v, want %v–%v", tc.n, b, tc.lo, tc.hi)
			}
		}
	}
}

func TestRetryAfterParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{" 0 ", 0, true},
		{"Fri, 02 Jan 2026 03:04:15 GMT", 10 * time.Second, true},
		{"Fri, 02 Jan 2026 03:00:00 GMT", 0, true}, // in the past
		{"-5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	} {
		if got, ok := retryAfter(tc.v, now); got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSlotOverrideMatching(t *testing.T) {
	t.Parallel()
	d := NewSlotDownloader(settingsWith(t, map[string]any{
		types.ConcurrentRequestsPerDomain: 8, types.DownloadDelay: 0.5,
		types.DownloadSlots: map[string]any{
			"*.example.com":      map[string]any{"concurrency": 2.0, "delay": 1.5},
			"api.example.com":    map[string]any{"concurrency": 1.0},
			"*":                  map[string]any{"delay": 0.0, "randomize_delay": false},
			"static.example.o?g": map[string]any{"concurrency": 5.0},
			"[bad":               map[string]any{"concurrency": 9.0},
		},
	}), nil)
	for _, tc := range []struct {
		key       string
		conc      int
		delay     time.Duration
		randomize bool
	}{
		{"api.example.com", 1, 500 * time.Millisecond, true}, // exact beats the glob; unset fields keep the defaults
		{"www.example.com", 2, 1500 * time.Millisecond, true},
		{"a.b.example.com", 2, 1500 * time.Millisecond, true},
		{"static.example.org", 5, 500 * time.Millisecond, true},
		{"example.com", 8, 0, false}, // "*.example.com" needs a subdomain; "*" matches
		{"other.net", 8, 0, false},
	} {
		s := d.newSlot(tc.key)
		if cap(s.sem) != tc.conc || s.delay != tc.delay || s.randomize != tc.randomize {
			t.Errorf("%s: conc %d delay %v randomize %v; want %d %v %v", tc.key, cap(s.sem), s.delay, s.randomize, tc.conc, tc.delay, tc.randomize)
		}
	}
}

// TestSlotKeepsMinDelayAndPause: a slot with a minimum delay or a pending pause survives
// garbage collection; an idle plain one does not.
func TestSlotKeepsMinDelayAndPause(t *testing.T) {
	t.Parallel()
	d := NewSlotDownloader(settingsWith(t, nil), nil)
	d.SetMinDelay("a", time.Second)
	d.PauseUntil("b", time.Now().Add(time.Hour))
	d.PauseUntil("c", time.Now().Add(-time.Hour))
	d.mu.Lock()
	for _, k := range []string{"a", "b", "c"} {
		d.slots[k].lastSeen = time.Now().Add(-time.Hour)
	}
	d.lastGC = time.Now().Add(-time.Hour)
	d.mu.Unlock()
	s, _ := d.acquireSlot("z", nil) // runs the GC
	d.releaseSlot("z", s, false)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.slots["a"] == nil || d.slots["b"] == nil || d.slots["c"] != nil || d.slots["z"] != nil {
		t.Errorf("slots after GC: %v", d.slots)
	}
}

// TestRobotsTxtRefetchAfterServerError: a 5xx robots.txt disallows all until its verdict
// expires (a minute, on synctest's fake clock); then robots.txt is fetched again.
func TestRobotsTxtRefetchAfterServerError(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var robots atomic.Int32
		next := DownloaderFunc(func(_ context.Context, req *types.Request) (*types.Response, error) {
			status := 200
			if req.URL == "http://h.test/robots.txt" && robots.Add(1) == 1 {
				status = 503
			}
			return &types.Response{URL: req.URL, Status: status, Request: req, Headers: http.Header{}}, nil
		})
		m := NewRobotsTxtMiddleware(settingsWith(t, nil), NewStats(), nil, nil)
		req := &types.Request{URL: "http://h.test/page"}
		if _, err := m.Fetch(context.Background(), req, next); !errors.Is(err, ErrIgnoreRequest) {
			t.Fatalf("after a 503: err = %v, want ErrIgnoreRequest", err)
		}
		time.Sleep(robotsErrorTTL - time.Second)
		if _, err := m.Fetch(context.Background(), req, next); !errors.Is(err, ErrIgnoreRequest) || robots.Load() != 1 {
			t.Fatalf("within the TTL: err = %v, robots fetched %d times", err, robots.Load())
		}
		time.Sleep(2 * time.Second)
		if _, err := m.Fetch(context.Background(), req, next); err != nil || robots.Load() != 2 {
			t.Fatalf("after the TTL: err = %v, robots fetched %d times", err, robots.Load())
		}
	})
}

// TestRobotsTxtNetworkError: an unreachable robots.txt lets requests through, so they fail
// with their own errors.
func TestRobotsTxtNetworkError(t *testing.T) {
	t.Parallel()
	refused := &DownloadError{Name: NameConnectionRefused, URL: "x", Err: errors.New("refused")}
	var pages atomic.Int32
	next := DownloaderFunc(func(_ context.Context, req *types.Request) (*types.Response, error) {
		if req.URL != "http://h.test/robots.txt" {
			pages.Add(1)
		}
		return nil, refused
	})
	stats := NewStats()
	m := NewRobotsTxtMiddleware(settingsWith(t, nil), stats, nil, nil)
	_, err := m.Fetch(context.Background(), &types.Request{URL: "http://h.test/page"}, next)
	if ErrorName(err) != NameConnectionRefused || pages.Load() != 1 {
		t.Errorf("err = %v, pages %d", err, pages.Load())
	}
	if n := stats.Int("robotstxt/exception_count/ConnectionRefusedError"); n != 1 {
		t.Errorf("robotstxt/exception_count = %d", n)
	}
}

// TestRobotName: the names of a User-Agent's product tokens, those in comments included,
// are what robots.txt groups are matched against.
func TestRobotName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"jscrawl/0.1.0 (+https://github.com/jscrawl/jscrawl)":                      "jscrawl",
		"Mozilla/5.0 (X11; Linux x86_64)":                                          "Mozilla",
		"Mozilla/5.0 (compatible; MyBot/1.0)":                                      "Mozilla MyBot",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": "Mozilla Googlebot",
		"mybot":              "mybot",
		"  Bot(compatible)":  "Bot",
		"a/1 b/2 (c; (d/3))": "a b d",
		"":                   "",
	} {
		if got := robotName(in); got != want {
			t.Errorf("robotName(%q) = %q, want %q", in, got, want)
		}
	}
}

func settingsWith(t *testing.T, kv map[string]any) *types.Settings {
	t.Helper()
	s := types.NewSettings()
	for k, v := range kv {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestRobotsTxtIgnoredBelow: a robots.txt request dropped by a middleware below (an offline
// HTTP cache) allows the site.
func TestRobotsTxtIgnoredBelow(t *testing.T) {
	t.Parallel()
	next := DownloaderFunc(func(_ context.Context, req *types.Request) (*types.Response, error) {
		if req.URL == "http://h.test/robots.txt" {
			return nil, ErrIgnoreRequest
		}
		return &types.Response{URL: req.URL, Status: 200, Request: req}, nil
	})
	m := NewRobotsTxtMiddleware(settingsWith(t, nil), NewStats(), nil, nil)
	if _, err := m.Fetch(context.Background(), &types.Request{URL: "http://h.test/page"}, next); err != nil {
		t.Errorf("err = %v", err)
	}
}
