package feed

import (
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/jscrawl/jscrawl/types"
)

// CSV writes comma-separated values with a header line (Scrapy: CsvItemExporter). The
// columns are Config.Fields, or else the keys of the first item. A later item's key that
// is not a column is not written, with one warning per key; a column the item lacks is
// left empty. Objects and arrays are written as JSON, numbers and booleans as JavaScript
// prints them. Lines end in "\n". It is not safe for concurrent use.
type CSV struct {
	out     io.Writer
	w       *csv.Writer
	logger  *slog.Logger
	columns []string
	started bool // header written (or already present in the target)
	warned  map[string]bool
	// appendTo is the file whose header gave the columns; checkKeys: compare the first
	// item's keys with them (no Config.Fields did).
	appendTo  string
	checkKeys bool
	record    []string
}

// NewCSV returns a CSV writer to w; it uses cfg.Fields. Warnings go to slog.Default().
func NewCSV(w io.Writer, cfg Config) *CSV {
	return &CSV{
		out: w,
		// Hide a *bufio.Writer from csv.NewWriter, which would otherwise adopt it as its own
		// buffer, so the Flush after each record would flush the feed's buffer to the file.
		w:       csv.NewWriter(struct{ io.Writer }{w}),
		logger:  slog.Default(),
		columns: slices.Clone(cfg.Fields),
		warned:  map[string]bool{},
	}
}

// Export writes item as one record, after the header when it is the first one.
func (c *CSV) Export(item types.Item) error {
	if !c.started {
		if c.columns == nil {
			c.columns = item.Keys()
		}
		if err := c.write(c.columns); err != nil {
			return fmt.Errorf("write csv header: %w", err)
		}
		c.started = true
	}
	if c.checkKeys {
		c.checkKeys = false
		if err := c.checkAppend(item.Keys()); err != nil {
			return err
		}
	}
	for _, f := range item {
		if !slices.Contains(c.columns, f.Key) && !c.warned[f.Key] {
			c.warned[f.Key] = true
			c.logger.Warn("csv feed: field is not in the header and is not written",
				"field", f.Key, "columns", c.columns)
		}
	}
	c.record = c.record[:0]
	for _, col := range c.columns {
		v, _ := item.Get(col)
		s, err := formatScalar(v)
		if err != nil {
			return fmt.Errorf("csv field %s: %w", col, err)
		}
		c.record = append(c.record, s)
	}
	if err := c.write(c.record); err != nil {
		return fmt.Errorf("write csv record: %w", err)
	}
	return nil
}

// checkAppend compares the first item's keys with the columns of the file appended to:
// mismatches are one warning naming them (and not one per key later); no shared column at
// all is an error, since every row would be empty.
func (c *CSV) checkAppend(keys []string) error {
	dropped, missing := diffColumns(c.columns, keys)
	if len(dropped) == 0 && len(missing) == 0 {
		return nil
	}
	if len(keys) > 0 && len(dropped) == len(keys) {
		return &StorageError{URI: c.appendTo, Err: fmt.Errorf("the items' fields %v share none of the columns %v of the file's header, so every row would be empty: use -O to replace it, or another file",
			keys, c.columns)}
	}
	for _, k := range dropped {
		c.warned[k] = true
	}
	c.logger.Warn(fmt.Sprintf("Appending to %s with its own columns %v: %s", c.appendTo, c.columns, columnsNote(dropped, missing)))
	return nil
}

func (c *CSV) write(record []string) error {
	if len(record) == 1 && record[0] == "" {
		// encoding/csv writes a lone empty field as a blank line, which readers skip;
		// write it quoted as Python's csv module does, so the row survives.
		_, err := io.WriteString(c.out, "\"\"\n")
		return err
	}
	if err := c.w.Write(record); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}

// Close flushes; CSV has no trailer, and an empty feed has no header.
func (c *CSV) Close() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("flush csv: %w", err)
	}
	return nil
}

// Interface guards
var _ Exporter = (*CSV)(nil)
