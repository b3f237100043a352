package order_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/frontier/order"
)

// always is a Readiness under which every slot is ready now.
type always struct{}

func (always) ReadyAt(string) (time.Time, bool) { return time.Time{}, true }
func (always) Reserve(string)                   {}

// TestRecheckKeepsTurns: slots of equal priority, ready alike, go in the order they were
// filed, also after Use asks the Readiness about all of them again (a reopened job's
// frontier does so): Recheck once walked its map, shuffling their turns.
func TestRecheckKeepsTurns(t *testing.T) {
	var want []string
	for i := range 30 {
		want = append(want, fmt.Sprintf("host%02d", i))
	}
	for range 5 {
		var x order.SlotIndex
		for _, k := range want {
			x.Update(k, 0, true)
		}
		x.Use(always{})
		var got []string
		for range want {
			k, ok := x.Next(time.Now())
			if !ok {
				t.Fatalf("no ready slot after %v", got)
			}
			got = append(got, k)
			x.Took(k, 0, false)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("turns %v, want %v (the order the slots were filed)", got, want)
		}
	}
}
