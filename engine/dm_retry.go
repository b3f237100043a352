package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jscrawl/jscrawl/types"
)

// RetryMiddleware retries downloads that failed with a connection error or a timeout, or
// returned a status in RETRY_HTTP_CODES, up to RETRY_TIMES more times (or
// meta.maxRetryTimes); meta.dontRetry turns it off for a request (Scrapy: RetryMiddleware).
// It retries inside the chain, so it works for scheduled and inline downloads alike. After
// the last try a retryable-status response is returned as the response.
//
// Retry n waits RETRY_BACKOFF_BASE·2^(n-1), ±50% at random, at most RETRY_BACKOFF_MAX. A
// Retry-After header (seconds or an HTTP date, honoured up to RETRY_BACKOFF_MAX) on a
// retryable response makes the wait at least that long, counted from the response, and
// pauses the whole download slot as long (SlotDownloader.PauseUntil), so queued requests to
// the same host wait too, also when this request has no retries left. The wait blocks the
// download's goroutine, honours ctx and holds no download slot or CONCURRENT_REQUESTS place
// (the middleware sits above the slots).
//
// Each retry is logged at INFO with the number of failed tries and the wait ("Retrying
// <GET url> (failed 1 times, retry in 1.2s): 503 Service Unavailable"), giving up at ERROR.
//
// Once the crawl is closing it tries no more: a failed try, or a wait before the next one,
// ends with the last response or error (counted in retry/shutdown).
//
// Stats: retry/count, retry/reason_count/<reason> (the status, as 503, or the error name,
// as TimeoutError), retry/max_reached, retry/shutdown.
type RetryMiddleware struct {
	retryConfig
	slots  *SlotDownloader
	stats  *Stats
	logger *slog.Logger
}

// retryConfig is what the RETRY_* settings say, decoded once by newRetryConfig.
type retryConfig struct {
	enabled       bool         // RETRY_ENABLED
	times         int          // RETRY_TIMES
	codes         map[int]bool // RETRY_HTTP_CODES
	base, maxWait time.Duration
}

// newRetryConfig decodes the RETRY_* settings.
func newRetryConfig(settings *types.Settings) retryConfig {
	c := retryConfig{
		enabled: settings.Bool(types.RetryEnabled),
		times:   settings.Int(types.RetryTimes),
		codes:   map[int]bool{},
		base:    settings.Duration(types.RetryBackoffBase),
		maxWait: settings.Duration(types.RetryBackoffMax),
	}
	for _, code := range settings.IntList(types.RetryHTTPCodes) {
		c.codes[code] = true
	}
	return c
}

// NewRetryMiddleware returns a RetryMiddleware configured from settings. slots, when not
// nil, is paused on a Retry-After.
func NewRetryMiddleware(settings *types.Settings, stats *Stats, logger *slog.Logger, slots *SlotDownloader) *RetryMiddleware {
	logger = orDiscard(logger)
	m := &RetryMiddleware{retryConfig: newRetryConfig(settings), slots: slots, stats: stats, logger: logger}
	if slots != nil && m.enabled {
		// The slot applies the pause itself, before it lets the next download of the host
		// start: from here it would come after the slot's release.
		slots.pauseOn(m.pauseFor)
	}
	return m
}

// pauseFor returns until when resp's Retry-After pauses its slot: a retryable status of a
// request that may be retried, with a Retry-After (at most RETRY_BACKOFF_MAX).
func (m *RetryMiddleware) pauseFor(req *types.Request, resp *types.Response) (time.Time, bool) {
	if resp == nil || !m.codes[resp.Status] || metaBool(req, types.MetaDontRetry) {
		return time.Time{}, false
	}
	now := time.Now()
	d, ok := retryAfter(resp.Headers.Get("Retry-After"), now)
	if !ok || d <= 0 {
		return time.Time{}, false
	}
	return now.Add(min(d, m.maxWait)), true
}

