package feed_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// quietEnv is the Env of most tests.
var quietEnv = feed.Env{SpiderName: "quotes"}

func item(kv ...any) types.Item {
	var it types.Item
	for i := 0; i < len(kv); i += 2 {
		it = append(it, types.Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return it
}

// writeFeed opens uri, exports items and closes the feed.
func writeFeed(t *testing.T, uri string, cfg feed.Config, env feed.Env, items ...types.Item) {
	t.Helper()
	f := openFeed(t, uri, cfg, env)
	for _, it := range items {
		if err := f.Export(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendAndOverwrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		file   string
		cfg    feed.Config
		before string // existing content; "" for none
		want   string // after writing item a=1 then item a=2 in two runs
	}{
		{name: "jsonl appends", file: "x.jsonl", want: "{\"a\":1}\n{\"a\":2}\n"},
		{name: "jsonl appends to existing", file: "x.jsonl", before: "{\"a\":0}\n", want: "{\"a\":0}\n{\"a\":1}\n{\"a\":2}\n"},
		{name: "csv header once", file: "x.csv", want: "a\n1\n2\n"},
		{name: "csv keeps existing columns", file: "x.csv", before: "b,a\nx,0\n", want: "b,a\nx,0\n,1\n,2\n"},
		{name: "csv file columns win over fields", file: "x.csv", cfg: feed.Config{Fields: []string{"a"}}, before: "b,a\n", want: "b,a\n,1\n,2\n"},
		{name: "json overwrite", file: "x.json", cfg: feed.Config{Overwrite: true}, before: "old", want: "[\n{\"a\":2}\n]\n"},
		{name: "json continues its array", file: "x.json", want: "[\n{\"a\":1},\n{\"a\":2}\n]\n"},
		{name: "json indented continues", file: "x.json", cfg: feed.Config{Indent: 1}, before: "[\n{\n \"a\": 0\n}\n]\n", want: "[\n{\n \"a\": 0\n},\n{\n \"a\": 1\n},\n{\n \"a\": 2\n}\n]\n"},
		{name: "json empty array", file: "x.json", before: "[]\n", want: "[\n{\"a\":1},\n{\"a\":2}\n]\n"},
		{name: "xml continues its items", file: "x.xml", want: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n<item><a>1</a></item>\n<item><a>2</a></item>\n</items>\n"},
		{name: "xml without items", file: "x.xml", before: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n</items>\n", want: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n<item><a>1</a></item>\n<item><a>2</a></item>\n</items>\n"},
		{name: "csv overwrite", file: "x.csv", cfg: feed.Config{Overwrite: true}, before: "b\nold\n", want: "a\n2\n"},
		{name: "xml overwrite", file: "x.xml", cfg: feed.Config{Overwrite: true}, want: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n<item><a>2</a></item>\n</items>\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := tempFile(t, tc.file, tc.before)
			writeFeed(t, path, tc.cfg, quietEnv, item("a", 1.0))
			writeFeed(t, path, tc.cfg, quietEnv, item("a", 2.0))
			if got := readFile(t, path); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("folder has %d entries, want only the feed", len(entries))
			}
		})
	}
}

// TestAppendRefused checks that -o refuses a file that is not a feed of its format (or a
// gzipped JSON or XML one, which cannot be continued), naming it and the ways out, and
// leaves it untouched.
func TestAppendRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, content string }{
		{"x.json", "{\"a\":1}\n{\"a\":2}\n"},
		{"x.json", "[\n{}\n]\n[]"},
		{"x.json", "[\n{}, nope\n"},
		{"x.xml", "<?xml version=\"1.0\"?>\n<rss></rss>\n"},
		{"x.xml", "<items></items><items>"},
		{"x.json.gz", "[\n{}\n]\n"},
		{"x.txt:json", "not json"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			uri, cfg, err := feed.ParseFlag(filepath.Join(dir, tc.file), false)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(uri, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = feed.Open(uri, cfg, quietEnv)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range []string{uri, "-O", ".jsonl"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if got := readFile(t, uri); got != tc.content {
				t.Errorf("file changed to %q", got)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("folder has %d entries, want 1", len(entries))
			}
		})
	}
}

// TestOverwriteIsProgressive checks that with -O the target is replaced when the feed
// opens and holds every exported item at once, with its old mode, so a killed run keeps
// what it wrote.
func TestOverwriteIsProgressive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := openFeed(t, path, feed.Config{Overwrite: true}, quietEnv)
	if got := readFile(t, path); got != "" {
		t.Errorf("after Open the target is %q, want it empty", got)
	}
	for i, want := range []string{"[\n{\"a\":1}", "[\n{\"a\":1},\n{\"a\":2}"} {
		if err := f.Export(item("a", float64(i+1))); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); got != want {
			t.Errorf("after item %d the target is %q, want %q", i+1, got, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder has %d entries, want only the target", len(entries))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "[\n{\"a\":1},\n{\"a\":2}\n]\n" {
		t.Errorf("after Close the target is %q", got)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", info.Mode().Perm())
	}
}

func TestStdout(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-:jsonl", "stdout::jsonl"} {
		t.Run(arg, func(t *testing.T) {
			t.Parallel()
			uri, cfg, err := feed.ParseFlag(arg, false)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			env := stdoutEnv(&out)
			writeFeed(t, uri, cfg, env, item("a", "<&>"), item("b", 2.0))
			if want := "{\"a\":\"<&>\"}\n{\"b\":2}\n"; out.String() != want {
				t.Errorf("stdout = %q, want %q", out.String(), want)
			}
		})
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := quietEnv
	env.Now = time.Date(2026, 11, 30, 2, 2, 3, 500, time.FixedZone("CET", 3600))
	env.Worker = "host-42-beef"
	f := openFeed(t, filepath.Join(dir, "%(name)s", "%(time)s-%(worker)s.jsonl"), feed.Config{}, env)
	want := filepath.Join(dir, "quotes", "2026-11-30T01-02-03-host-42-beef.jsonl")
	if f.URI() != want {
		t.Errorf("URI() = %q, want %q", f.URI(), want)
	}
	if err := f.Export(item("a", 1.0)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, want); got != "{\"a\":1}\n" {
		t.Errorf("got %q", got)
	}
}

func TestGzipRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "items.csv.gz")
	uri, cfg, err := feed.ParseFlag(path, false)
	if err != nil {
		t.Fatal(err)
	}
	// Two runs: the second appends a gzip member and must not repeat the header.
	writeFeed(t, uri, cfg, quietEnv, item("name", "Zürich", "n", 1.0))
	writeFeed(t, uri, cfg, quietEnv, item("n", 2.0, "name", "日本"))
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if want := "name,n\nZürich,1\n日本,2\n"; string(got) != want {
		t.Errorf("gunzipped %q, want %q", got, want)
	}
}

func TestParentFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "c", "out.xml")
	writeFeed(t, "file://"+filepath.ToSlash(path), feed.Config{}, quietEnv, item("a", 1.0))
	if got := readFile(t, path); !strings.Contains(got, "<item><a>1</a></item>") {
		t.Errorf("got %q", got)
	}
}

