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
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// ErrClosed is returned by Export and Flush after Close.
var ErrClosed = errors.New("feed is closed")

// DefaultFlushInterval is how often a Feed flushes its buffer when Env.FlushInterval is 0:
// a crash loses at most about this much output.
const DefaultFlushInterval = time.Second

// TimeLayout is the layout of %(time)s in feed URIs: Scrapy's UTC timestamp with ":"
// replaced by "-", such as 2026-11-30T01-02-03.
const TimeLayout = "2006-01-02T15-04-05"

// Env is what Open needs from the crawl around the feed.
type Env struct {
	// Stdout receives the feeds "-" and "stdout:"; nil means os.Stdout.
	Stdout io.Writer
	// SpiderName replaces %(name)s in the URI.
	SpiderName string
	// Now is the crawl's start time; %(time)s is it in UTC. Zero means time.Now().
	Now time.Time
	// Logger receives warnings and the "stored feed" line; nil means slog.Default().
	Logger *slog.Logger
	// FlushInterval is how often the buffered output is flushed: 0 means
	// DefaultFlushInterval, a negative value turns the timer off (Flush and Close still
	// flush).
	FlushInterval time.Duration
}

// Feed is one open feed: a format writer on a storage (Scrapy: a FeedSlot with its
// storage). It implements Exporter, so the engine drives it with Export and Close from one
// goroutine. Items go through a buffer that a timer goroutine flushes every
// Env.FlushInterval, and Close flushes the rest. With Config.Overwrite the output goes to a
// temporary file in the target's folder that Close renames over the target, so readers
// never see a half-written file.
type Feed struct {
	uri    string // after template expansion
	path   string // the target file; "" for stdout
	format string
	cfg    Config
	logger *slog.Logger

	mu    sync.Mutex // guards everything below against the flush timer
	exp   Exporter
	buf   *bufio.Writer
	gz    *gzip.Writer // nil unless the path ends in .gz
	file  *os.File     // nil for stdout
	tmp   string       // the temporary file of an overwrite
	items int
	werr  error // first flush error, reported by Close
	done  bool

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open expands the URI templates %(name)s and %(time)s, opens the storage and returns the
// feed (Scrapy: FeedExporter.open_spider). The URI is "-" or "stdout:" for env.Stdout, a
// file path (relative to the working folder; missing parent folders are created) or a
// file:// URI; a path ending in .gz is gzip-compressed. cfg.Format may be empty to take the
// format from the extension. Without cfg.Overwrite the feed appends to the file; appending
// to a non-empty JSON or XML file is an error, since the result would not be valid, and a
// CSV feed appended to a non-empty file does not repeat its header.
func Open(uri string, cfg Config, env Env) (*Feed, error) {
	f, err := open(uri, cfg, env)
	if err != nil {
		return nil, fmt.Errorf("open feed %s: %w", uri, err)
	}
	return f, nil
}

func open(uri string, cfg Config, env Env) (*Feed, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.BatchItemCount > 0 {
		return nil, errors.New("batch_item_count is not supported yet")
	}
	expanded, err := expandURI(uri, env)
	if err != nil {
		return nil, err
	}
	f := &Feed{uri: expanded, cfg: cfg, logger: env.Logger, stop: make(chan struct{})}
	if f.logger == nil {
		f.logger = slog.Default()
	}
	path, stdout, err := storagePath(expanded)
	if err != nil {
		return nil, err
	}
	format := cfg.Format
	if format == "" {
		if stdout {
			return nil, errors.New("stdout feed needs a format (for example -o -:jsonl)")
		}
		if format = formatFromExt(path); format == "" {
			return nil, fmt.Errorf("cannot tell the feed format from the extension of %s (want one of %s)", path, strings.Join(Formats(), ", "))
		}
	}
	var ok bool
	if f.format, ok = normalizeFormat(format); !ok {
		return nil, fmt.Errorf("unknown feed format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}

	var w io.Writer
	var csvHeader []string
	if stdout {
		w = env.Stdout
		if w == nil {
			w = os.Stdout
		}
	} else {
		f.path = path
		if csvHeader, err = f.openFile(); err != nil {
			return nil, err
		}
		w = f.file
		if strings.HasSuffix(strings.ToLower(path), ".gz") {
			f.gz = gzip.NewWriter(f.file)
			w = f.gz
		}
	}
	f.buf = bufio.NewWriterSize(w, 64<<10)
	if f.exp, err = newExporter(f.format, f.buf, cfg, f.logger, csvHeader); err != nil {
		f.discard()
		return nil, err
	}

	interval := env.FlushInterval
	if interval == 0 {
		interval = DefaultFlushInterval
	}
	if interval > 0 {
		f.wg.Go(func() { f.flushEvery(interval) })
	}
	return f, nil
}

// openFile opens the target for appending, or a temporary file next to it for an
// overwrite. When appending CSV to a non-empty file it returns the columns to use
// without writing a header.
func (f *Feed) openFile() ([]string, error) {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create feed folder: %w", err)
	}
	info, err := os.Stat(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		info = nil
	case err != nil:
		return nil, err
	case info.IsDir():
		return nil, fmt.Errorf("%s is a folder", f.path)
	}

	if f.cfg.Overwrite {
		tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.path)+".*.tmp")
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
		f.file, f.tmp = tmp, tmp.Name()
		return nil, nil
	}

	var header []string
	if info != nil && info.Size() > 0 {
		switch f.format {
		case FormatJSON, FormatXML:
			return nil, fmt.Errorf("cannot append to the non-empty %s file %s, which would make it invalid: use -O to overwrite it, or a .jsonl feed to append",
				strings.ToUpper(f.format), f.path)
		case FormatCSV:
			if header, err = readCSVHeader(f.path); err != nil {
				return nil, err
			}
			if f.cfg.Fields != nil {
				header = f.cfg.Fields
			}
		}
	}
	if f.file, err = os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, err
	}
	return header, nil
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

