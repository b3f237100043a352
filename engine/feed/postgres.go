package feed

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/jscrawl/jscrawl/types"
)

// pgTable is the tableDriver of postgres:// feeds (github.com/jackc/pgx/v5). The password
// comes from the URI, or as libpq takes it: PGPASSWORD, PGPASSFILE or ~/.pgpass (and
// PGHOST, PGUSER and the rest for what the URI leaves out). Rows go in with COPY, or for
// an upsert key with pipelined INSERT ... ON CONFLICT DO UPDATE; objects and arrays are
// stored as jsonb.
type pgTable struct {
	conn        *pgx.Conn
	commitsMade bool // the commits table is known to exist
}

func openPostgres(ctx context.Context, conn string) (*pgTable, error) {
	cfg, err := pgx.ParseConfig(conn)
	if err != nil {
		// pgx's message quotes the connection string: keep it out of logs.
		return nil, fmt.Errorf("parse the connection uri: %s", maskPGError(err, conn))
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s", maskPGError(err, conn))
	}
	return &pgTable{conn: c}, nil
}

// maskPGError returns err's text without the password of conn.
func maskPGError(err error, conn string) string {
	msg := err.Error()
	if cfg, perr := pgx.ParseConfig(conn); perr == nil && cfg.Password != "" {
		msg = strings.ReplaceAll(msg, cfg.Password, types.Mask)
	}
	return msg
}

// splitTable returns the schema ("" for the search path's) and the name of table.
func splitTable(table string) (schema, name string) {
	if s, n, ok := strings.Cut(table, "."); ok {
		return s, n
	}
	return "", table
}

func (p *pgTable) columns(ctx context.Context, table string) ([]column, error) {
	schema, name := splitTable(table)
	rows, err := p.conn.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = COALESCE(NULLIF($1, ''), current_schema()) AND table_name = $2 ORDER BY ordinal_position`, schema, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanColumns(rows)
}

func (p *pgTable) create(ctx context.Context, table string, cols []column, upsert []string) error {
	stmts := []string{createTableSQL(table, cols)}
	if upsert != nil {
		_, name := splitTable(table) // the index lives in the table's schema
		stmts = append(stmts, createIndexSQL(name+"_upsert_key", table, upsert))
	}
	return p.ddl(ctx, stmts...)
}

const pgCommitsDDL = "CREATE TABLE IF NOT EXISTS " + commitsTable +
	" (feed TEXT NOT NULL, seq BIGINT NOT NULL, xid BIGINT NOT NULL, PRIMARY KEY (feed, seq))"

// pgDDLLock is the key of the advisory lock that jscrawl's feeds hold while they create
// tables and indexes ("jscraw" in ASCII).
const pgDDLLock int64 = 0x6a7363726177

// lockDDL takes pgDDLLock for the rest of tx. Two workers of a shared crawl that run
// CREATE TABLE IF NOT EXISTS at once can both find no table, and the second then fails on
// the catalog's unique index (type "tree" already exists, SQLSTATE 42710): under the lock
// the second finds the table the first created.
func lockDDL(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pgDDLLock)
	return err
}

// ddl runs stmts in one transaction under pgDDLLock.
func (p *pgTable) ddl(ctx context.Context, stmts ...string) error {
	return pgx.BeginFunc(ctx, p.conn, func(tx pgx.Tx) error {
		if err := lockDDL(ctx, tx); err != nil {
			return err
		}
		for _, stmt := range stmts {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
}

// ensureCommits creates the commits table when this connection has not seen it yet.
func (p *pgTable) ensureCommits(ctx context.Context) error {
	if p.commitsMade {
		return nil
	}
	if err := p.ddl(ctx, pgCommitsDDL); err != nil {
		return err
	}
	p.commitsMade = true
	return nil
}

func (p *pgTable) drop(ctx context.Context, table string) error {
	return pgx.BeginFunc(ctx, p.conn, func(tx pgx.Tx) error {
		if err := lockDDL(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DROP TABLE IF EXISTS "+quoteIdent(table)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, pgCommitsDDL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM "+commitsTable+" WHERE feed = $1", table)
		return err
	})
}

func (p *pgTable) write(ctx context.Context, table string, cols []column, upsert []string, rows [][]any, rec record) error {
	if rec.seq != 0 {
		if err := p.ensureCommits(ctx); err != nil {
			return err
		}
	}
	return pgx.BeginFunc(ctx, p.conn, func(tx pgx.Tx) error {
		if upsert == nil {
			names := make([]string, len(cols))
			for i, c := range cols {
				names[i] = c.name
			}
			schema, name := splitTable(table)
			ident := pgx.Identifier{name}
			if schema != "" {
				ident = pgx.Identifier{schema, name}
			}
			if _, err := tx.CopyFrom(ctx, ident, names, pgx.CopyFromRows(rows)); err != nil {
				return err
			}
		} else {
			sql := insertSQL(table, cols, upsert)
			var batch pgx.Batch
			for _, row := range rows {
				batch.Queue(sql, row...)
			}
			if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
				return err
			}
		}
		if rec.seq == 0 {
			return nil
		}
		// The transaction's id is the xmin of the rows it wrote: undo finds them by it.
		_, err := tx.Exec(ctx, "INSERT INTO "+commitsTable+" (feed, seq, xid) VALUES ($1, $2, pg_current_xact_id()::text::bigint)", rec.key, rec.seq)
		return err
	})
}

func (p *pgTable) undo(ctx context.Context, table, key string, seq int64, deleteRows bool) (n, last int64, err error) {
	if err := p.ensureCommits(ctx); err != nil {
		return 0, 0, err
	}
	err = pgx.BeginFunc(ctx, p.conn, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM "+commitsTable+" WHERE feed = $1", key).Scan(&last); err != nil {
			return err
		}
		if deleteRows && last > seq {
			var exists bool
			if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", quoteIdent(table)).Scan(&exists); err != nil {
				return err
			}
			if exists {
				// xmin is the 32-bit part of the 64-bit transaction id recorded.
				tag, err := tx.Exec(ctx, "DELETE FROM "+quoteIdent(table)+" WHERE xmin::text::bigint IN (SELECT xid % 4294967296 FROM "+commitsTable+
					" WHERE feed = $1 AND seq > $2)", key, seq)
				if err != nil {
					return err
				}
				n = tag.RowsAffected()
			}
		}
		_, err := tx.Exec(ctx, "DELETE FROM "+commitsTable+" WHERE feed = $1 AND (seq > $2 OR seq < $2)", key, seq)
		return err
	})
	return n, last, err
}

func (p *pgTable) close() error { return p.conn.Close(context.Background()) }

// Interface guards
var _ tableDriver = (*pgTable)(nil)
