package engine

// This file is the item path (Scrapy's Scraper): pipelines, then the feeds in the order the
// items were emitted, then item_scraped.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/jscrawl/jscrawl/types"
)

// Exporter writes the items of one feed (implemented in engine/feed; Scrapy: an item
// exporter). The engine never calls it concurrently. Close writes any trailer and flushes;
// it is called once at the end of every crawl, also after errors and a hard stop.
type Exporter interface {
	Export(item types.Item) error
	Close() error
}

type pendingItem struct {
	item types.Item
	resp *types.Response
	tr   *reqTrack // nil for items of start()
}

// exportState puts the items that leave the pipelines back in the order they were
// emitted before they reach the exporters, and tracks the feeds' failures.
type exportState struct {
	next    uint64               // sequence number of the next item to export
	waiting map[uint64]readyItem // items done with the pipelines before an earlier one
	stored  int64                // items every feed stored
	failed  map[int]bool         // exporters that failed for good (by index)
}

// readyItem is an item done with the pipelines; item nil means dropped or failed.
type readyItem struct {
	item types.Item
	resp *types.Response
	tr   *reqTrack
}

// startItems starts item goroutines while fewer than CONCURRENT_ITEMS run.
func (e *Engine) startItems(ctx context.Context) {
	for len(e.itemQ) > 0 && e.itemsActive < e.maxItems {
		it := e.itemQ[0]
		e.itemQ[0] = pendingItem{}
		e.itemQ = e.itemQ[1:]
		if len(e.itemQ) == 0 {
			e.itemQ = nil
		}
		e.itemsActive++
		seq := e.itemSeq
		e.itemSeq++
		// deliver posts evItemDone when the item leaves the reorder buffer, so items parked
		// there behind a slow one count against CONCURRENT_ITEMS too.
		e.itemWorkers.run(&e.wg, e.maxItems, func() { e.processItem(ctx, seq, it) })
	}
}

// processItem runs the pipelines on one item, then hands it to deliver, which exports items
// in the order they were emitted (Scrapy: start_itemproc). seq is the item's place in that
// order. A pipeline error wrapping ErrDropItem counts item_dropped_count and
// item_dropped_reasons_count/DropItem and logs a WARNING; any other error logs an ERROR
// and counts item_error_count (a jscrawl addition: Scrapy counts nothing there).
func (e *Engine) processItem(ctx context.Context, seq uint64, it pendingItem) {
	item, resp := it.item, it.resp
	for _, p := range e.pipelines {
		out, err := p.ProcessItem(ctx, item)
		if err != nil {
			if errors.Is(err, ErrDropItem) {
				e.stats.Inc("item_dropped_count", 1)
				e.stats.Inc("item_dropped_reasons_count/DropItem", 1)
				e.logger.Warn("Dropped: " + err.Error())
				e.send(ctx, SignalEvent{Signal: ItemDropped, Item: item, Response: resp, Err: err})
			} else {
				e.stats.Inc("item_error_count", 1)
				e.logger.Error(fmt.Sprintf("Error processing %s\n%v", itemJSON(item), err))
				e.send(ctx, SignalEvent{Signal: ItemError, Item: item, Response: resp, Err: err})
			}
			e.deliver(ctx, seq, readyItem{resp: resp, tr: it.tr})
			return
		}
		item = out
	}
	e.deliver(ctx, seq, readyItem{item: item, resp: resp, tr: it.tr})
}

// deliver takes the item with sequence number seq out of the pipelines and exports, in
// sequence order, every item that is no longer waiting for an earlier one. Items from one
// callback thus reach the feeds in the order they were yielded, whatever CONCURRENT_ITEMS
// is. Each item released posts evItemDone: an item counts as active (CONCURRENT_ITEMS)
// from its start until it leaves the buffer, so a slow item holds back at most
// CONCURRENT_ITEMS-1 others and the buffer stays that small.
func (e *Engine) deliver(ctx context.Context, seq uint64, it readyItem) {
	e.exportMu.Lock()
	x := &e.export
	if seq != x.next {
		x.waiting[seq] = it // behind an earlier item still in the pipelines
		e.exportMu.Unlock()
		return
	}
	// Mostly one item at a time, in order: the arrays keep that case off the heap.
	var readyBuf [1]readyItem
	var releasedBuf [1]*reqTrack
	ready := readyBuf[:0] // exported, for the signals
	released := releasedBuf[:0]
	for r := it; ; {
		x.next++
		released = append(released, r.tr)
		switch {
		case r.item == nil:
		case r.tr != nil && !e.holds(r.tr.req):
			// Another worker took the request over and scrapes it: not exported here.
			e.stats.Inc("item_dropped_count", 1)
			e.stats.Inc("item_dropped_reasons_count/lease_lost", 1)
		case e.committer != nil && r.tr != nil:
			r.tr.held = append(r.tr.held, r) // a job exports them when the request is Done
		case e.exportOne(r.item):
			ready = append(ready, r)
		}
		var ok bool
		if r, ok = x.waiting[x.next]; !ok {
			break
		}
		delete(x.waiting, x.next)
	}
	e.exportMu.Unlock()
	// The logs and signals go out after the lock, in order within this batch, and before
	// the items stop counting as active (a handler may still schedule requests).
	e.scraped(ctx, ready)
	for _, tr := range released {
		e.post(event{kind: evItemDone, tr: tr})
	}
}

