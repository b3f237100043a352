package feed

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// This file is the feeds' side of a job (--jobdir): the job commits each file feed's
// Position (from Sync) in the same transaction as the requests whose items it holds, and
// a resumed job reopens the feed with Resume at that position, so that after a kill at any
// instant the feed holds every item exactly once.

// Position is where a feed stands in its current file: what a job commits, and what
// Resume continues from.
type Position struct {
	// URI is the file's URI after template expansion (Feed.URI), or "-" or "stdout:".
	URI string `json:"uri"`
	// Format is the feed's format (Feed.Format): Resume refuses to continue the file in
	// another one.
	Format string `json:"format"`
	// Offset is the byte offset of the end of the last whole record in the file: for .gz
	// the end of the last whole gzip member. A JSON array or XML document is open there.
	Offset int64 `json:"offset"`
	// Items is the number of items the feed exported up to Offset (for stdout: so far).
	// Items the file held before the feed opened (with -o) do not count.
	Items int64 `json:"items"`
	// Stdout is true for a stdout feed: it has no offset, and a resumed job may repeat
	// items on it.
	Stdout bool `json:"stdout,omitempty"`
	// Seq is a table feed's last database transaction (the feed's own numbering, recorded
	// in the database's _jscrawl_commits): Resume deletes the rows of the later ones.
	Seq int64 `json:"seq,omitempty"`
	// Batch is a batch feed's current batch (%(batch_id)d): the batches before it are
	// complete (for s3:// uploaded), and Offset is in its file (for s3:// its local file,
	// see s3.go).
	Batch int `json:"batch,omitempty"`
	// BatchSize is a batch feed's batchItemCount: Resume refuses another, since the
	// batches before Batch were cut at it.
	BatchSize int `json:"batchSize,omitempty"`
}

// ErrBatchJob is the error of opening, in a job (--jobdir), a batch feed whose URI names
// its batches by %(batch_time)s: a resumed job must find the files (or objects) of the
// batches its last commit did not reach, to write them again, and a time cannot name them.
// %(batch_id)d can.
var ErrBatchJob = errors.New("batch feeds need %(batch_id)d, not %(batch_time)s, in the uri with --jobdir")

// ErrS3Job is the error of opening an s3:// feed in a job without Env.JobDir, where it
// would keep its local files.
var ErrS3Job = errors.New("s3:// feeds need the job's folder with --jobdir")

// CheckJobFeed returns an error wrapping ErrBatchJob when a job cannot keep the feed of uri
// and cfg exactly once, so that a command can refuse it before it opens anything: a batch
// feed must name its batches by %(batch_id)d.
func CheckJobFeed(uri string, cfg Config) error {
	if cfg.BatchItemCount > 0 && strings.Contains(uri, "%(batch_time)s") {
		return fmt.Errorf("batchItemCount %d with %%(batch_time)s: %w", cfg.BatchItemCount, ErrBatchJob)
	}
	return nil
}

// Template returns the feed's URI as configured, before template expansion: the key of
// the FEEDS setting or the -o/-O argument's URI, under which a job stores its Position.
func (f *Feed) Template() string { return f.template }

// Position returns where Resume could continue the feed, without syncing: the offset and
// item count of the last whole record (for .gz: the last Sync). The bytes up to it are
// durable only after a Sync. After Close it is the position before the closing that Close
// wrote, which Resume cuts again.
func (f *Feed) Position() Position {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.position()
}

func (f *Feed) position() Position {
	p := Position{URI: f.uri, Format: f.format, Items: int64(f.markItems)}
	if f.tab != nil {
		p.Seq = f.tab.seq
		return p
	}
	if f.cur == nil || f.cur.path == "" {
		p.Stdout = f.cur != nil
		p.Items = int64(f.items)
		return p
	}
	p.Offset = f.cur.mark
	if f.cfg.BatchItemCount > 0 {
		p.Batch, p.BatchSize = f.batchID, f.cfg.BatchItemCount
	}
	return p
}

// Mark returns the position after everything exported so far, without waiting for the
// disk: it ends the current gzip member of a .gz file, so that the file is a whole
// multi-member gzip file up to the position. It is cheap, so a job can call it in the same
// critical section as the one that snapshots its acknowledgements (no Export in between),
// and Sync afterwards, without that lock, to make the position durable: the fsync covers
// every byte written before it. After Close it returns the position before the closing.
// A batch feed's position is in its current batch (Position.Batch).
func (f *Feed) Mark() (Position, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mark()
}

// mark is Mark with mu held.
func (f *Feed) mark() (Position, error) {
	if err := CheckJobFeed(f.template, f.cfg); err != nil {
		return Position{}, fmt.Errorf("feed %s: %w", f.template, err)
	}
	if f.done {
		return f.position(), f.closedErr
	}
	if f.tab != nil {
		// The rows so far in one transaction, with its record: durable once it commits.
		if err := f.tab.flush(context.Background()); err != nil {
			return Position{}, err
		}
		f.markItems = f.items
		return f.position(), nil
	}
	s := f.cur
	if s.werr != nil {
		return Position{}, s.werr
	}
	if err := s.begin(); err != nil { // a truncation OpenAll left to do
		s.werr = &StorageError{URI: s.uri, Err: err}
		return Position{}, s.werr
	}
	if err := s.endMember(); err != nil {
		return Position{}, err
	}
	f.markItems = f.items
	return f.position(), nil
}

