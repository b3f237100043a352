package main

import (
	"bytes"
	"context"
	"database/sql"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/jscrawl/jscrawl/engine/enginetest"
)

// tableEachOnce checks that the table of a treeSpider job holds the items {n: 0} to
// {n: total-1} once each; query runs a query that returns one integer.
func tableEachOnce(t *testing.T, query func(q string) int64, table string, total int) {
	t.Helper()
	rows := query("SELECT count(*) FROM " + table)
	distinct := query("SELECT count(DISTINCT n) FROM " + table)
	inRange := query("SELECT count(DISTINCT n) FROM " + table + " WHERE n >= 0 AND n < " + itoa(total))
	if rows != int64(total) || distinct != int64(total) || inRange != int64(total) {
		t.Errorf("table %s: %d rows, %d distinct n (%d in range), want %d once each", table, rows, distinct, inRange, total)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// sqliteQuery returns a query function on the SQLite file at path.
func sqliteQuery(t *testing.T, path string) func(q string) int64 {
	return func(q string) int64 {
		t.Helper()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int64
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
}

// TestJobSurvivesKillsIntoSQLite: a --jobdir crawl of 2,000 pages into a SQLite table,
// SIGKILLed at random downloads at least 8 times and resumed each time with the same
// command, ends with every item in the table exactly once.
func TestJobSurvivesKillsIntoSQLite(t *testing.T) {
	t.Parallel()
	const total = 2000
	site, dir, args := treeJob(t, total, "-o", "sqlite:out/items.db?table=tree")
	kills, _ := killThenFinish(t, site, dir, args, 10)
	if kills < 8 {
		t.Errorf("only %d kills happened", kills)
	}
	tableEachOnce(t, sqliteQuery(t, filepath.Join(dir, "out", "items.db")), "tree", total)
}

// TestJobSurvivesKillsIntoPostgres: the same crawl into a table of a real PostgreSQL server
// (the password in the URI), SIGKILLed at least 8 times and resumed each time, ends with
// every item in the table exactly once; the job folder never holds the password.
func TestJobSurvivesKillsIntoPostgres(t *testing.T) {
	t.Parallel()
	pg := enginetest.StartPostgres(t)
	url := pg.URL(pg.NewDatabase(t))
	const total = 2000
	site, dir, args := treeJob(t, total, "-o", url+"&table=tree")
	kills, log := killThenFinish(t, site, dir, args, 10)
	if kills < 8 {
		t.Errorf("only %d kills happened", kills)
	}
	if strings.Contains(log, pg.Password) {
		t.Errorf("the log shows the password:\n%s", log)
	}
	tableEachOnce(t, pgQuery(t, url), "tree", total)
	err := filepath.WalkDir(filepath.Join(dir, "job"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(pg.Password)) {
			t.Errorf("%s holds the password", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pgQuery returns a query function on the PostgreSQL database at url.
func pgQuery(t *testing.T, url string) func(q string) int64 {
	return func(q string) int64 {
		t.Helper()
		ctx := context.Background()
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int64
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
}

// TestFleetWorkersKilledIntoOneTable: three workers of a shared crawl write one table (with
// the upsert key n) of SQLite or PostgreSQL; eight times a worker chosen at random is
// SIGKILLed at a random download (while the site holds every download, so that it holds
// leases) and a new worker takes its place; the others run a killed worker's requests
// again when its leases expire, and the table ends with every item exactly once.
func TestFleetWorkersKilledIntoOneTable(t *testing.T) {
	t.Parallel()
	seed := uint64(rand.Int64())
	t.Logf("kill seed %d", seed)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const total, kills = 3000, 8
			rng := rand.New(rand.NewPCG(seed, uint64(len(backend))))
			fl := newFleet(t, total, enginetest.RedisOptions{})
			uri := "sqlite:shared.db?table=tree"
			query := sqliteQuery(t, filepath.Join(fl.dir, "shared.db"))
			if backend == "postgres" {
				pg := enginetest.StartPostgres(t)
				url := pg.URL(pg.NewDatabase(t))
				uri, query = url+"&table=tree", pgQuery(t, url)
			}
			feeds := `{"` + uri + `": {"upsertKey": ["n"]}}`
			args := []string{"-s", "FRONTIER_LEASE_TIMEOUT=2", "-s", "FEEDS=" + feeds}
			workers := map[int]*crawlProc{}
			start := func() {
				i := fl.n // the index start gives it
				workers[i] = fl.start(args...)
			}
			for range 3 {
				start()
			}
			for k := range kills {
				<-fl.holdAfter(20 + rng.IntN(120))
				alive := slices.Sorted(maps.Keys(workers))
				i := alive[rng.IntN(len(alive))]
				if err := workers[i].cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				if code := workers[i].wait(t); code != -1 {
					t.Fatalf("kill %d: worker %d: exit code %d, want killed\n%s", k+1, i, code, workers[i].Log())
				}
				delete(workers, i)
				start()
				fl.release()
			}
			for i, p := range workers {
				fl.finishedAlone(i, p)
			}
			tableEachOnce(t, query, "tree", total)
		})
	}
}

// TestTableRefusedValue: a value its column cannot take (a string for an INTEGER column)
// is logged with the field, its JS type and the column, counted in
// feedexport/failed_count/sqlite, and follows FEED_ERRORS: stop closes the spider with
// finish_reason feed_error (exit code 1), ignore leaves the item out of the table and the
// crawl goes on to the end.
func TestTableRefusedValue(t *testing.T) {
	t.Parallel()
	const total = 300
	site := newTreeSite(t, total)
	spider := strings.Replace(treeSpider, `yield { n: Number(r.css("h1::text").get()) };`,
		`const n = Number(r.css("h1::text").get()); yield { n: n % 100 === 7 ? "seven" : n };`, 1)
	for _, tc := range []struct {
		mode   string
		code   int
		reason string
	}{
		{"stop", 1, "feed_error"},
		{"ignore", 0, "finished"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "tree.js", spider)
			code, log := runJobCrawl(t, dir, "tree.js", "-a", "baseUrl="+site.URL, "--stats-json", "stats.json",
				"-s", `FEEDS={"sqlite:items.db?table=tree": {"fields": ["n"], "columns": {"n": "INTEGER"}}}`, "-s", "FEED_ERRORS="+tc.mode)
			if code != tc.code || !strings.Contains(log, `field "n": a string value cannot go into column n INTEGER of table tree`) {
				t.Fatalf("exit code %d, want %d and the refused value logged:\n%s", code, tc.code, log)
			}
			st := readStatsJSON(t, filepath.Join(dir, "stats.json"))
			failed, _ := st["feedexport/failed_count/sqlite"].(float64)
			scraped, _ := st["item_scraped_count"].(float64)
			rows := sqliteQuery(t, filepath.Join(dir, "items.db"))("SELECT count(*) FROM tree")
			if st["finish_reason"] != tc.reason || failed < 1 || int64(scraped) != rows {
				t.Errorf("finish_reason %v, %v refused, %v scraped, %d rows: want %s, at least one refused, a row per scraped item",
					st["finish_reason"], failed, scraped, rows, tc.reason)
			}
			if tc.mode == "ignore" && (failed != total/100 || rows != total-total/100) {
				t.Errorf("%v refused and %d rows, want %d and %d", failed, rows, total/100, total-total/100)
			}
		})
	}
}
