package types

import "strconv"

// This file holds the range of a numeric setting: the interval Set accepts its values in.

// Range is the interval a numeric setting's value must lie in; Set refuses a value
// outside it with an error naming the range.
type Range struct {
	Min, Max       float64
	HasMin, HasMax bool
	MinExclusive   bool // the value must be above Min, not equal to it
}

// AtLeast is the range [min, ∞).
func AtLeast(min float64) Range { return Range{Min: min, HasMin: true} }

// Between is the range [min, max].
func Between(min, max float64) Range { return Range{Min: min, Max: max, HasMin: true, HasMax: true} }

// Above is the range (min, ∞).
func Above(min float64) Range { return Range{Min: min, HasMin: true, MinExclusive: true} }

// Contains reports whether f lies in r.
func (r Range) Contains(f float64) bool {
	switch {
	case r.HasMin && r.MinExclusive && f <= r.Min, r.HasMin && f < r.Min, r.HasMax && f > r.Max:
		return false
	}
	return true
}

// String describes r as a requirement: "must be >= 1", "must be > 0", "must be <= 10" or
// "must be between 0 and 1".
func (r Range) String() string {
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch {
	case r.HasMin && r.HasMax && !r.MinExclusive:
		return "must be between " + num(r.Min) + " and " + num(r.Max)
	case r.HasMin && r.HasMax:
		return "must be > " + num(r.Min) + " and <= " + num(r.Max)
	case r.HasMin && r.MinExclusive:
		return "must be > " + num(r.Min)
	case r.HasMin:
		return "must be >= " + num(r.Min)
	case r.HasMax:
		return "must be <= " + num(r.Max)
	}
	return "any number"
}

// MaxJSONDepth is JSON_MAX_DEPTH's largest value: deeper, goja's recursive JSON code
// (whose JSON.stringify cycle check is quadratic in the depth) is what the setting keeps
// away from, and encoding/json refuses such feeds anyway.
const MaxJSONDepth = 10000

// bounded reports whether r bounds anything (the zero Range does not).
func (r Range) bounded() bool { return r.HasMin || r.HasMax }
