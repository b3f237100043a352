package feed

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
)

// sqliteTable is the tableDriver of sqlite: feeds (modernc.org/sqlite, no cgo). The
// database is in WAL mode; in a job each transaction is synced (synchronous FULL) before
// Sync returns, so the job never commits rows a power cut could take back.
type sqliteTable struct {
	db *sql.DB
}

func openSQLite(ctx context.Context, path string, job bool) (*sqliteTable, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create feed folder: %w", err)
	}
	sync := "NORMAL"
	if job {
		sync = "FULL"
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &sqliteTable{db: db}, nil
}

func (s *sqliteTable) columns(ctx context.Context, table string) ([]column, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanColumns(rows)
}

func (s *sqliteTable) create(ctx context.Context, table string, cols []column, upsert []string) error {
	if _, err := s.db.ExecContext(ctx, createTableSQL(table, cols)); err != nil {
		return err
	}
	if upsert != nil {
		return createUpsertIndex(ctx, s.db, table, upsert)
	}
	return nil
}

// createUpsertIndex creates the unique index that ON CONFLICT needs.
func createUpsertIndex(ctx context.Context, db *sql.DB, table string, upsert []string) error {
	name := strings.ReplaceAll(table, ".", "_") + "_upsert_key"
	_, err := db.ExecContext(ctx, createIndexSQL(name, table, upsert))
	return err
}

func (s *sqliteTable) drop(ctx context.Context, table string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+quoteIdent(table)); err != nil {
		return err
	}
	if err := s.ensureCommits(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+commitsTable+" WHERE feed = ?", table); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *sqliteTable) ensureCommits(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+commitsTable+
		" (feed TEXT NOT NULL, seq INTEGER NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL, PRIMARY KEY (feed, seq))")
	return err
}

// insertSQL is the INSERT statement of a table feed, with ON CONFLICT for an upsert key.
// PostgreSQL takes $n placeholders, SQLite ? or $n: both take this one.
func insertSQL(table string, cols []column, upsert []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (", quoteIdent(table))
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteCol(c.name))
	}
	b.WriteString(") VALUES (")
	for i := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", i+1)
	}
	b.WriteString(")")
	if upsert != nil {
		keys := make([]string, len(upsert))
		for i, k := range upsert {
			keys[i] = quoteCol(k)
		}
		var sets []string
		for _, c := range cols {
			if !containsString(upsert, c.name) {
				sets = append(sets, fmt.Sprintf("%s = excluded.%s", quoteCol(c.name), quoteCol(c.name)))
			}
		}
		fmt.Fprintf(&b, " ON CONFLICT (%s) DO ", strings.Join(keys, ", "))
		if sets == nil {
			b.WriteString("NOTHING")
		} else {
			b.WriteString("UPDATE SET " + strings.Join(sets, ", "))
		}
	}
	return b.String()
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func (s *sqliteTable) write(ctx context.Context, table string, cols []column, upsert []string, rows [][]any, rec record) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var lo int64
	if rec.seq > 0 {
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(rowid), 0) FROM "+quoteIdent(table)).Scan(&lo); err != nil {
			return err
		}
	}
	stmt, err := tx.PrepareContext(ctx, insertSQL(table, cols, upsert))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, row := range rows {
		if _, err := stmt.ExecContext(ctx, row...); err != nil {
			return err
		}
	}
	if rec.seq > 0 {
		var hi int64
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(rowid), 0) FROM "+quoteIdent(table)).Scan(&hi); err != nil {
			return err
		}
		if err := s.ensureCommits(ctx, tx); err != nil {
			return err
		}
		// Within one write transaction (BEGIN IMMEDIATE) nobody else inserts: the rows it
		// added are the rowids after lo, up to hi.
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+commitsTable+" (feed, seq, lo, hi) VALUES (?, ?, ?, ?)", rec.key, rec.seq, lo+1, hi); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *sqliteTable) undo(ctx context.Context, table, key string, seq int64, deleteRows bool) (int64, int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	if err := s.ensureCommits(ctx, tx); err != nil {
		return 0, 0, err
	}
	var last int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM "+commitsTable+" WHERE feed = ?", key).Scan(&last); err != nil {
		return 0, 0, err
	}
	var n int64
	if deleteRows && last > seq {
		exists, err := tableExists(ctx, tx, table)
		if err != nil {
			return 0, 0, err
		}
		if exists {
			res, err := tx.ExecContext(ctx, "DELETE FROM "+quoteIdent(table)+" WHERE EXISTS (SELECT 1 FROM "+commitsTable+
				" c WHERE c.feed = ? AND c.seq > ? AND "+quoteIdent(table)+".rowid BETWEEN c.lo AND c.hi)", key, seq)
			if err != nil {
				return 0, 0, err
			}
			n, _ = res.RowsAffected()
		}
	}
	// Forget the undone transactions, and those before seq (the job committed them).
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+commitsTable+" WHERE feed = ? AND (seq > ? OR seq < ?)", key, seq, seq); err != nil {
		return 0, 0, err
	}
	return n, last, tx.Commit()
}

func tableExists(ctx context.Context, tx *sql.Tx, table string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&n)
	return n > 0, err
}

func (s *sqliteTable) close() error { return s.db.Close() }

// Interface guards
var _ tableDriver = (*sqliteTable)(nil)
