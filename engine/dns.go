package engine

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// DNSCacheTTL is how long a resolved host name's addresses are used before the next
// connection looks it up again. net.Resolver does not report the answer's TTL, so the time
// is fixed (Scrapy's cache keeps an entry until it is evicted).
const DNSCacheTTL = 5 * time.Minute

// DNSNegativeTTL is how long a failed lookup (no such host, a server failure, DNS_TIMEOUT)
// is remembered: long enough that the requests queued for a dead domain fail at once
// instead of each waiting out its own lookup, short enough that a passing failure does
// not outlive a retry's backoff.
const DNSNegativeTTL = 5 * time.Second

// DNSCache resolves the host names of the HTTP downloads' connections and keeps the answers
// (Scrapy: the caching resolver, with DNSCACHE_ENABLED, DNSCACHE_SIZE and DNS_TIMEOUT).
// Its DialContext is the dial of the http(s) download handler's Transport, so every new
// connection goes through it, a proxy's included (the target behind a proxy is the proxy's
// to resolve).
//
//   - It holds the answers of up to DNSCACHE_SIZE host names; the least recently used is
//     dropped first. An answer is used for DNSCacheTTL, a failure for DNSNegativeTTL.
//   - Concurrent lookups of a name that is not cached share one query.
//   - A query taking longer than DNS_TIMEOUT fails with a *net.DNSError, which downloads
//     report as DNSLookupError.
//   - IP literals are not looked up.
//   - With DNSCACHE_ENABLED false nothing is kept or shared: every lookup is a query.
//   - Close ends the queries in flight; its owner calls it once downloads are over.
//
// It counts dnscache/hit (a lookup answered from the cache, a remembered failure
// included), dnscache/miss (a lookup that needed a query, its own or a shared one) and
// dnscache/error (a query that failed). Safe for concurrent use: the download goroutines
// dial through it, and the download slots call Cached.
type DNSCache struct {
	resolver *net.Resolver
	dialer   net.Dialer
	dialAddr func(ctx context.Context, network, addr string) (net.Conn, error) // tests: replaces dialer
	enabled  bool
	size     int
	timeout  time.Duration
	now      func() time.Time
	stats    *Stats

	// base is cancelled by Close, which waits for the queries in lookups.
	base    context.Context
	cancel  context.CancelFunc
	lookups sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	entries map[string]*list.Element // host → element of lru holding a *dnsEntry
	lru     list.List                // most recently used first
	flights map[string]*dnsFlight    // queries in flight, by host
}

// dnsEntry is one cached answer: the addresses of host (lower-cased), or the error its
// lookup failed with.
type dnsEntry struct {
	host    string
	addrs   []netip.Addr
	err     error
	expires time.Time
}

// dnsFlight is a query that the lookups of one host wait for; addrs and err are set
// before done is closed.
type dnsFlight struct {
	done  chan struct{}
	addrs []netip.Addr
	err   error
}

// NewDNSCache returns a DNSCache configured by DNSCACHE_ENABLED, DNSCACHE_SIZE and
// DNS_TIMEOUT, querying resolver (nil: net.DefaultResolver) and counting in stats (nil: a
// Stats of its own).
func NewDNSCache(settings *types.Settings, resolver *net.Resolver, stats *Stats) *DNSCache {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	if stats == nil {
		stats = NewStats()
	}
	timeout := settings.Duration(types.DNSTimeout)
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	base, cancel := context.WithCancel(context.Background())
	return &DNSCache{
		resolver: resolver,
		dialer:   net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		enabled:  settings.Bool(types.DNSCacheEnabled),
		size:     max(settings.Int(types.DNSCacheSize), 1),
		timeout:  timeout,
		now:      time.Now,
		stats:    stats,
		base:     base,
		cancel:   cancel,
		entries:  map[string]*list.Element{},
		flights:  map[string]*dnsFlight{},
	}
}

