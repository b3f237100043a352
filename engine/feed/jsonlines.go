package feed

import (
	"fmt"
	"io"

	"github.com/jscrawl/jscrawl/types"
)

// JSONLines writes one compact JSON object per line, keys in item order and without HTML
// escaping (Scrapy: JsonLinesItemExporter). Every line is a whole item, so a JSON Lines
// feed can be appended to. It is not safe for concurrent use.
type JSONLines struct {
	w      io.Writer
	fields []string
	buf    []byte
}

// NewJSONLines returns a JSON Lines writer to w; it uses cfg.Fields.
func NewJSONLines(w io.Writer, cfg Config) *JSONLines {
	return &JSONLines{w: w, fields: cfg.Fields}
}

// Export writes item as one line.
func (j *JSONLines) Export(item types.Item) error {
	b, err := appendJSON(j.buf[:0], project(item, j.fields))
	if err != nil {
		return fmt.Errorf("encode item as json: %w", err)
	}
	j.buf = append(b, '\n')
	if _, err := j.w.Write(j.buf); err != nil {
		return fmt.Errorf("write jsonl item: %w", err)
	}
	return nil
}

// Close does nothing: JSON Lines has no trailer.
func (j *JSONLines) Close() error { return nil }

// Interface guards
var _ Exporter = (*JSONLines)(nil)
