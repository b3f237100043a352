package engine

import (
	"maps"
	"sync"
)

// Stats collects the crawl's counters and values (Scrapy: StatsCollector). Keys are
// Scrapy's, verbatim ("downloader/response_count"). It is guarded by a mutex and safe for
// concurrent use from any goroutine.
//
// Integer values live in a map of their own, so counting allocates nothing (an int64 stored
// in a map of any is boxed on the heap once it is past 255); a key is in one of the two
// maps, never both.
type Stats struct {
	mu   sync.Mutex
	ints map[string]int64
	m    map[string]any // the values that are not int64
}

// NewStats returns an empty Stats.
func NewStats() *Stats { return &Stats{ints: make(map[string]int64, 64), m: make(map[string]any, 8)} }

// setInt stores the integer v under key, with mu held.
func (s *Stats) setInt(key string, v int64, had bool) {
	if !had {
		delete(s.m, key)
	}
	s.ints[key] = v
}

// Inc adds n to the integer counter key, creating it at 0.
func (s *Stats) Inc(key string, n int64) {
	s.mu.Lock()
	v, ok := s.ints[key]
	s.setInt(key, v+n, ok)
	s.mu.Unlock()
}

// Set stores v under key.
func (s *Stats) Set(key string, v any) {
	s.mu.Lock()
	if n, ok := v.(int64); ok {
		_, had := s.ints[key]
		s.setInt(key, n, had)
	} else {
		delete(s.ints, key)
		s.m[key] = v
	}
	s.mu.Unlock()
}

// Max stores v under key if it is larger than the current value or key is unset.
func (s *Stats) Max(key string, v int64) {
	s.mu.Lock()
	if cur, ok := s.ints[key]; !ok || v > cur {
		s.setInt(key, v, ok)
	}
	s.mu.Unlock()
}

// Min stores v under key if it is smaller than the current value or key is unset.
func (s *Stats) Min(key string, v int64) {
	s.mu.Lock()
	if cur, ok := s.ints[key]; !ok || v < cur {
		s.setInt(key, v, ok)
	}
	s.mu.Unlock()
}

// Get returns the value of key, or nil. Counters are int64.
func (s *Stats) Get(key string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.ints[key]; ok {
		return v
	}
	return s.m[key]
}

// Int returns the integer value of key, 0 when unset or not an integer.
func (s *Stats) Int(key string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ints[key]
}

// Snapshot returns a copy of every key and value.
func (s *Stats) Snapshot() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]any, len(s.ints)+len(s.m))
	maps.Copy(out, s.m)
	for k, v := range s.ints {
		out[k] = v
	}
	return out
}
