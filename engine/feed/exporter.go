// Package feed writes scraped items to feeds (Scrapy: the FEEDS setting, the -o and -O
// options, scrapy.extensions.feedexport and scrapy.exporters). It has the format writers
// (JSON Lines, JSON, CSV and XML), the storages (files, optionally gzipped, stdout, S3
// objects, s3://: see s3.go, and database tables, sqlite: and postgres://: see db.go) and the parsing of -o/-O arguments
// and of the FEEDS setting. The engine drives a Feed through the Exporter interface from a
// single goroutine.
package feed

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// Exporter writes items in one feed format (Scrapy: BaseItemExporter). It has the same
// method set as engine.Exporter. The engine calls it from one goroutine, never concurrently:
// Export once per scraped item, then Close once when the crawl ends.
type Exporter interface {
	// Export writes one item (Scrapy: export_item).
	Export(item types.Item) error
	// Close writes the trailer, such as "]" in JSON, and flushes (Scrapy: finish_exporting).
	// It does not close the underlying writer of a format writer made by New.
	Close() error
}

// The feed formats.
const (
	FormatJSONLines = "jsonl"
	FormatJSON      = "json"
	FormatCSV       = "csv"
	FormatXML       = "xml"
)

// formats lists the accepted format names and aliases (Scrapy's FEED_EXPORTERS keys).
var formats = map[string]string{
	"jsonl":     FormatJSONLines,
	"jl":        FormatJSONLines,
	"jsonlines": FormatJSONLines,
	"json":      FormatJSON,
	"csv":       FormatCSV,
	"xml":       FormatXML,
}

// Formats returns the canonical format names, sorted.
func Formats() []string {
	return []string{FormatCSV, FormatJSON, FormatJSONLines, FormatXML}
}

// normalizeFormat returns the canonical name of a format or alias, and false when it is
// unknown.
func normalizeFormat(name string) (string, bool) {
	f, ok := formats[strings.ToLower(strings.TrimSpace(name))]
	return f, ok
}

// Config is the configuration of one feed: one entry of the FEEDS setting, or one -o/-O
// argument (Scrapy: the feed options format, overwrite, fields, indent, encoding and
// batch_item_count).
type Config struct {
	// Format is jsonl, json, csv or xml (aliases: jl, jsonlines). Empty means: from the
	// URI's extension.
	Format string
	// Overwrite replaces the target (-O) instead of appending to it (-o).
	Overwrite bool
	// Fields limits and orders the keys written; nil writes every key in item order. For
	// CSV it is the header; the other formats leave out the fields an item lacks.
	Fields []string
	// Indent pretty-prints JSON and XML with this many spaces per level; 0 is compact.
	Indent int
	// Encoding is the output encoding; only utf-8 (the default) is supported.
	Encoding string
	// BatchItemCount starts a new file every this many items (0: one file); the URI must
	// then contain %(batch_id)d or %(batch_time)s.
	BatchItemCount int
	// ItemFilter, when set, decides which items the feed writes (the FEEDS option
	// itemFilter, a JS function); an error is the feed's export error.
	ItemFilter func(types.Item) (bool, error)
	// Dataset, the FEEDS option dataset, names the Crawlee dataset whose items the feed
	// writes (Dataset.open(name).pushData); "" writes the items of no named dataset
	// (types.DatasetField).
	Dataset string
	// UpsertKey, for a table feed (sqlite:, postgres://), names the columns that identify a
	// row: an item whose key is in the table updates its row instead of adding one (a
	// unique index on them, INSERT ... ON CONFLICT DO UPDATE).
	UpsertKey []string
	// Columns, for a table feed, gives SQL types to columns the feed creates (by field
	// name; Fields orders them), such as {"price": "NUMERIC(10,2)"}; the others are typed
	// from the first item's values (TEXT, REAL, BOOLEAN, JSON text in SQLite and JSONB in
	// PostgreSQL for objects and arrays).
	Columns map[string]string
}

// validate checks the options that do not depend on the storage.
func (c Config) validate() error {
	switch strings.ToLower(strings.ReplaceAll(c.Encoding, "_", "-")) {
	case "", "utf-8", "utf8":
	default:
		return fmt.Errorf("encoding %q is not supported (only utf-8)", c.Encoding)
	}
	if c.Indent < 0 {
		return fmt.Errorf("indent %d is negative", c.Indent)
	}
	if c.BatchItemCount < 0 {
		return fmt.Errorf("batchItemCount %d is negative", c.BatchItemCount)
	}
	if i := slices.Index(c.Fields, ""); i >= 0 {
		return fmt.Errorf("fields[%d] is empty", i)
	}
	return nil
}

// New returns the writer for format that writes to w (Scrapy: the FEED_EXPORTERS classes).
// Each Export writes the item to w right away; the caller buffers w if it wants to. Close
// writes the trailer but does not close w. Warnings (CSV keys missing from the header) go
// to slog.Default().
func New(format string, w io.Writer, cfg Config) (Exporter, error) {
	return newExporter(format, w, cfg, slog.Default(), resume{})
}

// newExporter is New with a logger and, when appending, what the target already holds.
func newExporter(format string, w io.Writer, cfg Config, logger *slog.Logger, st resume) (Exporter, error) {
	name, ok := normalizeFormat(format)
	if !ok {
		return nil, fmt.Errorf("unknown feed format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("%s feed: %w", name, err)
	}
	switch name {
	case FormatJSONLines:
		return NewJSONLines(w, cfg), nil
	case FormatJSON:
		j := NewJSON(w, cfg)
		j.started, j.items = st.started, st.items
		return j, nil
	case FormatCSV:
		c := NewCSV(w, cfg)
		c.logger = logger
		if st.csvHeader != nil {
			c.columns = st.csvHeader
			c.started = true
			c.appendTo = st.csvPath
			c.checkKeys = cfg.Fields == nil && !st.csvChecked
		}
		return c, nil
	default:
		x := NewXML(w, cfg)
		x.started = st.started
		return x, nil
	}
}