// Lookup returns the addresses of host, in the resolver's order (RFC 6724), from the cache
// or from a query. The slice is shared: callers must not modify it. An IP literal is its
// own answer. A failed query is a *net.DNSError; when ctx ends first, Lookup returns at
// once with its error while the query goes on for the other lookups waiting for it.
func (c *DNSCache) Lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	key := strings.ToLower(host)
	c.mu.Lock()
	if !c.enabled || c.closed {
		c.mu.Unlock()
		addrs, err := c.query(ctx, host)
		if err != nil {
			c.stats.Inc("dnscache/error", 1)
		}
		return addrs, err
	}
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*dnsEntry)
		if c.now().Before(e.expires) {
			c.lru.MoveToFront(el)
			c.mu.Unlock()
			c.stats.Inc("dnscache/hit", 1)
			return e.addrs, e.err
		}
	}
	c.stats.Inc("dnscache/miss", 1)
	f, ok := c.flights[key]
	if !ok {
		f = &dnsFlight{done: make(chan struct{})}
		c.flights[key] = f
		c.lookups.Go(func() { c.fly(key, host, f) })
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.addrs, f.err
	case <-ctx.Done():
		return nil, &net.DNSError{Err: ctx.Err().Error(), Name: host,
			IsTimeout: errors.Is(ctx.Err(), context.DeadlineExceeded), UnwrapErr: ctx.Err()}
	}
}

// fly runs the query of f for host, spelt as its first lookup spelt it, and stores the
// answer under key, unless Close cut the query short.
func (c *DNSCache) fly(key, host string, f *dnsFlight) {
	f.addrs, f.err = c.query(c.base, host)
	if f.err != nil {
		c.stats.Inc("dnscache/error", 1)
	}
	c.mu.Lock()
	delete(c.flights, key)
	if c.base.Err() == nil {
		ttl := DNSCacheTTL
		if f.err != nil {
			ttl = DNSNegativeTTL
		}
		c.store(&dnsEntry{host: key, addrs: f.addrs, err: f.err, expires: c.now().Add(ttl)})
	}
	c.mu.Unlock()
	close(f.done)
}

// store puts e in the cache as the most recently used entry and drops the least recently
// used ones past DNSCACHE_SIZE. c.mu must be held.
func (c *DNSCache) store(e *dnsEntry) {
	if el, ok := c.entries[e.host]; ok {
		el.Value = e
		c.lru.MoveToFront(el)
		return
	}
	c.entries[e.host] = c.lru.PushFront(e)
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*dnsEntry).host)
	}
}

// query asks the resolver for host's addresses, for at most DNS_TIMEOUT.
func (c *DNSCache) query(ctx context.Context, host string) ([]netip.Addr, error) {
	qctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	ips, err := c.resolver.LookupIPAddr(qctx, host)
	if err != nil {
		if ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
			// Scrapy: DNSLookupError "address ... not found: timeout error". The error
			// does not unwrap to context.DeadlineExceeded, which would name it TimeoutError.
			err = &net.DNSError{Err: fmt.Sprintf("no answer within %s %s", types.DNSTimeout, c.timeout),
				Name: host, IsTimeout: true}
		}
		return nil, err
	}
	addrs := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		if a, ok := netip.AddrFromSlice(ip.IP); ok {
			addrs = append(addrs, a.Unmap().WithZone(ip.Zone))
		}
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// Cached returns the first address the cache holds for host, without waiting or querying:
// ok is false when host has not been resolved yet, its lookup failed or the cache is
// disabled. An answer past DNSCacheTTL is still returned until a lookup replaces it, so a
// download slot keyed by it does not change every TTL. host is a URL's Hostname(); an IP
// literal is its own answer. A nil DNSCache knows nothing.
func (c *DNSCache) Cached(host string) (ip string, ok bool) {
	if c == nil {
		return "", false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String(), true
	}
	if !c.enabled {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, found := c.entries[strings.ToLower(host)]
	if !found {
		return "", false
	}
	e := el.Value.(*dnsEntry)
	if e.err != nil || len(e.addrs) == 0 {
		return "", false
	}
	c.lru.MoveToFront(el)
	return e.addrs[0].String(), true
}

// DialContext connects to address ("host:port") on network as net.Dialer does, resolving
// host with Lookup; it has the signature of http.Transport.DialContext. The addresses of
// the first address's family are tried in order, one after another, sharing the dial
// timeout (30 s); with addresses of both families the others are tried the same way from
// DNSFallbackDelay on, or as soon as the first family fails, and the first connection wins
// (happy eyeballs, RFC 8305, as net.Dialer does). When none connects the error is the first
// family's first one.
func (c *DNSCache) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	address = dialTarget(ctx, address) // WithDialRules (dialrules.go)
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return c.dialer.DialContext(ctx, network, address)
	}
	addrs, err := c.Lookup(ctx, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	addrs = suitable(network, addrs)
	if len(addrs) == 0 {
		return nil, &net.OpError{Op: "dial", Net: network,
			Err: &net.AddrError{Err: "no suitable address found", Addr: host}}
	}
	var primaries, fallbacks []netip.Addr
	for _, a := range addrs {
		if a.Is4() == addrs[0].Is4() {
			primaries = append(primaries, a)
		} else {
			fallbacks = append(fallbacks, a)
		}
	}
	if len(fallbacks) == 0 {
		return c.dialSerial(ctx, network, port, primaries)
	}
	return c.dialParallel(ctx, network, port, primaries, fallbacks)
}

