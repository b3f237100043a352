package proxypool_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jscrawl/jscrawl/engine/proxypool"
)

// clock is an injected clock for the bench arithmetic.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func urls(t *testing.T, ss ...string) []*url.URL {
	t.Helper()
	var out []*url.URL
	for _, s := range ss {
		u, err := proxypool.ParseURL(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

var three = []string{"http://a:1", "http://b:2", "socks5://u:pw@c:3"}

// picks returns the hosts of n picks for session.
func picks(p *proxypool.Pool, session string, n int) string {
	var hosts []string
	for range n {
		px, _ := p.Next(session)
		if px == nil {
			hosts = append(hosts, "-")
			continue
		}
		hosts = append(hosts, px.URL.Hostname())
	}
	return strings.Join(hosts, " ")
}

func TestRotation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		rotation proxypool.Rotation
		session  string
		rand     []int
		want     string
	}{
		{"round robin", proxypool.RoundRobin, "", nil, "a b c a b c a"},
		{"round robin ignores sessions", proxypool.RoundRobin, "s1", nil, "a b c a"},
		{"random", proxypool.Random, "", []int{2, 0, 0, 1}, "c a a b"},
		{"per_session is sticky", proxypool.PerSession, "s1", nil, "a a a a"},
		{"per_session without a session is round robin", proxypool.PerSession, "", nil, "a b c a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			i := 0
			p := proxypool.New(urls(t, three...), proxypool.Config{Rotation: tc.rotation, Rand: func(n int) int {
				r := tc.rand[i%len(tc.rand)] % n
				i++
				return r
			}})
			if got := picks(p, tc.session, len(strings.Fields(tc.want))); got != tc.want {
				t.Errorf("picks %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPerSession: sessions take the proxies in turn and keep theirs; a benched proxy's
// session moves to a healthy one and keeps that; Forget makes a name start anew.
func TestPerSession(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Unix(1e9, 0)}
	p := proxypool.New(urls(t, three...), proxypool.Config{Rotation: proxypool.PerSession, BenchDelay: time.Minute, MaxBenchDelay: time.Hour, Now: c.Now})
	for _, tc := range []struct{ session, want string }{{"s1", "a a"}, {"s2", "b b"}, {"s3", "c c"}, {"s4", "a"}, {"s2", "b"}} {
		if got := picks(p, tc.session, len(strings.Fields(tc.want))); got != tc.want {
			t.Errorf("%s: picks %q, want %q", tc.session, got, tc.want)
		}
	}
	b := p.Assigned("s2")
	p.Failed(b)
	if got := picks(p, "s2", 3); got != "c c c" {
		t.Errorf("s2 after its proxy was benched: %q, want c c c", got)
	}
	c.Add(time.Minute)
	if got := picks(p, "s2", 1); got != "c" {
		t.Errorf("s2 once b is back: %q, want c (it keeps its new proxy)", got)
	}
	p.Forget("s2")
	if p.Assigned("s2") != nil {
		t.Error("Forget kept the assignment")
	}
	if got := picks(p, "s2", 1); got == "c" || got == "-" {
		// round robin goes on after c: a
		t.Errorf("s2 after Forget: %q, want a new proxy in turn", got)
	}
}

// TestBench: a failure benches the proxy for BenchDelay, doubled for each failure in a row,
// at most MaxBenchDelay; it comes back when the time is up; a success resets the count and
// brings a benched proxy back at once; a failure of a proxy benched already changes nothing.
func TestBench(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Unix(1e9, 0)}
	p := proxypool.New(urls(t, "http://a:1", "http://b:2"), proxypool.Config{BenchDelay: 10 * time.Second, MaxBenchDelay: 35 * time.Second, Now: c.Now})
	a := p.Proxies()[0]
	for i, want := range []time.Duration{10 * time.Second, 20 * time.Second, 35 * time.Second, 35 * time.Second} {
		benched, until := p.Failed(a)
		if !benched || until.Sub(c.Now()) != want {
			t.Fatalf("failure %d: benched %v for %s, want %s", i+1, benched, until.Sub(c.Now()), want)
		}
		if again, _ := p.Failed(a); again {
			t.Fatalf("failure %d: a second failure while benched benched it again", i+1)
		}
		if got := picks(p, "", 2); got != "b b" {
			t.Fatalf("failure %d: picks %q while a is benched", i+1, got)
		}
		if p.Healthy() != 1 {
			t.Fatalf("Healthy = %d, want 1", p.Healthy())
		}
		c.Add(want - time.Nanosecond)
		if got := picks(p, "", 1); got != "b" {
			t.Fatalf("failure %d: a back before its time", i+1)
		}
		c.Add(time.Nanosecond)
		if got := picks(p, "", 2); !strings.Contains(got, "a") {
			t.Fatalf("failure %d: a not back after %s (picks %q)", i+1, want, got)
		}
	}
	p.Succeeded(a)
	if _, until := p.Failed(a); until.Sub(c.Now()) != 10*time.Second {
		t.Errorf("after a success the bench is %s, want 10s again", until.Sub(c.Now()))
	}
	changed := p.Changed()
	p.Succeeded(a) // a download through a, started before the bench, succeeded
	select {
	case <-changed:
	default:
		t.Error("a success of a benched proxy did not signal Changed")
	}
	if p.Healthy() != 2 {
		t.Errorf("Healthy = %d after the success, want 2", p.Healthy())
	}
}

// TestPause: with every proxy benched, Next returns none and when the first is back; the
// pause and the resume are logged once each; Pick waits for the proxy, and ends with ctx.
func TestPause(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &mu}, nil))
		p := proxypool.New(urls(t, "http://a:1", "http://b:2"), proxypool.Config{BenchDelay: 30 * time.Second, MaxBenchDelay: time.Hour, Logger: logger})
		a, b := p.Proxies()[0], p.Proxies()[1]
		start := time.Now()
		p.Failed(a)
		time.Sleep(5 * time.Second) // fake time: b is benched 5 s later
		p.Failed(b)
		for range 3 {
			px, until := p.Next("")
			if px != nil || !until.Equal(start.Add(30*time.Second)) {
				t.Fatalf("Next = %v, %v; want none until a is back", px, until)
			}
		}
		px, err := p.Pick(t.Context(), "")
		if err != nil || px != a {
			t.Fatalf("Pick = %v, %v; want a", px, err)
		}
		if waited := time.Since(start); waited != 30*time.Second {
			t.Errorf("Pick waited until %s, want 30s", waited)
		}
		p.Next("")
		mu.Lock()
		got := log.String()
		mu.Unlock()
		if n := strings.Count(got, "all 2 proxies benched; pausing until "); n != 1 {
			t.Errorf("pause logged %d times:\n%s", n, got)
		}
		if n := strings.Count(got, "proxies back; resuming"); n != 1 {
			t.Errorf("resume logged %d times:\n%s", n, got)
		}

		// A success of a download that chose b before the bench ends the wait early.
		p.Failed(a)
		done := make(chan *proxypool.Proxy)
		go func() {
			px, _ := p.Pick(context.Background(), "")
			done <- px
		}()
		synctest.Wait()
		p.Succeeded(b)
		if px := <-done; px != b {
			t.Errorf("Pick after b's success = %v", px)
		}

		// Cancelling ends the wait.
		p.Failed(b)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() {
			_, err := p.Pick(ctx, "")
			errc <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Pick after cancel: %v", err)
		}
	})
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestParse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "proxies.txt")
	if err := os.WriteFile(file, []byte("# office\nhttp://u:p@10.0.0.1:8080\n\n  socks5h://10.0.0.2:1080  \n10.0.0.3:3128\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("http://a:1\nftp://user:hunter22@x:21\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# none yet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		entries []string
		want    []string // URLs, masked
		err     string   // in the error
	}{
		{"urls", []string{"http://u:p@h:1", "https://h:2", "socks5://h:3", "SOCKS5H://h:4"}, []string{"http://u:****@h:1", "https://h:2", "socks5://h:3", "socks5h://h:4"}, ""},
		{"bare host:port is http", []string{"h:3128", "u:pw@h:8080"}, []string{"http://h:3128", "http://u:****@h:8080"}, ""},
		{"file", []string{file}, []string{"http://u:****@10.0.0.1:8080", "socks5h://10.0.0.2:1080", "http://10.0.0.3:3128"}, ""},
		{"bad scheme, masked", []string{"ftp://user:hunter22@x:21"}, nil, `PROXY_LIST: proxy "ftp://user:****@x:21": scheme "ftp" is not http, https, socks5 or socks5h`},
		{"no host", []string{"http://:8080"}, nil, "has no host"},
		{"unparsable, masked", []string{"http://user:hunter22@h:port"}, nil, "user:****@h:port"},
		{"bad line of a file", []string{bad}, nil, "bad.txt line 2: proxy \"ftp://user:****@x:21\""},
		{"empty file", []string{empty}, nil, "lists no proxy"},
		{"not a file, not host:port", []string{"nofile.txt"}, nil, `"nofile.txt" is neither a file nor a proxy`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := proxypool.Parse(tc.entries)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter22") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var masked []string
			for _, px := range proxypool.New(got, proxypool.Config{}).Proxies() {
				masked = append(masked, px.String())
			}
			if !slices.Equal(masked, tc.want) {
				t.Errorf("got %q, want %q", masked, tc.want)
			}
		})
	}
}

