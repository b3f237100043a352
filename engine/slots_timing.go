package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// This file times the starts of a slot's downloads: the delay between them (randomized,
// with a minimum), the pauses (Retry-After), the stamp of a start once its request reached
// the server, and AutoThrottle's adjustment of the delay.

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
