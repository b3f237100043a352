package feed_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestBatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		file  string
		cfg   feed.Config
		items int
		want  map[string]string
	}{
		{
			name: "jsonl remainder", file: "%(batch_id)02d.jsonl", cfg: feed.Config{BatchItemCount: 2}, items: 5,
			want: map[string]string{
				"01.jsonl": "{\"i\":0}\n{\"i\":1}\n",
				"02.jsonl": "{\"i\":2}\n{\"i\":3}\n",
				"03.jsonl": "{\"i\":4}\n",
			},
		},
		{
			name: "json exact multiple", file: "%(name)s-%(batch_id)d.json", cfg: feed.Config{BatchItemCount: 2, Overwrite: true}, items: 4,
			want: map[string]string{
				"quotes-1.json": "[\n{\"i\":0},\n{\"i\":1}\n]\n",
				"quotes-2.json": "[\n{\"i\":2},\n{\"i\":3}\n]\n",
			},
		},
		{
			name: "no items", file: "%(batch_id)d.csv", cfg: feed.Config{BatchItemCount: 3}, items: 0,
			want: map[string]string{"1.csv": ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var items []types.Item
			for i := range tc.items {
				items = append(items, item("i", float64(i)))
			}
			writeFeed(t, filepath.Join(dir, tc.file), tc.cfg, quietEnv, items...)
			var names []string
			for name, want := range tc.want {
				names = append(names, name)
				if got := readFile(t, filepath.Join(dir, name)); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			slices.Sort(names)
			if got := listDir(t, dir); !slices.Equal(got, names) {
				t.Errorf("files %v, want %v", got, names)
			}
		})
	}
}

// TestBatchTime names batches by the time they start, on synctest's fake clock.
func TestBatchTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		f := openFeed(t, filepath.Join(dir, "%(batch_time)s.jsonl"), feed.Config{BatchItemCount: 1}, quietEnv)
		defer f.Close()
		start := time.Now().UTC()
		for i := range 2 {
			if err := f.Export(item("i", float64(i))); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		want := []string{
			start.Format(feed.TimeLayout+".000000") + ".jsonl",
			start.Add(1500*time.Millisecond).Format(feed.TimeLayout+".000000") + ".jsonl",
		}
		if got := listDir(t, dir); !slices.Equal(got, want) {
			t.Errorf("files %v, want %v", got, want)
		}
	})
}

func TestBatchNeedsPlaceholder(t *testing.T) {
	t.Parallel()
	_, err := feed.Open(filepath.Join(t.TempDir(), "items.jsonl"), feed.Config{BatchItemCount: 2}, quietEnv)
	if err == nil || !strings.Contains(err.Error(), "%(batch_id)d") {
		t.Fatalf("err = %v, want one naming %%(batch_id)d", err)
	}
	_, err = feed.Open(filepath.Join(t.TempDir(), "%(batch_id)d.jsonl"), feed.Config{}, quietEnv)
	if err == nil || !strings.Contains(err.Error(), "unknown placeholder") {
		t.Fatalf("without batch_item_count: err = %v, want unknown placeholder", err)
	}
}

// TestOpenAll checks that a failing feed discards the ones opened before it, leaving an -O
// target as it was.
func TestOpenAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "a.json")
	if err := os.WriteFile(keep, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "b.json")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appended := filepath.Join(dir, "a2.json")
	if err := os.WriteFile(appended, []byte("[\n{}\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := feed.OpenAll(map[string]feed.Config{
		keep:                               {Format: "json", Overwrite: true},
		appended:                           {Format: "json"},  // -o: its "]" would go
		filepath.Join(dir, "aa-new.jsonl"): {Format: "jsonl"}, // created, then removed
		bad:                                {Format: "json"},  // -o onto a file that is not a JSON array
	}, quietEnv)
	if err == nil {
		t.Fatal("no error")
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"a.json", "a2.json", "b.json"}) {
		t.Errorf("files %v, want the originals only", got)
	}
	if got := readFile(t, keep); got != "[]\n" {
		t.Errorf("-O target changed to %q", got)
	}
	if got := readFile(t, appended); got != "[\n{}\n]\n" {
		t.Errorf("-o target changed to %q", got)
	}

	feeds, err := feed.OpenAll(map[string]feed.Config{keep: {Format: "json", Overwrite: true}, "-": {Format: "csv"}}, quietEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(feeds) != 2 || feeds[0].URI() != "-" || feeds[1].Format() != "json" {
		t.Fatalf("feeds not in URI order: %v", feeds)
	}
	for _, f := range feeds {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
