package feed_test

import (
	"bytes"
	"flag"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// sampleItems covers the value kinds an item can hold: nested objects and arrays, unicode,
// text that HTML escaping would change, integral and fractional numbers, booleans, nil and
// a key missing from the first item.
func sampleItems() []types.Item {
	return []types.Item{
		{
			{Key: "name", Value: "Café <b>&</b> \"quotes\", commas"},
			{Key: "price", Value: 3.0},
			{Key: "stock", Value: int64(12)},
			{Key: "tags", Value: []any{"a", 2.5, true, nil}},
			{Key: "seller", Value: types.Item{{Key: "id", Value: 7.0}, {Key: "city", Value: "Zürich"}}},
		},
		{
			{Key: "name", Value: "日本語 line\nbreak"},
			{Key: "price", Value: 0.1},
			{Key: "extra", Value: "not a column"},
			{Key: "seller", Value: nil},
			{Key: "ok", Value: false},
		},
		{
			{Key: "price", Value: 1e21},
			{Key: "name", Value: "tiny"},
			{Key: "stock", Value: 1e-7},
			{Key: "tags", Value: []any{types.Item{{Key: "x<y", Value: "a&b"}}, []any{1.0, 2.0}}},
		},
	}
}

func TestFormatsGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		format string
		cfg    feed.Config
		items  []types.Item
	}{
		{name: "jsonl", format: "jsonl", items: sampleItems()},
		{name: "jsonl_fields", format: "jl", cfg: feed.Config{Fields: []string{"stock", "name"}}, items: sampleItems()},
		{name: "json", format: "json", items: sampleItems()},
		{name: "json_indent", format: "json", cfg: feed.Config{Indent: 2}, items: sampleItems()},
		{name: "json_empty", format: "json"},
		{name: "csv", format: "csv", items: sampleItems()},
		{name: "csv_fields", format: "csv", cfg: feed.Config{Fields: []string{"price", "name", "missing"}}, items: sampleItems()},
		{name: "csv_empty", format: "csv"},
		{name: "xml", format: "xml", items: sampleItems()},
		{name: "xml_indent", format: "xml", cfg: feed.Config{Indent: 2}, items: sampleItems()},
		{name: "xml_fields", format: "xml", cfg: feed.Config{Fields: []string{"tags", "name"}}, items: sampleItems()},
		{name: "xml_empty", format: "xml"},
		{name: "xml_names", format: "xml", items: []types.Item{{{Key: "1st key", Value: "v"}, {Key: "ok-name.2", Value: "w"}, {Key: "", Value: "x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			exp, err := feed.New(tc.format, &out, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range tc.items {
				if err := exp.Export(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := exp.Close(); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name, out.Bytes())
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// TestJSONValid checks that the JSON array output parses, with and without items.
func TestJSONValid(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 3} {
		var out bytes.Buffer
		exp, err := feed.New("json", &out, feed.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := exp.Export(types.Item{{Key: "i", Value: float64(i)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := exp.Close(); err != nil {
			t.Fatal(err)
		}
		var got []map[string]any
		if err := jsonUnmarshal(out.Bytes(), &got); err != nil || len(got) != n {
			t.Errorf("%d items: %q does not parse to %d objects (%v)", n, out.String(), n, err)
		}
	}
}

// TestCSVWarnsOncePerKey checks that a key outside the header is logged once, not per item.
func TestCSVWarnsOncePerKey(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	dir := t.TempDir()
	f, err := feed.Open(filepath.Join(dir, "out.csv"), feed.Config{}, feed.Env{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range []types.Item{
		{{Key: "a", Value: "1"}},
		{{Key: "a", Value: "2"}, {Key: "b", Value: "x"}},
		{{Key: "b", Value: "y"}, {Key: "c", Value: "z"}},
		{{Key: "b", Value: "y"}},
	} {
		if err := f.Export(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	log := logs.String()
	for key, want := range map[string]int{"field=b": 1, "field=c": 1, "field=a": 0} {
		if got := strings.Count(log, key); got != want {
			t.Errorf("%q logged %d times, want %d; log:\n%s", key, got, want, log)
		}
	}
	if !strings.Contains(log, "level=WARN") {
		t.Errorf("no warning in log:\n%s", log)
	}
	got, err := os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n1\n2\n\"\"\n\"\"\n"; string(got) != want {
		t.Errorf("csv = %q, want %q", got, want)
	}
}

// TestNumbers checks that CSV writes numbers as JavaScript prints them.
func TestNumbers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    any
		want string
	}{
		{3.0, "3"}, {-2.5, "-2.5"}, {0.1, "0.1"}, {math.Copysign(0, -1), "0"}, {1e21, "1e+21"},
		{123456789012345680000.0, "123456789012345680000"}, {1e-7, "1e-7"}, {0.000001, "0.000001"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{int64(-42), "-42"}, {7, "7"}, {true, "true"}, {nil, "\"\""},
	} {
		var out bytes.Buffer
		exp, err := feed.New("csv", &out, feed.Config{Fields: []string{"v"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := exp.Export(types.Item{{Key: "v", Value: tc.v}}); err != nil {
			t.Fatal(err)
		}
		if err := exp.Close(); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimPrefix(out.String(), "v\n"); got != tc.want+"\n" {
			t.Errorf("%v: got %q, want %q", tc.v, got, tc.want+"\n")
		}
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, format string
		cfg          feed.Config
		want         string
	}{
		{"unknown format", "yaml", feed.Config{}, "csv, json, jsonl, xml"},
		{"encoding", "jsonl", feed.Config{Encoding: "latin-1"}, "encoding"},
		{"negative indent", "json", feed.Config{Indent: -1}, "indent"},
		{"empty field name", "csv", feed.Config{Fields: []string{"a", ""}}, "fields[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := feed.New(tc.format, &bytes.Buffer{}, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func BenchmarkJSONLinesExport(b *testing.B) {
	items := sampleItems()
	exp, err := feed.New("jsonl", discard{}, feed.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := exp.Export(items[i%len(items)]); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