// flushEvery flushes the buffer every interval until Close.
func (f *Feed) flushEvery(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
			if err := f.Flush(); err != nil && !errors.Is(err, ErrClosed) {
				return // the error is kept in f.werr and reported by Close
			}
		}
	}
}

// URI returns the feed's URI after template expansion.
func (f *Feed) URI() string { return f.uri }

// Format returns the canonical format name: jsonl, json, csv or xml.
func (f *Feed) Format() string { return f.format }

// Count returns the number of items exported so far.
func (f *Feed) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.items
}

// Export writes one item to the buffer (Scrapy: export_item). It is safe to call
// concurrently with the flush timer.
func (f *Feed) Export(item types.Item) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return fmt.Errorf("export to %s: %w", f.uri, ErrClosed)
	}
	if f.werr != nil {
		return fmt.Errorf("export to %s: %w", f.uri, f.werr)
	}
	if err := f.exp.Export(item); err != nil {
		return fmt.Errorf("export to %s: %w", f.uri, err)
	}
	f.items++
	return nil
}

// Flush writes the buffered output through to the storage (for gzip, a sync block). The
// flush timer calls it; calling it directly is safe too.
func (f *Feed) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return fmt.Errorf("flush %s: %w", f.uri, ErrClosed)
	}
	return f.flushLocked()
}

func (f *Feed) flushLocked() error {
	if f.werr != nil {
		return f.werr
	}
	err := f.buf.Flush()
	if err == nil && f.gz != nil {
		err = f.gz.Flush()
	}
	if err != nil {
		f.werr = fmt.Errorf("flush %s: %w", f.uri, err)
		f.logger.Error("feed write failed", "uri", f.uri, "error", err)
	}
	return f.werr
}

// Close stops the flush timer, writes the format's trailer, flushes and closes the storage
// and, for an overwrite, renames the temporary file over the target (Scrapy:
// finish_exporting and the storage's store). If anything failed the target is left as it
// was and the temporary file is removed. Close is idempotent: later calls return the
// first call's result.
func (f *Feed) Close() error {
	f.closeOnce.Do(func() { f.closeErr = f.close() })
	return f.closeErr
}

func (f *Feed) close() error {
	close(f.stop)
	f.wg.Wait()

	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = true
	var errs []error
	if err := f.exp.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := f.flushLocked(); err != nil {
		errs = append(errs, err)
	}
	if f.gz != nil {
		if err := f.gz.Close(); err != nil && f.werr == nil {
			errs = append(errs, fmt.Errorf("close gzip stream: %w", err))
		}
	}
	if f.file != nil {
		if f.tmp != "" && len(errs) == 0 {
			if err := f.file.Sync(); err != nil {
				errs = append(errs, fmt.Errorf("sync %s: %w", f.tmp, err))
			}
		}
		if err := f.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", f.file.Name(), err))
		}
	}
	if f.tmp != "" {
		if len(errs) == 0 {
			if err := os.Rename(f.tmp, f.path); err != nil {
				errs = append(errs, fmt.Errorf("replace %s: %w", f.path, err))
			}
		}
		if len(errs) > 0 {
			os.Remove(f.tmp)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close feed %s: %w", f.uri, err)
	}
	f.logger.Info("stored feed", "format", f.format, "items", f.items, "uri", f.uri)
	return nil
}

// discard releases what open acquired when it fails half-way.
func (f *Feed) discard() {
	if f.file != nil {
		f.file.Close()
	}
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

// placeholder matches Scrapy's URI parameters: %(name)s, %(time)s.
var placeholder = regexp.MustCompile(`%\(([^)]*)\)[sd]`)

// expandURI replaces %(name)s with the spider's name and %(time)s with the UTC start time.
func expandURI(uri string, env Env) (string, error) {
	var err error
	out := placeholder.ReplaceAllStringFunc(uri, func(m string) string {
		switch key := placeholder.FindStringSubmatch(m)[1]; key {
		case "name":
			if env.SpiderName == "" && err == nil {
				err = errors.New("%(name)s in the feed uri, but the spider has no name")
			}
			return env.SpiderName
		case "time":
			now := env.Now
			if now.IsZero() {
				now = time.Now()
			}
			return now.UTC().Format(TimeLayout)
		default:
			if err == nil {
				err = fmt.Errorf("unknown placeholder %s in the feed uri (want %%(name)s or %%(time)s)", m)
			}
			return m
		}
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

// Interface guards
var _ Exporter = (*Feed)(nil)