// DNSFallbackDelay is how long DialContext waits for a connection to the first address
// family before it tries the other one too (net.Dialer's default FallbackDelay).
const DNSFallbackDelay = 300 * time.Millisecond

// dialResult is the outcome of one family's dialSerial in dialParallel.
type dialResult struct {
	conn    net.Conn
	err     error
	primary bool
}

// dialParallel races the primaries against the fallbacks, these started after
// DNSFallbackDelay or once the primaries fail. It returns once one connects or both fail,
// after the other dial has ended (a connection it made too is closed).
func (c *DNSCache) dialParallel(ctx context.Context, network, port string, primaries, fallbacks []netip.Addr) (net.Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	results := make(chan dialResult, 2)
	defer func() {
		cancel()
		wg.Wait()
		close(results)
		for r := range results {
			if r.conn != nil {
				r.conn.Close()
			}
		}
	}()
	race := func(addrs []netip.Addr, primary bool) {
		wg.Go(func() {
			conn, err := c.dialSerial(ctx, network, port, addrs)
			results <- dialResult{conn, err, primary}
		})
	}
	race(primaries, true)
	fallback := time.NewTimer(DNSFallbackDelay)
	defer fallback.Stop()
	started := false
	var primaryErr, fallbackErr error
	for {
		select {
		case <-fallback.C:
			if !started {
				started = true
				race(fallbacks, false)
			}
		case r := <-results:
			if r.err == nil {
				return r.conn, nil
			}
			if r.primary {
				primaryErr = r.err
			} else {
				fallbackErr = r.err
			}
			if primaryErr != nil && fallbackErr != nil {
				return nil, primaryErr
			}
			if !started {
				started = true
				race(fallbacks, false)
			}
		}
	}
}

// dialSerial dials the addresses one after another, each with its share of the time left
// (partialDeadline), and returns the first connection or the first error.
func (c *DNSCache) dialSerial(ctx context.Context, network, port string, addrs []netip.Addr) (net.Conn, error) {
	deadline := time.Now().Add(c.dialer.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var first error
	for i, a := range addrs {
		conn, err := c.dialOne(ctx, network, net.JoinHostPort(a.String(), port), partialDeadline(deadline, len(addrs)-i))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// dialOne dials one resolved address, by deadline.
func (c *DNSCache) dialOne(ctx context.Context, network, addr string, deadline time.Time) (net.Conn, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if c.dialAddr != nil {
		return c.dialAddr(dctx, network, addr)
	}
	return c.dialer.DialContext(dctx, network, addr)
}

// partialDeadline is the deadline of one of n remaining dial attempts that must all end by
// deadline: an equal share of the time left, but at least 2 s of it (net.Dialer's rule).
func partialDeadline(deadline time.Time, n int) time.Time {
	left := time.Until(deadline)
	share := left / time.Duration(n)
	if share < 2*time.Second {
		share = min(2*time.Second, left)
	}
	return time.Now().Add(share)
}

// suitable returns the addresses of addrs that network ("tcp", "tcp4", "tcp6") can reach.
func suitable(network string, addrs []netip.Addr) []netip.Addr {
	var want func(netip.Addr) bool
	switch network {
	case "tcp4", "udp4":
		want = netip.Addr.Is4
	case "tcp6", "udp6":
		want = netip.Addr.Is6
	default:
		return addrs
	}
	var out []netip.Addr
	for _, a := range addrs {
		if want(a) {
			out = append(out, a)
		}
	}
	return out
}

// Close stops the queries in flight (the lookups waiting for them fail) and waits for them
// to end. After Close nothing is cached or shared: each lookup is a query of its own, on
// its caller's context, as with DNSCACHE_ENABLED false.
func (c *DNSCache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.lookups.Wait()
}