// scraped logs and signals items every feed stored.
func (e *Engine) scraped(ctx context.Context, ready []readyItem) {
	for _, r := range ready {
		if e.logger.Enabled(ctx, slog.LevelDebug) {
			from := "<start>"
			if r.resp != nil {
				from = respString(r.resp)
			}
			e.logger.Debug("Scraped from " + from + "\n" + itemJSON(r.item))
		}
		e.send(ctx, SignalEvent{Signal: ItemScraped, Item: r.item, Response: r.resp})
	}
}

// exportOne writes item to every feed, with exportMu held, and reports whether every feed
// stored it: only then does it count in item_scraped_count. Past CLOSESPIDER_ITEMCOUNT an
// item is dropped (item_dropped_reasons_count/closespider_itemcount), so the feeds hold
// exactly that many. A feed that fails for good (a *feed.StorageError: a full disk) is
// logged once and closes the spider with finish_reason feed_error unless FEED_ERRORS is
// ignore; its items count in feedexport/failed_count/<format>.
func (e *Engine) exportOne(item types.Item) bool {
	x := &e.export
	if e.feedsClosed {
		return false // CloseFeeds ran: the process is exiting
	}
	if e.itemLimit > 0 && x.stored >= e.itemLimit {
		e.stats.Inc("item_dropped_count", 1)
		e.stats.Inc("item_dropped_reasons_count/closespider_itemcount", 1)
		if e.logger.Enabled(context.Background(), slog.LevelDebug) {
			e.logger.Debug(fmt.Sprintf("Dropped: CLOSESPIDER_ITEMCOUNT=%d reached\n%s", e.itemLimit, itemJSON(item)))
		}
		return false
	}
	stored := true
	for i, xp := range e.exporters {
		if x.failed[i] {
			e.stats.Inc("feedexport/failed_count/"+feedFormat(xp), 1)
			stored = false
			continue
		}
		err := xp.Export(item)
		if err == nil {
			continue
		}
		stored = false
		e.stats.Inc("feedexport/failed_count/"+feedFormat(xp), 1)
		if !isFatal(err) {
			e.logger.Error(fmt.Sprintf("Error exporting item: %v", err))
			continue
		}
		x.failed[i] = true
		if strings.EqualFold(e.settings.String(types.FeedErrors), FeedErrorsIgnore) {
			e.logger.Error(fmt.Sprintf("Feed failed, no more items are written to it (FEED_ERRORS=ignore): %v", err))
		} else {
			e.logger.Error(fmt.Sprintf("Feed failed, closing the spider (FEED_ERRORS=stop): %v", err))
			e.CloseSpider("feed_error")
		}
	}
	if !stored {
		return false
	}
	x.stored++
	e.stats.Inc("item_scraped_count", 1)
	if e.itemLimit > 0 && x.stored == e.itemLimit {
		e.CloseSpider("closespider_itemcount")
	}
	return true
}

// The values of FEED_ERRORS.
const (
	FeedErrorsStop   = "stop"   // a feed that fails closes the spider (finish_reason feed_error)
	FeedErrorsIgnore = "ignore" // a feed that fails is left out; the crawl goes on
)

// isFatal reports whether an export error leaves the feed unusable: it (or an error it
// wraps) has a method Fatal() bool that returns true, as feed.StorageError has.
func isFatal(err error) bool {
	var f interface{ Fatal() bool }
	return errors.As(err, &f) && f.Fatal()
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

func (e *Engine) closePipelines(ps []Pipeline) {
	for _, p := range ps {
		if c, ok := p.(io.Closer); ok {
			if err := c.Close(); err != nil {
				e.logger.Error(fmt.Sprintf("Error closing pipeline %T: %v", p, err))
			}
		}
	}
}

// closeExporters closes every exporter and reports whether all of them closed well. The
// error of a feed that failed already was logged then and is not logged again.
func (e *Engine) closeExporters() bool {
	e.exportMu.Lock()
	defer e.exportMu.Unlock()
	if e.feedsClosed {
		return true
	}
	e.feedsClosed = true
	ok := true
	for i, x := range e.exporters {
		err := x.Close()
		if err == nil || e.export.failed[i] {
			continue
		}
		ok = false
		e.stats.Inc("feedexport/failed_count/"+feedFormat(x), 1)
		e.logger.Error(fmt.Sprintf("Error closing feed: %v", err))
	}
	return ok
}
