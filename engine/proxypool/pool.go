// Package proxypool rotates downloads over a list of proxies and benches the ones that
// fail to connect (Crawlee: ProxyConfiguration with its proxyUrls; Scrapy: the
// scrapy-rotating-proxies package's ROTATING_PROXY_LIST and its backoff). The engine's
// HTTPProxyMiddleware asks a Pool for the proxy of each download and tells it how the
// proxy did; the pool knows nothing of HTTP.
package proxypool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// Rotation is how a Pool picks the proxy of a download (PROXY_ROTATION).
type Rotation string

// The rotations.
const (
	RoundRobin Rotation = "round_robin" // the next healthy proxy in list order
	Random     Rotation = "random"      // any healthy proxy, uniformly
	PerSession Rotation = "per_session" // a session keeps its proxy while it is healthy
)

// Proxy is one proxy of a Pool. Its URL keeps the credentials, for the Transport only;
// String is the URL with them masked, for logs, stats and errors.
type Proxy struct {
	URL    *url.URL
	masked string

	// Guarded by Pool.mu.
	fails int       // failures in a row
	until time.Time // benched until then (zero: healthy)
}

// String returns the proxy's URL with its password masked (types.MaskURL).
func (p *Proxy) String() string { return p.masked }

// Config configures a Pool.
type Config struct {
	Rotation Rotation
	// BenchDelay is how long a proxy stays benched after its first failure in a row, each
	// further one doubling it up to MaxBenchDelay (PROXY_BENCH_DELAY, PROXY_BENCH_MAX_DELAY).
	BenchDelay, MaxBenchDelay time.Duration
	// Logger gets the pause and resume warnings (nil: none).
	Logger *slog.Logger
	// Now is the clock (nil: time.Now), for tests.
	Now func() time.Time
	// Rand returns a number in [0, n) for the random rotation (nil: math/rand/v2).
	Rand func(n int) int
}

// Pool is a list of proxies with their health. Safe for concurrent use: every download
// goroutine calls Next (or Pick), then Failed or Succeeded; a session pool calls Forget.
type Pool struct {
	cfg     Config
	proxies []*Proxy

	mu       sync.Mutex
	benched  int               // proxies benched as of the last refresh
	nextBack time.Time         // when the first of them comes back
	next     int               // round robin: the index to try first
	sessions map[string]*Proxy // per_session: each session's proxy
	paused   bool              // every proxy is benched, and the pause was logged
	changed  chan struct{}     // closed when a benched proxy is back by a success
}

// New returns a Pool over proxies (at least one) configured by cfg.
func New(proxies []*url.URL, cfg Config) *Pool {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.IntN
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Rotation == "" {
		cfg.Rotation = RoundRobin
	}
	p := &Pool{cfg: cfg, sessions: map[string]*Proxy{}, changed: make(chan struct{})}
	for _, u := range proxies {
		p.proxies = append(p.proxies, &Proxy{URL: u, masked: types.MaskURL(u.String())})
	}
	return p
}

// FromSettings returns the Pool of PROXY_LIST with PROXY_ROTATION, PROXY_BENCH_DELAY and
// PROXY_BENCH_MAX_DELAY, or nil when the list is empty. A bad entry is an error that
// names it with its credentials masked.
func FromSettings(s *types.Settings, logger *slog.Logger) (*Pool, error) {
	urls, err := Parse(s.StringList(types.ProxyList))
	if err != nil || len(urls) == 0 {
		return nil, err
	}
	return New(urls, Config{
		Rotation:      Rotation(strings.ToLower(s.String(types.ProxyRotation))),
		BenchDelay:    s.Duration(types.ProxyBenchDelay),
		MaxBenchDelay: s.Duration(types.ProxyBenchMaxDelay),
		Logger:        logger,
	}), nil
}

