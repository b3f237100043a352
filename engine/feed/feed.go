package feed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// ErrClosed is returned by Export and Flush after Close.
var ErrClosed = errors.New("feed is closed")

// TimeLayout is the layout of %(time)s in feed URIs: Scrapy's UTC timestamp with ":"
// replaced by "-", such as 2026-11-30T01-02-03. %(batch_time)s adds microseconds.
const TimeLayout = "2006-01-02T15-04-05"

// Env is what Open needs from the crawl around the feed.
type Env struct {
	// Stdout receives the feeds "-" and "stdout:"; nil means os.Stdout.
	Stdout io.Writer
	// SpiderName replaces %(name)s in the URI.
	SpiderName string
	// Worker replaces %(worker)s in the URI: an id unique per process, so that the
	// workers of a shared crawl (--frontier) write apart.
	Worker string
	// Now is the crawl's start time; %(time)s is it in UTC. Zero means time.Now().
	Now time.Time
	// Logger receives warnings and the "stored feed" lines; nil means slog.Default().
	Logger *slog.Logger
	// Job is true in a job (--jobdir): a table feed records each of its transactions, so
	// that Resume can delete the rows the job did not commit (see db.go).
	Job bool
	// WriteThrough makes a table feed commit each item before Export returns, as a file
	// feed writes each through: a shared crawl (--frontier) acknowledges a request once its
	// items are exported, so a killed worker must not take exported rows with it.
	WriteThrough bool
	// S3 configures the s3:// feeds (the AWS_* settings).
	S3 S3Options
	// JobDir is the job's folder (with Job): an s3:// feed keeps the local file of each
	// batch there, so that a resumed job continues the batch (see s3.go).
	JobDir string
}

// Feed is one configured feed: a format writer on a storage (Scrapy: a FeedSlot with its
// storage). It implements Exporter; the engine calls Export and Close from one goroutine.
// Export writes the item to the storage before it returns, in one write (one gzip sync
// block for .gz), so an item Export accepted is in the file, and a crash or kill leaves
// whole records only. With Config.Overwrite the target is truncated when the feed opens
// and written progressively, as Scrapy does. A write error (a full disk) is a
// *StorageError: the partial record is cut back off the file and the feed writes nothing
// more. With Config.BatchItemCount the feed starts a new file, named by %(batch_id)d or
// %(batch_time)s in the URI, every that many items. In a job (--jobdir), Sync returns the
// Position to commit and Resume continues the file from it, exactly-once.
type Feed struct {
	template string
	format   string
	cfg      Config
	env      Env
	logger   *slog.Logger

	// syncMu serialises Sync and Close, so that Close does not close the file under an
	// fsync that runs without mu (Export goes on meanwhile). Take it before mu.
	syncMu sync.Mutex

	mu        sync.Mutex // guards everything below
	cur       *sink      // nil after a failed batch rotation, and for a table feed
	tab       *table     // a table feed's storage (sqlite:, postgres://); nil for files
	uri       string     // cur's URI, or the last one's
	batchID   int
	dropLater bool // begin removes the files of the batches after batchID (a resumed job's)
	pruned    int  // an s3:// job feed: the local files of batches up to this one are removed
	items     int
	markItems int     // items up to cur.mark (see Position)
	errs      []error // failures of finished batches, reported by Close
	done      bool
	closedErr error // the result of close, for Sync after Close

	closeOnce sync.Once
	closeErr  error
}