// TestRelativePath runs in the test's own working folder; t.Chdir rules out t.Parallel.
func TestRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFeed(t, "out/items.jsonl", feed.Config{}, quietEnv, item("a", 1.0))
	if got := readFile(t, filepath.Join(dir, "out", "items.jsonl")); got != "{\"a\":1}\n" {
		t.Errorf("got %q", got)
	}
}

// TestFlush checks that exported items sit in the buffer until a flush, and that Flush
// writes them through, gzip included.
// TestExportWritesThrough checks that an exported item is in the file when Export returns,
// gzipped too (as a sync block), with nothing left to flush.
func TestExportWritesThrough(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"items.jsonl", "items.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), name)
			f := openFeed(t, path, feed.Config{}, quietEnv)
			defer f.Close()
			if err := f.Export(item("a", 1.0)); err != nil {
				t.Fatal(err)
			}
			if got := readPartial(t, path); got != "{\"a\":1}\n" {
				t.Fatalf("after Export the file has %q", got)
			}
			if err := f.Flush(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// readPartial reads a file that may be an unfinished gzip stream.
func readPartial(t *testing.T, path string) string {
	t.Helper()
	b := readFile(t, path)
	if !strings.HasSuffix(path, ".gz") || b == "" {
		return b
	}
	zr, err := gzip.NewReader(strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	return string(got)
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestCloseReportsWriteErrors(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk full")
	env := stdoutEnv(failWriter{errDisk})
	f := openFeed(t, "-", feed.Config{Format: "json"}, env)
	err := f.Export(item("a", 1.0))
	var se *feed.StorageError
	if !errors.Is(err, errDisk) || !errors.As(err, &se) {
		t.Fatalf("Export = %v, want the write error as a StorageError", err)
	}
	err = f.Close()
	if !errors.Is(err, errDisk) {
		t.Fatalf("Close = %v, want the write error", err)
	}
	if again := f.Close(); !errors.Is(again, errDisk) {
		t.Errorf("second Close = %v, want the same error", again)
	}
	if err := f.Export(item("a", 2.0)); !errors.Is(err, feed.ErrClosed) {
		t.Errorf("Export after Close = %v, want ErrClosed", err)
	}
}

func TestCloseIdempotent(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	env := stdoutEnv(&out)
	f := openFeed(t, "stdout:", feed.Config{Format: "json"}, env)
	for range 3 {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != "[]\n" {
		t.Errorf("got %q, want one empty array", out.String())
	}
	if err := f.Flush(); !errors.Is(err, feed.ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
}

// TestExportErrorKeepsFeed checks that an item that cannot be encoded is reported and
// skipped without breaking the feed.
func TestExportErrorKeepsFeed(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	env := stdoutEnv(&out)
	f := openFeed(t, "-", feed.Config{Format: "jsonl"}, env)
	if err := f.Export(item("a", func() {})); err == nil {
		t.Error("exporting a func: no error")
	}
	if err := f.Export(item("a", 1.0)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"a\":1}\n" || f.Count() != 1 {
		t.Errorf("got %q, %d items", out.String(), f.Count())
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t.Cleanup(func() { // after the parallel subtests
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("failed opens left %d files behind", len(entries))
		}
	})
	for _, tc := range []struct {
		name string
		uri  string
		cfg  feed.Config
		env  feed.Env
		want string
	}{
		{"unsupported storage", "gs://bucket/items.json", feed.Config{}, quietEnv, `unsupported feed storage "gs"`},
		{"stdout without format", "-", feed.Config{}, quietEnv, "needs a format"},
		{"no format", filepath.Join(dir, "items"), feed.Config{}, quietEnv, "cannot tell the feed format"},
		{"unknown format", filepath.Join(dir, "x.json"), feed.Config{Format: "yaml"}, quietEnv, `unknown feed format "yaml"`},
		{"folder as target", dir, feed.Config{Format: "csv"}, quietEnv, "is a folder"},
		{"unknown placeholder", filepath.Join(dir, "%(foo)s.json"), feed.Config{}, quietEnv, "unknown placeholder %(foo)s"},
		{"no spider name", filepath.Join(dir, "%(name)s.json"), feed.Config{}, feed.Env{}, "no name"},
		{"no worker id", filepath.Join(dir, "%(worker)s.json"), feed.Config{}, quietEnv, "no worker id"},
		{"batches", filepath.Join(dir, "x.json"), feed.Config{BatchItemCount: 10}, quietEnv, "batchItemCount"},
		{"encoding", filepath.Join(dir, "x.json"), feed.Config{Encoding: "cp1252"}, quietEnv, "encoding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := feed.Open(tc.uri, tc.cfg, tc.env)
			if err == nil {
				f.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestAppendToEmptyJSON checks that -o onto an existing but empty .json file is allowed.
func TestAppendToEmptyJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFeed(t, path, feed.Config{}, quietEnv, item("a", 1.0))
	if got := readFile(t, path); got != "[\n{\"a\":1}\n]\n" {
		t.Errorf("got %q", got)
	}
}

// TestItemFilter: a feed with an ItemFilter writes only the items it accepts, and batches
// count written items only.
func TestItemFilter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cheap := func(it types.Item) (bool, error) {
		p, _ := it.Get("price")
		return p.(float64) < 10, nil
	}
	writeFeed(t, filepath.Join(dir, "cheap-%(batch_id)d.jsonl"), feed.Config{ItemFilter: cheap, BatchItemCount: 2}, quietEnv,
		item("name", "a", "price", 5.0), item("name", "b", "price", 50.0), item("name", "c", "price", 7.0), item("name", "d", "price", 9.0))
	if got := readFile(t, filepath.Join(dir, "cheap-1.jsonl")); got != `{"name":"a","price":5}`+"\n"+`{"name":"c","price":7}`+"\n" {
		t.Errorf("batch 1 = %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "cheap-2.jsonl")); got != `{"name":"d","price":9}`+"\n" {
		t.Errorf("batch 2 = %q", got)
	}
	f, err := feed.Open(filepath.Join(dir, "x.jsonl"), feed.Config{ItemFilter: func(types.Item) (bool, error) {
		return false, errors.New("boom")
	}}, quietEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Export(item("a", 1)); err == nil || !strings.Contains(err.Error(), "itemFilter: boom") {
		t.Errorf("a failing filter: err = %v", err)
	}
}
