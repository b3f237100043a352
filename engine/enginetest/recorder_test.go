package enginetest_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

func TestRecorder(t *testing.T) {
	t.Parallel()
	var r enginetest.Recorder[int]
	if r.Len() != 0 || r.All() != nil {
		t.Fatalf("zero Recorder: len %d, all %v", r.Len(), r.All())
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() { r.Add(i) })
	}
	wg.Wait()
	got := r.All()
	slices.Sort(got)
	if r.Len() != 100 || len(got) != 100 || got[0] != 0 || got[99] != 99 {
		t.Fatalf("len %d, all %v", r.Len(), got)
	}
	got[0] = -1 // All returns a copy
	if slices.Contains(r.All(), -1) {
		t.Error("All shares its slice with the Recorder")
	}
}
