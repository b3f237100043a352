package feed_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/feed"
)

// pgBackend runs the table tests on a PostgreSQL server of the test's own, each test in a
// database of its own.
func pgBackend(pg *enginetest.Postgres) tableBackend {
	return tableBackend{
		name: "postgres",
		uri: func(t *testing.T, table string) string {
			return pg.URL(pg.NewDatabase(t)) + "&table=" + table
		},
		query: func(t *testing.T, uri, q string) [][]any {
			t.Helper()
			ctx := context.Background()
			c, err := pgx.Connect(ctx, uri[:strings.Index(uri, "&table=")])
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			rows, err := c.Query(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rows.Close()
			var out [][]any
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range vals {
					if n, ok := v.(int32); ok {
						vals[i] = int64(n)
					}
				}
				out = append(out, vals)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		},
	}
}

// TestPostgresFeed runs the table cases, a resume and the column error against a real
// PostgreSQL server.
func TestPostgresFeed(t *testing.T) {
	t.Parallel()
	pg := enginetest.StartPostgres(t)
	b := pgBackend(pg)
	t.Run("cases", func(t *testing.T) { runTableCases(t, b) })
	t.Run("resume", func(t *testing.T) {
		t.Parallel()
		testTableResume(t, b)
	})
	t.Run("created at once", func(t *testing.T) {
		t.Parallel()
		testCreatedAtOnce(t, b)
	})
	t.Run("column error", func(t *testing.T) {
		t.Parallel()
		uri := b.uri(t, "books")
		f := openFeed(t, uri, feed.Config{Fields: []string{"n"}, Columns: map[string]string{"n": "INTEGER"}}, tableEnv())
		defer f.Close()
		err := f.Export(item("n", 1.5))
		if err == nil || !strings.Contains(err.Error(), `field "n": a number value cannot go into column n INTEGER`) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestPostgresCredentials: the password comes from PGPASSWORD when the URI has none, and a
// URI's password never shows in the feed's logs or errors.
func TestPostgresCredentials(t *testing.T) {
	pg := enginetest.StartPostgres(t)
	db := pg.NewDatabase(t)
	var logs bytes.Buffer
	env := feed.Env{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	noPass := strings.Replace(pg.URL(db), ":"+pg.Password+"@", "@", 1) + "&table=books"
	if _, err := feed.Open(noPass, feed.Config{}, env); err == nil {
		t.Fatal("no password, no PGPASSWORD: opened")
	}
	t.Setenv("PGPASSWORD", pg.Password)
	f, err := feed.Open(noPass, feed.Config{}, env)
	if err != nil {
		t.Fatalf("with PGPASSWORD: %v", err)
	}
	exportRange(t, f, 0, 3)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSWORD", "")
	withPass := pg.URL(db) + "&table=books"
	f = openFeed(t, withPass, feed.Config{Fields: []string{"n", "nope"}}, env)
	exportRange(t, f, 3, 5)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.URI(), pg.Password) || strings.Contains(logs.String(), pg.Password) {
		t.Errorf("the password shows: URI %s\n%s", f.URI(), logs.String())
	}
	if !strings.Contains(logs.String(), "stored feed") {
		t.Errorf("no stored feed line:\n%s", logs.String())
	}
	bad := strings.Replace(withPass, pg.Password, "wrong-Secret-9", 1)
	if _, err := feed.Open(bad, feed.Config{}, env); err == nil || strings.Contains(err.Error(), "wrong-Secret-9") {
		t.Errorf("a wrong password: %v", err)
	}
	if got := len(pgBackend(pg).query(t, withPass, "SELECT n FROM books")); got != 5 {
		t.Errorf("%d rows, want 5", got)
	}
}

// testCreatedAtOnce: the workers of a shared crawl open their feeds into one new table at
// the same moment (with an upsert key, writing through): each feed's first item creates the
// table and its index, and none fails because another created them first
// (PostgreSQL's CREATE TABLE IF NOT EXISTS alone lets the second of two concurrent ones fail
// on its catalog). Ten rounds of eight feeds, each round into a table of its own.
func testCreatedAtOnce(t *testing.T, b tableBackend) {
	uri := b.uri(t, "t0")
	base := uri[:strings.Index(uri, "&table=")]
	env := tableEnv()
	env.WriteThrough = true
	for round := range 10 {
		table := fmt.Sprintf("t%d", round)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for w := range errs {
			wg.Go(func() {
				f, err := feed.Open(base+"&table="+table, feed.Config{UpsertKey: []string{"n"}}, env)
				if err == nil {
					err = f.Export(item("n", float64(w)))
					if cerr := f.Close(); err == nil {
						err = cerr
					}
				}
				errs[w] = err
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if rows := b.query(t, uri, "SELECT count(*) FROM "+table); fmt.Sprint(rows) != "[[8]]" {
			t.Errorf("round %d: %v rows, want 8", round, rows)
		}
	}
}
