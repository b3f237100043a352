package feed

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestJSONFeedDepth: the JSON and JSON Lines exporters refuse an item a Go component built
// nested deeper than 10000, or holding a list that contains itself, with an error
// (not a goroutine stack overflow), write nothing of it, and still export the next item;
// an item at the limit is written whole.
func TestJSONFeedDepth(t *testing.T) {
	t.Parallel()
	nest := func(n int) types.Item {
		var v any = "leaf"
		for i := 1; i < n; i++ {
			if i%2 == 0 {
				v = []any{v}
			} else {
				v = types.Item{{Key: "a", Value: v}}
			}
		}
		return types.Item{{Key: "a", Value: v}}
	}
	cycle := []any{nil}
	cycle[0] = cycle
	for _, format := range []string{"json", "jsonlines"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			var e interface {
				Export(types.Item) error
				Close() error
			}
			if format == "json" {
				e = NewJSON(&buf, Config{})
			} else {
				e = NewJSONLines(&buf, Config{})
			}
			for _, bad := range []types.Item{nest(3_000_000), {{Key: "loop", Value: cycle}}} {
				err := e.Export(bad)
				if err == nil || !strings.Contains(err.Error(), "nested deeper than 10000 levels") {
					t.Fatalf("Export of a too deep item: %v", err)
				}
			}
			if err := e.Export(nest(maxJSONDepth)); err != nil {
				t.Fatalf("Export of an item %d deep: %v", maxJSONDepth, err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(buf.String(), `"leaf"`); got != 1 {
				t.Errorf("%d leaves written, want 1 (the item at the limit):\n%.300s", got, buf.String())
			}
		})
	}
}
