package feed_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkTableFeed writes BenchmarkFeed's book items through a Feed into each storage in
// one run, the JSON Lines file first as the yardstick: SQLite (WAL, a transaction per 1,000
// rows), SQLite in a job (a Sync, the job's commit, every 10,000 items), PostgreSQL (COPY
// per 1,000 rows) on a server of the benchmark's own, and both with an upsert key (every
// item a new key), and as a shared crawl's workers write them (WriteThrough: a transaction
// per item, with the upsert key). items/s is the figure; Close (the last transaction) is
// inside the timing.
func BenchmarkTableFeed(b *testing.B) {
	pg := enginetest.StartPostgres(b)
	upsert := feed.Config{Overwrite: true, UpsertKey: []string{"url"}}
	sqliteURI := func(b *testing.B) string {
		return "sqlite://" + filepath.Join(b.TempDir(), "items.db") + "?table=books"
	}
	pgURI := func(b *testing.B) string { return pg.URL(pg.NewDatabase(b)) + "&table=books" }
	jsonlURI := func(b *testing.B) string { return filepath.Join(b.TempDir(), "items.jsonl") }
	plain := feed.Config{Overwrite: true}
	for _, bc := range []struct {
		name string
		uri  func(b *testing.B) string
		cfg  feed.Config
		job  bool
		each bool // Env.WriteThrough: a transaction per item
	}{
		{"jsonl", jsonlURI, plain, false, false},
		{"sqlite", sqliteURI, plain, false, false},
		{"sqlite-job", sqliteURI, plain, true, false},
		{"sqlite-upsert", sqliteURI, upsert, false, false},
		{"postgres", pgURI, plain, false, false},
		{"postgres-job", pgURI, plain, true, false},
		{"postgres-upsert", pgURI, upsert, false, false},
		{"sqlite-each", sqliteURI, upsert, false, true},
		{"postgres-each", pgURI, upsert, false, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			env := feed.Env{SpiderName: "bench", Logger: slog.New(slog.DiscardHandler), Job: bc.job, WriteThrough: bc.each}
			f := openFeed(b, bc.uri(b), bc.cfg, env)
			items := make([]types.Item, 4096)
			for i := range items {
				items[i] = benchBook(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for b.Loop() {
				it := items[n%len(items)]
				if bc.cfg.UpsertKey != nil {
					it = benchBook(n) // a new key each time: every item a row
				}
				if err := f.Export(it); err != nil {
					b.Fatal(err)
				}
				n++
				if bc.job && n%10000 == 0 {
					if _, err := f.Sync(); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}
