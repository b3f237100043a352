package engine

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// slotGCInterval is how often idle download slots are dropped.
const slotGCInterval = 30 * time.Second

// SlotDownloader limits downloads per slot and overall before handing them to the next
// Downloader (Scrapy: the Downloader's slots and the AutoThrottle extension). A slot is
// keyed by SlotKey: the request's host name, or meta.downloadSlot.
//
// A slot allows CONCURRENT_REQUESTS_PER_DOMAIN downloads at once and spaces their starts by
// DOWNLOAD_DELAY (times 0.5–1.5 with RANDOMIZE_DOWNLOAD_DELAY); DOWNLOAD_SLOTS overrides
// the three per slot by glob. With AUTOTHROTTLE_ENABLED the delay of each slot follows the
// server's latency instead (Scrapy's algorithm), never below the configured delay and never
// above AUTOTHROTTLE_MAX_DELAY, and it doubles on a 429 or 503. SetMinDelay puts a floor
// under a slot's delay (robots.txt Crawl-delay) and PauseUntil holds all of a slot's
// downloads back until a time (Retry-After).
//
// All slots share one limit of CONCURRENT_REQUESTS, which inline downloads share too.
// With a SlotGate (SharedSlots), the limits of each slot hold across the processes of a
// crawl: a download also holds the slot in the gate, which spaces its start from the
// slot's previous one in any process and keeps the crawl-wide count under the slot's
// concurrency; PauseUntil pauses the slot in the gate too, and AutoThrottle shares the
// slot's delay through it. Waiting honours ctx. Idle slots are garbage-collected unless they carry a minimum delay or
// a pause that still matters. Safe for concurrent use.
type SlotDownloader struct {
	next      Downloader
	global    chan struct{}
	perSlot   int
	delay     time.Duration
	randomize bool
	overrides []slotOverride // most specific first
	throttle  *autoThrottle  // nil when AutoThrottle is off
	gate      SlotGate       // nil: the slots are this process's own
	logger    *slog.Logger
	prepare   func(*types.Request) // SlotPrepare's; nil: none
	notify    func(key string)     // SlotNotify's; nil: none
	// Per-IP slots (SLOT_BY=ip, CONCURRENT_REQUESTS_PER_IP): a queue key (SlotKey) maps
	// to the slot of its host's first cached IP address, and the slot remembers the keys
	// that used it, to report its changes under each; ipConc is their concurrency (0:
	// CONCURRENT_REQUESTS_PER_DOMAIN). resNames holds, per key, the slots Reserve counted
	// for reservations the engine has not made yet (withReservation).
	byIP bool
	dns  interface {
		Cached(host string) (string, bool)
	}
	ipConc   int
	resNames map[string][]string
	// pause, when set, says until when a response pauses its slot (RetryMiddleware's
	// Retry-After rule), applied before the slot lets its next download start.
	pause func(*types.Request, *types.Response) (time.Time, bool)

	mu     sync.Mutex
	slots  map[string]*slot
	lastGC time.Time
}

// slotOverride is one DOWNLOAD_SLOTS entry.
type slotOverride struct {
	glob        string
	concurrency int           // 0: CONCURRENT_REQUESTS_PER_DOMAIN
	delay       time.Duration // -1: DOWNLOAD_DELAY
	randomize   *bool         // nil: RANDOMIZE_DOWNLOAD_DELAY
}

// autoThrottle holds the AUTOTHROTTLE_* settings.
type autoThrottle struct {
	start, max time.Duration
	target     float64
	debug      bool
}

type slot struct {
	sem chan struct{}
	// Configuration, fixed when the slot is made.
	delay     time.Duration
	randomize bool

	// Guarded by SlotDownloader.mu.
	refs        int // downloads holding or waiting for the slot, reservations included
	reserved    int // reservations (Reserve) no download has taken yet
	started     int // downloads holding the slot whose start was stamped (sent)
	lastSeen    time.Time
	minDelay    time.Duration // SetMinDelay; not randomized
	pausedUntil time.Time     // PauseUntil
	atDelay     time.Duration // AutoThrottle's current delay
	lastStart   time.Time     // when the latest download reached the server (see sent)
	factor      float64       // RANDOMIZE_DOWNLOAD_DELAY's factor for the next gap; 0: 1

	startMu sync.Mutex // serializes the delay waits of the slot's downloads

	keys map[string]struct{} // per-IP slots: the queue keys that used it (d.mu)
}

