package feed_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"
)

// numbered is item n of a test feed; its text needs quoting and escaping in every format.
func numbered(n int) types.Item {
	return item("n", float64(n), "s", fmt.Sprintf("item %d: \"q\", <b> & c\nline 2", n))
}

// exportRange exports items from to to-1.
func exportRange(t *testing.T, f *feed.Feed, from, to int) {
	t.Helper()
	for n := from; n < to; n++ {
		if err := f.Export(numbered(n)); err != nil {
			t.Fatal(err)
		}
	}
}

// seq returns from, from+1, ..., to-1 after the numbers in before.
func seq(before []int, from, to int) []int {
	out := slices.Clone(before)
	for n := from; n < to; n++ {
		out = append(out, n)
	}
	return out
}

// closeHolding closes f and checks that the feed at path then holds the items numbered
// want, in order.
func closeHolding(t *testing.T, f *feed.Feed, path string, want []int) {
	t.Helper()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := feedNumbers(t, path); !slices.Equal(got, want) {
		t.Errorf("after Close: items %v, want %v", got, want)
	}
}

// feedNumbers parses the whole feed file at path in the format its extension names (after
// gunzipping all its members) and returns the item numbers in file order. A file that is
// not a valid document of its format, or a CSV file with its header more than once, fails
// the test.
func feedNumbers(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := path
	if strings.HasSuffix(name, ".gz") {
		name = strings.TrimSuffix(name, ".gz")
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if data, err = io.ReadAll(zr); err != nil { // every member, to the end
			t.Fatalf("%s is not a whole gzip file: %v", path, err)
		}
	}
	var nums []int
	switch filepath.Ext(name) {
	case ".jsonl":
		if len(data) > 0 && data[len(data)-1] != '\n' {
			t.Fatalf("%s does not end in a line end: %q", path, data)
		}
		for line := range strings.Lines(string(data)) {
			var v struct{ N int }
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%s: line %q: %v", path, line, err)
			}
			nums = append(nums, v.N)
		}
	case ".json":
		var v []struct{ N int }
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s is not a JSON array: %v\n%s", path, err, data)
		}
		for _, e := range v {
			nums = append(nums, e.N)
		}
	case ".csv":
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		col := slices.Index(rows[0], "n")
		if col < 0 {
			t.Fatalf("%s: header %v has no n", path, rows[0])
		}
		for _, row := range rows[1:] {
			if slices.Equal(row, rows[0]) {
				t.Fatalf("%s has its header again:\n%s", path, data)
			}
			n, err := strconv.Atoi(row[col])
			if err != nil {
				t.Fatalf("%s: row %v: %v", path, row, err)
			}
			nums = append(nums, n)
		}
	case ".xml":
		var doc struct {
			XMLName xml.Name `xml:"items"`
			Items   []struct {
				N int `xml:"n"`
			} `xml:"item"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s is not an XML feed: %v\n%s", path, err, data)
		}
		for _, e := range doc.Items {
			nums = append(nums, e.N)
		}
	default:
		t.Fatalf("no parser for %s", path)
	}
	return nums
}

// logEnv returns quietEnv with a logger into logs.
func logEnv(logs *bytes.Buffer) feed.Env {
	env := quietEnv
	env.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return env
}

// childConfig is the part of feed.Config that the killed child of TestResumeAfterKill uses.
type childConfig struct {
	Fields []string
	Indent int
}

// The formats every job test runs, as file names with their options.
var jobFormats = []struct {
	file string
	cfg  childConfig
}{
	{file: "items.jsonl"},
	{file: "items.json"},
	{file: "items.json", cfg: childConfig{Indent: 2}},
	{file: "items.csv"},
	{file: "items.csv", cfg: childConfig{Fields: []string{"s", "n"}}},
	{file: "items.xml"},
	{file: "items.xml", cfg: childConfig{Indent: 2}},
	{file: "items.jsonl.gz"},
	{file: "items.csv.gz"},
	{file: "items.json.gz"},
	{file: "items.xml.gz"},
}

// TestKilledWriter is the child process of TestResumeAfterKill; it does nothing in a normal
// run. It opens the feed (-O), exports FEED_N items, syncs and prints the position, exports
// FEED_M more (numbered from 1000: they must not survive), prints "ready" and waits to be
// killed.
func TestKilledWriter(t *testing.T) {
	path := os.Getenv("FEED_CHILD_PATH")
	if path == "" {
		t.Skip("child process of TestResumeAfterKill")
	}
	var cc childConfig
	if err := json.Unmarshal([]byte(os.Getenv("FEED_CHILD_CONFIG")), &cc); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(os.Getenv("FEED_N"))
	m, _ := strconv.Atoi(os.Getenv("FEED_M"))
	f := openFeed(t, path, feed.Config{Overwrite: true, Fields: cc.Fields, Indent: cc.Indent}, quietEnv)
	exportRange(t, f, 0, n)
	pos, err := f.Sync()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(pos)
	fmt.Printf("%s\n", b)
	exportRange(t, f, 1000, 1000+m)
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed: the parent never closes stdin
	t.Fatal("not killed")
}

// TestResumeAfterKill runs a real process that writes a feed, syncs it and writes more
// items after the sync, kills it with SIGKILL (and for each format once more with a torn
// record after the kill, as a kill in the middle of a write leaves), resumes the feed at
// the synced position and writes more: the file must be a valid document of the items
// before the sync and after the resume, once each and in order.
func TestResumeAfterKill(t *testing.T) {
	t.Parallel()
	const n, m, k = 5, 3, 4
	for _, format := range jobFormats {
		for _, torn := range []bool{false, true} {
			name := fmt.Sprintf("%s%+v torn=%v", format.file, format.cfg, torn)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), format.file)
				pos := runKilledWriter(t, path, format.cfg, n, m)
				if pos.Items != n || pos.URI != path || pos.Stdout {
					t.Fatalf("synced position %+v, want %d items of %s", pos, n, path)
				}
				if size := fileSize(t, path); size <= pos.Offset {
					t.Fatalf("file has %d bytes, want more than the %d synced: the items after the sync are missing", size, pos.Offset)
				}
				if torn {
					tear(t, path)
				}
				var logs bytes.Buffer
				cfg := feed.Config{Overwrite: true, Fields: format.cfg.Fields, Indent: format.cfg.Indent}
				f, err := feed.Resume(path, cfg, logEnv(&logs), pos)
				if err != nil {
					t.Fatal(err)
				}
				if f.Count() != n {
					t.Errorf("resumed Count() = %d, want %d", f.Count(), n)
				}
				exportRange(t, f, n, n+k)
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				if got, want := feedNumbers(t, path), seq(nil, 0, n+k); !slices.Equal(got, want) {
					t.Errorf("items %v, want %v", got, want)
				}
				if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "cut the ") {
					t.Errorf("no warning about the bytes cut:\n%s", logs.String())
				}
			})
		}
	}
}

// runKilledWriter runs TestKilledWriter on path and kills it with SIGKILL once it has
// written its items; it returns the position the child synced.
func runKilledWriter(t *testing.T, path string, cc childConfig, n, m int) feed.Position {
	t.Helper()
	cfgJSON, _ := json.Marshal(cc)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FEED_CHILD_PATH="+path, "FEED_CHILD_CONFIG="+string(cfgJSON),
		fmt.Sprintf("FEED_N=%d", n), fmt.Sprintf("FEED_M=%d", m))
	stdin, stdout, stderr := enginetest.StartPiped(t, cmd)
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	var pos feed.Position
	ready := false
	for !ready && lines.Scan() {
		line := lines.Text()
		switch {
		case strings.HasPrefix(line, "{"):
			if err := json.Unmarshal([]byte(line), &pos); err != nil {
				t.Fatal(err)
			}
		case line == "ready":
			ready = true
		}
	}
	if !ready {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child ended before writing its items:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v, want killed by SIGKILL\n%s", err, stderr.String())
	}
	return pos
}

// tear appends half a record to path, as a kill in the middle of a write leaves one: the
// first half of an item (of a gzip member holding one, for .gz).
func tear(t *testing.T, path string) {
	t.Helper()
	rec := []byte("{\"n\":77,\"s\":\"<item><n>77</n>\n")
	if strings.HasSuffix(path, ".gz") {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(rec)
		_ = zw.Close()
		rec = b.Bytes()
	}
	file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := file.Write(rec[:len(rec)/2]); err != nil {
		t.Fatal(err)
	}
}

// TestResumeCycles runs a feed through three crashes, each after a sync and more items,
// and a clean stop, resuming each time at the last position, as a job does; -o feeds
// start on files with items of their own, which stay. At the end the file must be a valid
// document holding the file's own items then every synced item once, in order, with one
// warning per crash and none for the clean stop.
func TestResumeCycles(t *testing.T) {
	t.Parallel()
	const xmlHead = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n"
	type tc struct {
		name, file string
		cfg        feed.Config
		before     string // the file's content before the job; "" for none
		prior      bool   // before the job, a run writes the items -2 and -1 to the file
		own        []int  // the item numbers in before
	}
	cases := []tc{
		{name: "jsonl -o", file: "x.jsonl", before: "{\"n\":-2}\n{\"n\":-1}\n", own: []int{-2, -1}},
		{name: "json -o", file: "x.json", before: "[\n{\"n\":-2},\n{\"n\":-1}\n]\n", own: []int{-2, -1}},
		{name: "json -o unclosed", file: "x.json", before: "[\n{\"n\":-2},\n{\"n\":-1", own: []int{-2}},
		{name: "csv -o", file: "x.csv", before: "n,s\n-2,a\n-1,b\n", own: []int{-2, -1}},
		{name: "xml -o", file: "x.xml", before: xmlHead + "<item><n>-2</n></item>\n<item><n>-1</n></item>\n</items>\n", own: []int{-2, -1}},
		{name: "xml -o without line ends", file: "x.xml", before: xmlHead[:len(xmlHead)-1] + "<item><n>-1</n></item></items>", own: []int{-1}},
		{name: "json -O", file: "x.json", cfg: feed.Config{Overwrite: true}, before: "[\n{\"n\":-1}\n]\n"},
		{name: "jsonl.gz -o", file: "x.jsonl.gz", prior: true, own: []int{-2, -1}},
		{name: "csv.gz -o", file: "x.csv.gz", prior: true, own: []int{-2, -1}},
		{name: "json -o of a feed", file: "x.json", prior: true, own: []int{-2, -1}},
	}
	for _, format := range jobFormats {
		cases = append(cases, tc{name: fmt.Sprintf("%s%+v -O", format.file, format.cfg), file: format.file,
			cfg: feed.Config{Overwrite: true, Fields: format.cfg.Fields, Indent: format.cfg.Indent}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := tempFile(t, tc.file, tc.before)
			if tc.prior {
				writeFeed(t, path, feed.Config{}, quietEnv, numbered(-2), numbered(-1))
			}
			var logs bytes.Buffer
			env := logEnv(&logs)
			f := openFeed(t, path, tc.cfg, env)
			logs.Reset()        // the -o repair's own warnings
			pos := f.Position() // the job's first commit, before any item
			var err error
			next := 0
			for cycle := range 3 {
				exportRange(t, f, next, next+3)
				next += 3
				if pos, err = f.Sync(); err != nil {
					t.Fatal(err)
				}
				if pos.Items != int64(next) {
					t.Fatalf("cycle %d: position %+v, want %d items", cycle, pos, next)
				}
				exportRange(t, f, 1000, 1002) // after the commit: lost in the crash
				feed.Crash(f)
				if f, err = feed.Resume(path, tc.cfg, env, pos); err != nil {
					t.Fatal(err)
				}
			}
			if got := strings.Count(logs.String(), "level=WARN"); got != 3 {
				t.Errorf("%d warnings, want one per crash:\n%s", got, logs.String())
			}
			// A clean stop (a pause): Close, then resume at the position after it.
			exportRange(t, f, next, next+2)
			next += 2
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if got := feedNumbers(t, path); !slices.Equal(got, seq(tc.own, 0, next)) {
				t.Fatalf("after Close: items %v, want %v", got, seq(tc.own, 0, next))
			}
			pos, err = f.Sync()
			if err != nil || pos != f.Position() || pos.Items != int64(next) {
				t.Fatalf("Sync after Close = %+v, %v; want %+v with %d items", pos, err, f.Position(), next)
			}
			logs.Reset()
			if f, err = feed.Resume(path, tc.cfg, env, pos); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(logs.String(), "level=WARN") {
				t.Errorf("resuming after a clean stop warns:\n%s", logs.String())
			}
			exportRange(t, f, next, next+2)
			next += 2
			closeHolding(t, f, path, seq(tc.own, 0, next))
			if want := fmt.Sprintf("msg=\"stored feed\" format=%s items=%d ", f.Format(), next); !strings.Contains(logs.String(), want) {
				t.Errorf("the stored feed line does not count the job's %d items:\n%s", next, logs.String())
			}
		})
	}
}

// TestResumeFreshOverwrite checks a -O job killed before its first sync: it resumes at
// offset 0 (its first commit, right after the open truncated the file) and the file holds
// only the items written after the resume.
func TestResumeFreshOverwrite(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x.json", "x.csv", "x.xml", "x.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), name)
			writeFeed(t, path, feed.Config{}, quietEnv, numbered(-1)) // an earlier crawl's
			cfg := feed.Config{Overwrite: true}
			f, err := feed.Open(path, cfg, quietEnv)
			if err != nil {
				t.Fatal(err)
			}
			pos := f.Position()
			if want := (feed.Position{URI: path, Format: f.Format()}); pos != want {
				t.Fatalf("position of a fresh -O feed %+v, want %+v", pos, want)
			}
			exportRange(t, f, 1000, 1003)
			feed.Crash(f)
			if f, err = feed.Resume(path, cfg, quietEnv, pos); err != nil {
				t.Fatal(err)
			}
			exportRange(t, f, 0, 2)
			closeHolding(t, f, path, []int{0, 1})
		})
	}
}

// TestResumeRefused checks that Resume refuses a file the job did not leave as it
// committed it, and batch feeds, and leaves the file as it was.
func TestResumeRefused(t *testing.T) {
	t.Parallel()
	const content = "{\"n\":0}\n{\"n\":1}\n"
	for _, tc := range []struct {
		name    string
		file    string // "" for no file
		uri     string // default: the file
		cfg     feed.Config
		pos     feed.Position // URI defaults to the file
		wantErr string
	}{
		{name: "shorter", file: content, pos: feed.Position{Offset: 100, Items: 12}, wantErr: "has 16 bytes, fewer than the 100 of the job's last commit"},
		{name: "missing", pos: feed.Position{Offset: 8, Items: 1}, wantErr: "is missing"},
		{name: "not a record end", file: content, pos: feed.Position{Offset: 5}, wantErr: "does not end a record at byte 5"},
		{name: "json not a record end", uri: "x.json", file: "[\n{\"n\":0},\n{\"n\":1}\n]\n", pos: feed.Position{Offset: 10}, wantErr: "does not end a record at byte 10"},
		{name: "xml not a record end", uri: "x.txt", cfg: feed.Config{Format: "xml"}, file: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<items>\n<item><n>0</n></item>\n</items>\n", pos: feed.Position{Offset: 52}, wantErr: "does not end a record at byte 52"},
		{name: "csv not a record end", uri: "x.csv", file: "n\n0\n", pos: feed.Position{Offset: 3}, wantErr: "does not end a record"},
		{name: "batches", uri: "x-%(batch_time)s.jsonl", cfg: feed.Config{BatchItemCount: 2}, wantErr: "need %(batch_id)d, not %(batch_time)s"},
		{name: "other batch size", uri: "x-%(batch_id)d.jsonl", cfg: feed.Config{BatchItemCount: 3}, pos: feed.Position{Batch: 2, BatchSize: 2, Items: 3}, wantErr: "batches of 2 items, not 3"},
		{name: "other format", file: content, pos: feed.Position{Format: "csv", Offset: 8}, wantErr: "as csv, not jsonl"},
		{name: "stdout position", file: content, pos: feed.Position{URI: "-", Stdout: true}, wantErr: "the job's position is for -"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			uri := filepath.Join(dir, "x.jsonl")
			if tc.uri != "" {
				uri = filepath.Join(dir, tc.uri)
			}
			if tc.file != "" {
				if err := os.WriteFile(uri, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pos := tc.pos
			if pos.URI == "" {
				pos.URI = uri
			}
			_, err := feed.Resume(uri, tc.cfg, quietEnv, pos)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
			if tc.name == "batches" && !errors.Is(err, feed.ErrBatchJob) {
				t.Errorf("error %v is not ErrBatchJob", err)
			}
			if tc.file == "" {
				if entries, _ := os.ReadDir(dir); len(entries) > 0 {
					t.Errorf("Resume left %v", entries)
				}
			} else if got := readFile(t, uri); got != tc.file {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

// TestBatchFeedsInJobs checks that a job can tell the batch feeds it cannot keep (batches
// named by %(batch_time)s) before it opens anything, and that a batch feed's position names
// its current batch and file.
func TestBatchFeedsInJobs(t *testing.T) {
	t.Parallel()
	cfg := feed.Config{BatchItemCount: 2}
	if err := feed.CheckJobFeed("x-%(batch_time)s.jsonl", cfg); !errors.Is(err, feed.ErrBatchJob) {
		t.Errorf("CheckJobFeed with %%(batch_time)s = %v, want ErrBatchJob", err)
	}
	for _, uri := range []string{"x-%(batch_id)d.jsonl", "x-%(batch_id)05d.csv", "s3://b/x-%(batch_id)d.json"} {
		if err := feed.CheckJobFeed(uri, cfg); err != nil {
			t.Errorf("CheckJobFeed(%s) = %v", uri, err)
		}
	}
	if err := feed.CheckJobFeed("x-%(batch_time)s.jsonl", feed.Config{}); err != nil {
		t.Errorf("CheckJobFeed of a feed that does not batch = %v", err)
	}
	dir := t.TempDir()
	f := openFeed(t, filepath.Join(dir, "x-%(batch_id)d.jsonl"), cfg, quietEnv)
	exportRange(t, f, 0, 5)
	pos, err := f.Sync()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "x-3.jsonl"); pos.Batch != 3 || pos.BatchSize != 2 || pos.Items != 5 || pos.URI != want || pos.Offset != fileSize(t, want) {
		t.Errorf("position %+v, want batch 3 in %s at its end, 5 items", pos, want)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestResumeAll checks that ResumeAll changes no file unless every feed resumes, and that
// it opens a feed without a position as OpenAll does.
func TestResumeAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	const content = "{\"n\":0}\n{\"n\":1000}\n"
	if err := os.WriteFile(a, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(b, []byte("{\"n\":0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "c.json")
	configs := map[string]feed.Config{a: {}, b: {}, c: {Overwrite: true}}
	positions := map[string]feed.Position{
		a: {URI: a, Offset: 8, Items: 1},
		b: {URI: b, Offset: 100, Items: 9}, // the file was changed outside the job
	}
	if _, err := feed.ResumeAll(configs, quietEnv, positions); err == nil || !strings.Contains(err.Error(), "resume feed "+b) {
		t.Fatalf("error %v, want one naming %s", err, b)
	}
	if got := readFile(t, a); got != content {
		t.Errorf("%s changed to %q although the resume failed", a, got)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"a.jsonl", "b.jsonl"}) {
		t.Errorf("files %v, want a.jsonl and b.jsonl only", got)
	}

	delete(positions, b)
	delete(configs, b)
	var logs bytes.Buffer
	feeds, err := feed.ResumeAll(configs, logEnv(&logs), positions)
	if err != nil {
		t.Fatal(err)
	}
	if len(feeds) != 2 || feeds[0].Template() != a || feeds[0].Count() != 1 || feeds[1].URI() != c {
		t.Fatalf("feeds %v", feeds)
	}
	if !strings.Contains(logs.String(), "cut the 11 bytes") {
		t.Errorf("no warning about the 11 bytes cut:\n%s", logs.String())
	}
	for _, f := range feeds {
		exportRange(t, f, 1, 2)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := feedNumbers(t, a); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("%s: items %v, want [0 1]", a, got)
	}
	if got := feedNumbers(t, c); !slices.Equal(got, []int{1}) {
		t.Errorf("%s: items %v, want [1]", c, got)
	}
}

// TestSyncGzip checks that a .gz feed is a whole gzip file of the synced items right after
// Sync, without Close, that its position moves only with Sync, and that a Sync with
// nothing new writes nothing.
func TestSyncGzip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.jsonl.gz")
	f := openFeed(t, path, feed.Config{}, quietEnv)
	defer f.Close()
	last := f.Position()
	for round, items := range []int{2, 0, 3} {
		exportRange(t, f, 0, items)
		if items > 0 && f.Position() != last {
			t.Errorf("round %d: position moved to %+v before Sync", round, f.Position())
		}
		pos, err := f.Sync()
		if err != nil {
			t.Fatal(err)
		}
		if pos.Offset != fileSize(t, path) || pos != f.Position() {
			t.Errorf("round %d: position %+v, file size %d, Position() %+v", round, pos, fileSize(t, path), f.Position())
		}
		if items == 0 && pos != last {
			t.Errorf("round %d: a Sync with nothing new moved the position from %+v to %+v", round, last, pos)
		}
		last = pos
		if got, want := feedNumbers(t, path), append(seq(nil, 0, 2), seq(nil, 0, items)...); round == 2 && !slices.Equal(got, want) {
			t.Errorf("after Sync the file holds %v, want %v", got, want)
		}
	}
}

// TestSyncPlain checks that a plain file's position follows every export without a Sync.
func TestSyncPlain(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.json")
	f := openFeed(t, path, feed.Config{}, quietEnv)
	defer f.Close()
	exportRange(t, f, 0, 2)
	if want := (feed.Position{URI: path, Format: "json", Offset: fileSize(t, path), Items: 2}); f.Position() != want {
		t.Errorf("Position() = %+v, want %+v", f.Position(), want)
	}
}

// TestSyncStdout checks that Sync flushes a buffered stdout and returns a stdout position,
// and that a stdout feed resumes with its count.
func TestSyncStdout(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	env := stdoutEnv(w)
	f := openFeed(t, "-", feed.Config{Format: "jsonl"}, env)
	exportRange(t, f, 0, 2)
	pos, err := f.Sync()
	if err != nil {
		t.Fatal(err)
	}
	if want := (feed.Position{URI: "-", Format: "jsonl", Items: 2, Stdout: true}); pos != want {
		t.Errorf("position %+v, want %+v", pos, want)
	}
	if got := strings.Count(out.String(), "\n"); got != 2 {
		t.Errorf("stdout has %d lines after Sync, want 2: %q", got, out.String())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := feed.Resume("-", feed.Config{Format: "jsonl"}, env, pos)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Count() != 2 {
		t.Errorf("resumed Count() = %d, want 2", g.Count())
	}
}

// TestSyncWhileExporting runs Sync in a loop (as a job's committer does) while another
// goroutine exports and then closes the feed: every position returned must be a prefix of
// the final file that holds its items (checked by resuming a copy at it), and the race
// detector must stay quiet.
func TestSyncWhileExporting(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x.json", "x.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			f := openFeed(t, path, feed.Config{Overwrite: true}, quietEnv)
			const total = 300
			done := make(chan error, 1)
			go func() {
				for n := range total {
					if err := f.Export(numbered(n)); err != nil {
						done <- err
						return
					}
				}
				done <- f.Close()
			}()
			var positions []feed.Position
			for finished := false; !finished; {
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
					finished = true
				default:
				}
				pos, err := f.Sync()
				if err != nil {
					t.Fatal(err)
				}
				positions = append(positions, pos)
			}
			final, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if last := positions[len(positions)-1]; last.Items != total {
				t.Errorf("last position %+v, want %d items", last, total)
			}
			for i, pos := range positions {
				if i > 0 && (pos.Offset < positions[i-1].Offset || pos.Items < positions[i-1].Items) {
					t.Fatalf("position %+v after %+v", pos, positions[i-1])
				}
				if i%max(1, len(positions)/10) != 0 {
					continue // ten of them are enough
				}
				cp := filepath.Join(t.TempDir(), name)
				if err := os.WriteFile(cp, final, 0o644); err != nil {
					t.Fatal(err)
				}
				pos.URI = cp
				g, err := feed.Resume(cp, feed.Config{}, quietEnv, pos)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Close(); err != nil {
					t.Fatal(err)
				}
				if got := feedNumbers(t, cp); !slices.Equal(got, seq(nil, 0, int(pos.Items))) {
					t.Fatalf("resumed at %+v: items %v", pos, got)
				}
			}
		})
	}
}

// TestFirstItemFails checks that a feed whose first item cannot be encoded is still a
// valid document of the items after it: the opening "[", <items> or header is written
// with the first item that is.
func TestFirstItemFails(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x.jsonl", "x.json", "x.xml", "x.csv"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), name)
			f := openFeed(t, path, feed.Config{}, quietEnv)
			if err := f.Export(item("n", map[string]any{"x": math.NaN()})); err == nil {
				t.Error("exporting NaN: no error")
			}
			exportRange(t, f, 0, 2)
			closeHolding(t, f, path, []int{0, 1})
		})
	}
}

// TestLoopWriter is the child process of TestResumeRandomKills; it does nothing in a normal
// run. It opens the feed (-O) or resumes it at FEED_CHILD_POS, and exports items numbered
// from the position's item count on, without end, while a committer goroutine syncs the
// feed again and again and prints each position, as a job commits it. The parent kills it.
func TestLoopWriter(t *testing.T) {
	path := os.Getenv("FEED_LOOP_PATH")
	if path == "" {
		t.Skip("child process of TestResumeRandomKills")
	}
	cfg := feed.Config{Overwrite: true}
	env := quietEnv
	if n, _ := strconv.Atoi(os.Getenv("FEED_LOOP_BATCH")); n > 0 {
		cfg.BatchItemCount, env.Job = n, true
	}
	var f *feed.Feed
	var err error
	if p := os.Getenv("FEED_LOOP_POS"); p != "" {
		var pos feed.Position
		if err := json.Unmarshal([]byte(p), &pos); err != nil {
			t.Fatal(err)
		}
		f, err = feed.Resume(path, cfg, env, pos)
	} else {
		f, err = feed.Open(path, cfg, env)
	}
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			pos, err := f.Sync()
			if err != nil {
				panic(err)
			}
			b, _ := json.Marshal(pos)
			fmt.Printf("%s\n", b)
		}
	}()
	for n := f.Count(); ; n++ {
		if err := f.Export(numbered(n)); err != nil {
			panic(err)
		}
	}
}

// TestResumeRandomKills kills a process that writes a feed and syncs it continuously, at a
// random instant (in the middle of an export, of a gzip member's end or of an fsync), ten
// times, resuming each time at the last position it printed (its last commit): the final
// file must hold the items 0 to the last count, each once and in order.
func TestResumeRandomKills(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, name := range []string{"items.jsonl", "items.json", "items.csv", "items.xml", "items.jsonl.gz", "items.xml.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, uint64(len(name))))
			path := filepath.Join(t.TempDir(), name)
			var pos *feed.Position
			for kill := range 10 {
				next := runLoopWriter(t, path, pos, 0, 1+rng.IntN(20))
				if pos != nil && next.Items < pos.Items {
					t.Fatalf("kill %d: position went back from %+v to %+v", kill, pos, next)
				}
				pos = &next
			}
			if pos.Items == 0 {
				t.Fatal("no item committed")
			}
			t.Logf("%d items committed over ten kills", pos.Items)
			f, err := feed.Resume(path, feed.Config{Overwrite: true}, quietEnv, *pos)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if got, want := feedNumbers(t, path), seq(nil, 0, int(pos.Items)); !slices.Equal(got, want) {
				t.Errorf("%d items, want %d: first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

// runLoopWriter runs TestLoopWriter on path from pos (nil: a new feed), in batches of batch
// items (0: none) as a job's feed, kills it with SIGKILL after it printed commits
// positions, and returns the last position it printed.
func runLoopWriter(t *testing.T, path string, pos *feed.Position, batch, commits int) feed.Position {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoopWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FEED_LOOP_PATH="+path, "FEED_LOOP_BATCH="+strconv.Itoa(batch))
	if pos != nil {
		b, _ := json.Marshal(pos)
		cmd.Env = append(cmd.Env, "FEED_LOOP_POS="+string(b))
	}
	stdout, stderr := enginetest.StartStdout(t, cmd)
	var last feed.Position
	seen := 0
	killed := false
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if err := json.Unmarshal(lines.Bytes(), &last); err != nil {
			continue // a test framework line
		}
		if seen++; seen == commits && !killed {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true // the lines printed before the kill are commits too
		}
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !killed || !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v after %d commits, want killed by SIGKILL\n%s", err, seen, stderr.String())
	}
	return last
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestMarkThenSync checks the job's commit split in two: Mark taken where no Export can
// slip in, more items exported, then Sync; after a crash the feed resumes at the marked
// position with exactly the items before it.
func TestMarkThenSync(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x.json", "x.xml.gz", "x.csv.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), name)
			cfg := feed.Config{Overwrite: true}
			f := openFeed(t, path, cfg, quietEnv)
			exportRange(t, f, 0, 2)
			pos, err := f.Mark()
			if err != nil {
				t.Fatal(err)
			}
			if pos.Items != 2 || pos != f.Position() {
				t.Fatalf("Mark = %+v, Position() = %+v, want 2 items", pos, f.Position())
			}
			exportRange(t, f, 1000, 1002)
			if later, err := f.Sync(); err != nil || later.Items != 4 || later.Offset <= pos.Offset {
				t.Fatalf("Sync = %+v, %v, want 4 items after %+v", later, err, pos)
			}
			feed.Crash(f)
			if f, err = feed.Resume(path, cfg, quietEnv, pos); err != nil {
				t.Fatal(err)
			}
			exportRange(t, f, 2, 3)
			closeHolding(t, f, path, []int{0, 1, 2})
		})
	}
}
