package engine

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// slotGCInterval is how often idle download slots are dropped.
const slotGCInterval = 30 * time.Second

// SlotDownloader limits downloads per slot and overall before handing them to the next
// Downloader (Scrapy: the Downloader's slots). A slot is keyed by the request's host name,
// or by meta.downloadSlot; it allows CONCURRENT_REQUESTS_PER_DOMAIN downloads at once and
// spaces their starts by DOWNLOAD_DELAY (times 0.5–1.5 with RANDOMIZE_DOWNLOAD_DELAY). All
// slots share one limit of CONCURRENT_REQUESTS, which inline downloads share too. Waiting
// honours ctx. Slots without downloads are garbage-collected. Safe for concurrent use.
type SlotDownloader struct {
	next      Downloader
	global    chan struct{}
	perSlot   int
	delay     time.Duration
	randomize bool

	mu     sync.Mutex
	slots  map[string]*slot
	lastGC time.Time
}

type slot struct {
	sem      chan struct{}
	refs     int // downloads holding or waiting for the slot; guarded by SlotDownloader.mu
	lastSeen time.Time

	delayMu   sync.Mutex
	lastStart time.Time
}

// NewSlotDownloader returns a SlotDownloader configured from settings that sends
// downloads on to next.
func NewSlotDownloader(settings *types.Settings, next Downloader) *SlotDownloader {
	return &SlotDownloader{
		next:      next,
		global:    make(chan struct{}, max(settings.Int(types.ConcurrentRequests), 1)),
		perSlot:   max(settings.Int(types.ConcurrentRequestsPerDomain), 1),
		delay:     settings.Duration(types.DownloadDelay),
		randomize: settings.Bool(types.RandomizeDownloadDelay),
		slots:     map[string]*slot{},
		lastGC:    time.Now(),
	}
}

// slotKey returns the download slot of req.
func slotKey(req *types.Request) string {
	if v, ok := req.MetaValue("downloadSlot").(string); ok && v != "" {
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
	if pu, err := url.Parse("//" + u); err == nil {
		return strings.ToLower(pu.Hostname())
	}
	return strings.ToLower(u)
}

func (d *SlotDownloader) acquireSlot(key string) *slot {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	if now.Sub(d.lastGC) > slotGCInterval {
		d.lastGC = now
		keep := max(d.delay*2, slotGCInterval)
		for k, s := range d.slots {
			if s.refs == 0 && now.Sub(s.lastSeen) > keep {
				delete(d.slots, k)
			}
		}
	}
	s := d.slots[key]
	if s == nil {
		s = &slot{sem: make(chan struct{}, d.perSlot)}
		d.slots[key] = s
	}
	s.refs++
	return s
}

func (d *SlotDownloader) releaseSlot(key string, s *slot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s.refs--
	s.lastSeen = time.Now()
	if s.refs == 0 && d.delay == 0 {
		delete(d.slots, key) // nothing to remember without a delay
	}
}

// Fetch implements Downloader.
func (d *SlotDownloader) Fetch(ctx context.Context, req *types.Request) (*types.Response, error) {
	key := slotKey(req)
	s := d.acquireSlot(key)
	defer d.releaseSlot(key, s)
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: ctx.Err()}
	}
	defer func() { <-s.sem }()
	if d.delay > 0 {
		if err := d.wait(ctx, s); err != nil {
			return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: err}
		}
	}
	select {
	case d.global <- struct{}{}:
	case <-ctx.Done():
		return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: ctx.Err()}
	}
	defer func() { <-d.global }()
	return d.next.Fetch(ctx, req)
}

// wait blocks until DOWNLOAD_DELAY has passed since the slot's previous start.
func (d *SlotDownloader) wait(ctx context.Context, s *slot) error {
	s.delayMu.Lock()
	defer s.delayMu.Unlock()
	delay := d.delay
	if d.randomize {
		delay = time.Duration(float64(delay) * (0.5 + rand.Float64()))
	}
	if !s.lastStart.IsZero() {
		if w := time.Until(s.lastStart.Add(delay)); w > 0 {
			t := time.NewTimer(w)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
	}
	s.lastStart = time.Now()
	return nil
}

// Interface guards
var _ Downloader = (*SlotDownloader)(nil)
