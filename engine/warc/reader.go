package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// The bounds of a record's WARC header, which is read into memory (its block never is).
const (
	maxHeaderLines = 1000
	maxHeaderBytes = 1 << 20
)

// recordReader reads the WARC records of a file one by one, gzipped per record or not,
// and hands each block over as a stream: the block of a record the caller does not read
// is skipped (decompressed and discarded), never buffered. gowarc's reader, by contrast,
// caches every block it validates (the whole of a 2 GiB record) and discards one it does
// not before the caller can read it. Not safe for concurrent use.
type recordReader struct {
	src  *countReader
	br   *bufio.Reader // over src
	gz   *gzip.Reader  // reused from record to record
	gzbr *bufio.Reader // over gz
	base int64         // the file offset src starts at

	cur *rawRecord // the record being read
}

// rawRecord is one record: where it starts, its WARC header (keys canonical, as
// textproto makes them) and its block, which reads at most Content-Length bytes.
type rawRecord struct {
	Offset int64
	Header http.Header
	Block  io.Reader
	Length int64 // the block's Content-Length

	rest   *io.LimitedReader
	r      *bufio.Reader // the record's reader (br, or gzbr for a gzipped record)
	gzip   bool
	closed bool
}

// countReader counts the bytes read from r.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// newRecordReader returns a reader of the records in r, which starts at offset base of
// its file.
func newRecordReader(r io.Reader, base int64) *recordReader {
	src := &countReader{r: r}
	return &recordReader{src: src, br: bufio.NewReaderSize(src, 32<<10), base: base}
}

// offset returns the file offset of the next byte br gives.
func (rr *recordReader) offset() int64 {
	return rr.base + rr.src.n - int64(rr.br.Buffered())
}

// next skips what is left of the current record and returns the next one; io.EOF at the
// end of the file.
func (rr *recordReader) next() (*rawRecord, error) {
	if rr.cur != nil {
		if err := rr.cur.finish(); err != nil {
			return nil, err
		}
		rr.cur = nil
	}
	// Find the start of a record, as gowarc does past stray bytes.
	for {
		b, err := rr.br.Peek(5)
		if len(b) == 0 && errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b || bytes.Equal(b, []byte("WARC/")) {
			break
		}
		if err != nil {
			if len(bytes.TrimSpace(b)) == 0 && errors.Is(err, io.EOF) {
				return nil, io.EOF // blank lines after the last record
			}
			return nil, fmt.Errorf("at offset %d: no WARC record (%w)", rr.offset(), err)
		}
		if _, err := rr.br.Discard(1); err != nil {
			return nil, err
		}
	}
	rec := &rawRecord{Offset: rr.offset(), r: rr.br}
	if b, _ := rr.br.Peek(2); b[0] == 0x1f {
		var err error
		if rr.gz == nil {
			rr.gz, err = gzip.NewReader(rr.br)
		} else {
			err = rr.gz.Reset(rr.br)
		}
		if err != nil {
			return nil, fmt.Errorf("record at offset %d: %w", rec.Offset, err)
		}
		rr.gz.Multistream(false)
		if rr.gzbr == nil {
			rr.gzbr = bufio.NewReaderSize(rr.gz, 32<<10)
		} else {
			rr.gzbr.Reset(rr.gz)
		}
		rec.r, rec.gzip = rr.gzbr, true
	}
	h, err := readHeader(rec.r)
	if err != nil {
		return nil, fmt.Errorf("record at offset %d: %w", rec.Offset, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get("Content-Length")), 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("record at offset %d: bad Content-Length %q", rec.Offset, h.Get("Content-Length"))
	}
	rec.Header, rec.Length = h, n
	rec.rest = &io.LimitedReader{R: rec.r, N: n}
	rec.Block = rec.rest
	rr.cur = rec
	return rec, nil
}

// readHeader reads a record's version line and WARC header fields up to the empty line.
func readHeader(r *bufio.Reader) (http.Header, error) {
	h := http.Header{}
	size := 0
	var last string
	for i := 0; ; i++ {
		line, err := r.ReadSlice('\n')
		size += len(line)
		if errors.Is(err, bufio.ErrBufferFull) || size > maxHeaderBytes || i > maxHeaderLines {
			return nil, errors.New("record header too long")
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		s := strings.TrimRight(string(line), "\r\n")
		switch {
		case i == 0:
			if !strings.HasPrefix(s, "WARC/") {
				return nil, errors.New("missing record version")
			}
		case s == "":
			return h, nil
		case (s[0] == ' ' || s[0] == '\t') && last != "":
			vs := h[last]
			vs[len(vs)-1] += " " + strings.TrimSpace(s)
		default:
			k, v, ok := strings.Cut(s, ":")
			if !ok {
				return nil, fmt.Errorf("bad WARC header line %q", s)
			}
			last = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k))
			h[last] = append(h[last], strings.TrimSpace(v))
		}
	}
}

// finish skips the rest of the record: the block, the end marker and, for a gzipped
// record, the rest of its gzip member.
func (rec *rawRecord) finish() error {
	if rec.closed {
		return nil
	}
	rec.closed = true
	if _, err := io.Copy(io.Discard, rec.rest); err != nil {
		return fmt.Errorf("record at offset %d: %w", rec.Offset, err)
	}
	if rec.rest.N > 0 {
		return fmt.Errorf("record at offset %d: %w", rec.Offset, io.ErrUnexpectedEOF)
	}
	// The end marker is CRLF CRLF; take what there is of it.
	for range 4 {
		b, err := rec.r.Peek(1)
		if err != nil || (b[0] != '\r' && b[0] != '\n') {
			break
		}
		_, _ = rec.r.Discard(1)
	}
	if rec.gzip {
		if _, err := io.Copy(io.Discard, rec.r); err != nil {
			return fmt.Errorf("record at offset %d: %w", rec.Offset, err)
		}
	}
	return nil
}

// id returns a WARC field that holds a record ID without its angle brackets.
func id(v string) string { return strings.Trim(strings.TrimSpace(v), "<>") }