// Open expands the URI templates, opens the storage and returns the feed (Scrapy:
// FeedExporter.open_spider). The URI is "-" or "stdout:" for env.Stdout, a file path
// (relative to the working folder; missing parent folders are created), a file:// URI or an
// s3://bucket/key URI (uploaded when the feed or its batch closes: see s3.go); a path
// ending in .gz is gzip-compressed. The templates are %(name)s (env.SpiderName),
// %(time)s (env.Now in UTC, as TimeLayout), %(worker)s (env.Worker) and, with cfg.BatchItemCount, %(batch_id)d
// (from 1, "%(batch_id)05d" pads it) and %(batch_time)s. cfg.Format may be empty to take
// the format from the extension. With cfg.Overwrite the target is truncated now. Without
// it the feed appends to the file: a partial last record (a killed run's) is cut off with
// a warning; a JSON array or XML document goes on with the new items, its closing "]" or
// </items> moved to the end (a killed run left none: a warning says so); a CSV feed keeps
// the file's header and columns. A file that is not a feed of the format is an error.
func Open(uri string, cfg Config, env Env) (*Feed, error) {
	f, err := open(uri, cfg, env, nil)
	if err == nil {
		if err = f.begin(); err != nil {
			f.abort()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open feed %s: %w", types.MaskURL(uri), err)
	}
	return f, nil
}

// open is Open without changing the file (see begin). With pos it resumes the feed at pos
// (see Resume).
func open(uri string, cfg Config, env Env, pos *Position) (*Feed, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if pos != nil || env.Job {
		if err := CheckJobFeed(uri, cfg); err != nil {
			return nil, err
		}
	}
	if cfg.BatchItemCount > 0 && !strings.Contains(uri, "%(batch_id)") && !strings.Contains(uri, "%(batch_time)s") {
		return nil, errors.New("batchItemCount needs %(batch_id)d or %(batch_time)s in the uri")
	}
	if env.Now.IsZero() {
		env.Now = time.Now()
	}
	f := &Feed{template: uri, cfg: cfg, env: env, logger: env.Logger}
	if f.logger == nil {
		f.logger = slog.Default()
	}
	if cfg.BatchItemCount > 0 {
		f.batchID = 1
	}
	first, err := expandURI(uri, f.params())
	if err != nil {
		return nil, err
	}
	if IsTable(first) {
		return f.openTable(first, pos)
	}
	if isS3(first) && (pos != nil || env.Job) && env.JobDir == "" {
		return nil, ErrS3Job
	}
	if pos != nil && pos.BatchSize > 0 && pos.BatchSize != cfg.BatchItemCount {
		return nil, fmt.Errorf("the job wrote batches of %d items, not %d: keep batchItemCount, or start the job again with --fresh", pos.BatchSize, cfg.BatchItemCount)
	}
	if pos != nil && cfg.BatchItemCount > 0 && pos.Batch > 0 {
		f.batchID = pos.Batch // the batch the job's last commit was in
		if first, err = expandURI(uri, f.params()); err != nil {
			return nil, err
		}
	}
	if pos != nil && pos.URI != "" && !isS3(first) {
		_, stdout, _ := storagePath(first)
		_, posStdout, _ := storagePath(pos.URI)
		if pos.Stdout != stdout || posStdout != stdout {
			return nil, fmt.Errorf("the job's position is for %s, not %s", pos.URI, first)
		}
		first = pos.URI // the file the job wrote, whatever %(time)s gives now
	}
	path, stdout, err := storagePath(first)
	if isS3(first) {
		path, stdout, err = s3Key(first), false, nil
	}
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
	if pos != nil {
		if pos.Format != "" && pos.Format != f.format {
			return nil, fmt.Errorf("the job wrote %s as %s, not %s: keep the format, or start the job again with --fresh", first, pos.Format, f.format)
		}
		if pos.Stdout != stdout {
			return nil, fmt.Errorf("the job's position is for stdout, not %s", first)
		}
		batchPos := *pos
		if cfg.BatchItemCount > 0 {
			batchPos.Items -= int64((f.batchID - 1) * cfg.BatchItemCount) // the items of this batch
		}
		if isS3(first) {
			f.cur, err = f.resumeS3(first, batchPos)
		} else {
			f.cur, err = resumeSink(first, f.format, cfg, env.Stdout, f.logger, batchPos)
			f.dropLater = cfg.BatchItemCount > 0
		}
		f.items, f.markItems = int(pos.Items), int(pos.Items)
	} else {
		f.cur, err = f.openSink(first)
	}
	if err != nil {
		return nil, err
	}
	f.uri = types.MaskURL(first) // an s3:// URI's credentials stay out of logs and stats
	return f, nil
}

// params returns the template values for the current batch.
func (f *Feed) params() uriParams {
	return uriParams{name: f.env.SpiderName, worker: f.env.Worker, time: f.env.Now, batchID: f.batchID, batchTime: time.Now()}
}

// URI returns the URI of the file being written, after template expansion.
func (f *Feed) URI() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uri
}

// Format returns the canonical format name: jsonl, json, csv or xml, or for a table feed
// its database: sqlite or postgres.
func (f *Feed) Format() string { return f.format }

