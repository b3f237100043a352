package engine

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/jscrawl/jscrawl/types"
)

// dnsResponder is a DNS server on 127.0.0.1 for the tests: it answers the A questions of
// its hosts, says NXDOMAIN to other names, never answers silent, holds its answers to
// gated until gate is closed, and counts the A questions per name.
type dnsResponder struct {
	conn   net.PacketConn
	hosts  map[string][]netip.Addr // FQDN ("a.test.") → its IPv4 addresses
	silent string                  // FQDN never answered
	gated  string                  // FQDN answered once gate is closed
	gate   chan struct{}

	mu      sync.Mutex
	queries map[string]int // A questions per FQDN
	wg      sync.WaitGroup
}

// newDNSResponder starts a responder answering a.test, b.test, c.test and gated.test
// (127.0.1.7, .8, .9, .10), alias.test (127.0.1.7, as a.test) and two.test (127.0.1.250,
// where nothing listens, then 127.0.1.7), silent for silent.test.
func newDNSResponder(t *testing.T) *dnsResponder {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dnsResponder{
		conn: conn,
		hosts: map[string][]netip.Addr{
			"a.test.":     {netip.MustParseAddr("127.0.1.7")},
			"b.test.":     {netip.MustParseAddr("127.0.1.8")},
			"c.test.":     {netip.MustParseAddr("127.0.1.9")},
			"gated.test.": {netip.MustParseAddr("127.0.1.10")},
			"two.test.":   {netip.MustParseAddr("127.0.1.250"), netip.MustParseAddr("127.0.1.7")},
			"alias.test.": {netip.MustParseAddr("127.0.1.7")},
		},
		silent:  "silent.test.",
		gated:   "gated.test.",
		gate:    make(chan struct{}),
		queries: map[string]int{},
	}
	d.wg.Go(d.serve)
	t.Cleanup(func() {
		conn.Close()
		d.release()
		d.wg.Wait()
	})
	return d
}

// release lets the answers to gated go.
func (d *dnsResponder) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case <-d.gate:
	default:
		close(d.gate)
	}
}

func (d *dnsResponder) serve() {
	buf := make([]byte, 65535)
	for {
		n, addr, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		name := strings.ToLower(q.Name.String())
		if q.Type == dnsmessage.TypeA {
			d.mu.Lock()
			d.queries[name]++
			d.mu.Unlock()
		}
		if name == d.silent {
			continue
		}
		msg := d.answer(h, q, name)
		if name == d.gated {
			d.wg.Go(func() {
				<-d.gate
				d.conn.WriteTo(msg, addr)
			})
			continue
		}
		d.conn.WriteTo(msg, addr)
	}
}

// answer is the response to question q of header h: its A records, no AAAA record, or
// NXDOMAIN for a name it does not know.
func (d *dnsResponder) answer(h dnsmessage.Header, q dnsmessage.Question, name string) []byte {
	ips, known := d.hosts[name]
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	for _, ip := range ips {
		if q.Type == dnsmessage.TypeA {
			b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60},
				dnsmessage.AResource{A: ip.As4()})
		}
	}
	msg, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return msg
}

// count returns the A questions asked about host so far.
func (d *dnsResponder) count(host string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.queries[strings.ToLower(host)+"."]
}

// resolver returns a pure-Go resolver that asks d.
func (d *dnsResponder) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", d.conn.LocalAddr().String())
	}}
}

