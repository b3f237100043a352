package feeds

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// CSV holds the rows of a CSV document (Scrapy: csviter).
type CSV struct {
	Headers []string
	Rows    [][]string // each as long as Headers
	// Skipped are the 1-based numbers of the rows whose length differs from Headers'
	// (Scrapy logs and skips them); Err is a parse error that ended the reading early.
	Skipped []SkippedRow
	Err     error
}

// SkippedRow is a row dropped for its length.
type SkippedRow struct {
	Line, Length int
}

// ReadCSV parses text with encoding/csv. delimiter is the field separator (',' if 0) and
// quote the quote character ('"' if 0; encoding/csv only knows '"', so another quote
// character is swapped with '"' before parsing and back in the values). Without headers
// the first row is the header row. Quotes inside unquoted fields are tolerated.
func ReadCSV(text string, delimiter, quote rune, headers []string) *CSV {
	if delimiter == 0 {
		delimiter = ','
	}
	swap := quote != 0 && quote != '"'
	if swap {
		text = swapRunes(text, quote, '"')
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = delimiter
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	out := &CSV{Headers: headers}
	line := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Err = err
			break
		}
		line++
		if swap {
			for i := range rec {
				rec[i] = swapRunes(rec[i], quote, '"')
			}
		}
		if out.Headers == nil {
			out.Headers = rec
			continue
		}
		if len(rec) != len(out.Headers) {
			out.Skipped = append(out.Skipped, SkippedRow{Line: line, Length: len(rec)})
			continue
		}
		out.Rows = append(out.Rows, rec)
	}
	return out
}

func swapRunes(s string, a, b rune) string {
	if !strings.ContainsRune(s, a) && !strings.ContainsRune(s, b) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case a:
			return b
		case b:
			return a
		}
		return r
	}, s)
}
