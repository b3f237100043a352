// Package warc records downloads to WARC 1.1 files and replays them (jscrawl run --warc,
// --replay). It holds the archive format's side, on github.com/nlnwa/gowarc: the Writer
// makes a request and a response record for each download, with block and payload
// digests and per-record gzip, in files that rotate past a size; the Archive indexes the
// exchanges of one or more WARC files by method, URL and body and reads their responses
// back. The engine plugs both in at its download handlers (engine/download_archive.go).
package warc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// gowarcMu is held around every gowarc call that makes record options (the file writer's
// Write, which makes the warcinfo record of a new file, NewWarcFileReaderFromStream):
// gowarc v3.1.0 calls uuid.EnableRandPool there, an unsynchronised write of a global that
// uuid.New reads.
var gowarcMu sync.Mutex

// recordOptions are the options of the warcinfo records gowarc builds: WARC/1.1, SHA-1 digests in base32
// (the form CDX indexes and replay tools compare) added where missing, and a record that
// breaks the standard is an error rather than a warning.
func recordOptions() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithDefaultDigestAlgorithm("sha1"),
		gowarc.WithAddMissingDigest(true),
		gowarc.WithAddMissingRecordId(true),
		gowarc.WithSpecViolationPolicy(gowarc.ErrFail),
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail),
	}
}

// Writer writes the downloads of a crawl to WARC files: path first, then, once a file
// would grow past the maximum size, path's stem with -00001, -00002, ...
// (crawl.warc.gz, crawl-00001.warc.gz). Each file starts with a warcinfo record; each
// download is a request record and a response record, written together, which name each
// other in WARC-Concurrent-To. A name ending in .gz gzips each record on its own, so a
// reader can seek to any record. A file is written as NAME.open and renamed when it
// closes. Safe for concurrent use: downloads are written one at a time.
//
// A record is whole or absent: when a write fails (a full disk), the file is cut back to
// where the failed download's records began and closed, and every later Write returns the
// same *WriteError without touching the disk.
type Writer struct {
	w    *gowarc.WarcFileWriter
	opts []gowarc.WarcRecordOption
	gen  *nameGenerator

	mu     sync.Mutex // held by Write and Close
	failed *WriteError
}

// WriteError is a Writer's failure to write its file (ENOSPC, EIO, ...): the file holds
// the records written before it, whole, and the Writer writes nothing more.
type WriteError struct {
	Path string // the file that could not be written, or the folder when none was created
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("warc file %s: %v", e.Path, e.Err) }

// Unwrap returns the file system's error.
func (e *WriteError) Unwrap() error { return e.Err }

// Fatal reports true: the Writer is unusable (the engine closes the spider with
// finish_reason warc_error unless WARC_ERRORS is ignore).
func (e *WriteError) Fatal() bool { return true }

// Field is one line of a warcinfo record.
type Field struct{ Name, Value string }

// Create returns a Writer to path (see Writer) that starts a new file before one would
// pass maxSize bytes on disk (0: never), with info as the warcinfo record's fields after
// software, format and conformsTo. It checks that path's folder exists, and removes the
// files of an earlier rotation of path (its stem with -00001, ... in sequence), which a
// replay of path would otherwise read as part of this crawl; path itself is replaced when
// the first file closes.
func Create(path string, maxSize int64, info ...Field) (*Writer, error) {
	return create(path, maxSize, false, info)
}

// Continue is Create for a crawl that goes on (a resumed job): it keeps path and its
// rotation and writes the next file after them (crawl-00003.warc.gz after
// crawl-00002.warc.gz), or path when there is none.
func Continue(path string, maxSize int64, info ...Field) (*Writer, error) {
	return create(path, maxSize, true, info)
}

