package feed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// This file is the database side of the feeds: a feed whose URI is sqlite: or postgres://
// writes each item as a row of a table instead of a record of a file.
//
// Storages. A Feed writes either through a sink (a file or stdout, with a format writer: the
// bytes of each record) or through a table (an itemStore: whole items, no format). S3 is a
// sink too: a byte storage that uploads what the sink wrote to its local file (s3.go).
//
// Exactly once with --jobdir. The job's commit (engine/job: Commit) first calls Sync on
// every feed, then commits the frontier with the positions Sync returned. For a table, Sync
// commits the rows written since the last transaction in one database transaction that
// also records, in the feed's own table _jscrawl_commits, the feed's next sequence number
// seq and what undoes the transaction (SQLite: the rowid range it inserted; PostgreSQL: its
// transaction id, the xmin of its rows). Sync returns Position.Seq = seq, which the job
// then commits. Short transactions in between (every sqlBatchRows rows) are recorded in the
// same way, each with its own seq. So the database's state is always "the rows of the
// transactions 1..n", each one recorded, and the job's is "the requests done up to its
// commit, with the rows up to seq s", s ≤ n:
//
//   - a kill before a database transaction commits leaves neither its rows nor its record
//     (the database's atomicity), and the job's commit, which comes after it, did not happen
//     either;
//   - a kill after the database commit and before the job's (or during it: the job's
//     commit is atomic too) leaves rows of seq > s whose requests the job did not commit as
//     done: the resumed job runs them again, so Resume deletes the rows of every recorded
//     transaction after s before the feed writes on (one database transaction, which also
//     forgets the records);
//   - a kill after both leaves s = n: nothing to delete.
//
// Either way every row left belongs to a request the job committed as done, and every such
// request's rows are there (they were committed before the job's commit that marks it
// done): each item once. With upsertKey a row is updated in place rather than added, and a
// request run again writes the same key again, so Resume deletes nothing (an update cannot
// be undone by deleting the row, and need not be): the table converges to one row per key.
// The record is keyed by the table: a job's runs are processes of their own (Env.Worker
// differs from run to run), and one job at a time writes a table. PostgreSQL's xmin is the
// low 32 bits of the transaction id, so undo compares those: a row committed about four
// billion transactions earlier could share them (not a concern at a job's scale).
//
// Without a job nothing is recorded: a crash loses the rows of the open transaction (at most
// sqlBatchRows items, or sqlBatchAge of them), as Scrapy's pipelines lose what they had not
// committed. With Env.WriteThrough (a shared crawl, whose frontier acknowledges a request
// once its items are exported) each item is its own transaction, so a killed worker loses
// no acknowledged item; its leased requests run again elsewhere, and with an upsert key the
// workers' union is one row per key.
//
// A value a column cannot take is a *ColumnError: the item's error, not the feed's (the
// engine logs it and counts it in feedexport/failed_count/<format>; with FEED_ERRORS=stop
// it closes the spider, with ignore the crawl goes on without the item); a failing
// transaction is a *StorageError, which ends the feed as FEED_ERRORS says.

// sqlBatchRows is how many rows a table feed writes per transaction between two Syncs;
// an item that comes sqlBatchAge after the last transaction commits too, so that the rows
// of a slow crawl do not wait for the end.
const (
	sqlBatchRows = 1000
	sqlBatchAge  = time.Second
)

// commitsTable is the table where a job's table feeds record their transactions.
const commitsTable = "_jscrawl_commits"

// dbURI is a parsed database feed URI.
type dbURI struct {
	scheme string // "sqlite" or "postgres"
	path   string // sqlite: the file
	conn   string // postgres: the connection string, without our parameters
	table  string
	shown  string // the URI with its password masked
}