// newTestDNSCache returns a DNSCache with settings kv, asking d, closed at the end of t.
func newTestDNSCache(t *testing.T, d *dnsResponder, kv map[string]any) (*DNSCache, *Stats) {
	t.Helper()
	s := types.NewSettings()
	for k, v := range kv {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	stats := NewStats()
	c := NewDNSCache(s, d.resolver(), stats)
	t.Cleanup(c.Close)
	return c, stats
}

// lookup looks host up in c and fails t unless it resolves to want.
func lookup(t *testing.T, c *DNSCache, host, want string) {
	t.Helper()
	addrs, err := c.Lookup(t.Context(), host)
	if err != nil {
		t.Fatalf("Lookup(%s): %v", host, err)
	}
	if len(addrs) != 1 || addrs[0].String() != want {
		t.Fatalf("Lookup(%s) = %v, want [%s]", host, addrs, want)
	}
}

func wantStats(t *testing.T, stats *Stats, hit, miss, errs int64) {
	t.Helper()
	for k, want := range map[string]int64{"dnscache/hit": hit, "dnscache/miss": miss, "dnscache/error": errs} {
		if got := stats.Int(k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
}

// TestDNSCacheHit: a second lookup of a name is answered from the cache, without a query,
// and Cached knows the address once the first lookup is done.
func TestDNSCacheHit(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	c, stats := newTestDNSCache(t, d, nil)
	if ip, ok := c.Cached("a.test"); ok {
		t.Errorf("Cached(a.test) before a lookup = %q, true", ip)
	}
	lookup(t, c, "a.test", "127.0.1.7")
	lookup(t, c, "A.TEST", "127.0.1.7")
	if n := d.count("a.test"); n != 1 {
		t.Errorf("%d queries for a.test, want 1", n)
	}
	wantStats(t, stats, 1, 1, 0)
	if ip, ok := c.Cached("a.test"); !ok || ip != "127.0.1.7" {
		t.Errorf("Cached(a.test) = %q, %v, want 127.0.1.7, true", ip, ok)
	}
}

// TestDNSCacheIPLiteral: an IP literal is its own answer: no query, no stats, and Cached
// returns it.
func TestDNSCacheIPLiteral(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	c, stats := newTestDNSCache(t, d, nil)
	lookup(t, c, "127.0.1.7", "127.0.1.7")
	lookup(t, c, "::1", "::1")
	if ip, ok := c.Cached("127.0.1.7"); !ok || ip != "127.0.1.7" {
		t.Errorf("Cached(127.0.1.7) = %q, %v", ip, ok)
	}
	d.mu.Lock()
	n := len(d.queries)
	d.mu.Unlock()
	if n != 0 {
		t.Errorf("queries for IP literals: %v", d.queries)
	}
	wantStats(t, stats, 0, 0, 0)
}

// TestDNSCacheConcurrentLookupsShareOneQuery: lookups of one name while its query is in
// flight wait for that query instead of asking again. The name is spelt in several cases:
// net.Resolver shares the concurrent lookups of one spelling by itself, not of a name.
func TestDNSCacheConcurrentLookupsShareOneQuery(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	c, stats := newTestDNSCache(t, d, nil)
	const n = 20
	spellings := []string{"gated.test", "GATED.TEST", "Gated.Test", "gated.TEST"}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			addrs, err := c.Lookup(t.Context(), spellings[i%len(spellings)])
			if err == nil && (len(addrs) != 1 || addrs[0].String() != "127.0.1.10") {
				err = errors.New("wrong answer " + addrs[0].String())
			}
			errs <- err
		})
	}
	// Every lookup counts its miss, under the lock that joins it to the query in flight,
	// before it waits: once all n have, the answer may go.
	for stats.Int("dnscache/miss") < n {
		if t.Context().Err() != nil {
			t.Fatal("lookups did not start")
		}
		goruntime.Gosched()
	}
	d.release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if q := d.count("gated.test"); q != 1 {
		t.Errorf("%d queries for %d concurrent lookups, want 1", q, n)
	}
	wantStats(t, stats, 0, n, 0)
}

