package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Threshold is a pass/fail check on one stat at the end of a crawl, such as
// "item_scraped_count >= 100" (k6's thresholds, for crawls). A stat never set counts as 0,
// and a key whose last segment is a status class such as "5xx" sums the matching status
// counts (downloader/response_status_count/5xx adds up .../500, .../503, ...).
type Threshold struct {
	Key   string
	Op    string // one of <, <=, ==, !=, >=, >
	Value float64
}

// thresholdOps are the comparison operators, longest first so "<=" wins over "<".
var thresholdOps = []string{"<=", ">=", "==", "!=", "<", ">"}

// ParseThreshold parses "KEY OP VALUE" (--threshold 'log_count/ERROR == 0').
func ParseThreshold(s string) (Threshold, error) {
	for i := 0; i < len(s); i++ {
		for _, op := range thresholdOps {
			if strings.HasPrefix(s[i:], op) {
				return NewThreshold(strings.TrimSpace(s[:i]), s[i:])
			}
		}
	}
	return Threshold{}, fmt.Errorf("threshold %q: want KEY OP VALUE with OP one of %s", s, strings.Join(thresholdOps, " "))
}

// NewThreshold parses the condition "OP VALUE" for key (THRESHOLDS = { key: ">= 100" }).
func NewThreshold(key, cond string) (Threshold, error) {
	cond = strings.TrimSpace(cond)
	if key == "" {
		return Threshold{}, fmt.Errorf("threshold %q: no stat name", cond)
	}
	for _, op := range thresholdOps {
		if rest, ok := strings.CutPrefix(cond, op); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil || math.IsNaN(v) {
				return Threshold{}, fmt.Errorf("threshold %s %q: the value must be a number", key, cond)
			}
			return Threshold{Key: key, Op: op, Value: v}, nil
		}
	}
	return Threshold{}, fmt.Errorf("threshold %s %q: want OP VALUE with OP one of %s", key, cond, strings.Join(thresholdOps, " "))
}

// ThresholdsFromSetting parses the THRESHOLDS setting (stat name → "OP VALUE"), sorted by key.
func ThresholdsFromSetting(m map[string]any) ([]Threshold, error) {
	var out []Threshold
	for _, k := range slices.Sorted(maps.Keys(m)) {
		cond, ok := m[k].(string)
		if !ok {
			return nil, fmt.Errorf("THRESHOLDS %s: want a string such as \">= 100\", got %T", k, m[k])
		}
		t, err := NewThreshold(k, cond)
		if err != nil {
			return nil, fmt.Errorf("THRESHOLDS: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// String returns "KEY OP VALUE".
func (t Threshold) String() string {
	return t.Key + " " + t.Op + " " + strconv.FormatFloat(t.Value, 'f', -1, 64)
}

// Measure returns the threshold's stat from a stats snapshot.
func (t Threshold) Measure(stats map[string]any) float64 {
	prefix, last := "", t.Key
	if i := strings.LastIndexByte(t.Key, '/'); i >= 0 {
		prefix, last = t.Key[:i+1], t.Key[i+1:]
	}
	if len(last) == 3 && last[0] >= '1' && last[0] <= '9' && strings.EqualFold(last[1:], "xx") {
		var sum float64
		for k, v := range stats {
			code, ok := strings.CutPrefix(k, prefix)
			if ok && len(code) == 3 && code[0] == last[0] && isDigits(code[1:]) {
				sum += number(v)
			}
		}
		return sum
	}
	return number(stats[t.Key])
}

// Check reports whether the snapshot meets the threshold, and the measured value.
func (t Threshold) Check(stats map[string]any) (ok bool, value float64) {
	v := t.Measure(stats)
	switch t.Op {
	case "<":
		ok = v < t.Value
	case "<=":
		ok = v <= t.Value
	case "==":
		ok = v == t.Value
	case "!=":
		ok = v != t.Value
	case ">=":
		ok = v >= t.Value
	case ">":
		ok = v > t.Value
	}
	return ok, v
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// number converts a stat value to a float; anything else (unset, text) is 0.
func number(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}
