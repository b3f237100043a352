package redisfrontier

import (
	"context"
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// TestTripSentTwice: a round trip sent again with its trip id (its reply was lost) is not
// applied twice, and gets the same reply: a dontFilter request is added once, a lease
// taken once.
func TestTripSentTwice(t *testing.T) {
	t.Parallel()
	r := enginetest.StartRedis(t, enginetest.RedisOptions{})
	opts, _ := redis.ParseURL(r.URL(0))
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	var keys []string
	for _, k := range syncKeys {
		keys = append(keys, "jscrawl:t:"+k)
	}
	trip := func(id int, n int, ops ...any) []any {
		args := append([]any{"w1", 60000, "0", n, "", "0", id, "jscrawl:t:", 8, 0, 5, "0", "1"}, ops...)
		res, err := syncScript.Run(ctx, c, keys, args...).Slice()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	add := []any{"a", "", 0, 0, "rec1", "", "", "s", "a", "", 0, 0, "rec2", "", "", "s"}
	pending := func() int64 { n, _ := c.HGet(ctx, "jscrawl:t:meta", "pending").Int64(); return n }
	first := trip(1, 0, add...)
	if again := trip(1, 0, add...); !reflect.DeepEqual(first, again) {
		t.Errorf("replayed reply %v, want %v", again, first)
	}
	if n := pending(); n != 2 {
		t.Errorf("%d pending after a trip sent twice, want 2", n)
	}
	lease := trip(2, 1)
	if again := trip(2, 1); !reflect.DeepEqual(lease, again) {
		t.Errorf("replayed lease %v, want %v", again, lease)
	}
	if p, l := pending(), c.ZCard(ctx, "jscrawl:t:leased").Val(); p != 1 || l != 1 {
		t.Errorf("pending %d, leased %d after one lease sent twice; want 1, 1", p, l)
	}
	trip(3, 0, add...) // a new trip id applies
	if n := pending(); n != 3 {
		t.Errorf("%d pending after a new trip, want 3", n)
	}
}