// TestDNSCacheSizeEvicts: past DNSCACHE_SIZE names, the least recently used is dropped and
// looked up again when asked for.
func TestDNSCacheSizeEvicts(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	c, stats := newTestDNSCache(t, d, map[string]any{types.DNSCacheSize: 2})
	lookup(t, c, "a.test", "127.0.1.7")
	lookup(t, c, "b.test", "127.0.1.8")
	lookup(t, c, "a.test", "127.0.1.7") // a is now the most recently used
	lookup(t, c, "c.test", "127.0.1.9") // drops b
	if _, ok := c.Cached("b.test"); ok {
		t.Error("b.test still cached past DNSCACHE_SIZE")
	}
	lookup(t, c, "a.test", "127.0.1.7")
	lookup(t, c, "b.test", "127.0.1.8") // drops c
	for host, want := range map[string]int{"a.test": 1, "b.test": 2, "c.test": 1} {
		if n := d.count(host); n != want {
			t.Errorf("%d queries for %s, want %d", n, host, want)
		}
	}
	wantStats(t, stats, 2, 4, 0)
}

// TestDNSCacheDisabled: with DNSCACHE_ENABLED false every lookup is a query, and Cached
// knows nothing.
func TestDNSCacheDisabled(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	c, stats := newTestDNSCache(t, d, map[string]any{types.DNSCacheEnabled: false})
	for range 3 {
		lookup(t, c, "a.test", "127.0.1.7")
	}
	if n := d.count("a.test"); n != 3 {
		t.Errorf("%d queries for 3 lookups, want 3", n)
	}
	if ip, ok := c.Cached("a.test"); ok {
		t.Errorf("Cached(a.test) = %q, true with the cache disabled", ip)
	}
	wantStats(t, stats, 0, 0, 0)
}

