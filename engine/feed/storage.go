package feed

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sink is one output file (or stdout) with its format writer: the whole feed, or one batch
// of it (Scrapy: a FeedSlot with its storage). Its owner, the Feed, serialises all calls.
//
// The format writer writes into rec; commit then hands the record (through gzip, for a
// .gz path) to the storage in one Write, so the file only ever grows by whole records. A
// Write that fails half-way (a full disk, a file-size limit) is cut back off the file.
type sink struct {
	uri  string // after template expansion
	path string // the target file; "" for stdout
	out  io.Writer
	exp  Exporter
	rec  bytes.Buffer // what the format writer wrote since the last commit
	gz   *gzip.Writer // compresses into zbuf; nil unless the path ends in .gz
	zbuf bytes.Buffer
	file *os.File  // nil for stdout; for S3, the local file that close uploads
	obj  *s3Object // the S3 object of an s3:// URI, nil for files and stdout
	keep bool      // S3: the local file is a job's, kept after the upload (see s3.go)
	size int64     // bytes of whole records in file
	// mark is where Resume can continue the file: the end of the last whole record for a
	// plain file, the end of the last whole gzip member for .gz (see endMember).
	mark   int64
	zdirty bool  // .gz: the current gzip member has data and no end yet
	cut    int64 // Resume: the bytes after the job's offset, cut by begin
	// cutTrailer: those bytes are only the closing a clean Close wrote (no warning).
	cutTrailer bool
	dirSynced  bool // Sync synced the folder of the file the sink created
	trunc      bool // the file is still to be cut to size (see begin)
	made       bool // openFile created the file
	items      int
	werr       error // first write error; the sink writes nothing after it
	logger     *slog.Logger
}

// openSink opens the storage of uri (already expanded) and the format writer on it. The
// file is changed only by begin (an overwrite's target truncated, an appended file's end
// repaired), so that OpenAll can open every feed before it changes any file.
func openSink(uri, format string, cfg Config, env Env, logger *slog.Logger) (*sink, error) {
	s := &sink{uri: uri, logger: logger}
	if isS3(uri) {
		return openS3Sink(uri, format, cfg, env.S3, "", s)
	}
	stdout := env.Stdout
	path, isStdout, err := storagePath(uri)
	if err != nil {
		return nil, err
	}
	var st resume
	if isStdout {
		s.out = stdout
		if s.out == nil {
			s.out = os.Stdout
		}
	} else {
		s.path = path
		if st, err = s.openFile(format, cfg); err != nil {
			return nil, err
		}
		s.out = s.file
		if strings.HasSuffix(strings.ToLower(path), ".gz") {
			s.gz = gzip.NewWriter(&s.zbuf)
		}
	}
	if s.exp, err = newExporter(format, &s.rec, cfg, logger, st); err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// resume is what a format writer needs to know to continue a file: the CSV columns of its
// header, or that a JSON array or XML <items> element is open and holds items.
type resume struct {
	csvHeader []string // non-nil: the header is in the file already
	csvPath   string   // the file, for the warning about mismatched columns
	// csvChecked: the columns were compared with the items when the file was first
	// appended to (a resumed job), so the first item's keys are not compared again.
	csvChecked bool
	started    bool // JSON and XML: the opening "[" or <items> is in the file
	closed     bool // JSON and XML: the file had its closing "]" or </items>
	items      int  // JSON and XML: items already in the file
}

// openFile opens the target for appending (after repairing its end, see repair) or, for an
// overwrite, for writing from the start.
func (s *sink) openFile(format string, cfg Config) (resume, error) {
	var st resume
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, fmt.Errorf("create feed folder: %w", err)
	}
	info, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		info = nil
	case err != nil:
		return st, err
	case info.IsDir():
		return st, fmt.Errorf("%s is a folder", s.path)
	}
	if s.file, err = os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return st, err
	}
	s.made = info == nil
	if cfg.Overwrite {
		s.trunc = true
		return st, nil
	}
	if info == nil || info.Size() == 0 {
		return st, nil
	}
	if st, err = s.repair(format, cfg); err != nil {
		s.file.Close()
		s.file = nil
		return st, err
	}
	return st, nil
}

// begin cuts the file to s.size: all of an overwrite's target, or the end repair found to
// go from an appended file. Until then the file is as it was.
func (s *sink) begin() error {
	if !s.trunc {
		return nil
	}
	s.trunc = false
	if err := s.file.Truncate(s.size); err != nil {
		return fmt.Errorf("cut %s to %d bytes: %w", s.path, s.size, err)
	}
	return nil
}

