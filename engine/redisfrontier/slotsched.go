package redisfrontier

import (
	"time"

	"github.com/jscrawl/jscrawl/engine/frontier"
)

// engine.SlotScheduler: the download slots of the leases this worker holds (its buffer's
// frontier.SlotIndex), and the crawl's slot counts.

// UseSlots implements engine.SlotScheduler: Next hands out requests of the slots r says
// can start a download.
func (f *Frontier) UseSlots(r frontier.Readiness) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	f.buf.index.Use(r)
}

// SlotChanged implements engine.SlotScheduler.
func (f *Frontier) SlotChanged(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	f.buf.index.Changed(key)
}

// NextReady implements engine.SlotScheduler, for the leases this worker holds.
func (f *Frontier) NextReady() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	return f.buf.index.NextAt()
}

// Recheck implements engine.SlotScheduler.
func (f *Frontier) Recheck() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	f.buf.index.Recheck()
}

// SlotCounts implements engine.SlotScheduler for the crawl: its slots with queued
// requests in Redis, how many of them can start one, and how many wait (on a delay, a
// pause or their concurrency), as of the last stats push (every second; also the
// scheduler/slots and scheduler/ready stats). LocalSlotCounts counts this worker's
// leases.
func (f *Frontier) SlotCounts() (slots, ready, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slotsQueued, f.slotsReady, f.slotsQueued - f.slotsReady
}

// LocalSlotCounts is SlotCounts for the leases this worker holds and has not handed out.
// Called on the engine goroutine.
func (f *Frontier) LocalSlotCounts() (slots, ready, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	return f.buf.index.Counts(time.Now())
}
