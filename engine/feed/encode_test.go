package feed

import (
	"math"
	"testing"

	"github.com/jscrawl/jscrawl/types"
)

// TestAppendJSONMatchesItemJSON checks the fast encoder against types.Item.JSON.
func TestAppendJSONMatchesItemJSON(t *testing.T) {
	t.Parallel()
	strs := []string{"", "plain", "<a href=\"x\">&amp;</a>", "tab\tnl\ncr\rbs\\q\"", "\b\f\x00\x01\x1f\x7f",
		"Zürich 日本語 🎉", "\u2028\u2029", "bad \xff\xfe utf8", "\xe2\x82", "end\\"}
	nums := []float64{0, 1, -1, 3.0, 0.1, 2.5, 1e20, 1e21, 1.5e300, 1e-6, 1e-7, 5e-324, math.MaxFloat64, 123456.789}
	for _, s := range strs {
		for _, n := range nums {
			it := types.Item{
				{Key: s, Value: s},
				{Key: "n", Value: n},
				{Key: "i", Value: int64(-9007199254740993)},
				{Key: "int", Value: 42},
				{Key: "b", Value: true},
				{Key: "nil", Value: nil},
				{Key: "list", Value: []any{s, n, nil, []any{}, types.Item{}, types.Item(nil), []any(nil)}},
				{Key: "obj", Value: types.Item{{Key: "k", Value: s}}},
				{Key: "map", Value: map[string]any{"z": 1, "a": s}},
			}
			want, err := it.JSON()
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendJSON(nil, it)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("appendJSON(%q, %v)\n got %s\nwant %s", s, n, got, want)
			}
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := appendJSON(nil, types.Item{{Key: "x", Value: bad}}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
