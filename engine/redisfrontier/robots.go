package redisfrontier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
)

// robots.txt once per crawl
//
// A Frontier is the engine's RobotsCache. robots:<origin> holds the outcome of the
// origin's robots.txt (a verdict byte, then the rules), for the crawl or, after a 5xx or
// a download error, for the TTL the engine gives (then it is fetched again). A worker that
// finds no outcome takes robotslock:<origin> (SET NX with FRONTIER_LEASE_TIMEOUT, renewed
// every third of it while it downloads) and fetches; the others poll (20 ms doubling to
// 500 ms, no later than the lock's expiry) until the outcome is there, or the lock is gone
// (its holder was cancelled or died) and one of them takes it.

// robotsGetScript returns {1, outcome, PTTL} when KEYS[1] holds an outcome, else takes
// the lock KEYS[2] for ARGV[1] (token) for ARGV[2] ms and returns {2, ”, 0} (also when
// the token holds it already: a call whose reply was lost), else returns {0, ”, the
// lock's PTTL}.
var robotsGetScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v, redis.call('PTTL', KEYS[1])} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2, '', 0} end
if redis.call('GET', KEYS[2]) == ARGV[1] then return {2, '', 0} end
return {0, '', redis.call('PTTL', KEYS[2])}
`)

// robotsPutScript ends the fetch of token ARGV[1]: it stores the outcome ARGV[2] (none
// when empty) in KEYS[1], for ARGV[3] ms when above 0, and frees the lock KEYS[2] if the
// token still holds it. With ARGV[2] '+' it renews the lock for ARGV[3] ms instead.
var robotsPutScript = redis.NewScript(`
local mine = redis.call('GET', KEYS[2]) == ARGV[1]
if ARGV[2] == '+' then
  if mine then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
  return mine and 1 or 0
end
if ARGV[2] ~= '' then
  if tonumber(ARGV[3]) > 0 then
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  else
    redis.call('SET', KEYS[1], ARGV[2])
  end
end
if mine then redis.call('DEL', KEYS[2]) end
return mine and 1 or 0
`)

// RobotsTxt implements engine.RobotsCache: the crawl's outcome for origin's robots.txt,
// which this worker fetches when no worker has and none is fetching it. Redis errors are
// retried with backoff until the frontier fails for good (backOff); an outcome this worker
// fetched is returned even when it could not be shared.
func (f *Frontier) RobotsTxt(ctx context.Context, origin string, fetch func(context.Context) (engine.RobotsOutcome, bool)) (engine.RobotsOutcome, error) {
	keys := []string{f.prefix + keyRobots + origin, f.prefix + keyRobotsLock + origin}
	p := f.polite()
	p.mu.Lock()
	p.seq++
	token := f.worker + "#r" + strconv.FormatUint(p.seq, 10)
	p.mu.Unlock()
	lockMs := f.opts.LeaseTimeout.Milliseconds()
	poll := 20 * time.Millisecond
	backoff := 50 * time.Millisecond
	for {
		res, err := robotsGetScript.Run(ctx, f.rdb, keys, token, lockMs).Slice()
		if err == nil && len(res) != 3 {
			err = fmt.Errorf("robots.txt script returned %d values", len(res))
		}
		if err != nil {
			if err := f.backOff(ctx, err, &backoff); err != nil {
				return engine.RobotsOutcome{}, err
			}
			continue
		}
		backoff = 50 * time.Millisecond
		switch toInt(res[0]) {
		case 1:
			v, _ := res[1].(string)
			out, ok := decodeRobots(v)
			if ok {
				if ttl := toInt(res[2]); ttl > 0 {
					out.TTL = time.Duration(ttl) * time.Millisecond
				}
				return out, nil
			}
			f.logger.Warn("Damaged shared robots.txt of " + origin + ": fetching it again")
			_ = f.rdb.Del(ctx, keys[0]).Err()
			continue
		case 2:
			return f.fetchRobots(ctx, keys, token, fetch)
		}
		wait := min(poll, max(time.Duration(toInt(res[2]))*time.Millisecond, time.Millisecond))
		poll = min(2*poll, 500*time.Millisecond)
		if err := sleepCtx(ctx, wait); err != nil {
			return engine.RobotsOutcome{}, err
		}
	}
}

// fetchRobots runs fetch holding the lock of keys, renewing it meanwhile, and shares the
// outcome (or only frees the lock when fetch was cancelled).
func (f *Frontier) fetchRobots(ctx context.Context, keys []string, token string, fetch func(context.Context) (engine.RobotsOutcome, bool)) (engine.RobotsOutcome, error) {
	lockMs := f.opts.LeaseTimeout.Milliseconds()
	stop := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(f.opts.LeaseTimeout / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = robotsPutScript.Run(context.Background(), f.rdb, keys, token, "+", lockMs).Err()
			}
		}
	}()
	out, ok := fetch(ctx)
	close(stop)
	<-renewed
	val, ttl := "", int64(0)
	if ok {
		val, ttl = encodeRobots(out), out.TTL.Milliseconds()
	}
	// Sent even when ctx has ended since (not retried then): the outcome is the crawl's.
	bg := context.WithoutCancel(ctx)
	backoff := 50 * time.Millisecond
	for {
		err := robotsPutScript.Run(bg, f.rdb, keys, token, val, ttl).Err()
		if err == nil {
			break
		}
		if err := f.backOff(ctx, err, &backoff); err != nil {
			f.logger.Warn(fmt.Sprintf("robots.txt of %s not shared (its lock expires by itself): %v", keys[0], err))
			break
		}
	}
	if !ok {
		return engine.RobotsOutcome{}, cmp.Or(ctx.Err(), errors.New("robots.txt download cancelled"))
	}
	return out, nil
}

// encodeRobots returns the verdict byte and the rules.
func encodeRobots(o engine.RobotsOutcome) string {
	return string(rune('0'+o.Verdict)) + string(o.Body)
}

func decodeRobots(v string) (engine.RobotsOutcome, bool) {
	if v == "" || v[0] < '0' || v[0] > '0'+byte(engine.RobotsDisallowAll) {
		return engine.RobotsOutcome{}, false
	}
	return engine.RobotsOutcome{Verdict: engine.RobotsVerdict(v[0] - '0'), Body: []byte(v[1:])}, true
}

// Interface guards
var _ engine.RobotsCache = (*Frontier)(nil)