// SlotOption configures a SlotDownloader in NewSlotDownloader.
type SlotOption func(*SlotDownloader)

// SlotLogger sets the logger of a SlotDownloader (default: none), used for AUTOTHROTTLE_DEBUG
// lines and DOWNLOAD_SLOTS warnings.
func SlotLogger(l *slog.Logger) SlotOption { return func(d *SlotDownloader) { d.logger = l } }

// SlotPrepare gives the SlotDownloader work to do for a request before its slot times it:
// the engine starts Chromium there for a browser request (HTTPDownloader.prepare), so the
// requests queued behind its start-up reach the site DOWNLOAD_DELAY apart, not together
// once it is up.
func SlotPrepare(f func(*types.Request)) SlotOption {
	return func(d *SlotDownloader) { d.prepare = f }
}

// SlotNotify gives the SlotDownloader a function to call, from any goroutine and without
// blocking, when slot key may be ready sooner than a Readiness answer said (a download of
// it ended, was sent, or a reservation was dropped). The engine passes it on to its
// SlotScheduler.
func SlotNotify(f func(key string)) SlotOption { return func(d *SlotDownloader) { d.notify = f } }

// SlotDNS gives the SlotDownloader the DNS cache whose answers key per-IP slots (SLOT_BY=ip
// or CONCURRENT_REQUESTS_PER_IP above 0); without one, slots stay per host.
func SlotDNS(c interface {
	Cached(host string) (string, bool)
}) SlotOption {
	return func(d *SlotDownloader) { d.dns = c }
}

// pauseOn sets the rule by which a response pauses its slot (see SlotDownloader.pause).
func (d *SlotDownloader) pauseOn(f func(*types.Request, *types.Response) (time.Time, bool)) {
	d.pause = f
}

// SharedSlots makes the slots' limits hold across the processes of a crawl through g (nil:
// the slots are this process's own). The engine passes its scheduler when it is a SlotGate.
func SharedSlots(g SlotGate) SlotOption { return func(d *SlotDownloader) { d.gate = g } }

// NewSlotDownloader returns a SlotDownloader configured from settings that sends
// downloads on to next.
func NewSlotDownloader(settings *types.Settings, next Downloader, opts ...SlotOption) *SlotDownloader {
	d := &SlotDownloader{
		next:      next,
		global:    make(chan struct{}, max(settings.Int(types.ConcurrentRequests), 1)),
		perSlot:   max(settings.Int(types.ConcurrentRequestsPerDomain), 1),
		delay:     settings.Duration(types.DownloadDelay),
		randomize: settings.Bool(types.RandomizeDownloadDelay),
		slots:     map[string]*slot{},
		lastGC:    time.Now(),
	}
	for _, o := range opts {
		o(d)
	}
	d.logger = orDiscard(d.logger)
	d.ipConc = max(settings.Int(types.ConcurrentRequestsPerIP), 0)
	d.byIP = d.dns != nil && (d.ipConc > 0 || strings.EqualFold(settings.String(types.SlotBy), "ip"))
	if settings.Bool(types.AutoThrottleEnabled) {
		d.throttle = &autoThrottle{
			start:  settings.Duration(types.AutoThrottleStartDelay),
			max:    settings.Duration(types.AutoThrottleMaxDelay),
			target: settings.Float(types.AutoThrottleTargetConcurrency),
			debug:  settings.Bool(types.AutoThrottleDebug),
		}
		if d.throttle.target <= 0 {
			d.throttle.target = 1
		}
	}
	d.overrides = parseSlotOverrides(settings.Map(types.DownloadSlots), d.logger)
	return d
}