// repair prepares a non-empty file for appending: it cuts a partial last record (left by a
// crash in the middle of a write) with a warning that says how many bytes went, and for
// JSON and XML it removes the closing "]" or </items> (or notes that a killed run left
// none) so that the new items continue the same document. A file that is not a feed of
// the format is refused. Gzipped JSON and XML cannot be continued.
func (s *sink) repair(format string, cfg Config) (resume, error) {
	var st resume
	gz := strings.HasSuffix(strings.ToLower(s.path), ".gz")
	if gz {
		switch format {
		case FormatJSON, FormatXML:
			return st, fmt.Errorf("cannot append to the non-empty gzipped %s file %s: use -O to overwrite it, or a .jsonl feed to append",
				strings.ToUpper(format), s.path)
		}
		// Each run adds a gzip member. A killed run's member has no end, and gzip readers
		// stop there, so appending after it would hide the new items: refuse, saying how
		// to recover what it holds.
		if err := gzipComplete(s.path); err != nil {
			return st, err
		}
		// New members go after the whole ones: a failed write is cut back to here, and
		// Resume can continue from here.
		size, err := s.file.Seek(0, io.SeekEnd)
		if err != nil {
			return st, err
		}
		s.size, s.mark = size, size
		if format == FormatCSV {
			header, err := readCSVHeader(s.path)
			if err != nil {
				return st, err
			}
			return s.csvResume(header, cfg)
		}
		return st, nil
	}
	size, err := s.file.Seek(0, io.SeekEnd)
	if err != nil {
		return st, err
	}
	cut := size
	switch format {
	case FormatJSONLines:
		cut, err = lastNewline(s.file, size)
	case FormatCSV:
		cut, err = csvWholeRecords(s.file, size)
	case FormatJSON:
		cut, st, err = jsonArrayEnd(s.file, s.path)
	case FormatXML:
		cut, st, err = xmlItemsEnd(s.file, s.path)
	}
	if err != nil {
		return st, err
	}
	s.trunc = cut < size // begin cuts it
	switch {
	case (format == FormatJSON || format == FormatXML) && !st.closed:
		cutNote := ""
		if cut < size {
			cutNote = fmt.Sprintf(", cut %d bytes after its last whole item", size-cut)
		}
		s.logger.Warn(fmt.Sprintf("Feed %s was left unclosed (a killed run?)%s: appending continues its %d items", s.path, cutNote, st.items),
			"uri", s.uri, "bytes_cut", size-cut)
	case format == FormatJSONLines || format == FormatCSV:
		if cut < size {
			s.logger.Warn(fmt.Sprintf("Feed %s ended in a partial record (a killed run?): cut the last %d bytes", s.path, size-cut),
				"uri", s.uri, "bytes_cut", size-cut)
		}
	}
	s.size, s.mark = cut, cut
	if format == FormatCSV && cut > 0 {
		header, err := readCSVHeader(s.path)
		if err != nil {
			return st, err
		}
		return s.csvResume(header, cfg)
	}
	return st, nil
}

// csvResume returns the resume state of a CSV file with header. The file's columns are
// kept in its order; Config.Fields that differ from them are reported, and refused when
// they share none.
func (s *sink) csvResume(header []string, cfg Config) (resume, error) {
	st := resume{csvHeader: header, csvPath: s.path}
	if cfg.Fields == nil || slices.Equal(cfg.Fields, header) {
		return st, nil
	}
	dropped, missing := diffColumns(header, cfg.Fields)
	if len(dropped) == len(cfg.Fields) {
		return st, fmt.Errorf("cannot append to %s: its columns %v share none with the fields %v (use -O to replace it, or another file)",
			s.path, header, cfg.Fields)
	}
	s.logger.Warn(fmt.Sprintf("Appending to %s with its own columns %v: %s", s.path, header, columnsNote(dropped, missing)), "uri", s.uri)
	return st, nil
}

// columnsNote says which fields are not written and which columns are left empty.
func columnsNote(dropped, missing []string) string {
	var parts []string
	if len(dropped) > 0 {
		parts = append(parts, fmt.Sprintf("fields not written %v", dropped))
	}
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("columns left empty %v", missing))
	}
	return strings.Join(parts, ", ")
}

// diffColumns returns the keys that are not columns and the columns that are not keys.
func diffColumns(columns, keys []string) (dropped, missing []string) {
	for _, k := range keys {
		if !slices.Contains(columns, k) {
			dropped = append(dropped, k)
		}
	}
	for _, c := range columns {
		if !slices.Contains(keys, c) {
			missing = append(missing, c)
		}
	}
	return dropped, missing
}

