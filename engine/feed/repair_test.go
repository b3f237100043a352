package feed_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
)

// TestAppendAfterKill checks -o onto files a killed run left behind: a partial last record
// is cut with a warning giving the bytes cut, and a JSON array or XML document left
// unclosed is continued so that the file is valid again after the run.
func TestAppendAfterKill(t *testing.T) {
	t.Parallel()
	const xmlHead = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n"
	for _, tc := range []struct {
		name, file, before string
		want               string // after appending a=1
		warn               string // "" for no warning
	}{
		{name: "jsonl partial line", file: "x.jsonl", before: "{\"a\":0}\n{\"a\":", want: "{\"a\":0}\n{\"a\":1}\n", warn: "cut the last 5 bytes"},
		{name: "jsonl only a partial line", file: "x.jsonl", before: "{\"a\"", want: "{\"a\":1}\n", warn: "cut the last 4 bytes"},
		{name: "jsonl whole", file: "x.jsonl", before: "{\"a\":0}\n", want: "{\"a\":0}\n{\"a\":1}\n"},
		{name: "csv partial row", file: "x.csv", before: "a\n0\n12", want: "a\n0\n1\n", warn: "cut the last 2 bytes"},
		{name: "csv partial quoted field", file: "x.csv", before: "a\n0\n\"x\ny", want: "a\n0\n1\n", warn: "cut the last 4 bytes"},
		{name: "csv partial header", file: "x.csv", before: "a,", want: "a\n1\n", warn: "cut the last 2 bytes"},
		{name: "json unclosed", file: "x.json", before: "[\n{\"a\":0}", want: "[\n{\"a\":0},\n{\"a\":1}\n]\n", warn: "left unclosed"},
		{name: "json partial item", file: "x.json", before: "[\n{\"a\":0},\n{\"a\":[1,", want: "[\n{\"a\":0},\n{\"a\":1}\n]\n", warn: "cut 10 bytes"},
		{name: "json only the bracket", file: "x.json", before: "[\n", want: "[\n{\"a\":1}\n]\n", warn: "left unclosed"},
		{name: "xml unclosed", file: "x.xml", before: xmlHead + "<item><a>0</a></item>\n", want: xmlHead + "<item><a>0</a></item>\n<item><a>1</a></item>\n</items>\n", warn: "left unclosed"},
		{name: "xml partial item", file: "x.xml", before: xmlHead + "<item><a>0</a></item>\n<item><a>", want: xmlHead + "<item><a>0</a></item>\n<item><a>1</a></item>\n</items>\n", warn: "cut 9 bytes"},
		{name: "xml partial header", file: "x.xml", before: "<?xml vers", want: xmlHead + "<item><a>1</a></item>\n</items>\n", warn: "left unclosed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := tempFile(t, tc.file, tc.before)
			var logs bytes.Buffer
			env := quietEnv
			env.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			writeFeed(t, path, feed.Config{}, env, item("a", 1.0))
			if got := readFile(t, path); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			warns := strings.Count(logs.String(), "level=WARN")
			switch {
			case tc.warn == "" && warns > 0:
				t.Errorf("unexpected warning:\n%s", logs.String())
			case tc.warn != "" && (warns != 1 || !strings.Contains(logs.String(), tc.warn) || !strings.Contains(logs.String(), path)):
				t.Errorf("want one warning naming the file and saying %q, log:\n%s", tc.warn, logs.String())
			}
		})
	}
}