func create(path string, maxSize int64, keep bool, info []Field) (*Writer, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("warc file %q: no file name", path)
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("warc file %s: %w", path, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("warc file %s: %s is not a folder", path, dir)
	}
	first := 0
	if keep {
		// The files of the crawl so far: a file a killed run left open (NAME.open) is
		// recovered in its place.
		for ; ; first++ {
			name := rotationName(path, first)
			if _, err := os.Stat(name); err == nil {
				continue
			}
			if _, err := os.Stat(name + openSuffix); err != nil {
				break
			}
			if err := recoverOpen(name+openSuffix, name); err != nil {
				return nil, fmt.Errorf("warc file %s: recover %s: %w", path, name+openSuffix, err)
			}
		}
	} else {
		old := Rotated(path)
		for i := range len(old) + 2 { // and the files a killed crawl left open
			old = append(old, rotationName(path, i)+openSuffix)
		}
		for _, name := range old {
			if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("warc file %s: remove an earlier rotation: %w", path, err)
			}
		}
	}
	compress := strings.HasSuffix(base, ".gz")
	wr := &Writer{opts: recordOptions(), gen: &nameGenerator{dir: dir, base: strings.TrimSuffix(base, ".gz"), compress: compress, n: first}}
	fields := append([]Field{
		{"software", "jscrawl/" + types.Version + " (github.com/nlnwa/gowarc/v3)"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
	}, info...)
	wr.w = gowarc.NewWarcFileWriter(
		gowarc.WithFileNameGenerator(wr.gen),
		gowarc.WithCompression(compress),
		gowarc.WithCompressedFileSuffix(".gz"),
		gowarc.WithCompressionLevel(gzip.BestSpeed),
		gowarc.WithMaxFileSize(max(maxSize, 0)),
		gowarc.WithAddWarcConcurrentToHeader(true),
		gowarc.WithRecordOptions(wr.opts...),
		gowarc.WithWarcInfoFunc(func(b gowarc.WarcRecordBuilder) error {
			for _, f := range fields {
				if _, err := fmt.Fprintf(b, "%s: %s\r\n", f.Name, oneLine(f.Value)); err != nil {
					return err
				}
			}
			return nil
		}),
	)
	return wr, nil
}

// Rotated returns the files of a rotation of path that exist: its stem with -00001,
// -00002, ... up to the first missing one.
func Rotated(path string) []string {
	var out []string
	for i := 1; ; i++ {
		name := rotationName(path, i)
		if _, err := os.Stat(name); err != nil {
			return out
		}
		out = append(out, name)
	}
}

// rotationName returns the name of file i of path's rotation (0: path).
func rotationName(path string, i int) string {
	dir, base := filepath.Split(path)
	g := &nameGenerator{base: strings.TrimSuffix(base, ".gz")}
	suffix := ""
	if strings.HasSuffix(base, ".gz") {
		suffix = ".gz"
	}
	return filepath.Join(dir, g.name(i)+suffix)
}

// openSuffix is what gowarc's file writer adds to the name of a file it has not closed.
const openSuffix = ".open"

