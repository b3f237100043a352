package engine

// This file keeps a SlotScheduler told of the download slots' changes and keeps the slots'
// stats and snapshot (Engine.Slots) fresh.

import (
	"sync"
	"sync/atomic"
	"time"
)

// slotWatch connects the download slots to a SlotScheduler. A nil *slotWatch (a scheduler
// without slots) does nothing.
type slotWatch struct {
	sched SlotScheduler
	sizes SlotSizer // nil: Slots lists none
	slots *SlotDownloader
	stats *Stats
	post  func(event)

	mu      sync.Mutex
	changed map[string]struct{} // slots whose state changed since the engine last told sched

	statsAt time.Time                  // when the stats were last set (engine goroutine)
	snap    atomic.Pointer[[]SlotInfo] // the biggest slots' queues as of statsAt
}

// changedSlot is SlotNotify's function: it queues key for the SlotScheduler, which the
// engine goroutine tells at its next pass. Safe from any goroutine; never blocks.
func (w *slotWatch) changedSlot(key string) {
	w.mu.Lock()
	first := len(w.changed) == 0
	if w.changed == nil {
		w.changed = map[string]struct{}{}
	}
	w.changed[key] = struct{}{}
	w.mu.Unlock()
	if first {
		w.post(event{kind: evSlots})
	}
}

// tell passes the slots changed since the last call on to the SlotScheduler.
func (w *slotWatch) tell() {
	w.mu.Lock()
	changed := w.changed
	w.changed = nil
	w.mu.Unlock()
	for k := range changed {
		w.sched.SlotChanged(k)
	}
}

// nextReady returns when the first slot waiting out its delay becomes ready.
func (w *slotWatch) nextReady() (time.Time, bool) {
	if w == nil {
		return time.Time{}, false
	}
	return w.sched.NextReady()
}

// recheck asks the scheduler about every slot again when nothing is in flight yet it
// handed out nothing though it holds requests: false when it does not apply.
func (w *slotWatch) recheck() bool {
	if w == nil {
		return false
	}
	w.sched.Recheck()
	return true
}

// update sets scheduler/slots (slots with queued requests), scheduler/ready (those that
// can start a download now) and scheduler/waiting (those waiting on a delay or pause), at
// most every 250 ms unless forced; forced (every second), it also takes the snapshot Slots
// returns.
func (w *slotWatch) update(force bool) {
	if w == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(w.statsAt) < 250*time.Millisecond {
		return
	}
	w.statsAt = now
	slots, ready, waiting := w.sched.SlotCounts()
	w.stats.Set("scheduler/slots", int64(slots))
	w.stats.Set("scheduler/ready", int64(ready))
	w.stats.Set("scheduler/waiting", int64(waiting))
	if w.sizes == nil || !force {
		return
	}
	sizes := w.sizes.SlotSizes(slotsShown)
	infos := make([]SlotInfo, 0, len(sizes))
	for _, z := range sizes {
		info := SlotInfo{Slot: z.Slot, Queued: z.Queued, State: "busy"}
		if at, ok := w.slots.ReadyAt(z.Slot); ok {
			info.State = "ready"
			if d := at.Sub(now); d > 0 {
				info.State, info.ReadyIn = "waiting", d.Seconds()
			}
		}
		infos = append(infos, info)
	}
	w.snap.Store(&infos)
}

// counts returns the slots' counts for the status line, fresh (false without slots).
func (w *slotWatch) counts() (slots, ready, waiting int, ok bool) {
	if w == nil {
		return 0, 0, 0, false
	}
	w.update(true)
	slots, ready, waiting = w.sched.SlotCounts()
	return slots, ready, waiting, true
}

// slotsShown is how many slots Slots lists.
const slotsShown = 20

// SlotInfo is one download slot's queue as Slots tells it.
type SlotInfo struct {
	Slot    string  `json:"slot"`
	Queued  int     `json:"queued"`
	State   string  `json:"state"`              // ready, waiting (on a delay or pause) or busy (its concurrency in use)
	ReadyIn float64 `json:"ready_in,omitempty"` // waiting: seconds until it can start a download
}

// Slots returns the download slots with the most queued requests (at most 20), as of the
// engine's last look (every 250 ms or so). Safe from any goroutine.
func (e *Engine) Slots() []SlotInfo {
	if e.slotw == nil {
		return nil
	}
	if p := e.slotw.snap.Load(); p != nil {
		return *p
	}
	return nil
}