// parseSlotOverrides reads DOWNLOAD_SLOTS: glob → {concurrency, delay, randomizeDelay}
// (Scrapy's randomize_delay is accepted too). Globs are sorted most specific first: globs
// without wildcards, then longer ones.
func parseSlotOverrides(m map[string]any, logger *slog.Logger) []slotOverride {
	var out []slotOverride
	for glob, v := range m {
		glob = strings.ToLower(strings.TrimSpace(glob))
		if _, err := path.Match(glob, ""); err != nil {
			logger.Warn(fmt.Sprintf("DOWNLOAD_SLOTS: bad glob %q: %v", glob, err))
			continue
		}
		conf, ok := v.(map[string]any)
		if !ok {
			logger.Warn(fmt.Sprintf("DOWNLOAD_SLOTS: %q: want an object {concurrency, delay, randomizeDelay}", glob))
			continue
		}
		o := slotOverride{glob: glob, delay: -1}
		if n, ok := toInt(conf["concurrency"]); ok && n > 0 {
			o.concurrency = n
		}
		if f, ok := toFloat(conf["delay"]); ok && f >= 0 {
			o.delay = time.Duration(f * float64(time.Second))
		}
		for _, k := range []string{"randomizeDelay", "randomize_delay"} {
			if b, ok := conf[k].(bool); ok {
				o.randomize = &b
			}
		}
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b slotOverride) int {
		wa, wb := strings.ContainsAny(a.glob, "*?["), strings.ContainsAny(b.glob, "*?[")
		if wa != wb {
			if wa {
				return 1
			}
			return -1
		}
		return cmp.Or(len(b.glob)-len(a.glob), strings.Compare(a.glob, b.glob))
	})
	return out
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// SlotKey returns the download slot of req: meta.downloadSlot when set, else the request's
// host name in lower case (Scrapy: Downloader.get_slot_key). Middlewares use it to address
// SetMinDelay and PauseUntil.
func SlotKey(req *types.Request) string {
	if v, ok := req.MetaValue(types.MetaDownloadSlot).(string); ok && v != "" {
		return v
	}
	u := req.URL
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if !strings.ContainsAny(u, "[%") {
		// The common case, without a parse: a name or IPv4 address and maybe a port.
		if i := strings.LastIndexByte(u, ':'); i >= 0 {
			u = u[:i]
		}
		return lowerASCII(u)
	}
	if pu, err := url.Parse("//" + u); err == nil {
		return strings.ToLower(pu.Hostname())
	}
	return strings.ToLower(u)
}

// lowerASCII returns s in lower case, s itself when it has no upper-case ASCII letter (a
// host name that is not ASCII is lower-cased by strings.ToLower).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// newSlot makes the slot for key from the settings and DOWNLOAD_SLOTS. Called with d.mu held.
func (d *SlotDownloader) newSlot(key string) *slot {
	conc, delay, randomize := d.perSlot, d.delay, d.randomize
	if d.byIP && d.ipConc > 0 {
		conc = d.ipConc
	}
	lkey := strings.ToLower(key)
	for _, o := range d.overrides {
		if ok, _ := path.Match(o.glob, lkey); !ok {
			continue
		}
		if o.concurrency > 0 {
			conc = o.concurrency
		}
		if o.delay >= 0 {
			delay = o.delay
		}
		if o.randomize != nil {
			randomize = *o.randomize
		}
		break
	}
	s := &slot{sem: make(chan struct{}, conc), delay: delay, randomize: randomize}
	if d.throttle != nil {
		s.atDelay = max(d.throttle.start, delay)
	}
	return s
}

// slotName returns the name of the slot that requests of queue key (SlotKey) use: key
// itself, or with per-IP slots the first IP address the DNS cache has for it (key until
// its host is first looked up).
func (d *SlotDownloader) slotName(key string) string {
	if !d.byIP {
		return key
	}
	if ip, ok := d.dns.Cached(key); ok {
		return ip
	}
	return key
}

// slotOf returns the slot for queue key and its name, making it when missing and, with
// per-IP slots, recording key as one of its users. Called with d.mu held.
func (d *SlotDownloader) slotOf(key string) (*slot, string) {
	name := d.slotName(key)
	s := d.slotLocked(name)
	if d.byIP && name != key {
		if s.keys == nil {
			s.keys = map[string]struct{}{}
		}
		s.keys[key] = struct{}{}
	}
	return s, name
}