// Sync makes everything exported so far durable and returns the feed's Position, as Mark
// does, once the disk has it: it fsyncs the file (and, the first time, the folder of a
// file the feed created) and returns the offset of the end of the last whole record. For a
// stdout feed it flushes Env.Stdout when that has a Flush method and returns a Position
// with Stdout true. Export may run while Sync waits for the disk. After Close it returns
// the position before the closing (Close synced the file) and Close's error.
func (f *Feed) Sync() (Position, error) {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	f.mu.Lock()
	pos, err := f.mark()
	done, s := f.done, f.cur
	f.mu.Unlock()
	if err != nil || done || f.tab != nil {
		return pos, err
	}
	if s.file == nil {
		if fl, ok := s.out.(interface{ Flush() error }); ok {
			if err := fl.Flush(); err != nil {
				return Position{}, fmt.Errorf("sync feed %s: flush: %w", s.uri, err)
			}
		}
		return pos, nil
	}
	// Without mu: the fsync covers every write made before it, the position's included.
	// syncMu keeps Close from closing the file meanwhile.
	if err := s.file.Sync(); err != nil {
		return Position{}, &StorageError{URI: s.uri, Err: fmt.Errorf("sync: %w", err)}
	}
	if s.made && !s.dirSynced {
		if err := syncDir(filepath.Dir(s.path)); err != nil {
			return Position{}, &StorageError{URI: s.uri, Err: err}
		}
		s.dirSynced = true
	}
	return pos, nil
}

// syncDir fsyncs a folder, so that a file created in it survives a power cut.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

// Resume opens the feed of a resumed job at pos, a Position that an earlier run's Sync
// returned and the job committed (its URI names the file, whatever the templates in uri
// give now, and its Format must be the feed's). The file is cut back to pos.Offset, with a
// warning giving the bytes cut (items written after the job's last commit, which the job
// scrapes again; only the closing of a clean Close is cut silently), and the feed writes
// on after it: a JSON array or XML document continues (Close writes its closing again), a
// CSV file keeps its header, and a .gz file gets a new gzip member. Neither cfg.Overwrite
// nor the -o repair applies: the bytes up to pos.Offset are the job's. The item count
// continues from pos.Items. A file shorter than pos.Offset, missing (with an offset above
// 0), or not ending a record at pos.Offset was changed outside the job: an error. A stdout
// feed just opens. A batch feed continues the batch of pos.Batch (its file is pos.URI) and
// removes the files of the batches after it, which only items the job did not commit can
// have started; every batch it opens from there on is written from the start.
//
// A job must commit each feed's position before the feed's first Export (a Sync right
// after OpenAll, which also makes the -O truncation or -o repair durable), so that the
// items a -o file held before the job are never taken for the job's, nor the reverse.
func Resume(uri string, cfg Config, env Env, pos Position) (*Feed, error) {
	f, err := open(uri, cfg, env, &pos)
	if err == nil {
		if err = f.begin(); err != nil {
			f.abort()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("resume feed %s: %w", types.MaskURL(uri), err)
	}
	f.noteCut()
	return f, nil
}

// ResumeAll is OpenAll for a resumed job: the feeds whose URI (the configs' key, as
// Template returns it) has a position in positions are resumed at it as Resume does, the
// others (feeds added to the command since) open as OpenAll opens them. No file changes
// unless every feed opens. Positions of URIs not in configs are ignored.
func ResumeAll(configs map[string]Config, env Env, positions map[string]Position) ([]*Feed, error) {
	return openAll(configs, env, positions)
}

// resumeSink is openSink for Resume: it opens the file to be cut to pos.Offset by begin,
// and the format writer to continue it.
func resumeSink(uri, format string, cfg Config, stdout io.Writer, logger *slog.Logger, pos Position) (*sink, error) {
	path, isStdout, err := storagePath(uri)
	if err != nil {
		return nil, err
	}
	if isStdout {
		return openSink(uri, format, cfg, Env{Stdout: stdout}, logger)
	}
	return resumeFile(&sink{uri: uri, path: path, logger: logger}, format, cfg, logger, pos)
}

// resumeFile is resumeSink on s.path, the file to continue.
func resumeFile(s *sink, format string, cfg Config, logger *slog.Logger, pos Position) (*sink, error) {
	path := s.path
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create feed folder: %w", err)
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if pos.Offset > 0 {
			return nil, fmt.Errorf("%s is missing, but the job's last commit has %d bytes of it: it was moved or deleted outside the job", path, pos.Offset)
		}
		info = nil
	case err != nil:
		return nil, err
	case info.IsDir():
		return nil, fmt.Errorf("%s is a folder", path)
	case info.Size() < pos.Offset:
		return nil, fmt.Errorf("%s has %d bytes, fewer than the %d of the job's last commit: it was changed outside the job", path, info.Size(), pos.Offset)
	}
	if s.file, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, err
	}
	s.made = info == nil
	s.out = s.file
	s.size, s.mark = pos.Offset, pos.Offset
	s.items = int(pos.Items) // the "stored feed" line counts the job's items in the file
	if info != nil && info.Size() > pos.Offset {
		s.trunc, s.cut = true, info.Size()-pos.Offset
	}
	st, err := s.resumeState(format)
	if err == nil && s.gz == nil && pos.Offset > 0 {
		err = s.checkRecordEnd(format, pos.Offset)
	}
	if err == nil {
		s.exp, err = newExporter(format, &s.rec, cfg, logger, st)
	}
	if err == nil && s.cut > 0 {
		s.cutTrailer = s.tailIsTrailer(format, cfg, st)
	}
	if err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// resumeState returns what the format writer needs to continue the file after s.size: a
