package enginetest_test

import (
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// errorsOf records the failures CheckSpacing reports instead of failing the test.
type errorsOf struct {
	testing.TB
	n int
}

func (e *errorsOf) Helper()               {}
func (e *errorsOf) Errorf(string, ...any) { e.n++ }

// TestCheckSpacing: arrivals spaced by the delay pass, one late arrival within the slack
// passes, and a crawl that ignores the delay or keeps it per process fails.
func TestCheckSpacing(t *testing.T) {
	const delay = 100 * time.Millisecond
	t0 := time.Unix(1000, 0)
	every := func(gap time.Duration, n int, late map[int]time.Duration) []time.Time {
		var at []time.Time
		for i := range n {
			at = append(at, t0.Add(time.Duration(i)*gap+late[i]))
		}
		return at
	}
	for _, tc := range []struct {
		name string
		at   []time.Time
		fail bool
	}{
		{"spaced by the delay", every(delay, 20, nil), false},
		{"one arrival 120 ms late", every(delay, 20, map[int]time.Duration{7: 120 * time.Millisecond}), false},
		{"every arrival up to 140 ms late", every(delay, 20, map[int]time.Duration{1: 140 * time.Millisecond, 3: 90 * time.Millisecond, 10: 140 * time.Millisecond}), false},
		{"three processes with delays of their own", every(delay/3, 20, nil), true},
		{"no delay at all", every(time.Millisecond, 20, nil), true},
		{"half the delay", every(delay/2, 20, nil), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &errorsOf{TB: t}
			enginetest.CheckSpacing(rec, tc.at, delay, enginetest.ArrivalSlack)
			if got := rec.n > 0; got != tc.fail {
				t.Errorf("failed = %v (%d errors), want %v", got, rec.n, tc.fail)
			}
		})
	}
}
