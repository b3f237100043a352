package feed

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
)

// The functions here find where the whole records of a feed file end, so that appending
// (-o) after a killed run neither continues a partial record nor breaks a JSON or XML
// document. Each returns the offset to cut the file at.

// lastNewline returns the offset just after the last "\n" in the first size bytes of f (0
// when there is none): the end of the last whole JSON Lines record.
func lastNewline(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read %s: %w", f.Name(), err)
		}
		if end == size && b[len(b)-1] == '\n' {
			return size, nil
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// csvWholeRecords returns the end of the last whole CSV record in the first size bytes of
// f: all of it when it ends in "\n", otherwise the end of the record before the last one
// (or of the last one that parses, when a quoted field was cut).
func csvWholeRecords(f *os.File, size int64) (int64, error) {
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return 0, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if last[0] == '\n' {
		return size, nil
	}
	r := csv.NewReader(bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 64<<10))
	r.FieldsPerRecord = -1
	var prev, cur int64
	for {
		_, err := r.Read()
		switch {
		case err == nil:
			prev, cur = cur, r.InputOffset()
		case errors.Is(err, io.EOF):
			return prev, nil // the last record ran to the end of the file: partial
		default:
			return cur, nil // a quoted field cut short
		}
	}
}

// notFeed is the error for a file that is not a feed of the format it is appended as.
func notFeed(path, what string) error {
	return fmt.Errorf("cannot append to %s: %s (use -O to overwrite it, or a .jsonl feed to append)", path, what)
}

// truncated reports whether err means the input ended in the middle of a value.
func truncated(err error) bool {
	var se *xml.SyntaxError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.As(err, &se) && se.Msg == "unexpected EOF"
}

// jsonArrayEnd reads the JSON array in f and returns the offset just after its last whole
// element (0 when it has none), with resume.closed when the array has its "]".
func jsonArrayEnd(f *os.File, path string) (int64, resume, error) {
	var st resume
	dec := json.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 64<<10))
	tok, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		return 0, st, nil // only white space
	case err != nil && !truncated(err):
		return 0, st, notFeed(path, "it is not a JSON array")
	case err == nil && tok != json.Delim('['):
		return 0, st, notFeed(path, "it is not a JSON array")
	case err != nil:
		return 0, st, nil
	}
	st.started = true
	var cut int64
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if !truncated(err) {
				return 0, st, notFeed(path, fmt.Sprintf("it is not a valid JSON array (%v)", err))
			}
			break
		}
		st.items++
		cut = dec.InputOffset()
	}
	if tok, err := dec.Token(); err == nil && tok == json.Delim(']') {
		st.closed = true
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return 0, st, notFeed(path, "it has more after its JSON array")
		}
	} else if err != nil && !truncated(err) {
		return 0, st, notFeed(path, fmt.Sprintf("it is not a valid JSON array (%v)", err))
	}
	if st.items == 0 {
		st.started = false // start again with "["
	}
	return cut, st, nil
}

// xmlItemsEnd reads the <items> document in f and returns the offset just after its last
// whole <item> element and its line end (after <items> when it has none; 0 when even that
// is missing), with resume.closed when the document has its </items>.
func xmlItemsEnd(f *os.File, path string) (int64, resume, error) {
	var st resume
	dec := xml.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 64<<10))
	var cut int64
	depth := 0
loop:
	for {
		tok, err := dec.RawToken()
		if err != nil {
			if truncated(err) {
				break
			}
			return 0, st, notFeed(path, fmt.Sprintf("it is not a valid XML feed (%v)", err))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				if t.Name.Local != "items" || st.started {
					return 0, st, notFeed(path, "it is not an XML feed of <items>")
				}
				st.started = true
				cut = dec.InputOffset()
			}
		case xml.EndElement:
			depth--
			switch {
			case depth == 1 && t.Name.Local == "item":
				st.items++
				cut = dec.InputOffset()
			case depth == 0:
				st.closed = true
				break loop
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return 0, st, notFeed(path, "it is not an XML feed of <items>")
			}
		}
	}
	if st.closed {
		for {
			tok, err := dec.RawToken()
			if errors.Is(err, io.EOF) {
				break
			}
			if c, ok := tok.(xml.CharData); err != nil || !ok || len(bytes.TrimSpace(c)) > 0 {
				return 0, st, notFeed(path, "it has more after its </items>")
			}
		}
	}
	if !st.started {
		return 0, st, nil
	}
	// Keep the line end after the last element, so the next one starts on its own line.
	b := make([]byte, 1)
	if n, _ := f.ReadAt(b, cut); n == 1 && b[0] == '\n' {
		cut++
	}
	return cut, st, nil
}