// TestAppendCSVOtherColumns checks -o onto a CSV file whose header has other columns: the
// file's columns are written in its order with one warning naming the fields not written
// and the columns left empty; columns that share nothing with the items are refused
// rather than filled with empty rows.
func TestAppendCSVOtherColumns(t *testing.T) {
	t.Parallel()
	newEnv := func(logs *bytes.Buffer) feed.Env {
		env := quietEnv
		env.Logger = slog.New(slog.NewTextHandler(logs, nil))
		return env
	}
	t.Run("some shared", func(t *testing.T) {
		t.Parallel()
		path := tempFile(t, "x.csv", "name,price,stock\nold,1,2\n")
		var logs bytes.Buffer
		writeFeed(t, path, feed.Config{}, newEnv(&logs), item("price", 3.0, "name", "new", "url", "u"), item("name", "b", "url", "v"))
		if got, want := readFile(t, path), "name,price,stock\nold,1,2\nnew,3,\nb,,\n"; got != want {
			t.Errorf("file = %q, want %q", got, want)
		}
		log := logs.String()
		if strings.Count(log, "level=WARN") != 1 || !strings.Contains(log, "fields not written [url]") || !strings.Contains(log, "columns left empty [stock]") {
			t.Errorf("want one warning naming url and stock, log:\n%s", log)
		}
	})
	t.Run("none shared", func(t *testing.T) {
		t.Parallel()
		path := tempFile(t, "x.csv", "name,price\nold,1\n")
		var logs bytes.Buffer
		f := openFeed(t, path, feed.Config{}, newEnv(&logs))
		err := f.Export(item("title", "x"))
		var se *feed.StorageError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "share none") || !strings.Contains(err.Error(), "-O") {
			t.Errorf("Export = %v, want a StorageError saying the columns share none", err)
		}
		if err := f.Export(item("name", "x")); !errors.As(err, &se) {
			t.Errorf("a second Export = %v, want the feed to stay failed", err)
		}
		f.Close()
		if got := readFile(t, path); got != "name,price\nold,1\n" {
			t.Errorf("file = %q, want it unchanged", got)
		}
	})
	t.Run("fields share none", func(t *testing.T) {
		t.Parallel()
		path := tempFile(t, "x.csv", "name,price\n")
		_, err := feed.Open(path, feed.Config{Fields: []string{"title"}}, quietEnv)
		if err == nil || !strings.Contains(err.Error(), "share none") {
			t.Errorf("Open = %v, want an error saying the fields share none of the columns", err)
		}
	})
}

// TestAppendKeepsValidJSON appends three runs to one JSON file, the middle one killed
// (simulated by a file cut in the middle of an item), and checks the array parses.
func TestAppendKeepsValidJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.json")
	writeFeed(t, path, feed.Config{}, quietEnv, item("run", 1.0))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := readFile(t, path)
	if err := f.Truncate(int64(strings.LastIndex(b, "]"))); err != nil { // a killed run: no "]"
		t.Fatal(err)
	}
	fmt.Fprint(f, ",\n{\"run\":2},\n{\"run\":") // and a partial item
	f.Close()
	writeFeed(t, path, feed.Config{}, quietEnv, item("run", 3.0))
	var got []map[string]float64
	if err := jsonUnmarshal([]byte(readFile(t, path)), &got); err != nil {
		t.Fatalf("%v in %q", err, readFile(t, path))
	}
	if len(got) != 3 || got[0]["run"] != 1 || got[1]["run"] != 2 || got[2]["run"] != 3 {
		t.Errorf("items %v", got)
	}
}

// TestAppendCutGzip checks that -o onto a .gz feed whose stream a killed run cut short is
// refused with a way to recover it, rather than appended where gzip readers never get.
func TestAppendCutGzip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.jsonl.gz")
	writeFeed(t, path, feed.Config{}, quietEnv, item("a", 1.0))
	writeFeed(t, path, feed.Config{}, quietEnv, item("a", 2.0)) // a whole member: appends
	if got := readPartial(t, path); got != "{\"a\":1}\n{\"a\":2}\n" {
		t.Fatalf("two runs give %q", got)
	}
	f := openFeed(t, path, feed.Config{}, quietEnv)
	if err := f.Export(item("a", 3.0)); err != nil { // written through, then killed: no trailer
		t.Fatal(err)
	}
	before := readFile(t, path)
	_, err := feed.Open(path, feed.Config{}, quietEnv)
	if err == nil || !strings.Contains(err.Error(), "cut short") || !strings.Contains(err.Error(), "gzip -dc") {
		t.Errorf("Open after a kill = %v, want an error saying the stream is cut short and how to save it", err)
	}
	if readFile(t, path) != before {
		t.Error("the refused Open changed the file")
	}
	if got := readPartial(t, path); got != "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n" {
		t.Errorf("the killed run's item is not readable: %q", got)
	}
	f.Close()
}
