package feed_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// benchBook is the feed benchmarks' item: a book of the books.toscrape.com kind, n in
// its URL.
func benchBook(n int) types.Item {
	return types.Item{
		{Key: "title", Value: "A Light in the Attic"},
		{Key: "price", Value: 51.77},
		{Key: "rating", Value: int64(3)},
		{Key: "availability", Value: "In stock (22 available)"},
		{Key: "upc", Value: "a897fe39b1053632"},
		{Key: "category", Value: "Poetry"},
		{Key: "url", Value: "http://127.0.0.1:8000/catalogue/a-light-in-the-attic_" + strconv.Itoa(n) + "/index.html"},
		{Key: "tags", Value: []any{"poetry", "classic", "illustrated"}},
	}
}

// BenchmarkFeed writes book-like items (eight fields, a nested list) to a real file in each
// format through a Feed, as a crawl does: one write per item (a gzip sync block per item
// for .gz). items/s is the figure to compare with a crawl's rate, B/item the file's size
// per item (what the gzip sync blocks cost in compression).
func BenchmarkFeed(b *testing.B) {
	item := benchBook(1000)
	for _, format := range []string{"jsonl", "json", "csv", "xml", "jsonl.gz"} {
		b.Run(format, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "items."+format)
			f := openFeed(b, path, feed.Config{Overwrite: true}, feed.Env{SpiderName: "bench", Logger: slog.New(slog.DiscardHandler)})
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := f.Export(item); err != nil {
					b.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
			if info, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(info.Size())/float64(b.N), "B/item")
			}
		})
	}
}

// BenchmarkSync measures what a job's commit costs the feeds: per op, one item exported
// and then a Sync (an fsync of the file; for .gz also the end of a gzip member), and Sync
// alone with nothing new ("idle", the fsync of an unchanged file). A job syncs each feed
// once per JOBDIR_COMMIT_INTERVAL (1 s), so the figure to compare is ns/op against a
// second. B/item, against BenchmarkFeed's, is what the gzip member ends add to a .gz file.
func BenchmarkSync(b *testing.B) {
	item := types.Item{
		{Key: "title", Value: "A Light in the Attic"},
		{Key: "price", Value: 51.77},
		{Key: "url", Value: "http://127.0.0.1:8000/catalogue/a-light-in-the-attic_1000/index.html"},
	}
	for _, tc := range []struct {
		name   string
		file   string
		export bool
	}{
		{"jsonl", "items.jsonl", true},
		{"json", "items.json", true},
		{"jsonl.gz", "items.jsonl.gz", true},
		{"idle", "items.jsonl", false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), tc.file)
			f := openFeed(b, path, feed.Config{Overwrite: true}, feed.Env{SpiderName: "bench", Logger: slog.New(slog.DiscardHandler)})
			if err := f.Export(item); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if tc.export {
					if err := f.Export(item); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := f.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "syncs/s")
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			if info, err := os.Stat(path); err == nil && tc.export {
				b.ReportMetric(float64(info.Size())/float64(b.N+1), "B/item")
			}
		})
	}
}
