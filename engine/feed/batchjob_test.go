package feed_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
)

// TestResumeBatchRandomKills is TestResumeRandomKills for a batch feed of a job
// (batchItemCount with %(batch_id)d): the writer is killed ten times at random instants,
// also between a batch's rotation and the next commit, and resumed at its last printed
// position each time. After the last resume and Close the batch files, in order, hold the
// items 0 to the last count each once, every batch but the last is full, and no file of a
// later batch (one a killed run started past the commit) is left.
func TestResumeBatchRandomKills(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	const batch = 200
	for _, ext := range []string{"jsonl", "json", "csv", "xml.gz"} {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, uint64(len(ext))))
			dir := t.TempDir()
			uri := filepath.Join(dir, "items-%(batch_id)d."+ext)
			var pos *feed.Position
			batches := 0
			for kill := range 10 {
				next := runLoopWriter(t, uri, pos, batch, 1+rng.IntN(20))
				if pos != nil && next.Items < pos.Items {
					t.Fatalf("kill %d: position went back from %+v to %+v", kill, pos, next)
				}
				if int64(next.Batch) != 1+max(next.Items-1, 0)/batch {
					t.Fatalf("kill %d: position %+v: batch %d for %d items of %d a batch", kill, next, next.Batch, next.Items, batch)
				}
				batches = max(batches, countFiles(t, dir))
				pos = &next
			}
			if pos.Items <= batch {
				t.Fatalf("only %d items committed: no batch was finished", pos.Items)
			}
			t.Logf("%d items in %d batches committed over ten kills; up to %d batch files at a kill", pos.Items, pos.Batch, batches)
			f, err := feed.Resume(uri, feed.Config{Overwrite: true, BatchItemCount: batch}, feed.Env{Job: true, Logger: quietEnv.Logger}, *pos)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			var got []int
			for b := 1; b <= pos.Batch; b++ {
				nums := feedNumbers(t, filepath.Join(dir, fmt.Sprintf("items-%d.%s", b, ext)))
				if b < pos.Batch && len(nums) != batch {
					t.Errorf("batch %d holds %d items, want %d", b, len(nums), batch)
				}
				got = append(got, nums...)
			}
			if want := seq(nil, 0, int(pos.Items)); !slices.Equal(got, want) {
				t.Errorf("%d items, want %d: first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			if n := countFiles(t, dir); n != pos.Batch {
				t.Errorf("%d files left, want the %d batches' only", n, pos.Batch)
			}
		})
	}
}

// countFiles returns the number of batch files (items-*) in dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "items-") {
			n++
		}
	}
	return n
}
