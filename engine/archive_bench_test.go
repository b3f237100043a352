package engine_test

import (
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// BenchmarkArchive crawls a site of b.N pages (at least 100) like the bench kit's (about
// 14 KB each, ten products, 20 links): live, live recording to a WARC file (--warc), and
// replayed from that file with the server gone (--replay). It reports pages/s; compare
// live and warc in one run (-bench 'Archive/(live|warc)' -count N), and their allocations.
func BenchmarkArchive(b *testing.B) {
	total := 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, w1Page(n, total))
	})
	run := func(b *testing.B, base string, opts ...engine.Option) {
		sp := followSpider(base+"/page/0", nil)
		opts = append(opts, engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		e := engine.New(sp, benchSettings(map[string]any{types.RobotsTxtObey: false}), opts...)
		runPages(b, e, total)
	}
	b.Run("live", func(b *testing.B) {
		total = max(b.N, 100)
		run(b, enginetest.StartWith(b, mux).URL)
	})
	b.Run("warc", func(b *testing.B) {
		total = max(b.N, 100)
		w, err := warc.Create(filepath.Join(b.TempDir(), "crawl.warc.gz"), 0)
		if err != nil {
			b.Fatal(err)
		}
		run(b, enginetest.StartWith(b, mux).URL, engine.WithWARC(w))
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("replay", func(b *testing.B) {
		// Record b.N pages first (not timed), then replay them with no server.
		total = max(b.N, 100)
		srv := enginetest.StartWith(b, mux)
		base := srv.URL
		path := filepath.Join(b.TempDir(), "crawl.warc.gz")
		w, err := warc.Create(path, 0)
		if err != nil {
			b.Fatal(err)
		}
		run(b, base, engine.WithWARC(w))
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		srv.Close()
		a := engine.OpenArchive(b, path)
		run(b, base, engine.WithReplay(a, false))
	})
}
