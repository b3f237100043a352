package feed_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
)

// TestTemplateValuesStayInFolder: a %(name)s or %(worker)s value can never take the feed
// out of the folder its URI names: '/', '\', NUL and '%' (which a file:// URI decodes)
// become '_', and so does a value of dots only. Each feed is written, and the only file
// under the test's folder is the expected one.
func TestTemplateValuesStayInFolder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, spider, worker string
		uri                  string // under DIR/out; "file://" prefixes a file URI
		want                 string // the file written, under DIR/out
	}{
		{"parent in the name", "../../victim/evil", "w", "%(name)s.jsonl", ".._.._victim_evil.jsonl"},
		{"name as a folder", "..", "w", "%(name)s/items.jsonl", "__/items.jsonl"},
		{"dot as a folder", ".", "w", "%(name)s/items.jsonl", "_/items.jsonl"},
		{"backslash", `..\..\x`, "w", "%(name)s.jsonl", ".._.._x.jsonl"},
		{"NUL", "a\x00b", "w", "%(name)s.jsonl", "a_b.jsonl"},
		{"worker", "quotes", "../w", "%(name)s-%(worker)s.jsonl", "quotes-.._w.jsonl"},
		{"worker as a folder", "quotes", "..", "%(worker)s/%(name)s.jsonl", "__/quotes.jsonl"},
		{"escaped slash in a file uri", "..%2F..%2Fx", "w", "file://%(name)s.jsonl", ".._2F.._2Fx.jsonl"},
		{"dots inside are kept", "my.spider..v2", "w", "%(name)s.jsonl", "my.spider..v2.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "a", "b", "out")
			uri := filepath.Join(out, strings.TrimPrefix(tc.uri, "file://"))
			if strings.HasPrefix(tc.uri, "file://") {
				uri = "file://" + filepath.ToSlash(uri)
			}
			env := quietEnv
			env.SpiderName, env.Worker = tc.spider, tc.worker
			f := openFeed(t, uri, feed.Config{}, env)
			if err := f.Export(item("a", 1.0)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			var files []string
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if want := filepath.Join(out, filepath.FromSlash(tc.want)); len(files) != 1 || files[0] != want {
				t.Errorf("files %q, want only %q", files, want)
			}
		})
	}
}