// document is open there when anything is (the writers write the opening "[", <items> or
// header with the first item, and the -o repair cuts a file holding nothing else to 0),
// and a CSV file's columns are in its header.
func (s *sink) resumeState(format string) (resume, error) {
	if strings.HasSuffix(strings.ToLower(s.path), ".gz") {
		s.gz = gzip.NewWriter(&s.zbuf)
	}
	st := resume{started: s.size > 0}
	if format == FormatCSV && s.size > 0 {
		var r io.Reader = io.NewSectionReader(s.file, 0, s.size)
		if s.gz != nil {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return st, fmt.Errorf("read csv header of %s: %w", s.path, err)
			}
			defer zr.Close()
			r = zr
		}
		header, err := csvHeaderFrom(r, s.path)
		if err != nil {
			return st, err
		}
		st.csvHeader, st.csvPath, st.csvChecked = header, s.path, true
	}
	return st, nil
}

// checkRecordEnd checks that the plain file ends a record at offset, as a file the job
// wrote does: a line end for JSON Lines and CSV, a line end or the ">" of an element for
// XML (an -o repair can keep a file's own items without line ends), and for JSON the end
// of an array element, which is no white space, "[", "," or ":".
func (s *sink) checkRecordEnd(format string, offset int64) error {
	b := make([]byte, 1)
	if _, err := s.file.ReadAt(b, offset-1); err != nil {
		return fmt.Errorf("read %s: %w", s.path, err)
	}
	var ok bool
	switch format {
	case FormatJSON:
		ok = !strings.ContainsRune(" \t\r\n[,:", rune(b[0]))
	case FormatXML:
		ok = b[0] == '\n' || b[0] == '>'
	default:
		ok = b[0] == '\n'
	}
	if !ok {
		return fmt.Errorf("%s does not end a record at byte %d, where the job's last commit ended: it was changed outside the job", s.path, offset)
	}
	return nil
}

// maxTrailer bounds the tail that tailIsTrailer reads: a closing is a few bytes (a few
// dozen in its own gzip member).
const maxTrailer = 4 << 10

// tailIsTrailer reports whether the s.cut bytes after s.size are only the closing that a
// clean Close writes there (for .gz: gzip members holding only it), not items.
func (s *sink) tailIsTrailer(format string, cfg Config, st resume) bool {
	if s.cut > maxTrailer {
		return false
	}
	tail := make([]byte, s.cut)
	if _, err := s.file.ReadAt(tail, s.size); err != nil {
		return false
	}
	if s.gz != nil {
		zr, err := gzip.NewReader(bytes.NewReader(tail))
		if err != nil {
			return false
		}
		if tail, err = io.ReadAll(zr); err != nil {
			return false
		}
	}
	var want bytes.Buffer
	exp, err := newExporter(format, &want, cfg, slog.New(slog.DiscardHandler), st)
	if err != nil || exp.Close() != nil {
		return false
	}
	return bytes.Equal(tail, want.Bytes())
}

// noteCut logs what begin cut off a resumed file.
func (s *sink) noteCut() {
	switch {
	case s.cut == 0:
	case s.cutTrailer:
		s.logger.Debug(fmt.Sprintf("Feed %s resumed before the closing of the last run", s.path), "uri", s.uri, "offset", s.size)
	default:
		s.logger.Warn(fmt.Sprintf("Feed %s resumed at byte %d, where the job's last commit ended: cut the %d bytes written after it (their items are scraped again)", s.path, s.size, s.cut),
			"uri", s.uri, "bytes_cut", s.cut)
	}
	s.cut = 0
}

// removeLaterBatches removes the files of the batches after the current one that a killed
// run of the job started (their items were not committed: the job scrapes them again and
// writes the batches anew), from the next batch on until a batch has no file.
func (f *Feed) removeLaterBatches() error {
	for b := f.batchID + 1; ; b++ {
		p := f.params()
		p.batchID = b
		uri, err := expandURI(f.template, p)
		if err != nil {
			return err
		}
		path, _, err := storagePath(uri)
		if err != nil {
			return err
		}
		if err := os.Remove(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return fmt.Errorf("remove batch %d, which the job did not commit: %w", b, err)
		}
		f.logger.Warn("removed a batch file the job had not committed; its items are scraped again", "file", path, "batch", b)
	}
}
