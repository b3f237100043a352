package feed

import (
	"bufio"
	"compress/gzip"
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
	"strconv"
	"strings"
	"time"
)

// sink is one output file (or stdout) with its format writer: the whole feed, or one batch
// of it (Scrapy: a FeedSlot with its storage). Its owner, the Feed, serialises all calls.
type sink struct {
	uri   string // after template expansion
	path  string // the target file; "" for stdout
	exp   Exporter
	buf   *bufio.Writer
	gz    *gzip.Writer // nil unless the path ends in .gz
	file  *os.File     // nil for stdout
	tmp   string       // the temporary file of an overwrite
	items int
	werr  error // first write error; the sink is unusable after it
}

// openSink opens the storage of uri (already expanded) and the format writer on it.
func openSink(uri, format string, cfg Config, stdout io.Writer, logger *slog.Logger) (*sink, error) {
	s := &sink{uri: uri}
	path, isStdout, err := storagePath(uri)
	if err != nil {
		return nil, err
	}
	var w io.Writer
	var csvHeader []string
	if isStdout {
		w = stdout
		if w == nil {
			w = os.Stdout
		}
	} else {
		s.path = path
		if csvHeader, err = s.openFile(format, cfg); err != nil {
			return nil, err
		}
		w = s.file
		if strings.HasSuffix(strings.ToLower(path), ".gz") {
			s.gz = gzip.NewWriter(s.file)
			w = s.gz
		}
	}
	s.buf = bufio.NewWriterSize(w, 64<<10)
	if s.exp, err = newExporter(format, s.buf, cfg, logger, csvHeader); err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// openFile opens the target for appending, or a temporary file next to it for an
// overwrite. When appending CSV to a non-empty file it returns the columns to use, so that
// the header is not written again.
func (s *sink) openFile(format string, cfg Config) ([]string, error) {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create feed folder: %w", err)
	}
	info, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		info = nil
	case err != nil:
		return nil, err
	case info.IsDir():
		return nil, fmt.Errorf("%s is a folder", s.path)
	}

	if cfg.Overwrite {
		tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".*.tmp")
		if err != nil {
			return nil, fmt.Errorf("create temporary file: %w", err)
		}
		mode := fs.FileMode(0o644)
		if info != nil {
			mode = info.Mode().Perm()
		}
		if err := tmp.Chmod(mode); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("chmod temporary file: %w", err)
		}
		s.file, s.tmp = tmp, tmp.Name()
		return nil, nil
	}

	var header []string
	if info != nil && info.Size() > 0 {
		switch format {
		case FormatJSON, FormatXML:
			return nil, fmt.Errorf("cannot append to the non-empty %s file %s, which would make it invalid: use -O to overwrite it, or a .jsonl feed to append",
				strings.ToUpper(format), s.path)
		case FormatCSV:
			if header, err = readCSVHeader(s.path); err != nil {
				return nil, err
			}
			if cfg.Fields != nil {
				header = cfg.Fields
			}
		}
	}
	if s.file, err = os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, err
	}
	return header, nil
}

// flush writes the buffered output through to the storage (for gzip, a sync block).
func (s *sink) flush() error {
	if s.werr != nil {
		return s.werr
	}
	err := s.buf.Flush()
	if err == nil && s.gz != nil {
		err = s.gz.Flush()
	}
	if err != nil {
		s.werr = fmt.Errorf("flush %s: %w", s.uri, err)
	}
	return s.werr
}

// close writes the trailer, flushes, closes the storage and, for an overwrite, renames the
// temporary file over the target; after an error the target is left as it was.
func (s *sink) close() error {
	var errs []error
	if err := s.exp.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.flush(); err != nil {
		errs = append(errs, err)
	}
	if s.gz != nil && s.werr == nil {
		if err := s.gz.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close gzip stream: %w", err))
		}
	}
	if s.file != nil {
		if s.tmp != "" && len(errs) == 0 {
			if err := s.file.Sync(); err != nil {
				errs = append(errs, fmt.Errorf("sync %s: %w", s.tmp, err))
			}
		}
		if err := s.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", s.file.Name(), err))
		}
	}
	if s.tmp != "" {
		if len(errs) == 0 {
			if err := os.Rename(s.tmp, s.path); err != nil {
				errs = append(errs, fmt.Errorf("replace %s: %w", s.path, err))
			}
		}
		if len(errs) > 0 {
			os.Remove(s.tmp)
		}
	}
	return errors.Join(errs...)
}

// discard releases what openSink acquired when it fails half-way.
func (s *sink) discard() {
	if s.file != nil {
		s.file.Close()
	}
	if s.tmp != "" {
		os.Remove(s.tmp)
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
	time      time.Time // crawl start
	batchID   int       // 0: not batching
	batchTime time.Time
}

// expandURI replaces %(name)s with the spider's name, %(time)s with the UTC start time and,
// when batching, %(batch_id)d and %(batch_time)s.
func expandURI(uri string, p uriParams) (string, error) {
	var err error
	fail := func(e error) {
		if err == nil {
			err = e
		}
	}
	out := placeholder.ReplaceAllStringFunc(uri, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		key, width, verb := sub[1], sub[2], sub[3]
		switch {
		case key == "name" && verb == "s":
			if p.name == "" {
				fail(errors.New("%(name)s in the feed uri, but the spider has no name"))
			}
			return p.name
		case key == "time" && verb == "s":
			return p.time.UTC().Format(TimeLayout)
		case key == "batch_id" && verb == "d" && p.batchID > 0:
			w, _ := strconv.Atoi(width)
			return fmt.Sprintf("%0*d", w, p.batchID)
		case key == "batch_time" && verb == "s" && p.batchID > 0:
			return p.batchTime.UTC().Format(TimeLayout + ".000000")
		}
		fail(fmt.Errorf("unknown placeholder %s in the feed uri (want %%(name)s or %%(time)s, and with batchItemCount %%(batch_id)d or %%(batch_time)s)", m))
		return m
	})
	return out, err
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
		return "", false, fmt.Errorf("unsupported feed storage %q (want a file path, file:// or stdout:)", m[1])
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
