package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// This file holds SlotDownloader itself: its options, its slots (made, found and
// forgotten) and Fetch, which takes a download through its slot and the global limit.
// The slots' settings are decoded in slots_config.go, the reservations of a SlotScheduler
// are in slots_reserve.go, and the timing of starts (delays, pauses, AutoThrottle) in
// slots_timing.go.

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
	slotConfig
	next    Downloader
	global  chan struct{}
	gate    SlotGate // nil: the slots are this process's own
	logger  *slog.Logger
	prepare func(*types.Request) // SlotPrepare's; nil: none
	notify  func(key string)     // SlotNotify's; nil: none
	// Per-IP slots (SLOT_BY=ip, CONCURRENT_REQUESTS_PER_IP, with a DNS cache): a queue key
	// (SlotKey) maps to the slot of its host's first cached IP address, and the slot
	// remembers the keys that used it, to report its changes under each. resNames holds,
	// per key, the slots Reserve counted for reservations the engine has not made yet
	// (withReservation).
	byIP bool
	dns  interface {
		Cached(host string) (string, bool)
	}
	resNames map[string][]string
	// pause, when set, says until when a response pauses its slot (RetryMiddleware's
	// Retry-After rule), applied before the slot lets its next download start.
	pause func(*types.Request, *types.Response) (time.Time, bool)

	mu     sync.Mutex
	slots  map[string]*slot
	lastGC time.Time
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
		next:   next,
		global: make(chan struct{}, settings.Concurrency()),
		slots:  map[string]*slot{},
		lastGC: time.Now(),
	}
	for _, o := range opts {
		o(d)
	}
	d.logger = orDiscard(d.logger)
	d.slotConfig = newSlotConfig(settings, d.logger)
	d.byIP = d.dns != nil && (d.ipConc > 0 || d.slotByIP)
	return d
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

// Interface guards
var _ Downloader = (*SlotDownloader)(nil)
