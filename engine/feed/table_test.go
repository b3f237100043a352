package feed_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jscrawl/jscrawl/engine/feed"
	"github.com/jscrawl/jscrawl/types"

	_ "modernc.org/sqlite"
)

// tableBackend is a database the table tests run against: a URI for a fresh table and a
// connection to read it.
type tableBackend struct {
	name  string
	uri   func(t *testing.T, table string) string
	query func(t *testing.T, uri, q string) [][]any
}

func sqliteBackend() tableBackend {
	return tableBackend{
		name: "sqlite",
		uri: func(t *testing.T, table string) string {
			return "sqlite://" + filepath.ToSlash(filepath.Join(t.TempDir(), "items.db")) + "?table=" + table
		},
		query: func(t *testing.T, uri, q string) [][]any {
			t.Helper()
			path := strings.TrimPrefix(uri, "sqlite://")
			path = path[:strings.IndexByte(path, '?')]
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			return queryRows(t, db, q)
		},
	}
}

func queryRows(t *testing.T, db *sql.DB, q string) [][]any {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func tableEnv() feed.Env { return feed.Env{Logger: slog.New(slog.DiscardHandler), SpiderName: "books"} }

// tableCases are run against each backend.
var tableCases = []struct {
	name  string
	cfg   feed.Config
	items []types.Item
	query string
	want  string // fmt.Sprint of the rows
}{
	{
		name: "types from the first item",
		items: []types.Item{
			item("url", "http://a/1", "price", 12.5, "n", int64(3), "ok", true, "tags", []any{"x", "y"}, "meta", item("k", "v")),
			item("url", "http://a/2", "price", 7.0, "n", int64(4), "ok", false, "tags", []any{}, "meta", nil),
		},
		query: "SELECT url, price, n, ok, tags, meta FROM books ORDER BY url",
		want:  "[[http://a/1 12.5 3 1 [\"x\",\"y\"] {\"k\":\"v\"}] [http://a/2 7 4 0 [] <nil>]]",
	},
	{
		name:  "fields choose and order the columns",
		cfg:   feed.Config{Fields: []string{"title", "url"}},
		items: []types.Item{item("url", "u1", "title", "T1", "junk", 1.0), item("title", "T2")},
		query: "SELECT * FROM books ORDER BY title",
		want:  "[[T1 u1] [T2 <nil>]]",
	},
	{
		name:  "upsertKey updates the row of a key seen again",
		cfg:   feed.Config{UpsertKey: []string{"url"}},
		items: []types.Item{item("url", "u1", "title", "old"), item("url", "u2", "title", "b"), item("url", "u1", "title", "new")},
		query: "SELECT url, title FROM books ORDER BY url",
		want:  "[[u1 new] [u2 b]]",
	},
	{
		name:  "columns give SQL types",
		cfg:   feed.Config{Fields: []string{"url", "price"}, Columns: map[string]string{"price": "INTEGER"}},
		items: []types.Item{item("url", "u1", "price", 3.0)},
		query: "SELECT url, price FROM books",
		want:  "[[u1 3]]",
	},
}

// normalize makes driver values comparable across databases: booleans as 1 and 0, JSON
// (jsonb comes back decoded) compact.
func normalize(rows [][]any) string {
	for _, r := range rows {
		for i, v := range r {
			switch v := v.(type) {
			case bool:
				r[i] = 0
				if v {
					r[i] = 1
				}
			case map[string]any, []any:
				b, _ := json.Marshal(v)
				r[i] = string(b)
			}
		}
	}
	return fmt.Sprint(rows)
}

func runTableCases(t *testing.T, b tableBackend) {
	for _, tc := range tableCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			uri := b.uri(t, "books")
			f := openFeed(t, uri, tc.cfg, tableEnv())
			for _, it := range tc.items {
				if err := f.Export(it); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			got := normalize(b.query(t, uri, tc.query))
			if got != tc.want {
				t.Errorf("rows:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestSQLiteFeed(t *testing.T) {
	t.Parallel()
	runTableCases(t, sqliteBackend())
}

// TestTableAppendAndOverwrite: -o appends rows to the table, -O replaces it.
func TestTableAppendAndOverwrite(t *testing.T) {
	t.Parallel()
	b := sqliteBackend()
	uri := b.uri(t, "books")
	for i, overwrite := range []bool{false, false, true} {
		f := openFeed(t, uri, feed.Config{Overwrite: overwrite}, tableEnv())
		exportRange(t, f, i*10, i*10+2)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := normalize(b.query(t, uri, "SELECT n FROM books ORDER BY n")); got != "[[20] [21]]" {
		t.Errorf("after -o, -o, -O: %s, want the last run's rows only", got)
	}
}

// TestTableColumnError: a value its column cannot take fails the item with the field, the
// JS type and the column, and the feed goes on.
func TestTableColumnError(t *testing.T) {
	t.Parallel()
	b := sqliteBackend()
	uri := b.uri(t, "books")
	f := openFeed(t, uri, feed.Config{}, tableEnv())
	defer f.Close()
	if err := f.Export(item("price", 1.5)); err != nil {
		t.Fatal(err)
	}
	err := f.Export(item("price", "n/a"))
	var ce *feed.ColumnError
	if !errors.As(err, &ce) || ce.Field != "price" || ce.JSType != "string" || ce.Column != "price REAL" {
		t.Fatalf("err = %v, want a ColumnError for price (string into REAL)", err)
	}
	var se *feed.StorageError
	if errors.As(err, &se) {
		t.Fatalf("a column error is the item's, not the storage's: %v", err)
	}
	if err := f.Export(item("price", 2.5)); err != nil {
		t.Fatalf("the feed goes on after a column error: %v", err)
	}
}

func TestTableURIs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg, target string
	}{
		{"sqlite:///abs/items.db?table=books", "sqlite:/abs/items.db?table=books"},
		{"sqlite:///abs/items.db", "sqlite:/abs/items.db?table=items"},
		{"postgres://u:secret@h:5432/db?table=books", "postgres://u:****@h:5432/db#books"},
		{"postgresql://h/db", "postgresql://h/db#items"},
	} {
		uri, cfg, err := feed.ParseFlag(tc.arg, false)
		if err != nil || uri != tc.arg || cfg.Format != "" {
			t.Errorf("ParseFlag(%q) = %q, %+v, %v", tc.arg, uri, cfg, err)
		}
		if got := feed.Target(tc.arg); got != tc.target {
			t.Errorf("Target(%q) = %q, want %q", tc.arg, got, tc.target)
		}
	}
	if _, err := feed.FromSettings(map[string]any{"items.jsonl": map[string]any{"upsertKey": []any{"url"}}}); err == nil {
		t.Error("upsertKey on a file feed: no error")
	}
	if _, err := feed.FromSettings(map[string]any{"sqlite:x.db?table=a-b": nil}); err != nil {
		t.Errorf("FromSettings checks the table when the feed opens, got %v", err)
	}
	if _, err := feed.Open("sqlite:x.db?table=a-b", feed.Config{}, tableEnv()); err == nil || !strings.Contains(err.Error(), "plain name") {
		t.Errorf("a table name that is not plain: %v", err)
	}
	_, err := feed.Open("postgres://u:secret@127.0.0.1:1/db?table=t", feed.Config{}, tableEnv())
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a failed connection's error shows the password, or no error: %v", err)
	}
}

// tableNumbers returns the n column of the table, sorted.
func tableNumbers(t *testing.T, b tableBackend, uri string) []int {
	t.Helper()
	var out []int
	for _, r := range b.query(t, uri, "SELECT n FROM books") {
		switch v := r[0].(type) {
		case float64:
			out = append(out, int(v))
		case int64:
			out = append(out, int(v))
		}
	}
	slices.Sort(out)
	return out
}

// testTableResume: a job's feed is killed after rows it wrote since the last commit went
// into the database in a transaction of their own; Resume at the commit deletes them.
func testTableResume(t *testing.T, b tableBackend) {
	uri := b.uri(t, "books")
	env := tableEnv()
	env.Job = true
	f := openFeed(t, uri, feed.Config{}, env)
	exportRange(t, f, 0, 5)
	pos, err := f.Sync() // the job's commit
	if err != nil {
		t.Fatal(err)
	}
	// Past a short transaction (committed in the database, not by the job), and some
	// buffered rows.
	exportRange(t, f, 5, 5+feed.SQLBatchRows+7)
	feed.Crash(f)
	if got := len(tableNumbers(t, b, uri)); got != 5+feed.SQLBatchRows {
		t.Fatalf("before resume: %d rows, want %d", got, 5+feed.SQLBatchRows)
	}
	g, err := feed.Resume(uri, feed.Config{}, env, pos)
	if err != nil {
		t.Fatal(err)
	}
	if got := tableNumbers(t, b, uri); !slices.Equal(got, seq(nil, 0, 5)) {
		t.Fatalf("after resume: %v, want the 5 committed rows", got)
	}
	exportRange(t, g, 5, 9) // the job scrapes the rest again
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if got := tableNumbers(t, b, uri); !slices.Equal(got, seq(nil, 0, 9)) {
		t.Fatalf("end: %v, want 0..8 once each", got)
	}
	if c := g.Count(); c != 9 {
		t.Errorf("Count = %d, want 9 (the job's items)", c)
	}
}

func TestSQLiteResume(t *testing.T) {
	t.Parallel()
	testTableResume(t, sqliteBackend())
}
