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
	record  []string
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
