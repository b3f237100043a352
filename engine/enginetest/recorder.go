package enginetest

import (
	"slices"
	"sync"
)

// Recorder collects the values that concurrent callbacks of a test report (a spider's
// ParseFunc and ErrbackFunc, a handler): a mutex and a slice. The zero value is empty and
// ready to use.
type Recorder[T any] struct {
	mu sync.Mutex
	v  []T
}

// Add appends v.
func (r *Recorder[T]) Add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.v = append(r.v, v)
}

// All returns a copy of the values added so far, in order.
func (r *Recorder[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.v)
}

// Len returns how many values have been added.
func (r *Recorder[T]) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.v)
}