// Parse reads the entries of PROXY_LIST: proxy URLs (http://, https://, socks5:// or
// socks5h://, with credentials if needed; a bare host:port is http://), or a single entry
// that is the path of an existing file of them, one a line, blank lines and lines
// starting with # ignored. An error names the bad entry (and its line) with its
// credentials masked.
func Parse(entries []string) ([]*url.URL, error) {
	if len(entries) == 1 && !strings.Contains(entries[0], "://") {
		path := strings.TrimSpace(entries[0])
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			return parseFile(path)
		}
	}
	var out []*url.URL
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if !strings.Contains(e, "://") {
			hostport := e[strings.LastIndexByte(e, '@')+1:]
			if _, port, err := net.SplitHostPort(hostport); err != nil || port == "" {
				return nil, fmt.Errorf("%s: %q is neither a file nor a proxy (a URL, or host:port)", types.ProxyList, types.MaskURL("http://" + e)[len("http://"):])
			}
		}
		u, err := ParseURL(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", types.ProxyList, err)
		}
		out = append(out, u)
	}
	return out, nil
}

func parseFile(path string) ([]*url.URL, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", types.ProxyList, err)
	}
	defer f.Close()
	var out []*url.URL
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, err := ParseURL(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %s line %d: %w", types.ProxyList, path, n, err)
		}
		out = append(out, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", types.ProxyList, path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %s lists no proxy", types.ProxyList, path)
	}
	return out, nil
}

// ParseURL parses one proxy URL: http, https, socks5 or socks5h with a host; a bare
// host:port is http. Errors quote it with its credentials masked.
func ParseURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		// url.Parse's error quotes the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = &url.Error{Op: ue.Op, URL: types.MaskURL(ue.URL), Err: ue.Err}
		}
		return nil, fmt.Errorf("proxy: %w", err)
	}
	masked := types.MaskURL(u.String())
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("proxy %q: scheme %q is not http, https, socks5 or socks5h", masked, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("proxy %q has no host", masked)
	}
	if port := u.Port(); port == "" && strings.HasSuffix(u.Host, ":") {
		return nil, fmt.Errorf("proxy %q has an empty port", masked)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	return u, nil
}

// Proxies returns the pool's proxies in list order.
func (p *Pool) Proxies() []*Proxy { return p.proxies }

// Rotation returns the pool's rotation.
func (p *Pool) Rotation() Rotation { return p.cfg.Rotation }

// Len returns the number of proxies.
func (p *Pool) Len() int { return len(p.proxies) }

// Healthy returns the number of proxies not benched. It is cheap: the proxies are
// counted again only when a bench is over.
func (p *Pool) Healthy() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refresh(p.cfg.Now())
	return len(p.proxies) - p.benched
}

// refresh counts the benched proxies again once the first of them is back, with mu held.
func (p *Pool) refresh(now time.Time) {
	if p.benched == 0 || now.Before(p.nextBack) {
		return
	}
	p.benched, p.nextBack = 0, time.Time{}
	for _, px := range p.proxies {
		if !px.healthy(now) {
			p.benched++
			if p.nextBack.IsZero() || px.until.Before(p.nextBack) {
				p.nextBack = px.until
			}
		}
	}
}

func (px *Proxy) healthy(now time.Time) bool { return !now.Before(px.until) }

// Next returns the proxy for a download of session ("" for none; it matters to
// per_session only, where a session without a name, or no session at all, rotates round
// robin). When every proxy is benched it returns nil and the time the first comes back;
// the first such call of a pause logs it (WARNING), and the next call that returns a
// proxy logs the resume.
func (p *Pool) Next(session string) (*Proxy, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Now()
	p.refresh(now)
	var px *Proxy
	if p.benched < len(p.proxies) {
		px = p.pick(session, now)
	}
	if px == nil {
		until := p.earliest()
		if !p.paused {
			p.paused = true
			p.cfg.Logger.Warn(fmt.Sprintf("all %d proxies benched; pausing until %s", len(p.proxies), until.Format("15:04:05")))
		}
		return nil, until
	}
	if p.paused {
		p.paused = false
		p.cfg.Logger.Warn("proxies back; resuming")
	}
	return px, time.Time{}
}