// commit writes what the format writer produced since the last commit, in one Write (and
// for gzip, one sync block), so a crash leaves whole records only. If the Write fails the
// file is cut back to its last whole record and the sink fails for good.
func (s *sink) commit() error {
	if s.werr != nil {
		return s.werr
	}
	data := s.rec.Bytes()
	if s.gz != nil && len(data) > 0 {
		s.zbuf.Reset()
		_, _ = s.gz.Write(data) // into a bytes.Buffer: no error
		_ = s.gz.Flush()
		data = s.zbuf.Bytes()
	}
	s.rec.Reset()
	if err := s.write(data); err != nil {
		return err
	}
	if s.gz != nil && len(data) > 0 {
		s.zdirty = true
	}
	return nil
}

// endMember ends the current gzip member, if it has data, so that the file is a whole
// multi-member gzip file up to s.size, and moves the mark there. The next member starts
// with the next record. It does nothing for a plain file.
func (s *sink) endMember() error {
	if s.gz == nil || !s.zdirty {
		return nil
	}
	s.zbuf.Reset()
	_ = s.gz.Close() // into a bytes.Buffer: no error
	if err := s.write(s.zbuf.Bytes()); err != nil {
		return err
	}
	s.gz.Reset(&s.zbuf)
	s.zdirty = false
	s.mark = s.size
	return nil
}

// write writes data to the storage in one call and cuts a partial write back off.
func (s *sink) write(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	if err := s.begin(); err != nil {
		s.werr = &StorageError{URI: s.uri, Err: err}
		return s.werr
	}
	n, err := s.out.Write(data)
	if err == nil && n < len(data) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if s.file != nil && n > 0 {
			if terr := s.file.Truncate(s.size); terr != nil {
				err = errors.Join(err, fmt.Errorf("cut the partial record: %w", terr))
			}
		}
		s.werr = &StorageError{URI: s.uri, Err: err}
		return s.werr
	}
	s.size += int64(n)
	return nil
}

// close writes the trailer, ends the gzip stream, syncs and closes the storage.
func (s *sink) close() error {
	var errs []error
	if err := s.exp.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.commit(); err != nil {
		errs = append(errs, err)
	}
	// End the last member; an empty file still gets one, so it is a valid gzip file.
	if s.gz != nil && s.werr == nil && (s.zdirty || s.size == 0) {
		s.zbuf.Reset()
		_ = s.gz.Close()
		if err := s.write(s.zbuf.Bytes()); err != nil {
			errs = append(errs, err)
		}
		s.zdirty = false
	}
	if s.werr == nil {
		if err := s.begin(); err != nil { // an empty overwrite still replaces the target
			errs = append(errs, err)
		}
	}
	if s.file != nil {
		if s.werr == nil {
			if err := s.file.Sync(); err != nil {
				errs = append(errs, &StorageError{URI: s.uri, Err: fmt.Errorf("sync: %w", err)})
			}
		}
		if s.obj != nil && s.werr == nil && len(errs) == 0 {
			if err := s.obj.upload(context.Background(), s.file, s.size); err != nil {
				errs = append(errs, &StorageError{URI: s.uri, Err: fmt.Errorf("upload: %w", err)})
			}
		}
		if err := s.file.Close(); err != nil {
			errs = append(errs, &StorageError{URI: s.uri, Err: fmt.Errorf("close: %w", err)})
		}
		if s.obj != nil && !s.keep {
			os.Remove(s.path)
		}
	}
	return errors.Join(errs...)
}

// discard releases what openSink acquired, leaving the file as it was (a file it created
// is removed).
func (s *sink) discard() {
	if s.file != nil {
		s.file.Close()
		if s.obj != nil && !s.keep || s.made && s.size == 0 {
			os.Remove(s.path)
		}
	}
}

// StorageError is an Export or Close error after which the feed writes nothing more: its
// storage failed (a full disk, a file-size limit, a closed pipe) or cannot take the items.
// Every whole record written before it stays in the file, and nothing else does.
type StorageError struct {
	URI string
	Err error
}

func (e *StorageError) Error() string { return fmt.Sprintf("feed %s: %v", e.URI, e.Err) }

// Unwrap returns the storage's error.
func (e *StorageError) Unwrap() error { return e.Err }

// Fatal reports true: the feed is unusable (the engine closes the spider with finish_reason
// feed_error unless FEED_ERRORS is ignore).
func (e *StorageError) Fatal() bool { return true }

// gzipComplete reads the gzip file at path to its end and returns an error that says what to
// do when its stream is cut short (a killed run) or is not gzip.
func gzipComplete(path string) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(file, 64<<10))
	if err == nil {
		_, err = io.Copy(io.Discard, zr)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("cannot append to %s: its gzip stream is cut short (a killed run?), and gzip readers would stop there, before the new items: "+
			"save its whole items with `gzip -dc %s > saved` (which prints them, then an error), then use -O, or another file", path, path)
	default:
		return fmt.Errorf("cannot append to %s: it is not a whole gzip file (%v): use -O to overwrite it, or another file", path, err)
	}
}

