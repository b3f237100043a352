package types

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// This file holds Settings, the crawl's configuration: the priorities of its sources,
// Set with its checks, and the typed getters.

// Priorities of setting sources, as Scrapy's SETTINGS_PRIORITIES.
const (
	PriorityDefault = 0
	PrioritySpider  = 30
	PriorityCmdline = 40
)

type settingValue struct {
	value    any
	priority int
}

// Settings holds the crawl's configuration (Scrapy: Settings). A higher-priority source
// overrides a lower one: defaults < spider customSettings < command line. Build it on one
// goroutine; once the crawl starts it is read-only and safe for concurrent reads.
type Settings struct {
	values map[string]settingValue
}

// NewSettings returns the defaults of Defs.
func NewSettings() *Settings {
	s := &Settings{values: make(map[string]settingValue, len(Defs))}
	for _, d := range Defs {
		s.values[d.Key] = settingValue{d.Default, PriorityDefault}
	}
	return s
}

// Known reports whether key is a declared setting.
func (s *Settings) Known(key string) bool {
	_, ok := defIndex[key]
	return ok
}

// Set stores v for key unless a higher-priority value is there. A value of the wrong type,
// outside the key's range (Def.ValueRange) or not among its choices (Def.Choices) is an
// error naming the key, also when a higher-priority value is there. Text values (from -s)
// are converted to the key's kind; unknown keys are stored as given (check Known to warn
// about them).
func (s *Settings) Set(key string, v any, priority int) error {
	d, _ := Lookup(key) // an unknown key: KindAny, no range, no choices
	cv, err := convert(d.Kind, v)
	if err != nil {
		return fmt.Errorf("setting %s: %w", key, err)
	}
	if r, ok := d.ValueRange(); ok {
		if f, err := toFloat(cv); err == nil && !r.Contains(f) {
			return fmt.Errorf("setting %s: out of range: %s, got %s", key, r, describe(v))
		}
	}
	if cs := d.Choices; cs != nil {
		if t, isText := cv.(string); isText && !slices.ContainsFunc(cs, func(c string) bool { return strings.EqualFold(c, t) }) {
			return fmt.Errorf("setting %s: out of range: must be one of %s, got %s", key, strings.Join(cs, ", "), describe(v))
		}
	}
	// Checked even when a higher priority wins: a bad value is refused wherever it is.
	if cur, ok := s.values[key]; ok && cur.priority > priority {
		return nil
	}
	s.values[key] = settingValue{cv, priority}
	return nil
}

// Get returns the raw value of key, or nil.
func (s *Settings) Get(key string) any { return s.values[key].value }

// Priority returns the priority of key's value (Scrapy: Settings.getpriority):
// PriorityDefault for a default, or for a key without a value.
func (s *Settings) Priority(key string) int { return s.values[key].priority }

// Int returns an integer setting (0 when unset).
func (s *Settings) Int(key string) int {
	f, _ := toFloat(s.Get(key))
	return int(f)
}

// Float returns a number setting (0 when unset).
func (s *Settings) Float(key string) float64 {
	f, _ := toFloat(s.Get(key))
	return f
}

// Bool returns a boolean setting (false when unset).
func (s *Settings) Bool(key string) bool {
	b, _ := toBool(s.Get(key))
	return b
}

// String returns a text setting ("" when unset).
func (s *Settings) String(key string) string {
	switch v := s.Get(key).(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// Duration returns a seconds setting as a time.Duration.
func (s *Settings) Duration(key string) time.Duration {
	return time.Duration(s.Float(key) * float64(time.Second))
}

// List returns a list setting (nil when unset).
func (s *Settings) List(key string) []any {
	l, _ := s.Get(key).([]any)
	return l
}

// StringList returns a list setting with each element as text.
func (s *Settings) StringList(key string) []string {
	var out []string
	for _, v := range s.List(key) {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// IntList returns a list setting of integers; elements that are not numbers are skipped.
func (s *Settings) IntList(key string) []int {
	var out []int
	for _, v := range s.List(key) {
		if f, err := toFloat(v); err == nil {
			out = append(out, int(f))
		}
	}
	return out
}

// Map returns an object setting (nil when unset).
func (s *Settings) Map(key string) map[string]any {
	m, _ := s.Get(key).(map[string]any)
	return m
}

// Keys returns every key that has a value, sorted.
func (s *Settings) Keys() []string { return slices.Sorted(maps.Keys(s.values)) }

// Clone returns an independent copy (the top-level values are shared).
func (s *Settings) Clone() *Settings {
	return &Settings{values: maps.Clone(s.values)}
}

// Concurrency returns CONCURRENT_REQUESTS, the downloads allowed at once over all
// domains, at least 1: the one place it is clamped for the global download limit, the
// transports' connection pools and whoever else sizes itself by it.
func (s *Settings) Concurrency() int { return max(s.Int(ConcurrentRequests), 1) }
