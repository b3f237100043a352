package engine

import (
	"maps"
	"sync"
)

// Stats collects the crawl's counters and values (Scrapy: StatsCollector). Keys are
// Scrapy's, verbatim ("downloader/response_count"). It is guarded by a mutex and safe for
// concurrent use from any goroutine.
type Stats struct {
	mu sync.Mutex
	m  map[string]any
}

// NewStats returns an empty Stats.
func NewStats() *Stats { return &Stats{m: make(map[string]any, 64)} }

// Inc adds n to the integer counter key, creating it at 0.
func (s *Stats) Inc(key string, n int64) {
	s.mu.Lock()
	v, _ := s.m[key].(int64)
	s.m[key] = v + n
	s.mu.Unlock()
}

// Set stores v under key.
func (s *Stats) Set(key string, v any) {
	s.mu.Lock()
	s.m[key] = v
	s.mu.Unlock()
}

// Max stores v under key if it is larger than the current value or key is unset.
func (s *Stats) Max(key string, v int64) {
	s.mu.Lock()
	if cur, ok := s.m[key].(int64); !ok || v > cur {
		s.m[key] = v
	}
	s.mu.Unlock()
}

// Min stores v under key if it is smaller than the current value or key is unset.
func (s *Stats) Min(key string, v int64) {
	s.mu.Lock()
	if cur, ok := s.m[key].(int64); !ok || v < cur {
		s.m[key] = v
	}
	s.mu.Unlock()
}

// Get returns the value of key, or nil. Counters are int64.
func (s *Stats) Get(key string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// Int returns the integer value of key, 0 when unset or not an integer.
func (s *Stats) Int(key string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, _ := s.m[key].(int64)
	return v
}

// Snapshot returns a copy of every key and value.
func (s *Stats) Snapshot() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.m)
}
