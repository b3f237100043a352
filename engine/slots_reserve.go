package engine

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// This file is the SlotDownloader's side of a SlotScheduler (order.Readiness): whether a
// slot is ready, and the reservations the scheduler makes for the requests it hands out.

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