// slotLocked returns the slot named name, making it when missing. Called with d.mu held.
func (d *SlotDownloader) slotLocked(key string) *slot {
	s := d.slots[key]
	if s == nil {
		s = d.newSlot(key)
		d.slots[key] = s
	}
	return s
}

// idle reports whether s can be forgotten: nothing uses it and nothing it remembers
// matters any more. Called with d.mu held.
func (s *slot) idle(now time.Time, keep time.Duration) bool {
	return s.refs == 0 && s.minDelay == 0 && !now.Before(s.pausedUntil) && now.Sub(s.lastSeen) > keep
}

// acquireSlot returns the slot for queue key and its name, counting a download in it unless
// res holds a reservation of that slot that this download takes over.
func (d *SlotDownloader) acquireSlot(key string, res *slotReservation) (*slot, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	if now.Sub(d.lastGC) > slotGCInterval {
		d.lastGC = now
		for k, s := range d.slots {
			if s.idle(now, max(s.delay*2, s.atDelay*2, slotGCInterval)) {
				delete(d.slots, k)
			}
		}
	}
	s, name := d.slotOf(key)
	if res != nil && res.slot == name && s.reserved > 0 && res.taken.CompareAndSwap(false, true) {
		s.reserved--
		return s, name
	}
	s.refs++
	return s, name
}

// releaseSlot ends a download's use of s, the slot named name; started reports whether
// its start was stamped.
func (d *SlotDownloader) releaseSlot(name string, s *slot, started bool) {
	d.mu.Lock()
	// Only a slot that was full, or times its starts, can become ready sooner: without a
	// delay and with room, it was ready already and nobody need be told.
	tell := s.refs >= cap(s.sem) || d.floorLocked(s) > 0
	s.refs--
	if started {
		s.started--
	}
	s.lastSeen = time.Now()
	if s.delay == 0 && d.throttle == nil && s.idle(s.lastSeen, -1) && d.slots[name] == s {
		delete(d.slots, name) // nothing to remember without a delay
	}
	d.mu.Unlock()
	if tell {
		d.changed(name, s)
	}
}

// changed reports a change of s, the slot named name, under its name and, for a per-IP
// slot, under each queue key that used it.
func (d *SlotDownloader) changed(name string, s *slot) {
	if d.notify == nil {
		return
	}
	d.notify(name)
	if !d.byIP {
		return
	}
	d.mu.Lock()
	keys := make([]string, 0, len(s.keys))
	for k := range s.keys {
		keys = append(keys, k)
	}
	d.mu.Unlock()
	for _, k := range keys {
		d.notify(k)
	}
}

// slotReservation is a request handed out by a SlotScheduler, whose slot Reserve counted
// already: the first download of its slot in the request's context takes the reservation
// over (a robots.txt download of the host may be that one); unreserve drops it when none
// did.
type slotReservation struct {
	slot  string // the name of the slot Reserve counted it in
	taken atomic.Bool
	by    atomic.Pointer[string] // the URL of the download that took it over
}

type slotReservationKey struct{}

// withReservation returns ctx carrying the reservation of queue key that a SlotScheduler
// made (Reserve) for the request to be downloaded in ctx, and the reservation, for
// unreserve once the download is over.
func (d *SlotDownloader) withReservation(ctx context.Context, key string) (context.Context, *slotReservation) {
	name := key
	if d.byIP {
		d.mu.Lock()
		if names := d.resNames[key]; len(names) > 0 {
			name = names[0]
			if len(names) == 1 {
				delete(d.resNames, key)
			} else {
				d.resNames[key] = names[1:]
			}
		} else {
			name = d.slotName(key)
		}
		d.mu.Unlock()
	}
	r := &slotReservation{slot: name}
	return context.WithValue(ctx, slotReservationKey{}, r), r
}

