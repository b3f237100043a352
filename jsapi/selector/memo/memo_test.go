package memo

import (
	"errors"
	"strconv"
	"testing"
)

func TestCache(t *testing.T) {
	t.Parallel()
	c := Cache[int]{Limit: 10}
	compiles := 0
	get := func(key string) (int, error) {
		return c.Get(key, func() (int, error) {
			compiles++
			if key == "bad" {
				return 0, errors.New("bad key")
			}
			return strconv.Atoi(key)
		})
	}
	for range 3 {
		if v, err := get("7"); v != 7 || err != nil {
			t.Fatalf("get(7) = %d, %v", v, err)
		}
		if _, err := get("bad"); err == nil {
			t.Fatal("the error was not kept")
		}
	}
	if compiles != 2 {
		t.Errorf("%d compilations for 2 keys", compiles)
	}
	for i := range 100 {
		if _, err := get(strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		if n := c.Len(); n > 10 {
			t.Fatalf("%d entries, limit 10", n)
		}
	}
}
