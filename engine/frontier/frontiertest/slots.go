// Package frontiertest holds test doubles of the frontier's collaborators: Slots, a
// frontier.Readiness whose slots a test sets ready, waiting or blocked.
package frontiertest

import "time"

// Slots is a frontier.Readiness the test sets: a slot is ready unless Set made it wait
// (until a time) or blocked it. It records the slots reserved, in order. Not safe for
// concurrent use, as a frontier's goroutine is its only caller.
type Slots struct {
	Waiting  map[string]time.Time // slot → until when it waits
	Blocked  map[string]bool      // slots blocked until set ready
	Reserved []string             // the keys Reserve was called with
}

// NewSlots returns Slots with every slot ready.
func NewSlots() *Slots {
	return &Slots{Waiting: map[string]time.Time{}, Blocked: map[string]bool{}}
}

// ReadyAt implements frontier.Readiness.
func (r *Slots) ReadyAt(key string) (time.Time, bool) {
	if r.Blocked[key] {
		return time.Time{}, false
	}
	return r.Waiting[key], true
}

// Reserve implements frontier.Readiness: it records key.
func (r *Slots) Reserve(key string) { r.Reserved = append(r.Reserved, key) }

// Set puts slot key in state: "ready", "wait" (for an hour) or "block".
func (r *Slots) Set(key, state string) {
	delete(r.Waiting, key)
	delete(r.Blocked, key)
	switch state {
	case "wait":
		r.Waiting[key] = time.Now().Add(time.Hour)
	case "block":
		r.Blocked[key] = true
	}
}