// identRE is what a table name may be: letters, digits and _, optionally with a schema.
var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// IsTable reports whether uri names a database table feed (sqlite: or postgres://) rather
// than a file or stdout.
func IsTable(uri string) bool {
	l := strings.ToLower(uri)
	return strings.HasPrefix(l, "sqlite:") || strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// parseDBURI parses sqlite:///abs/path.db?table=t, sqlite:rel/path.db?table=t and
// postgres://user:pass@host:port/db?table=t (postgresql:// too). The table defaults to
// "items".
func parseDBURI(uri string) (dbURI, error) {
	d := dbURI{shown: types.MaskURL(uri)}
	lower := strings.ToLower(uri)
	var q url.Values
	switch {
	case strings.HasPrefix(lower, "sqlite:"):
		d.scheme = "sqlite"
		rest := uri[len("sqlite:"):]
		rawQuery := ""
		if i := strings.IndexByte(rest, '?'); i >= 0 {
			rest, rawQuery = rest[:i], rest[i+1:]
		}
		var err error
		if q, err = url.ParseQuery(rawQuery); err != nil {
			return d, fmt.Errorf("parse feed uri %s: %w", d.shown, err)
		}
		switch {
		case strings.HasPrefix(rest, "//"):
			// sqlite:///abs/path: an empty authority, as in file:///.
			rest = strings.TrimPrefix(rest, "//")
			if !strings.HasPrefix(rest, "/") {
				return d, fmt.Errorf("feed uri %s: want sqlite:///absolute/path.db or sqlite:relative/path.db", d.shown)
			}
		}
		p, err := url.PathUnescape(rest)
		if err != nil {
			return d, fmt.Errorf("parse feed uri %s: %w", d.shown, err)
		}
		if p == "" {
			return d, fmt.Errorf("feed uri %s has no file path", d.shown)
		}
		d.path = filepath.FromSlash(p)
		for k := range q {
			if k != "table" {
				return d, fmt.Errorf("feed uri %s: unknown parameter %q (want table)", d.shown, k)
			}
		}
	default:
		d.scheme = "postgres"
		u, err := url.Parse(uri)
		if err != nil {
			return d, fmt.Errorf("parse feed uri %s: not a valid URL", d.shown)
		}
		q = u.Query()
		rest := u.Query()
		rest.Del("table")
		u.RawQuery = rest.Encode()
		d.conn = u.String()
	}
	d.table = q.Get("table")
	if d.table == "" {
		d.table = "items"
	}
	if !identRE.MatchString(d.table) {
		return d, fmt.Errorf("feed uri %s: table %q is not a plain name (letters, digits and _)", d.shown, d.table)
	}
	return d, nil
}

// tableDriver is one database's side of a table feed. The table feed (its owner, the Feed)
// serialises all calls.
type tableDriver interface {
	// columns returns the table's columns, or nil when it does not exist.
	columns(ctx context.Context, table string) ([]column, error)
	// create creates the table with cols, and the unique index on upsert when it is set.
	create(ctx context.Context, table string, cols []column, upsert []string) error
	// drop drops the table (an overwrite) and forgets its records.
	drop(ctx context.Context, table string) error
	// write inserts (or with upsert, upserts) rows in one transaction; with rec.seq > 0 it
	// records the transaction in commitsTable in the same transaction.
	write(ctx context.Context, table string, cols []column, upsert []string, rows [][]any, rec record) error
	// undo deletes, in one transaction, the rows of the recorded transactions of key after
	// seq (with deleteRows false only their records) and the records before seq, and
	// returns the rows deleted and the last recorded seq.
	undo(ctx context.Context, table, key string, seq int64, deleteRows bool) (rows, last int64, err error)
	close() error
}

// record names one transaction in commitsTable.
type record struct {
	key string
	seq int64 // 0: no record (not a job)
}

// table is a feed storage that takes whole items as rows of a database table.
type table struct {
	uri dbURI
	drv tableDriver
	cfg Config
	job bool // record each transaction (see the file comment)
	// writeThrough: one transaction per item (Env.WriteThrough)
	writeThrough bool
	key          string
	logger       *slog.Logger

	cols    []column // nil until the table is known
	rows    [][]any  // buffered since the last transaction
	seq     int64    // the last recorded transaction
	items   int
	werr    error
	warned  map[string]bool
	dropped bool // overwrite: the table was dropped
	resume  *Position
	removed int64     // rows deleted by Resume
	flushed time.Time // the last transaction
}

// openTable connects to the database of uri; it changes nothing until begin.
func openTable(ctx context.Context, uri string, cfg Config, env Env, logger *slog.Logger) (*table, error) {
	d, err := parseDBURI(uri)
	if err != nil {
		return nil, err
	}
	if cfg.BatchItemCount > 0 {
		return nil, errors.New("batchItemCount is for files: a table feed writes one table, in short transactions")
	}
	if len(cfg.Columns) > 0 && cfg.Fields == nil {
		return nil, errors.New("columns needs fields (the columns' order)")
	}
	t := &table{uri: d, cfg: cfg, job: env.Job, key: d.table, logger: logger, warned: map[string]bool{}, flushed: time.Now(), writeThrough: env.WriteThrough}
	switch d.scheme {
	case "sqlite":
		t.drv, err = openSQLite(ctx, d.path, env.Job)
	default:
		t.drv, err = openPostgres(ctx, d.conn)
	}
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return t, nil
}

// begin prepares the table: an overwrite drops it, a resumed job deletes the rows written
// after its last commit; an existing table's columns are read.
func (t *table) begin(ctx context.Context) error {
	if t.cfg.Overwrite && t.resume == nil && !t.dropped {
		if err := t.drv.drop(ctx, t.uri.table); err != nil {
			return fmt.Errorf("drop %s: %w", t.uri.table, err)
		}
		t.dropped = true
	}
	if t.resume != nil || t.job {
		// A new job forgets the records of an earlier one on the table (its rows stay) and
		// numbers on after them; a resumed one undoes what came after its last commit.
		after, deleteRows := int64(math.MaxInt64), false
		if t.resume != nil {
			after, deleteRows = t.resume.Seq, t.cfg.UpsertKey == nil
		}
		n, last, err := t.drv.undo(ctx, t.uri.table, t.key, after, deleteRows)
		if err != nil {
			return fmt.Errorf("resume %s: %w", t.uri.table, err)
		}
		if t.resume == nil {
			after = last
		}
		t.seq, t.removed, t.resume = after, n, nil
	}
	cols, err := t.drv.columns(ctx, t.uri.table)
	if err != nil {
		return fmt.Errorf("read the columns of %s: %w", t.uri.table, err)
	}
	if cols != nil {
		t.cols = t.fieldsOf(cols)
	} else if t.cfg.Fields != nil {
		return t.create(ctx, nil)
	}
	return nil
}

// fieldsOf maps an existing table's columns to the item keys: all of them, or Fields'.
func (t *table) fieldsOf(cols []column) []column {
	for i := range cols {
		cols[i].field = cols[i].name
	}
	if t.cfg.Fields == nil {
		return cols
	}
	var out []column
	for _, f := range t.cfg.Fields {
		i := slices.IndexFunc(cols, func(c column) bool { return c.name == f })
		if i < 0 {
			t.warnOnce("col:"+f, fmt.Sprintf("Feed %s: table %s has no column %q: the field is not written", t.uri.shown, t.uri.table, f))
			continue
		}
		out = append(out, cols[i])
	}
	return out
}

// create creates the table from Fields (with Columns' types) or from the first item.
func (t *table) create(ctx context.Context, first types.Item) error {
	names := t.cfg.Fields
	if names == nil {
		names = first.Keys()
	}
	cols := make([]column, 0, len(names))
	for _, n := range names {
		var c column
		if decl, ok := t.cfg.Columns[n]; ok {
			c = column{name: n, decl: decl, kind: kindOf(decl)}
		} else {
			v, _ := first.Get(n)
			c = t.inferColumn(n, v)
		}
		c.field = n
		cols = append(cols, c)
	}
	for _, k := range t.cfg.UpsertKey {
		if !slices.ContainsFunc(cols, func(c column) bool { return c.name == k }) {
			return fmt.Errorf("upsertKey %q is not a column of %s", k, t.uri.table)
		}
	}
	if err := t.drv.create(ctx, t.uri.table, cols, t.cfg.UpsertKey); err != nil {
		return fmt.Errorf("create table %s: %w", t.uri.table, err)
	}
	t.cols = cols
	return nil
}

// put converts item into a row and buffers it; a full buffer is written in one
// transaction. A *ColumnError concerns the item only; a *StorageError ends the feed.
func (t *table) put(ctx context.Context, item types.Item) error {
	if t.werr != nil {
		return t.werr
	}
	if t.cols == nil {
		if err := t.create(ctx, item); err != nil {
			t.werr = &StorageError{URI: t.uri.shown, Err: err}
			return t.werr
		}
	}
	row := make([]any, len(t.cols))
	for i, c := range t.cols {
		v, _ := item.Get(c.field)
		var err error
		if row[i], err = t.convert(c, v); err != nil {
			return err
		}
	}
	if t.cfg.Fields == nil {
		for _, k := range item.Keys() {
			if !slices.ContainsFunc(t.cols, func(c column) bool { return c.field == k }) {
				t.warnOnce("key:"+k, fmt.Sprintf("Feed %s: table %s has no column %q: the field is not written", t.uri.shown, t.uri.table, k))
			}
		}
	}
	t.rows = append(t.rows, row)
	t.items++
	if t.writeThrough || len(t.rows) >= sqlBatchRows || time.Since(t.flushed) >= sqlBatchAge {
		return t.flush(ctx)
	}
	return nil
}

// flush writes the buffered rows in one transaction (recorded in a job).
func (t *table) flush(ctx context.Context) error {
	if t.werr != nil {
		return t.werr
	}
	if len(t.rows) == 0 {
		return nil
	}
	rec := record{key: t.key}
	if t.job {
		rec.seq = t.seq + 1
	}
	if err := t.drv.write(ctx, t.uri.table, t.cols, t.cfg.UpsertKey, t.rows, rec); err != nil {
		t.werr = &StorageError{URI: t.uri.shown, Err: err}
		return t.werr
	}
	t.rows = t.rows[:0]
	t.flushed = time.Now()
	if t.job {
		t.seq++
	}
	return nil
}

// close writes the rows left and disconnects.
func (t *table) close(ctx context.Context) error {
	err := t.flush(ctx)
	if cerr := t.drv.close(); cerr != nil && err == nil {
		err = &StorageError{URI: t.uri.shown, Err: cerr}
	}
	return err
}

func (t *table) warnOnce(key, msg string) {
	if t.warned[key] {
		return
	}
	t.warned[key] = true
	t.logger.Warn(msg, "uri", t.uri.shown)
}