// readCSVHeader returns the first record of the CSV file at path (gunzipped if it ends in
// .gz).
func readCSVHeader(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var r io.Reader = file
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		gz, err := gzip.NewReader(file)
		if err != nil {
			return nil, fmt.Errorf("read csv header of %s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	return csvHeaderFrom(r, path)
}

// csvHeaderFrom returns the first CSV record in r, the content of the file at path.
func csvHeaderFrom(r io.Reader, path string) ([]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read csv header of %s: %w", path, err)
	}
	return header, nil
}

// placeholder matches Scrapy's URI parameters, %(name)s, %(time)s, %(batch_id)05d, with
// an optional zero-padded width.
var placeholder = regexp.MustCompile(`%\(([^)]*)\)(0?[0-9]*)([sd])`)

// uriParams are the values of the URI placeholders for one file.
type uriParams struct {
	name      string
	worker    string
	time      time.Time // crawl start
	batchID   int       // 0: not batching
	batchTime time.Time
}

// expandURI replaces %(name)s with the spider's name, %(time)s with the UTC start time,
// %(worker)s with the worker's id and, when batching, %(batch_id)d and %(batch_time)s.
// Each value goes through pathSafe, so that no value can take the path out of the
// folder the URI names.
func expandURI(uri string, p uriParams) (string, error) {
	var err error
	fail := func(e error) {
		if err == nil {
			err = e
		}
	}
	out := placeholder.ReplaceAllStringFunc(uri, func(m string) string {
		v, ok := expandValue(m, p, fail)
		if !ok { // an unknown placeholder, kept for the error
			return m
		}
		return pathSafe(v)
	})
	return out, err
}

// expandValue returns the value of the placeholder m, or false after calling fail when m
// is unknown.
func expandValue(m string, p uriParams, fail func(error)) (string, bool) {
	sub := placeholder.FindStringSubmatch(m)
	key, width, verb := sub[1], sub[2], sub[3]
	switch {
	case key == "name" && verb == "s":
		if p.name == "" {
			fail(errors.New("%(name)s in the feed uri, but the spider has no name"))
		}
		return p.name, true
	case key == "time" && verb == "s":
		return p.time.UTC().Format(TimeLayout), true
	case key == "worker" && verb == "s":
		if p.worker == "" {
			fail(errors.New("%(worker)s in the feed uri, but the crawl has no worker id"))
		}
		return p.worker, true
	case key == "batch_id" && verb == "d" && p.batchID > 0:
		w, _ := strconv.Atoi(width)
		return fmt.Sprintf("%0*d", w, p.batchID), true
	case key == "batch_time" && verb == "s" && p.batchID > 0:
		return p.batchTime.UTC().Format(TimeLayout + ".000000"), true
	}
	fail(fmt.Errorf("unknown placeholder %s in the feed uri (want %%(name)s, %%(time)s or %%(worker)s, and with batchItemCount %%(batch_id)d or %%(batch_time)s)", m))
	return m, false
}

// pathSafe makes v safe to substitute into a file path or a file:// URI: '/', '\', NUL
// and '%' (which a file:// URI would decode, "%2F" into '/') become '_', and so does each
// dot of a value made of dots only ("." and ".." would name the folder or its parent).
// Other values are kept as they are.
func pathSafe(v string) string {
	if strings.Trim(v, ".") == "" {
		return strings.Repeat("_", len(v))
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', 0, '%':
			return '_'
		}
		return r
	}, v)
}

var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// storagePath returns the file path of uri, or stdout true for "-" and "stdout:".
func storagePath(uri string) (path string, stdout bool, err error) {
	switch {
	case uri == "-" || uri == "stdout:":
		return "", true, nil
	case uri == "":
		return "", false, errors.New("empty feed uri")
	}
	m := schemeRE.FindStringSubmatch(uri)
	if m == nil {
		return uri, false, nil
	}
	if !strings.EqualFold(m[1], "file") {
		return "", false, fmt.Errorf("unsupported feed storage %q (want a file path, file://, s3:// or stdout:)", m[1])
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", false, fmt.Errorf("parse feed uri: %w", err)
	}
	if u.Path == "" {
		return "", false, errors.New("file:// uri without a path")
	}
	return filepath.FromSlash(u.Path), false, nil
}

// formatFromExt returns the format named by path's extension (after a .gz), or the bare
// extension when no format has it.
func formatFromExt(path string) string {
	p := strings.ToLower(path)
	p = strings.TrimSuffix(p, ".gz")
	ext := strings.TrimPrefix(filepath.Ext(p), ".")
	if f, ok := normalizeFormat(ext); ok {
		return f
	}
	return ext
}