// TestHealthyCount: Healthy, kept without scanning the proxies on every call, agrees with
// a count of the proxies Next can return, through benches, returns and successes.
func TestHealthyCount(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Unix(1e9, 0)}
	p := proxypool.New(urls(t, "http://a:1", "http://b:2", "http://c:3", "http://d:4"), proxypool.Config{BenchDelay: 10 * time.Second, MaxBenchDelay: 40 * time.Second, Now: c.Now})
	px := p.Proxies()
	steps := []func(){
		func() { p.Failed(px[0]) }, func() { p.Failed(px[1]) }, func() { c.Add(5 * time.Second) },
		func() { p.Failed(px[2]) }, func() { c.Add(5 * time.Second) }, func() { p.Succeeded(px[2]) },
		func() { p.Failed(px[0]) }, func() { p.Failed(px[3]) }, func() { c.Add(7 * time.Second) },
		func() { p.Failed(px[1]) }, func() { c.Add(30 * time.Second) }, func() { p.Succeeded(px[0]) },
		func() { p.Failed(px[0]); p.Failed(px[1]); p.Failed(px[2]); p.Failed(px[3]) }, func() { c.Add(time.Minute) },
	}
	for i, step := range steps {
		step()
		seen := map[*proxypool.Proxy]bool{}
		for range 8 {
			if x, _ := p.Next(""); x != nil {
				seen[x] = true
			}
		}
		if h := p.Healthy(); h != len(seen) {
			t.Fatalf("step %d: Healthy = %d, but Next gives %d proxies", i, h, len(seen))
		}
	}
}