// Count returns the number of items exported so far, over all batches.
func (f *Feed) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.items
}

// Export writes one item to the storage (Scrapy: export_item), first starting a new batch
// file when the current one is full. An error that is a *StorageError means the feed is
// unusable; any other (an item it cannot encode, a failing ItemFilter) concerns this item
// only.
func (f *Feed) Export(item types.Item) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return fmt.Errorf("export to %s: %w", f.uri, ErrClosed)
	}
	ds, item := item.Dataset()
	if ds != f.cfg.Dataset {
		return nil
	}
	if f.cfg.ItemFilter != nil {
		keep, err := f.cfg.ItemFilter(item)
		if err != nil {
			return fmt.Errorf("export to %s: itemFilter: %w", f.uri, err)
		}
		if !keep {
			return nil
		}
	}
	if f.tab != nil {
		if err := f.tab.put(context.Background(), item); err != nil {
			return fmt.Errorf("export to %s: %w", f.uri, err)
		}
		f.items++
		return nil
	}
	if f.cur == nil || f.cfg.BatchItemCount > 0 && f.cur.items >= f.cfg.BatchItemCount {
		if err := f.nextBatch(); err != nil {
			return fmt.Errorf("export to %s: %w", f.uri, err)
		}
	}
	if f.cur.werr != nil {
		return fmt.Errorf("export to %s: %w", f.uri, f.cur.werr)
	}
	err := f.cur.exp.Export(item)
	// Commit what the writer produced even after an error: a CSV header, say.
	if cerr := f.cur.commit(); cerr != nil {
		return cerr
	}
	if err == nil {
		f.cur.items++
		f.items++
	}
	if f.cur.gz == nil { // a plain file ends in a whole record after each commit
		f.cur.mark, f.markItems = f.cur.size, f.items
	}
	if err != nil {
		var se *StorageError
		if errors.As(err, &se) {
			f.cur.werr = err
			return err
		}
		return fmt.Errorf("export to %s: %w", f.uri, err)
	}
	return nil
}

// nextBatch stores the current batch file and opens the next one.
func (f *Feed) nextBatch() error {
	if f.cur != nil {
		err := f.finish(f.cur)
		f.cur = nil
		if err != nil {
			f.errs = append(f.errs, err)
			return err
		}
	}
	f.batchID++
	uri, err := expandURI(f.template, f.params())
	if err != nil {
		return err
	}
	f.uri = types.MaskURL(uri)
	cfg := f.cfg
	// In a job a batch file is the job's from its first byte: what a file of this name
	// holds is the batch of an earlier run, which the job wrote or writes again.
	cfg.Overwrite = cfg.Overwrite || f.env.Job
	s, err := f.openSinkWith(uri, cfg)
	if err == nil {
		if err = s.begin(); err != nil {
			s.discard()
		}
	}
	if err != nil {
		return &StorageError{URI: f.uri, Err: fmt.Errorf("open batch %d: %w", f.batchID, err)}
	}
	f.cur = s
	return nil
}

// finish closes one file and logs it (Scrapy: "Stored json feed (3 items) in: …").
func (f *Feed) finish(s *sink) error {
	if err := s.close(); err != nil {
		return fmt.Errorf("close feed %s: %w", s.uri, err)
	}
	f.logger.Info("stored feed", "format", f.format, "items", s.items, "uri", s.uri)
	return nil
}

// Flush returns the feed's write error, if any: Export writes each item through to the
// storage already, so there is nothing buffered to flush.
func (f *Feed) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return fmt.Errorf("flush %s: %w", f.uri, ErrClosed)
	}
	if f.tab != nil {
		return f.tab.werr
	}
	if f.cur == nil {
		return nil
	}
	return f.cur.werr
}

// Close writes the format's trailer, syncs and closes the storage (Scrapy:
// finish_exporting and the storage's store). After a write error the file keeps the whole
// records written before it, without a trailer. Close is idempotent: later calls return
// the first call's result.
func (f *Feed) Close() error {
	f.closeOnce.Do(func() { f.closeErr = f.close() })
	return f.closeErr
}