// TestDNSCacheExpires: an answer is used for DNSCacheTTL and a failure for DNSNegativeTTL;
// then the name is looked up again. An expired answer still serves Cached.
func TestDNSCacheExpires(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	c, stats := newTestDNSCache(t, d, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	c.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	lookup(t, c, "a.test", "127.0.1.7")
	_, err1 := c.Lookup(t.Context(), "nx.test")
	_, err2 := c.Lookup(t.Context(), "nx.test")
	var de *net.DNSError
	if !errors.As(err1, &de) || !de.IsNotFound || !errors.As(err2, &de) {
		t.Fatalf("nx.test: %v, %v; want no such host twice", err1, err2)
	}
	if _, ok := c.Cached("nx.test"); ok {
		t.Error("Cached(nx.test) ok for a failed lookup")
	}
	advance(DNSNegativeTTL)
	c.Lookup(t.Context(), "nx.test")
	lookup(t, c, "a.test", "127.0.1.7")
	if n, m := d.count("nx.test"), d.count("a.test"); n != 2 || m != 1 {
		t.Errorf("queries after %s: nx.test %d (want 2), a.test %d (want 1)", DNSNegativeTTL, n, m)
	}
	advance(DNSCacheTTL)
	if ip, ok := c.Cached("a.test"); !ok || ip != "127.0.1.7" {
		t.Errorf("Cached(a.test) past its TTL = %q, %v, want the old answer", ip, ok)
	}
	lookup(t, c, "a.test", "127.0.1.7")
	if n := d.count("a.test"); n != 2 {
		t.Errorf("%d queries for a.test after %s, want 2", n, DNSCacheTTL)
	}
	wantStats(t, stats, 2, 4, 2)
}

// TestDNSTimeout: a query not answered within DNS_TIMEOUT fails the download with a
// DNSLookupError (as Scrapy's resolver), counted in dnscache/error and the downloader's
// exception stats.
func TestDNSTimeout(t *testing.T) {
	t.Parallel()
	d := newDNSResponder(t)
	stats := NewStats()
	dl := newTestDNSDownloader(t, d, stats, map[string]any{types.DNSTimeout: 0.1, types.DownloadTimeout: 30})
	start := time.Now()
	_, err := dl.Fetch(t.Context(), &types.Request{URL: "http://silent.test/"})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s for a DNS_TIMEOUT of 0.1 s", took)
	}
	if name := ErrorName(err); name != NameDNSLookup {
		t.Fatalf("error %v named %q, want %s", err, name, NameDNSLookup)
	}
	if !strings.Contains(err.Error(), "silent.test") || !strings.Contains(err.Error(), types.DNSTimeout) {
		t.Errorf("error %q does not name the host and %s", err, types.DNSTimeout)
	}
	if d.count("silent.test") == 0 {
		t.Error("no query reached the responder")
	}
	for k, want := range map[string]int64{
		"dnscache/error": 1,
		"downloader/exception_type_count/" + NameDNSLookup: 1,
	} {
		if got := stats.Int(k); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
}

// newTestDNSDownloader returns an HTTPDownloader whose http(s) handler resolves through d.
func newTestDNSDownloader(t *testing.T, d *dnsResponder, stats *Stats, kv map[string]any) *HTTPDownloader {
	t.Helper()
	s := types.NewSettings()
	for k, v := range kv {
		if err := s.Set(k, v, types.PriorityCmdline); err != nil {
			t.Fatal(err)
		}
	}
	dl := NewHTTPDownloader(s, nil, stats)
	h, ok := dl.handlers["http"].(*httpHandler)
	if !ok {
		t.Fatalf("http handler is %T", dl.handlers["http"])
	}
	h.dns.resolver = d.resolver()
	t.Cleanup(h.dns.Close)
	return dl
}

// serveOn starts an HTTP server on ip that answers "served by HOST for REQUEST-URI", closing
// each connection (so that every download dials), and returns its port.
func serveOn(t *testing.T, ip string) string {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Write([]byte("served by " + r.Host + " for " + r.RequestURI))
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestDNSCacheDownload: a download of http://a.test:PORT/ reaches the server listening on
// a.test's address through the cache, and a second connection needs no query.
func TestDNSCacheDownload(t *testing.T) {
	t.Parallel()
	port := serveOn(t, "127.0.1.7")
	d := newDNSResponder(t)
	stats := NewStats()
	dl := newTestDNSDownloader(t, d, stats, nil)
	for range 2 {
		resp, err := dl.Fetch(t.Context(), &types.Request{URL: "http://a.test:" + port + "/"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "served by a.test:" + port + " for /"; resp.Status != 200 || string(resp.Body) != want {
			t.Fatalf("got %d %q, want 200 %q", resp.Status, resp.Body, want)
		}
	}
	if n := d.count("a.test"); n != 1 {
		t.Errorf("%d queries for a.test, want 1", n)
	}
	wantStats(t, stats, 1, 1, 0)
	if ip, ok := dl.DNSCache().Cached("a.test"); !ok || ip != "127.0.1.7" {
		t.Errorf("the downloader's DNSCache().Cached(a.test) = %q, %v, want 127.0.1.7, true", ip, ok)
	}
	_, err := dl.Fetch(t.Context(), &types.Request{URL: "http://nx.test:" + port + "/"})
	if name := ErrorName(err); name != NameDNSLookup {
		t.Errorf("nx.test: error %v named %q, want %s", err, name, NameDNSLookup)
	}
}

// TestDNSCacheProxyDial: through a proxy (meta.proxy), the cache resolves the proxy's host
// name; the target's is the proxy's to resolve.
func TestDNSCacheProxyDial(t *testing.T) {
	t.Parallel()
	port := serveOn(t, "127.0.1.7")
	d := newDNSResponder(t)
	stats := NewStats()
	dl := newTestDNSDownloader(t, d, stats, nil)
	u, err := parseProxy("http://a.test:" + port)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(t.Context(), proxyKey{}, proxyChoice{u: u})
	resp, err := dl.Fetch(ctx, &types.Request{URL: "http://target.test/page"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "served by target.test for http://target.test/page"; string(resp.Body) != want {
		t.Errorf("proxy got %q, want %q", resp.Body, want)
	}
	if a, tg := d.count("a.test"), d.count("target.test"); a != 1 || tg != 0 {
		t.Errorf("queries: a.test %d (want 1), target.test %d (want 0)", a, tg)
	}
	wantStats(t, stats, 0, 1, 0)
}

// TestDNSCacheOfDownloader: HTTPDownloader.DNSCache finds the http(s) handler's cache, and
// is nil (knowing nothing) when no handler serves http and https.
func TestDNSCacheOfDownloader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		handlers map[string]any
		wrapped  bool // under the --replay and --warc wrappers
		want     bool
	}{
		{"default", nil, false, true},
		{"https only", map[string]any{"http": nil}, false, true},
		{"wrapped", nil, true, true},
		{"none", map[string]any{"http": nil, "https": nil}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := types.NewSettings()
			if tc.handlers != nil {
				if err := s.Set(types.DownloadHandlers, tc.handlers, types.PriorityCmdline); err != nil {
					t.Fatal(err)
				}
			}
			d := NewHTTPDownloader(s, nil, nil)
			if tc.wrapped {
				d.wrapHandlers(func(h DownloadHandler) DownloadHandler { return &replayHandler{wrapped: wrapped{h}} })
				d.wrapHandlers(func(h DownloadHandler) DownloadHandler { return &recordHandler{wrapped: wrapped{h}} })
			}
			c := d.DNSCache()
			if (c != nil) != tc.want {
				t.Fatalf("DNSCache() = %v, want a cache: %v", c, tc.want)
			}
			if ip, ok := c.Cached("127.0.0.1"); ok != tc.want || (ok && ip != "127.0.0.1") {
				t.Errorf("Cached(127.0.0.1) = %q, %v", ip, ok)
			}
		})
	}
}

// TestDNSCacheDialInOrder: a download dials the host's addresses in order, going on to the
// next when one refuses.
func TestDNSCacheDialInOrder(t *testing.T) {
	t.Parallel()
	port := serveOn(t, "127.0.1.7")
	d := newDNSResponder(t)
	dl := newTestDNSDownloader(t, d, NewStats(), nil)
	addrs, err := dl.DNSCache().Lookup(t.Context(), "two.test")
	if err != nil || len(addrs) != 2 || addrs[0].String() != "127.0.1.250" {
		t.Fatalf("two.test resolves to %v, %v; want 127.0.1.250 first", addrs, err)
	}
	resp, err := dl.Fetch(t.Context(), &types.Request{URL: "http://two.test:" + port + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "served by two.test:" + port + " for /"; string(resp.Body) != want {
		t.Errorf("got %q, want %q", resp.Body, want)
	}
}

// TestDNSCacheHappyEyeballs: when the first address family does not connect within
// DNSFallbackDelay, the other one is tried alongside; the first connection wins and the
// other dial is ended before DialContext returns.
func TestDNSCacheHappyEyeballs(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.1.7:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.1.7: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	c, _ := newTestDNSCache(t, newDNSResponder(t), nil)
	c.mu.Lock()
	c.store(&dnsEntry{host: "dual.test", expires: time.Now().Add(time.Hour),
		addrs: []netip.Addr{netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("127.0.1.7")}})
	c.mu.Unlock()
	var mu sync.Mutex
	var v6Ended bool
	var dl net.Dialer
	c.dialAddr = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if strings.HasPrefix(addr, "[2001:db8::1]") { // a black hole
			<-ctx.Done()
			mu.Lock()
			v6Ended = true
			mu.Unlock()
			return nil, ctx.Err()
		}
		return dl.DialContext(ctx, network, addr)
	}
	start := time.Now()
	conn, err := c.DialContext(t.Context(), "tcp", "dual.test:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Tried one after another, the black hole would have had half of the 30 s timeout.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("connected after %s", took)
	}
	if got := conn.RemoteAddr().String(); got != "127.0.1.7:"+port {
		t.Errorf("connected to %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !v6Ended {
		t.Error("the IPv6 dial was still running when DialContext returned")
	}
}