// ReadyAt implements order.Readiness: a slot can start a download when fewer than its
// concurrency use it (reservations included) and, when it has a delay, when the previous
// start reached the server (see sent) the delay ago and no other start is on its way, and
// when no pause holds it. With a SlotGate the gate spaces the starts: only the
// concurrency, one start on its way at a time and the pauses are known here.
func (d *SlotDownloader) ReadyAt(key string) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.slots[d.slotName(key)]
	if s == nil {
		return time.Time{}, true
	}
	if s.refs >= cap(s.sem) {
		return time.Time{}, false
	}
	floor := d.floorLocked(s)
	if floor > 0 && s.refs > s.started {
		return time.Time{}, false // a start is on its way: the next one is timed from it
	}
	at := s.pausedUntil
	if floor > 0 && !s.lastStart.IsZero() {
		at = later(at, s.lastStart.Add(floor))
	}
	return at, true
}

// Reserve implements order.Readiness: a request of slot key is on its way to a
// download, which takes the reservation over (withReservation), or unreserve drops it.
func (d *SlotDownloader) Reserve(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, name := d.slotOf(key)
	s.refs++
	s.reserved++
	if d.byIP {
		if d.resNames == nil {
			d.resNames = map[string][]string{}
		}
		d.resNames[key] = append(d.resNames[key], name)
	}
}

// unreserve drops r when no download took it over (the request was answered from a cache,
// dropped by a middleware, or failed before its slot). Safe to call more than once.
func (d *SlotDownloader) unreserve(r *slotReservation) {
	if r == nil || !r.taken.CompareAndSwap(false, true) {
		return
	}
	d.mu.Lock()
	s := d.slots[r.slot]
	tell := false
	if s != nil && s.reserved > 0 {
		tell = s.refs >= cap(s.sem) || d.floorLocked(s) > 0 // see releaseSlot
		s.reserved--
		s.refs--
		s.lastSeen = time.Now()
	}
	d.mu.Unlock()
	if tell {
		d.changed(r.slot, s)
	}
}

// floorLocked returns the gap between two starts of s: its delay (AutoThrottle's when on),
// times its randomization factor, at least its minimum delay. Called with d.mu held.
func (d *SlotDownloader) floorLocked(s *slot) time.Duration {
	delay := s.delay
	if d.throttle != nil {
		delay = s.atDelay
	}
	if s.randomize && s.factor > 0 {
		delay = time.Duration(float64(delay) * s.factor)
	}
	return max(delay, s.minDelay)
}

// SetMinDelay sets a floor under the delay between download starts of slot key, whatever
// DOWNLOAD_DELAY, DOWNLOAD_SLOTS or AutoThrottle say; it is not randomized. 0 removes it.
// RobotsTxtMiddleware sets a robots.txt Crawl-delay with it. The slot is kept while it has
// a minimum delay. Safe for concurrent use.
func (d *SlotDownloader) SetMinDelay(key string, delay time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, _ := d.slotOf(key)
	s.minDelay = max(delay, 0)
}

// PauseUntil holds back every download of slot key that has not started yet, queued ones
// included, until t; an earlier t than a pause already set changes nothing.
// RetryMiddleware applies a Retry-After with it. The slot is kept until t. Safe for
// concurrent use. With a SlotGate the pause holds in every process of the crawl.
func (d *SlotDownloader) PauseUntil(key string, t time.Time) {
	d.mu.Lock()
	s, name := d.slotOf(key)
	if t.After(s.pausedUntil) {
		s.pausedUntil = t
	}
	d.mu.Unlock()
	if d.gate != nil {
		d.gate.PauseSlot(name, t)
	}
}

