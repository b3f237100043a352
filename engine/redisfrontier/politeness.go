package redisfrontier

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// GateOrder is the downloader middleware order the Gate belongs at: below the built-in
// HttpCacheMiddleware (900), so that a cached response takes no turn, and every retry and
// redirect passes it again on its way to the download slots.
const GateOrder = 950

// slotScript takes a turn of a download slot for the whole crawl. KEYS: the slot's hash
// (next: the earliest start of its next download, ms), its holders (ZSET token → expiry).
// ARGV: token, delay ms, concurrency (0: no limit), hold ms. Returns 0 (the turn is
// taken), the ms to wait before the delay allows it, or -1 (the slot is full).
var slotScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local conc = tonumber(ARGV[3])
if conc > 0 and redis.call('ZCARD', KEYS[2]) >= conc then return -1 end
local nxt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if nxt > now then return nxt - now end
local delay, hold = tonumber(ARGV[2]), tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'next', now + delay)
redis.call('PEXPIRE', KEYS[1], delay + 60000)
redis.call('ZADD', KEYS[2], now + hold, ARGV[1])
redis.call('PEXPIRE', KEYS[2], hold + 60000)
return 0
`)

// Gate is a downloader middleware that holds DOWNLOAD_DELAY and
// CONCURRENT_REQUESTS_PER_DOMAIN per download slot (engine.SlotKey) across every worker of
// the crawl (shared politeness): a download waits for its turn in Redis, so adding workers
// never hits a host harder than one worker would. A turn costs two round trips (take,
// give back), more while it waits. A worker that dies holding a turn loses it after
// DOWNLOAD_TIMEOUT. Each worker's own download slots still apply below it. Add it with
// engine.WithOrderedDownloaderMiddlewares at GateOrder. It is safe for concurrent use.
//
// Keys: jscrawl:<crawl-id>:slot:<slot> (HASH next) and jscrawl:<crawl-id>:slotheld:<slot>
// (ZSET token → expiry), which expire a minute after their last use.
//
// Not shared yet: DOWNLOAD_SLOTS overrides, AutoThrottle, robots.txt Crawl-delay and
// Retry-After pauses (each worker applies those by itself).
type Gate struct {
	f           *Frontier
	delay       time.Duration
	randomize   bool
	concurrency int
	hold        time.Duration
	seq         atomic.Uint64
}

// Gate returns the crawl's shared politeness gate configured from settings (DOWNLOAD_DELAY,
// RANDOMIZE_DOWNLOAD_DELAY, CONCURRENT_REQUESTS_PER_DOMAIN, DOWNLOAD_TIMEOUT).
func (f *Frontier) Gate(settings *types.Settings) *Gate {
	return &Gate{
		f:           f,
		delay:       settings.Duration(types.DownloadDelay),
		randomize:   settings.Bool(types.RandomizeDownloadDelay),
		concurrency: settings.Int(types.ConcurrentRequestsPerDomain),
		hold:        settings.Duration(types.DownloadTimeout) + time.Minute,
	}
}

// Fetch implements engine.DownloaderMiddleware: it waits for the slot's turn, downloads
// through next, and gives the turn back.
func (g *Gate) Fetch(ctx context.Context, req *types.Request, next engine.Downloader) (*types.Response, error) {
	key := engine.SlotKey(req)
	token := g.f.worker + "#" + strconv.FormatUint(g.seq.Add(1), 10)
	keys := []string{g.f.prefix + "slot:" + key, g.f.prefix + "slotheld:" + key}
	if err := g.take(ctx, keys, token); err != nil {
		return nil, err
	}
	defer func() {
		// Given back even when ctx is over; a turn not given back expires.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = g.f.rdb.ZRem(rctx, keys[1], token).Err()
	}()
	return next.Fetch(ctx, req)
}

// take waits for a turn of the slot.
func (g *Gate) take(ctx context.Context, keys []string, token string) error {
	delay := g.delay
	if g.randomize && delay > 0 {
		delay = time.Duration(float64(delay) * (0.5 + rand.Float64())) // Scrapy: 0.5–1.5×
	}
	poll := 10 * time.Millisecond
	var down time.Time
	for {
		wait, err := slotScript.Run(ctx, g.f.rdb, keys, token, delay.Milliseconds(), g.concurrency, g.hold.Milliseconds()).Int64()
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if down.IsZero() {
				down = time.Now()
			}
			if !retryable(err) || time.Since(down) > g.f.opts.RetryTimeout {
				return fmt.Errorf("redis frontier: download slot %s: %w", keys[0], err)
			}
			wait = 200
		case wait == 0:
			return nil
		case wait < 0: // full: poll, with jitter so that waiting workers do not move in step
			wait = poll.Milliseconds() + rand.Int64N(poll.Milliseconds()+1)
			poll = min(2*poll, 200*time.Millisecond)
		}
		t := time.NewTimer(time.Duration(wait) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Interface guards
var _ engine.DownloaderMiddleware = (*Gate)(nil)
