package engine

// This file is the end of a crawl (pipelines, spider_closed, the job's last commit, the
// spider, the feeds, the stats dump) and the periodic status line.

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// finish closes the spider, pipelines and exporters and dumps the stats.
func (e *Engine) finish(ctx context.Context, start time.Time) {
	reason := e.reason
	if reason == "" {
		reason = "finished"
	}
	if e.stop.memExceeded.Load() {
		reason = ReasonMemUsageExceeded
	}
	if !e.closing || reason == "finished" {
		e.logger.Info(fmt.Sprintf("Closing spider (%s)", reason))
	}
	// Pipelines close first (Scrapy: close_spider of each pipeline), while the spider they
	// may call is still open; then spider_closed, whose handlers may still use the spider
	// (Scrapy sends it before the stats are dumped); then the spider, then the feeds.
	e.scraper.closePipelines(e.scraper.pipelines)
	e.stats.Set("finish_reason", reason)
	e.sig.send(context.WithoutCancel(ctx), SignalEvent{Signal: SpiderClosed, Reason: reason})
	if !e.job.commit(context.WithoutCancel(ctx), Progress{Final: true, Reason: reason, StartDone: e.startDone}) &&
		reason != ReasonMemUsageExceeded {
		// The job's last progress is not saved: the crawl did not end the way the job says.
		reason = "jobdir_error"
		e.stats.Set("finish_reason", reason)
	}
	e.scraper.closeSpider()
	close(e.stop.drained)
	if !e.scraper.feeds.close() && !e.cfg.feedErrorsIgnore &&
		(reason == "finished" || strings.HasPrefix(reason, "closespider_")) {
		// A feed whose end could not be written: the crawl did not store what it scraped.
		reason = "feed_error"
		e.stats.Set("finish_reason", reason)
	}
	end := time.Now()
	e.stats.Inc("item_scraped_count", 0)
	e.stats.Inc("response_received_count", 0)
	e.stats.Set("finish_time", end.UTC().Format(time.RFC3339))
	e.stats.Set("elapsed_time_seconds", end.Sub(start).Seconds())
	// One record with the stats as an attribute: the text handler writes it as Scrapy's
	// indented dump, the JSON one as an object.
	e.logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "Dumping stats", slog.Any("stats", e.stats.Snapshot()))
	e.logger.Info(fmt.Sprintf("Spider closed (%s)", reason))
}

// logStats writes the periodic progress line (Scrapy: LogStats).
type logStats struct {
	e            *Engine
	interval     time.Duration
	pages, items int64
}

func (l *logStats) log() {
	pages := l.e.stats.Int("response_received_count")
	items := l.e.stats.Int("item_scraped_count")
	mult := float64(time.Minute) / float64(l.interval)
	hosts := ""
	if slots, ready, waiting, ok := l.e.slotw.counts(); ok && slots > 1 {
		hosts = fmt.Sprintf("; %d hosts with work: %d ready, %d waiting on delays, %d busy", slots, ready, waiting, slots-ready-waiting)
	}
	if p := l.e.dl.sessions; p != nil {
		hosts += fmt.Sprintf("; sessions: %d active, %d retired, %d blocked", p.Active(),
			l.e.stats.Int("session/retired_count"), l.e.stats.Int("session/blocked_count"))
	}
	l.e.logger.Info(fmt.Sprintf("Crawled %d pages (at %d pages/min), scraped %d items (at %d items/min)%s",
		pages, int64(float64(pages-l.pages)*mult), items, int64(float64(items-l.items)*mult), hosts))
	l.pages, l.items = pages, items
}