// Fetch implements Downloader.
func (d *SlotDownloader) Fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	if d.prepare != nil {
		d.prepare(req)
	}
	qkey := SlotKey(req)
	res, _ := ctx.Value(slotReservationKey{}).(*slotReservation)
	if res != nil && d.lostTurn(res, req, qkey) {
		// Another download of this request's (its host's robots.txt) took the turn the
		// scheduler gave it, and the slot cannot start it now: back to the scheduler,
		// which hands it out when the slot is ready, instead of holding a place among
		// CONCURRENT_REQUESTS while it waits.
		again := req.Copy()
		again.DontFilter = true
		return nil, &RescheduleError{Request: again}
	}
	s, key := d.acquireSlot(qkey, res)
	if res != nil && res.slot == key {
		res.by.CompareAndSwap(nil, &req.URL)
	}
	st := &slotStart{d: d, s: s, key: key}
	defer func() { d.releaseSlot(key, s, st.stamp()) }()
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: ctx.Err()}
	}
	defer func() { <-s.sem }()
	delay, locked, err := d.wait(ctx, s)
	if err != nil {
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: err}
	}
	st.locked = locked
	if locked {
		ctx = context.WithValue(ctx, slotStartKey{}, st) // for SlotSent
	}
	var throttle time.Duration // AutoThrottle's new delay, shared when the gate's hold ends
	if d.gate != nil {
		st.stamp() // the gate spaces the starts
		hold, err := d.gate.AcquireSlot(ctx, key, cap(s.sem), delay)
		if err != nil {
			if ctx.Err() != nil {
				return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: err}
			}
			return nil, &DownloadError{Name: NameError, URL: req.URL, Err: fmt.Errorf("shared download slot %s: %w", key, err)}
		}
		defer func() { hold.Release(throttle) }()
		if d.throttle != nil && hold.Throttle > 0 {
			d.mu.Lock()
			s.atDelay = min(max(hold.Throttle, s.delay), max(d.throttle.max, s.delay))
			d.mu.Unlock()
		}
	}
	select {
	case d.global <- struct{}{}:
	case <-ctx.Done():
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: ctx.Err()}
	}
	defer func() { <-d.global }()
	start := time.Now()
	resp, err := d.next.Fetch(ctx, req)
	if d.pause != nil && err == nil {
		if t, ok := d.pause(req, resp); ok {
			d.PauseUntil(key, t)
		}
	}
	if d.throttle != nil && err == nil && resp != nil {
		// The latency includes the body: Fetch returns after reading it. Scrapy measures up
		// to the headers; for pages of ordinary size the difference is small.
		throttle = d.adjust(key, s, time.Since(start), resp)
	}
	return resp, err
}

// lostTurn reports whether res, the reservation of scheduled request req (of queue key
// qkey), went to another download of its slot (not an earlier try of req itself) and the
// slot cannot start req now.
func (d *SlotDownloader) lostTurn(res *slotReservation, req *types.Request, qkey string) bool {
	by := res.by.Load()
	if by == nil || *by == req.URL {
		return false
	}
	at, ok := d.ReadyAt(qkey)
	return !ok || at.After(time.Now())
}

// slotStart is a download's start in its slot, stamped once: when its request reached the
// server (SlotSent, from the HTTP handler once the request's headers are written), or when
// the download ended without saying so (another handler, an error before sending). The
// slot's next start is timed from the stamp, and waits for it: a download that took long
// to connect does not let the next one reach the server less than the delay after it.
type slotStart struct {
	d      *SlotDownloader
	s      *slot
	key    string
	locked bool // holds s.startMu until stamped (the slot has a delay)
	once   sync.Once
	did    bool
	at     time.Time // the stamp (d.mu)
}

type slotStartKey struct{}

// stamp records the start (the first call only) and reports whether the download got as far
// as its start.
func (st *slotStart) stamp() bool {
	st.once.Do(func() {
		if !st.locked {
			return // it never passed its wait, or its slot has no delay
		}
		st.did = true
		d, s := st.d, st.s
		d.mu.Lock()
		if d.gate == nil {
			s.lastStart = time.Now()
			st.at = s.lastStart
		}
		if s.randomize {
			s.factor = 0.5 + rand.Float64()
		}
		s.started++
		d.mu.Unlock()
		s.startMu.Unlock()
		d.changed(st.key, s)
	})
	return st.did
}

// SlotSent tells the download slots that the request downloaded in ctx reached the server
// (its headers were written): the slot's delay counts from now. Download handlers call it;
// one that does not is stamped when its download ends.
func SlotSent(ctx context.Context) {
	if st, ok := ctx.Value(slotStartKey{}).(*slotStart); ok {
		st.stamp()
	}
}