// pick chooses a healthy proxy, with mu held; nil when all are benched.
func (p *Pool) pick(session string, now time.Time) *Proxy {
	switch {
	case p.cfg.Rotation == PerSession && session != "":
		if px := p.sessions[session]; px != nil && px.healthy(now) {
			return px
		}
		px := p.roundRobin(now)
		if px != nil {
			p.sessions[session] = px
		}
		return px
	case p.cfg.Rotation == Random:
		var healthy []*Proxy
		for _, px := range p.proxies {
			if px.healthy(now) {
				healthy = append(healthy, px)
			}
		}
		if len(healthy) == 0 {
			return nil
		}
		return healthy[p.cfg.Rand(len(healthy))]
	}
	return p.roundRobin(now)
}

// roundRobin returns the first healthy proxy from next on, and moves next past it.
func (p *Pool) roundRobin(now time.Time) *Proxy {
	for i := range p.proxies {
		j := (p.next + i) % len(p.proxies)
		if px := p.proxies[j]; px.healthy(now) {
			p.next = (j + 1) % len(p.proxies)
			return px
		}
	}
	return nil
}

// earliest returns when the first benched proxy comes back, with mu held.
func (p *Pool) earliest() time.Time {
	var t time.Time
	for _, px := range p.proxies {
		if t.IsZero() || px.until.Before(t) {
			t = px.until
		}
	}
	return t
}

// Changed returns a channel closed when a benched proxy is back before its time (a
// download through it succeeded), for a download waiting on Next.
func (p *Pool) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// Pick is Next that waits, while every proxy is benched, until one is back; it returns
// ctx's error if ctx ends first.
func (p *Pool) Pick(ctx context.Context, session string) (*Proxy, error) {
	for {
		changed := p.Changed()
		px, until := p.Next(session)
		if px != nil {
			return px, nil
		}
		if err := Wait(ctx, nil, changed, until.Sub(p.cfg.Now())); err != nil {
			return nil, err
		}
	}
}

// Wait blocks for d, or until changed is closed, ctx ends (its error) or stop is closed
// (context.Canceled); stop may be nil.
func Wait(ctx context.Context, stop <-chan struct{}, changed <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-changed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-stop:
		return context.Canceled
	}
}

// Failed reports that px failed to connect or refused a download: px is benched for
// BenchDelay doubled for each failure in a row before it, at most MaxBenchDelay, unless it
// is benched already (a download that chose it before it was benched). It returns whether
// this benched px, and until when.
func (p *Pool) Failed(px *Proxy) (benched bool, until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Now()
	p.refresh(now)
	if !px.healthy(now) {
		return false, px.until
	}
	px.fails++
	d := p.cfg.BenchDelay
	for i := 1; i < px.fails && (d < p.cfg.MaxBenchDelay || p.cfg.MaxBenchDelay <= 0) && d < time.Duration(1)<<60; i++ {
		d *= 2
	}
	if p.cfg.MaxBenchDelay > 0 && d > p.cfg.MaxBenchDelay {
		d = p.cfg.MaxBenchDelay
	}
	px.until = now.Add(d)
	if d <= 0 {
		px.until = now.Add(time.Nanosecond) // benched for the download that failed, at least
	}
	p.benched++
	if p.benched == 1 || px.until.Before(p.nextBack) {
		p.nextBack = px.until
	}
	return true, px.until
}

// Succeeded reports that px served a download: its failures in a row are forgotten, and
// it is back at once if it was benched.
func (p *Pool) Succeeded(px *Proxy) {
	p.mu.Lock()
	defer p.mu.Unlock()
	px.fails = 0
	if !px.until.IsZero() {
		now := p.cfg.Now()
		p.refresh(now)
		wasBenched := !px.healthy(now)
		px.until = time.Time{}
		if wasBenched {
			p.benched--
			close(p.changed)
			p.changed = make(chan struct{})
		}
	}
}

// Forget drops the proxy assignment of session (per_session): a session pool calls it
// when it retires the session, so that the name, if used again, gets a proxy anew.
func (p *Pool) Forget(session string) {
	p.mu.Lock()
	delete(p.sessions, session)
	p.mu.Unlock()
}

// Assigned returns the proxy session keeps under per_session, or nil.
func (p *Pool) Assigned(session string) *Proxy {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[session]
}