// Fetch implements DownloaderMiddleware.
func (m *RetryMiddleware) Fetch(ctx context.Context, req *types.Request, next Downloader) (*types.Response, error) {
	if !m.enabled || metaBool(req, types.MetaDontRetry) {
		return next.Fetch(ctx, req)
	}
	maxTimes := m.times
	if n, ok := metaInt(req, types.MetaMaxRetryTimes); ok {
		maxTimes = n
	}
	for {
		resp, err := next.Fetch(ctx, req)
		if ctx.Err() != nil {
			return resp, err
		}
		var reason string
		switch {
		case err != nil && retryable(err):
			reason = ErrorName(err)
		case err != nil:
			return nil, err
		case m.codes[resp.Status]:
			reason = strconv.Itoa(resp.Status)
		default:
			return resp, nil
		}
		// A Retry-After pauses the slot even when this request gives up: the server asked
		// the whole site to wait.
		var ra time.Duration
		if resp != nil {
			now := time.Now()
			if d, ok := retryAfter(resp.Headers.Get("Retry-After"), now); ok && d > 0 {
				ra = min(d, m.maxWait)
				if m.slots != nil {
					m.slots.PauseUntil(SlotKey(req), now.Add(ra))
				}
			}
		}
		if isStopping(ctx) {
			// The crawl is closing: no new try (Scrapy stops retrying at shutdown too).
			m.stats.Inc("retry/shutdown", 1)
			m.logger.Info(fmt.Sprintf("Not retrying %s (failed %d times): the spider is closing: %s", reqString(req), req.Retries+1, reasonText(resp, err)))
			return resp, err
		}
		if req.Retries >= maxTimes {
			m.stats.Inc("retry/max_reached", 1)
			m.logger.Error(fmt.Sprintf("Gave up retrying %s (failed %d times): %s", reqString(req), req.Retries+1, reasonText(resp, err)))
			return resp, err
		}
		ClosePage(resp) // a browser page kept for a response that is retried
		retry := req.Copy()
		retry.Retries++
		retry.DontFilter = true
		m.stats.Inc("retry/count", 1)
		m.stats.Inc("retry/reason_count/"+reason, 1)
		wait := max(m.backoff(retry.Retries), ra)
		// INFO, where Scrapy logs at DEBUG: a crawl that only retries would otherwise say
		// nothing for a LOGSTATS_INTERVAL.
		m.logger.Info(fmt.Sprintf("Retrying %s (failed %d times, retry in %s): %s", reqString(req), retry.Retries, wait.Round(time.Millisecond), reasonText(resp, err)))
		if werr := retryWait(ctx, retry, wait); werr != nil {
			if ctx.Err() == nil && isStopping(ctx) {
				m.stats.Inc("retry/shutdown", 1)
				m.logger.Info(fmt.Sprintf("Not retrying %s (failed %d times): the spider is closing: %s", reqString(req), retry.Retries, reasonText(resp, err)))
				return resp, err
			}
			return nil, &DownloadError{Name: NameCancelled, URL: req.URL, Err: werr}
		}
		req = retry
	}
}

// backoff returns the wait before retry n (1 for the first): base·2^(n-1) times 0.5–1.5,
// at most RETRY_BACKOFF_MAX.
func (m *RetryMiddleware) backoff(n int) time.Duration {
	if m.base <= 0 {
		return 0
	}
	d := float64(m.base) * float64(uint64(1)<<min(max(n-1, 0), 62))
	return min(jitter(time.Duration(min(d, float64(1<<62)))), m.maxWait)
}

// retryAfter parses a Retry-After value, delta seconds or an HTTP date, as a wait from now.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, int64(1<<31))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// reasonText describes a failed try for the log: the error, or the response's status as
// "500 Internal Server Error" (Scrapy: response_status_message).
func reasonText(resp *types.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	t := http.StatusText(resp.Status)
	if t == "" {
		t = "Unknown Status"
	}
	return itoa(resp.Status) + " " + t
}

// Interface guards
var _ DownloaderMiddleware = (*RetryMiddleware)(nil)