// slotAnswered tells the download slots that the server answered the request downloaded
// in ctx, sent on a new plain-HTTP connection: the start moves to now, when the server
// surely had it (a busy server accepts a connection late, the kernel having taken the
// request long before), unless a later start of the slot was stamped since.
func slotAnswered(ctx context.Context) {
	st, ok := ctx.Value(slotStartKey{}).(*slotStart)
	if !ok {
		return
	}
	d, s := st.d, st.s
	d.mu.Lock()
	moved := st.did && !st.at.IsZero() && s.lastStart.Equal(st.at)
	if moved {
		s.lastStart = time.Now()
		st.at = s.lastStart
	}
	d.mu.Unlock()
	if moved {
		d.changed(st.key, s) // a scheduler that filed the slot by the old time asks again
	}
}

// wait blocks until the slot's delay has passed since its previous start and any pause is
// over, and returns that delay (randomized, at least the minimum delay). A pause set while
// waiting is noticed when the wait ends. With a SlotGate it waits for a pause only: the
// gate spaces the starts, from the returned delay. When the delay is above 0 it returns
// holding s.startMu (locked), which the start's stamp releases: the slot's next download
// waits for it.
func (d *SlotDownloader) wait(ctx context.Context, s *slot) (time.Duration, bool, error) {
	s.startMu.Lock()
	var floor time.Duration
	for {
		d.mu.Lock()
		until := s.pausedUntil
		floor = d.floorLocked(s)
		if !s.lastStart.IsZero() { // always zero with a gate
			until = later(until, s.lastStart.Add(floor))
		}
		d.mu.Unlock()
		w := time.Until(until)
		if w <= 0 {
			break
		}
		t := time.NewTimer(w)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.startMu.Unlock()
			return 0, false, ctx.Err()
		}
	}
	if floor == 0 {
		s.startMu.Unlock() // nothing to time: starts need not wait for each other
		return 0, false, nil
	}
	return floor, true, nil
}

// jitter returns d times a random factor in [0.5, 1.5) (Scrapy: RANDOMIZE_DOWNLOAD_DELAY).
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// adjust is AutoThrottle's step after a response (Scrapy: AutoThrottle._adjust_delay): the
// target delay is latency / AUTOTHROTTLE_TARGET_CONCURRENCY and the new delay the mean of
// the old one and the target, at least the target, within [configured delay,
// AUTOTHROTTLE_MAX_DELAY]. A non-200 response never lowers the delay; a 429 or 503 doubles
// it (at least AUTOTHROTTLE_START_DELAY). It returns the new delay.
func (d *SlotDownloader) adjust(key string, s *slot, latency time.Duration, resp *types.Response) time.Duration {
	at := d.throttle
	target := time.Duration(float64(latency) / at.target)
	d.mu.Lock()
	old := s.atDelay
	var nd time.Duration
	if resp.Status == 429 || resp.Status == 503 {
		nd = max(2*old, target, at.start)
	} else {
		nd = max((old+target)/2, target)
	}
	nd = min(max(nd, s.delay), max(at.max, s.delay))
	if resp.Status != 200 && nd < old {
		nd = old
	}
	s.atDelay = nd
	conc := len(s.sem)
	d.mu.Unlock()
	if at.debug {
		d.logger.Info(fmt.Sprintf("slot: %s | conc:%2d | delay:%5d ms (%+d) | latency:%5d ms | size:%6d bytes",
			key, conc, nd.Milliseconds(), (nd - old).Milliseconds(), latency.Milliseconds(), len(resp.Body)))
	}
	return nd
}

// Delay returns the current delay between download starts of slot key without
// randomization (the configured or AutoThrottle delay, at least the minimum delay), and
// false when the slot does not exist. For tests and diagnostics.
func (d *SlotDownloader) Delay(key string) (time.Duration, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.slots[d.slotName(key)]
	if s == nil {
		return 0, false
	}
	delay := s.delay
	if d.throttle != nil {
		delay = s.atDelay
	}
	return max(delay, s.minDelay), true
}

// Interface guards
var _ Downloader = (*SlotDownloader)(nil)
