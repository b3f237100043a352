package feed_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
)

func TestParseFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg       string
		overwrite bool
		uri       string
		format    string
		err       string
	}{
		{arg: "items.jsonl", uri: "items.jsonl", format: "jsonl"},
		{arg: "items.jl", uri: "items.jl", format: "jsonl"},
		{arg: "items.json", overwrite: true, uri: "items.json", format: "json"},
		{arg: "out.csv", uri: "out.csv", format: "csv"},
		{arg: "out/ITEMS.XML", uri: "out/ITEMS.XML", format: "xml"},
		{arg: "items.jsonl.gz", uri: "items.jsonl.gz", format: "jsonl"},
		{arg: "-:jsonl", uri: "-", format: "jsonl"},
		{arg: "stdout::csv", uri: "stdout:", format: "csv"},
		{arg: "file.txt:jsonl", uri: "file.txt", format: "jsonl"},
		{arg: "items.json:csv", uri: "items.json", format: "csv"},
		{arg: "a:b.json", uri: "a:b.json", format: "json"},
		{arg: "file:///tmp/x.xml", uri: "file:///tmp/x.xml", format: "xml"},
		{arg: "%(name)s-%(time)s.jsonl", uri: "%(name)s-%(time)s.jsonl", format: "jsonl"},
		{arg: "items.txt", err: `feed "items.txt": unknown format "txt"`},
		{arg: "items", err: `feed "items": unknown format ""`},
		{arg: "-", uri: "-", format: "jsonl"}, // stdout streams JSON Lines by default
		{arg: "file.txt:yaml", err: `feed "file.txt:yaml"`},
		{arg: ":json", err: "no uri before"},
		{arg: "", err: "empty"},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			t.Parallel()
			uri, cfg, err := feed.ParseFlag(tc.arg, tc.overwrite)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if strings.HasPrefix(tc.err, "feed") && !strings.Contains(err.Error(), "csv, json, jsonl, xml") {
					t.Errorf("error %q does not list the formats", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := feed.Config{Format: tc.format, Overwrite: tc.overwrite}
			if uri != tc.uri || !reflect.DeepEqual(cfg, want) {
				t.Errorf("got %q %+v, want %q %+v", uri, cfg, tc.uri, want)
			}
		})
	}
}

func TestFromSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		feeds map[string]any
		want  map[string]feed.Config
		err   string
	}{
		{name: "empty", feeds: map[string]any{}, want: map[string]feed.Config{}},
		{
			name: "full",
			feeds: map[string]any{
				"items.json": map[string]any{"format": "json", "overwrite": true, "fields": []any{"b", "a"},
					"indent": 4.0, "encoding": "utf8", "batch_item_count": 0.0},
				"out/%(name)s.csv": map[string]any{},
				"stdout:":          map[string]any{"format": "jl", "overwrite": "false"},
				"data.bin":         map[string]any{"format": "xml", "fields": "a, b"},
			},
			want: map[string]feed.Config{
				"items.json":       {Format: "json", Overwrite: true, Fields: []string{"b", "a"}, Indent: 4, Encoding: "utf8"},
				"out/%(name)s.csv": {Format: "csv"},
				"stdout:":          {Format: "jsonl"},
				"data.bin":         {Format: "xml", Fields: []string{"a", "b"}},
			},
		},
		{name: "camelCase batchItemCount", feeds: map[string]any{"b-%(batch_id)d.jsonl": map[string]any{"batchItemCount": 5.0}},
			want: map[string]feed.Config{"b-%(batch_id)d.jsonl": {Format: "jsonl", BatchItemCount: 5}}},
		{name: "itemFilter from -s", feeds: map[string]any{"x.jsonl": map[string]any{"itemFilter": "x => true"}}, err: "JS function"},
		{name: "nil options", feeds: map[string]any{"x.jsonl": nil}, want: map[string]feed.Config{"x.jsonl": {Format: "jsonl"}}},
		{name: "unknown option", feeds: map[string]any{"x.json": map[string]any{"fromat": "csv"}}, err: `FEEDS "x.json": unknown option "fromat"`},
		{name: "unknown format", feeds: map[string]any{"x.json": map[string]any{"format": "yaml"}}, err: `unknown format "yaml"`},
		{name: "no format", feeds: map[string]any{"x.txt": map[string]any{}}, err: "no format"},
		{name: "stdout without format", feeds: map[string]any{"-": map[string]any{}}, err: "no format"},
		{name: "bad overwrite", feeds: map[string]any{"x.json": map[string]any{"overwrite": 3.0}}, err: "overwrite"},
		{name: "bad indent", feeds: map[string]any{"x.json": map[string]any{"indent": 1.5}}, err: "indent"},
		{name: "bad fields", feeds: map[string]any{"x.json": map[string]any{"fields": []any{1.0}}}, err: "fields"},
		{name: "bad encoding", feeds: map[string]any{"x.json": map[string]any{"encoding": "latin1"}}, err: "encoding"},
		{name: "not an object", feeds: map[string]any{"x.json": "json"}, err: "object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := feed.FromSettings(tc.feeds)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
