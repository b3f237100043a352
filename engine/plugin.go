package engine

// This file holds the slot a plug-in package registers one value into (the spill store, the
// impersonating transport).

import "sync/atomic"

// plugin holds the one registered value of type T (a function or an interface); a later
// set replaces it. Safe for concurrent use; the zero value holds nothing.
type plugin[T any] struct{ p atomic.Pointer[T] }

// set registers v.
func (s *plugin[T]) set(v T) { s.p.Store(&v) }

// get returns the registered value, or T's zero value.
func (s *plugin[T]) get() (v T) {
	if p := s.p.Load(); p != nil {
		v = *p
	}
	return v
}
