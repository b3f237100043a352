package engine

// This file is the end of the item path: the feeds (exporters) every scraped item goes to,
// in the order the items were emitted, and their failures.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

// Exporter writes the items of one feed (implemented in engine/feed; Scrapy: an item
// exporter). The engine never calls it concurrently. Close writes any trailer and flushes;
// it is called once at the end of every crawl, also after errors and a hard stop.
type Exporter interface {
	Export(item types.Item) error
	Close() error
}

// The values of FEED_ERRORS.
const (
	FeedErrorsStop   = "stop"   // a feed that fails closes the spider (finish_reason feed_error)
	FeedErrorsIgnore = "ignore" // a feed that fails is left out; the crawl goes on
)

// feedSink holds the feeds and puts the items that leave the pipelines back in the order
// they were emitted before they reach them. mu is held while an item is exported, and
// while a job commits (no item is exported meanwhile).
type feedSink struct {
	mu        sync.Mutex
	exporters []Exporter
	next      uint64               // sequence number of the next item to export
	waiting   map[uint64]readyItem // items done with the pipelines before an earlier one
	stored    int64                // items every feed stored
	failed    map[int]bool         // exporters that failed for good (by index)
	closed    bool                 // close ran

	itemLimit    int64 // CLOSESPIDER_ITEMCOUNT
	ignoreErrors bool  // FEED_ERRORS=ignore
	rejected     bool  // a feed refused a value and the spider is closing (FEED_ERRORS=stop)
	stats        *Stats
	logger       *slog.Logger
	closeSpider  func(reason string)
}

func newFeedSink(exporters []Exporter, cfg *crawlConfig, stats *Stats, logger *slog.Logger, closeSpider func(string)) *feedSink {
	return &feedSink{exporters: exporters, waiting: map[uint64]readyItem{}, failed: map[int]bool{},
		itemLimit: cfg.itemLimit, ignoreErrors: cfg.feedErrorsIgnore, stats: stats, logger: logger, closeSpider: closeSpider}
}

// exportOne writes item to every feed, with mu held, and reports whether every feed
// stored it: only then does it count in item_scraped_count. Past CLOSESPIDER_ITEMCOUNT an
// item is dropped (item_dropped_reasons_count/closespider_itemcount), so the feeds hold
// exactly that many. A feed that fails for good (a *feed.StorageError: a full disk) is
// logged once and closes the spider with finish_reason feed_error unless FEED_ERRORS is
// ignore; its items count in feedexport/failed_count/<format>. An item a feed refuses (a
// value its table column cannot take) is counted there too and, unless FEED_ERRORS is
// ignore, closes the spider with feed_error; the feed goes on.
func (f *feedSink) exportOne(item types.Item) bool {
	if f.closed {
		return false // CloseFeeds ran: the process is exiting
	}
	if f.itemLimit > 0 && f.stored >= f.itemLimit {
		f.stats.Inc("item_dropped_count", 1)
		f.stats.Inc("item_dropped_reasons_count/closespider_itemcount", 1)
		if f.logger.Enabled(context.Background(), slog.LevelDebug) {
			f.logger.Debug(fmt.Sprintf("Dropped: CLOSESPIDER_ITEMCOUNT=%d reached\n%s", f.itemLimit, itemJSON(item)))
		}
		return false
	}
	stored := true
	for i, xp := range f.exporters {
		if f.failed[i] {
			f.stats.Inc("feedexport/failed_count/"+feedFormat(xp), 1)
			stored = false
			continue
		}
		err := xp.Export(item)
		if err == nil {
			continue
		}
		stored = false
		f.stats.Inc("feedexport/failed_count/"+feedFormat(xp), 1)
		if !isFatal(err) {
			f.logger.Error(fmt.Sprintf("Error exporting item: %v", err))
			if isRejected(err) && !f.ignoreErrors && !f.rejected {
				f.rejected = true
				f.logger.Error("A feed refused an item's value, closing the spider (FEED_ERRORS=stop; with ignore such items are left out and the crawl goes on)")
				f.closeSpider("feed_error")
			}
			continue
		}
		f.failed[i] = true
		if f.ignoreErrors {
			f.logger.Error(fmt.Sprintf("Feed failed, no more items are written to it (FEED_ERRORS=ignore): %v", err))
		} else {
			f.logger.Error(fmt.Sprintf("Feed failed, closing the spider (FEED_ERRORS=stop): %v", err))
			f.closeSpider("feed_error")
		}
	}
	if !stored {
		return false
	}
	f.stored++
	f.stats.Inc("item_scraped_count", 1)
	if f.itemLimit > 0 && f.stored == f.itemLimit {
		f.closeSpider("closespider_itemcount")
	}
	return true
}

// close closes every exporter and reports whether all of them closed well. The error of a
// feed that failed already was logged then and is not logged again.
func (f *feedSink) close() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return true
	}
	f.closed = true
	ok := true
	for i, x := range f.exporters {
		err := x.Close()
		if err == nil || f.failed[i] {
			continue
		}
		ok = false
		f.stats.Inc("feedexport/failed_count/"+feedFormat(x), 1)
		f.logger.Error(fmt.Sprintf("Error closing feed: %v", err))
	}
	return ok
}

// isFatal reports whether an export error leaves the feed unusable: it (or an error it
// wraps) has a method Fatal() bool that returns true, as feed.StorageError has.
func isFatal(err error) bool {
	var f interface{ Fatal() bool }
	return errors.As(err, &f) && f.Fatal()
}

// isRejected reports whether err is a feed's refusal of one item's value (a
// *feed.ColumnError: a string for a number column): the feed goes on, FEED_ERRORS decides
// whether the crawl does.
func isRejected(err error) bool {
	var r interface{ Rejected() bool }
	return errors.As(err, &r) && r.Rejected()
}

// feedFormat returns the format of an exporter that has a Format method (a feed.Feed), for
// the feedexport/* stats, or "unknown".
func feedFormat(x Exporter) string {
	if f, ok := x.(interface{ Format() string }); ok {
		return f.Format()
	}
	return "unknown"
}

func itemJSON(item types.Item) string {
	b, err := item.JSON()
	if err != nil {
		return fmt.Sprintf("%v", []types.Field(item))
	}
	return string(b)
}
