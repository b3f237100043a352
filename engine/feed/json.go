package feed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// JSON writes a JSON array (Scrapy: JsonItemExporter): "[", then the items each on a new
// line and separated by ",", then "]" at Close. An empty feed is "[]". With Config.Indent
// above 0 each item is pretty-printed. It is not safe for concurrent use.
type JSON struct {
	w       io.Writer
	fields  []string
	indent  string
	started bool // "[" written
	items   int
	closed  bool
	buf     bytes.Buffer
	enc     []byte
}

// NewJSON returns a JSON array writer to w; it uses cfg.Fields and cfg.Indent.
func NewJSON(w io.Writer, cfg Config) *JSON {
	return &JSON{w: w, fields: cfg.Fields, indent: strings.Repeat(" ", cfg.Indent)}
}

// Export writes item as the next element of the array.
func (j *JSON) Export(item types.Item) error {
	if j.closed {
		return fmt.Errorf("json feed: export after close")
	}
	b, err := appendJSON(j.enc[:0], project(item, j.fields))
	j.enc = b
	if err != nil {
		return fmt.Errorf("encode item as json: %w", err)
	}
	j.buf.Reset()
	switch {
	case !j.started:
		j.buf.WriteString("[\n")
		j.started = true
	default:
		j.buf.WriteString(",\n")
	}
	if j.indent != "" {
		if err := json.Indent(&j.buf, b, "", j.indent); err != nil {
			return fmt.Errorf("indent json item: %w", err)
		}
	} else {
		j.buf.Write(b)
	}
	j.items++
	if _, err := j.w.Write(j.buf.Bytes()); err != nil {
		return fmt.Errorf("write json item: %w", err)
	}
	return nil
}

// Close ends the array with "]" (the whole feed is "[]" when no item was exported).
func (j *JSON) Close() error {
	if j.closed {
		return nil
	}
	j.closed = true
	trailer := "\n]\n"
	if !j.started {
		trailer = "[]\n"
	}
	if _, err := io.WriteString(j.w, trailer); err != nil {
		return fmt.Errorf("write json trailer: %w", err)
	}
	return nil
}

// Interface guards
var _ Exporter = (*JSON)(nil)