// recoverOpen makes the file a killed crawl left open the file name: it cuts off a
// record the crawl was writing when it died (the rest reads cleanly) and renames it.
func recoverOpen(open, name string) error {
	f, err := os.OpenFile(open, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	good, err := completeRecords(f, st.Size())
	if err != nil {
		return err
	}
	if good < st.Size() {
		slog.Warn(fmt.Sprintf("Recovered %s, left open by a crawl that stopped: cut its last %d bytes, an incomplete record", name, st.Size()-good))
		if err := f.Truncate(good); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(open, name)
}

// completeRecords returns where the complete records of the WARC file f of size bytes
// end: the offset of the first record that does not read, or size.
func completeRecords(f *os.File, size int64) (int64, error) {
	r, err := newReader(io.NewSectionReader(f, 0, size))
	if err != nil {
		return 0, nil // not even the first record
	}
	defer r.Close()
	for rec, err := range r.Records() {
		if err != nil {
			return rec.Offset, nil
		}
		if err := readBlock(rec.WarcRecord); err != nil {
			_ = rec.Close()
			return rec.Offset, nil
		}
		_ = rec.Close()
	}
	return size, nil
}

// readBlock reads a record's block to its end (a cut one fails).
func readBlock(wr gowarc.WarcRecord) error {
	raw, err := wr.Block().RawBytes()
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, raw)
	return err
}

// nameGenerator names the files of a Writer: base, then base's stem with -00001, ...
type nameGenerator struct {
	dir, base string
	compress  bool

	mu    sync.Mutex
	n     int
	files []string
}

// NewWarcfileName implements gowarc.WarcFileNameGenerator.
func (g *nameGenerator) NewWarcfileName() (string, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	name := g.name(g.n)
	g.n++
	full := filepath.Join(g.dir, name)
	if g.compress {
		full += ".gz"
	}
	g.files = append(g.files, full)
	return g.dir, name
}

// name returns the name of file i (0: base), without .gz.
func (g *nameGenerator) name(i int) string {
	if i == 0 {
		return g.base
	}
	stem, ext := g.base, ""
	if s, ok := strings.CutSuffix(stem, ".warc"); ok {
		stem, ext = s, ".warc"
	} else if e := filepath.Ext(stem); e != "" && e != stem {
		stem, ext = strings.TrimSuffix(stem, e), e
	}
	return fmt.Sprintf("%s-%05d%s", stem, i, ext)
}

// Files returns the files written so far, in order.
func (w *Writer) Files() []string {
	w.gen.mu.Lock()
	defer w.gen.mu.Unlock()
	return slices.Clone(w.gen.files)
}

// BrowserHeader is the WARC field of the records of a browser request (meta.browser):
// its options as JSON, which are part of the request's fingerprint. A response record
// with it holds the rendered main document: the main document's status and headers and
// the DOM after rendering as the body, not the bytes from the wire.
const BrowserHeader = "WARC-JSCrawl-Browser"

// RenderedURIHeader is the WARC field of a browser response record whose page ended at
// another URL than the request's (redirects Chromium followed): that URL.
const RenderedURIHeader = "WARC-JSCrawl-Rendered-URI"

// Write records one download: req, sent with header (nil: req.Headers; the handler adds
// headers such as User-Agent that req does not carry), and resp as the download handler
// returned it (its body decoded, Content-Encoding removed), received at date. It returns
// the bytes written before compression. The request record's credential headers
// (Authorization, Proxy-Authorization, X-Api-Key, ...) are redacted, Authorization to its
// scheme ("Basic ****", see redactCredentials): an archive is shared, credentials are not. A browser request's records carry BrowserHeader
// (and RenderedURIHeader when the page's URL is not the request's).
func (w *Writer) Write(req *types.Request, header http.Header, resp *types.Response, date time.Time) (int64, error) {
	if header == nil {
		header = req.Headers
	}
	var browser []string
	if opts, ok, err := req.Browser(); ok && err == nil {
		b, err := json.Marshal(opts)
		if err != nil {
			return 0, fmt.Errorf("warc: request %s: browser options: %w", req.URL, err)
		}
		browser = []string{BrowserHeader, string(b)}
		if resp.URL != "" && resp.URL != req.URL {
			browser = append(browser, RenderedURIHeader, resp.URL)
		}
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return 0, fmt.Errorf("warc: request %s: %w", req.URL, err)
	}
	var qh bytes.Buffer
	target := requestTarget(u)
	fmt.Fprintf(&qh, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.HTTPMethod(), target, u.Host)
	if len(req.Body) > 0 && header.Get("Content-Length") == "" {
		fmt.Fprintf(&qh, "Content-Length: %d\r\n", len(req.Body)) // net/http adds it on the wire
	}
	writeHeader(&qh, redactCredentials(header), "Host")
	rq, err := newRecord(gowarc.Request, req.URL, date, qh.Bytes(), req.Body, browser[:min(len(browser), 2)])
	if err != nil {
		return 0, fmt.Errorf("warc: request record of %s: %w", req.URL, err)
	}
	var ph bytes.Buffer
	proto := resp.Protocol
	if !strings.HasPrefix(proto, "HTTP/") {
		proto = "HTTP/1.1"
	}
	ph.Grow(512)
	fmt.Fprintf(&ph, "%s %d %s\r\n", proto, resp.Status, http.StatusText(resp.Status))
	writeHeader(&ph, resp.Headers, "")
	rp, err := newRecord(gowarc.Response, req.URL, date, ph.Bytes(), resp.Body, browser)
	if err != nil {
		return 0, fmt.Errorf("warc: response record of %s: %w", req.URL, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		_, _ = rq.Close(), rp.Close()
		return 0, w.failed
	}
	var n int64
	gowarcMu.Lock() // a new file's warcinfo record is built with gowarc's options
	res := w.w.Write(rq, rp)
	gowarcMu.Unlock()
	if res == nil {
		return 0, fmt.Errorf("warc: request %s: the writer is closed", req.URL)
	}
	for i, r := range res {
		if r.Err != nil {
			w.failed = w.cutBack(res, i)
			return 0, w.failed
		}
		n += r.BytesWritten
	}
	return n, nil
}

// cutBack handles the failed write of res[failed]: it closes the file and cuts it back to
// the start of the download's first record in it, so that it holds whole exchanges only. A
// file whose first record (its warcinfo) failed is cut after its last whole record, or
// removed when it has none.
func (w *Writer) cutBack(res []gowarc.WriteResponse, failed int) *WriteError {
	werr := &WriteError{Path: w.gen.dir, Err: res[failed].Err}
	rerr := w.w.Rotate() // closes the file (NAME.open → NAME); the next one is never created
	name, off := res[failed].FileName, res[failed].FileOffset
	var path string
	if name != "" {
		path = filepath.Join(w.gen.dir, name)
		for _, r := range res[:failed] {
			if r.FileName == name {
				off = min(off, r.FileOffset)
			}
		}
	} else if files := w.Files(); len(files) > 0 {
		path, off = files[len(files)-1], -1 // the warcinfo of a new file failed
	}
	if path == "" {
		return werr
	}
	werr.Path = path
	if rerr != nil {
		werr.Err = errors.Join(werr.Err, rerr)
		return werr
	}
	if err := cutFile(path, off); err != nil {
		werr.Err = errors.Join(werr.Err, fmt.Errorf("cut back to its whole records: %w", err))
		return werr
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		w.gen.mu.Lock()
		w.gen.files = slices.DeleteFunc(w.gen.files, func(f string) bool { return f == path })
		w.gen.mu.Unlock()
	}
	return werr
}

// cutFile truncates the WARC file path to off bytes, or (off < 0) after its last whole
// record, removing it when none is whole.
func cutFile(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if off < 0 {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if off, err = completeRecords(f, st.Size()); err != nil {
			return err
		}
		if off == 0 {
			_ = f.Close()
			return os.Remove(path)
		}
	}
	if err := f.Truncate(off); err != nil {
		return err
	}
	return f.Close()
}

// Close closes the current file (renaming it from NAME.open). Writes after Close fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return w.w.Close()
}

// requestTarget is the request line's target of u: its path and query.
func requestTarget(u *url.URL) string {
	t := u.RequestURI()
	if t == "" {
		t = "/"
	}
	return t
}

// writeHeader writes header's fields in key order (but skip), then the empty line.
func writeHeader(w io.Writer, header http.Header, skip string) {
	for _, k := range slices.Sorted(maps.Keys(header)) {
		if k == skip {
			continue
		}
		for _, v := range header[k] {
			_, _ = io.WriteString(w, k+": "+oneLine(v)+"\r\n")
		}
	}
	_, _ = io.WriteString(w, "\r\n")
}

// oneLine replaces line breaks, which would end a header field, with spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// redactCredentials returns header with the values of its credential fields
// (types.SecretHeader: Authorization, Proxy-Authorization, X-Api-Key, ...) masked
// (types.MaskHeader: "Basic ****"), or header itself when it has none.
func redactCredentials(header http.Header) http.Header {
	var out http.Header
	for k, vs := range header {
		if !types.SecretHeader(k) {
			continue
		}
		if out == nil {
			out = header.Clone()
		}
		red := make([]string, len(vs))
		for i, v := range vs {
			red[i] = types.MaskHeader(k, v)
		}
		out[k] = red
	}
	if out == nil {
		return header
	}
	return out
}