func (f *Feed) close() error {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done = true
	errs := f.errs
	if f.tab != nil {
		err := f.tab.close(context.Background())
		if err == nil {
			f.markItems = f.items
			f.logger.Info("stored feed", "format", f.format, "items", f.tab.items, "uri", f.uri)
		} else {
			errs = append(errs, fmt.Errorf("close feed %s: %w", f.uri, err))
		}
	}
	if f.cur != nil {
		// End the gzip member before the closing, so that Position stays where Resume
		// can continue after a clean stop, before the closing that it cuts again.
		if f.cur.werr == nil && f.cur.endMember() == nil {
			f.markItems = f.items
		}
		if err := f.finish(f.cur); err != nil {
			errs = append(errs, err)
		}
	}
	f.closedErr = errors.Join(errs...)
	return f.closedErr
}

// Interface guards
var _ Exporter = (*Feed)(nil)

// OpenAll opens every feed in configs, keyed by URI (the parsed FEEDS setting merged with
// the -o and -O flags), in URI order. The -O targets are truncated only once every feed
// has opened: if one fails it discards the feeds it already opened, leaving their -O
// targets untouched, and returns the error.
func OpenAll(configs map[string]Config, env Env) ([]*Feed, error) {
	return openAll(configs, env, nil)
}

// openAll is OpenAll, and ResumeAll with positions.
func openAll(configs map[string]Config, env Env, positions map[string]Position) ([]*Feed, error) {
	feeds := make([]*Feed, 0, len(configs))
	fail := func(err error) ([]*Feed, error) {
		for _, g := range feeds {
			g.abort()
		}
		return nil, err
	}
	for _, uri := range slices.Sorted(maps.Keys(configs)) {
		verb, pos := "open", (*Position)(nil)
		p, ok := positions[uri]
		if !ok {
			p, ok = positions[types.MaskURL(uri)] // a job stores the URIs masked
		}
		if ok {
			verb, pos = "resume", &p
		}
		f, err := open(uri, configs[uri], env, pos)
		if err != nil {
			return fail(fmt.Errorf("%s feed %s: %w", verb, types.MaskURL(uri), err))
		}
		feeds = append(feeds, f)
	}
	for _, f := range feeds {
		if err := f.begin(); err != nil {
			return fail(fmt.Errorf("open feed %s: %w", types.MaskURL(f.template), err))
		}
	}
	for _, f := range feeds {
		f.noteCut()
	}
	return feeds, nil
}

// abort stops the feed without storing it; an -O target not truncated yet is untouched.
func (f *Feed) abort() {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.done = true
		if f.cur != nil {
			f.cur.discard()
		}
		if f.tab != nil {
			_ = f.tab.drv.close()
		}
		f.closeErr = errors.New("feed discarded")
		f.closedErr = f.closeErr
	})
}

// openTable is open for a table feed (sqlite:, postgres://): it connects, and begin
// prepares the table. With pos the feed resumes a job at pos.Seq (see db.go).
func (f *Feed) openTable(uri string, pos *Position) (*Feed, error) {
	d, err := parseDBURI(uri)
	if err != nil {
		return nil, err
	}
	f.format = d.scheme
	if pos != nil && pos.Format != "" && pos.Format != f.format {
		return nil, fmt.Errorf("the job wrote %s as %s, not %s", d.shown, pos.Format, f.format)
	}
	if f.tab, err = openTable(context.Background(), uri, f.cfg, f.env, f.logger); err != nil {
		return nil, err
	}
	f.uri = d.shown // the password stays out of logs, stats and the job's status
	if pos != nil {
		p := *pos
		f.tab.resume = &p
		f.items, f.markItems = int(pos.Items), int(pos.Items)
	}
	return f, nil
}

// begin changes the storage as opening the feed needs (see sink.begin and table.begin).
func (f *Feed) begin() error {
	if f.tab != nil {
		return f.tab.begin(context.Background())
	}
	if err := f.cur.begin(); err != nil {
		return err
	}
	if f.dropLater {
		f.dropLater = false
		return f.removeLaterBatches()
	}
	return nil
}

// noteCut logs what begin cut off a resumed feed.
func (f *Feed) noteCut() {
	if f.tab != nil {
		if f.tab.removed > 0 {
			f.logger.Warn(fmt.Sprintf("Feed %s resumed at the job's last commit: deleted the %d rows written after it (their items are scraped again)", f.uri, f.tab.removed),
				"uri", f.uri, "rows_deleted", f.tab.removed)
			f.tab.removed = 0
		}
		return
	}
	f.cur.noteCut()
}
