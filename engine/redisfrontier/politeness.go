package redisfrontier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
)

// Politeness across workers
//
// A Frontier is the engine's SlotGate (and RobotsCache, robots.go): the download slots'
// limits hold crawl-wide. Each slot has two keys:
//
//	slot:<key>   HASH  last (µs, Redis's clock): the latest start reserved in the slot;
//	                   pause (µs): no start before it (Retry-After); at (µs): the slot's
//	                   AutoThrottle delay as a worker last shared it
//	holds:<key>  ZSET  hold token <worker>#s<n> → deadline (µs): the downloads holding the
//	                   slot, reserved or running; and lease token <worker>#<n> → its
//	                   reserved start plus the lease timeout: a leased request of the
//	                   slot whose download has not taken the hold yet (syncScript)
//
// slot:<key> also records conc and delay, the concurrency and delay (µs) of the slot's
// latest acquisition, which the leases use.
//
// Both expire ten minutes after the slot's last use. An acquisition is one script call
// (slotScript): it drops the slot's expired holds (a dead worker's), and when fewer than
// the slot's concurrency remain it reserves the next start, the later of now, last plus
// the acquiring worker's delay, and the pause, records it in last, and adds a hold whose
// deadline is the start plus FRONTIER_LEASE_TIMEOUT. The worker sleeps until the start
// and downloads; when it has to sleep longer than 20 ms, one more call confirms the start
// 20 ms before it, and a pause set meanwhile (another worker's Retry-After) moves it. When
// the slot is full the worker waits for one of its own holds of the slot to be released,
// or polls (5 ms doubling to 100 ms, no later than the earliest deadline).
// Releases and pauses are queued: the next acquisition of the worker carries them in its
// script call, or a background goroutine sends them at once; that goroutine also renews the
// worker's holds every third of the lease timeout, so a killed worker's holds free their
// slots a lease timeout after its last renewal.
//
// In a slot without a delay (the acquisition's delay is 0) a hold only counts a download
// against the slot's concurrency, so a worker keeps the hold of a download that ended as
// a spare for up to spareLinger instead of releasing it at once: a download of the same
// slot in the same worker takes the spare without a script call (the hold moves from one
// download to the next; the slot's count in Redis never changes, so the crawl-wide
// concurrency holds exactly). A spare is taken only within reuseFresh of this worker's
// last acquisition of the slot that Redis granted without a wait, so a pause another
// worker set (Retry-After) holds here too, at most reuseFresh late. Spares not taken are
// released by the background goroutine.

// Keys of the shared slots and robots.txt, after the crawl's prefix.
const (
	keySlot       = "slot:"       // + slot key: HASH last, pause, at
	keyHolds      = "holds:"      // + slot key: ZSET hold token → deadline
	keyRobots     = "robots:"     // + origin: STRING verdict byte + body
	keyRobotsLock = "robotslock:" // + origin: STRING the token of the worker fetching it
)

// slotScript applies ops to the slots named by KEYS, two per op (the slot's HASH and
// ZSET). ARGV: lease µs, the crawl's key prefix, then the ops:
//
//	r token throttle   release a hold; throttle > 0 (µs) becomes the slot's AutoThrottle
//	                   delay; the slot's score in slots becomes now (it has room)
//	h token            renew a hold (its deadline never moves back)
//	p µs               pause the slot for µs from now, unless it is paused longer
//	a token conc delay acquire (the last op): a hold when fewer than conc remain, starting
//	                   at the later of now, last+delay (µs) and the pause
//	c token conc delay confirm the reserved start of a hold (the last op), before it: when
//	                   a pause ends after it, the hold starts at the pause's end, or at
//	                   last+delay when a later start was reserved meanwhile
//	L lease token conc delay
//	                   acquire with the hold that leasing a request reserved (lease, its
//	                   lease token; the last op): it becomes hold token, starting at the
//	                   start reserved (a late one now, or after a start reserved since),
//	                   or the pause's end, once fewer than conc downloads hold the slot
//	                   (with a delay longer than the slot's recorded one, the leases'
//	                   reserved starts are first spaced again by it)
//	                   (other leases' holds do not count); an acquisition as a when the
//	                   lease's hold is gone
//
// a and L record conc and delay in the slot's HASH, for the leases (syncScript).
//
// Returns {wait, at, recovered, retry}: wait µs until the reserved start (-1: the slot is
// full, -2: no acquisition; for c, 0: the start stands), the slot's AutoThrottle delay (µs,
// 0: none; -1 for an L whose lease's hold stays while the slot is full), the expired holds
// dropped, and when full the µs until the earliest hold's deadline.
var slotScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local lease = tonumber(ARGV[1])
local keep = 600000000
local function extend(key, us)
  local ms = math.ceil(us / 1000)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
local function reserve(h, z, tok, start, conc, delay)
  if conc > 0 then
    redis.call('HSET', h, 'last', start, 'conc', conc, 'delay', delay)
  else
    redis.call('HSET', h, 'last', start)
  end
  redis.call('ZADD', z, start + lease, tok)
  extend(h, start - now + lease + keep)
  extend(z, start - now + lease + keep)
end
-- A delay longer than the one the slot's leases reserved their starts with (a Crawl-delay
-- learned, AutoThrottle slowing down) spaces those starts again, in order, after the
-- downloads' (#s), so that a lease's hold taken at its start keeps the new delay.
local function respace(h, z, delay)
  if delay <= tonumber(redis.call('HGET', h, 'delay') or '0') then return end
  local prev, moved = nil, {}
  local hs = redis.call('ZRANGE', z, 0, -1, 'WITHSCORES')
  for j = 1, #hs, 2 do
    local m, start = hs[j], tonumber(hs[j+1]) - lease
    if string.find(m, '#s', 1, true) then
      if not prev or start > prev then prev = start end
    else
      if prev and start < prev + delay then
        start = prev + delay
        moved[#moved+1] = start + lease
        moved[#moved+1] = m
      end
      prev = start
    end
  end
  if #moved > 0 then
    redis.call('ZADD', z, unpack(moved))
    local last = tonumber(redis.call('HGET', h, 'last') or '0')
    if prev > last then redis.call('HSET', h, 'last', prev) end
  end
end
local function acquire(h, z, tok, conc, delay)
  respace(h, z, delay)
  local recovered = redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
  local v = redis.call('HMGET', h, 'last', 'pause', 'at')
  local at = tonumber(v[3] or '0')
  if redis.call('ZCARD', z) >= conc then
    local first = redis.call('ZRANGE', z, 0, 0, 'WITHSCORES')
    return {-1, at, recovered, tonumber(first[2]) - now}
  end
  local start = now
  if v[1] then start = math.max(start, tonumber(v[1]) + delay) end
  if v[2] then start = math.max(start, tonumber(v[2])) end
  reserve(h, z, tok, start, conc, delay)
  return {start - now, at, recovered, 0}
end
local res = {-2, 0, 0, 0}
local P = ARGV[2]
local i, k = 3, 1
while i <= #ARGV do
  local tag, h, z = ARGV[i], KEYS[k], KEYS[k+1]
  if tag == 'r' then
    -- The slot has room: its queued requests may be leased at once (syncScript).
    if redis.call('ZREM', z, ARGV[i+1]) > 0 then
      redis.call('ZADD', P .. 'slots', 'XX', 'LT', math.floor(now / 1000), string.sub(h, #P + 6))
    end
    local at = tonumber(ARGV[i+2])
    if at > 0 then
      redis.call('HSET', h, 'at', at)
      extend(h, keep)
    end
    i = i + 3
  elseif tag == 'h' then
    redis.call('ZADD', z, 'XX', 'GT', now + lease, ARGV[i+1])
    extend(z, lease + keep)
    extend(h, lease + keep)
    i = i + 2
  elseif tag == 'p' then
    local pause = now + tonumber(ARGV[i+1])
    if pause > tonumber(redis.call('HGET', h, 'pause') or '0') then redis.call('HSET', h, 'pause', pause) end
    extend(h, pause - now + keep)
    i = i + 2
  elseif tag == 'a' then
    res = acquire(h, z, ARGV[i+1], tonumber(ARGV[i+2]), tonumber(ARGV[i+3]))
    i = i + 4
  elseif tag == 'L' then
    -- A lease's hold (syncScript) becomes the download's, at the start it reserved; one
    -- that comes late starts now when no later start was reserved meanwhile, else after
    -- the latest one.
    local lt, tok, conc, delay = ARGV[i+1], ARGV[i+2], tonumber(ARGV[i+3]), tonumber(ARGV[i+4])
    respace(h, z, delay)
    local sc = redis.call('ZSCORE', z, lt)
    local busy = 0
    if sc then
      -- The slot's downloads (their tokens have #s): leases do not count against this one.
      redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
      for _, m in ipairs(redis.call('ZRANGE', z, 0, -1)) do
        if string.find(m, '#s', 1, true) then busy = busy + 1 end
      end
    end
    if not sc then
      res = acquire(h, z, tok, conc, delay)
    elseif busy >= conc then
      local first = redis.call('ZRANGE', z, 0, 0, 'WITHSCORES')
      res = {-1, -1, 0, tonumber(first[2]) - now}
    else
      redis.call('ZREM', z, lt)
      local v = redis.call('HMGET', h, 'last', 'pause', 'at')
      local last, pause = tonumber(v[1] or '0'), tonumber(v[2] or '0')
      local start = tonumber(sc) - lease
      if start <= now then -- late (a renewal moves the score: it is never taken for a start)
        if last <= start then start = now else start = math.max(now, last + delay) end
      end
      start = math.max(start, pause)
      redis.call('ZADD', z, start + lease, tok)
      redis.call('HSET', h, 'last', math.max(last, start), 'conc', conc, 'delay', delay)
      extend(h, start - now + lease + keep)
      extend(z, start - now + lease + keep)
      res = {start - now, tonumber(v[3] or '0'), 0, 0}
    end
    i = i + 5
  elseif tag == 'c' then
    local tok, delay = ARGV[i+1], tonumber(ARGV[i+3])
    local v = redis.call('HMGET', h, 'last', 'pause', 'at')
    local pause, last = tonumber(v[2] or '0'), tonumber(v[1] or '0')
    -- Before the start, renewals leave the hold's deadline at start + lease.
    local mine = tonumber(redis.call('ZSCORE', z, tok) or (now + lease)) - lease
    res = {0, tonumber(v[3] or '0'), 0, 0}
    if pause > mine then
      local start = pause
      if last > mine then start = math.max(pause, last + delay) end
      reserve(h, z, tok, start, 0, delay)
      res[1] = start - now
    end
    i = i + 4
  else
    return redis.error_reply('unknown slot op ' .. tostring(tag))
  end
  k = k + 2
end
return res
`)

// slotOp is one op of slotScript on slot key.
type slotOp struct {
	key  string
	args []any
}

// politeness is a Frontier's state for the shared slots.
type politeness struct {
	start    sync.Once
	mu       sync.Mutex
	seq      uint64
	held     map[string]string // hold token → slot key: the holds to renew
	queue    []slotOp          // releases and pauses not sent yet
	waiters  map[string]chan struct{}
	spares   map[string][]spare     // slot key → holds kept for reuse (no delay)
	fresh    map[string]time.Time   // slot key → its last acquisition granted without a wait
	leases   map[string][]leaseHold // slot key → holds of leased requests Next handed out
	paused   map[string]time.Time   // slot key → when this worker last paused it
	known    map[string]slotConf    // slot key → its concurrency and delay as Redis knows them
	ended    map[string]int         // slot key → downloads that took a lease's hold, ended, not matched by a Done
	sweeping bool                   // the background goroutine is to release old spares
	closed   bool
	kick     chan struct{}
	stop     chan struct{}
	loopDone chan struct{}
}

// polite returns f's shared-slot state, starting its background goroutine the first time.
func (f *Frontier) polite() *politeness {
	p := &f.politeness
	p.start.Do(func() {
		p.held = map[string]string{}
		p.waiters = map[string]chan struct{}{}
		p.spares = map[string][]spare{}
		p.fresh = map[string]time.Time{}
		p.leases = map[string][]leaseHold{}
		p.paused = map[string]time.Time{}
		p.known = map[string]slotConf{}
		p.ended = map[string]int{}
		p.kick = make(chan struct{}, 1)
		p.stop = make(chan struct{})
		p.loopDone = make(chan struct{})
		go f.politeLoop()
	})
	return p
}

// AcquireSlot implements engine.SlotGate: one slotScript call reserves the slot's next
// start and a hold, carrying the releases and pauses queued since the last call; then it
// sleeps until the start (awaitStart). A full slot is asked again when this worker releases one of
// its holds, or by polling. Redis errors are retried with backoff until the frontier fails
// for good (backOff).
//
// A download of a request this worker leased uses the hold the lease reserved (any of
// its slot's that Next handed out): in a slot without a delay, granted less than
// reuseFresh ago and not paused here since, as it is, without a script call (its release
// rides on the next round trip, syncScript's u); otherwise its script call turns it into
// the download's hold at the start the lease reserved.
func (f *Frontier) AcquireSlot(ctx context.Context, key string, conc int, delay time.Duration) (engine.SlotHold, error) {
	p := f.polite()
	poll := 5 * time.Millisecond
	backoff := 50 * time.Millisecond
	// leased: lh is a lease's hold in Redis that this acquisition may use; popped: lh was
	// taken from the handed-out leases' (the download counts as theirs: leaseEnded).
	lh, leased := p.takeLease(key)
	popped := leased
	if leased && delay <= 0 && time.Since(lh.granted) < reuseFresh && p.adoptable(key, conc, lh.granted) {
		f.stats.Inc("frontier/slot_holds_leased", 1)
		return engine.SlotHold{Release: func(throttle time.Duration) {
			f.releaseLeaseHold(key, lh.token, throttle)
			p.leaseEnded(key)
		}}, nil
	}
	// giveUp ends an acquisition that failed: a lease's hold it did not use goes back.
	giveUp := func(err error) (engine.SlotHold, error) {
		switch {
		case leased:
			p.untakeLease(key, lh)
		case popped:
			p.leaseEnded(key)
		}
		return engine.SlotHold{}, err
	}
	for {
		if delay <= 0 && !popped {
			if token := p.takeSpare(key); token != "" {
				f.stats.Inc("frontier/slot_holds_reused", 1)
				return engine.SlotHold{Release: func(throttle time.Duration) { f.releaseSlot(key, token, true, throttle) }}, nil
			}
		}
		p.mu.Lock()
		p.seq++
		token := f.worker + "#s" + strconv.FormatUint(p.seq, 10)
		ch := p.waiters[key]
		if ch == nil {
			ch = make(chan struct{})
			p.waiters[key] = ch
		}
		p.held[token] = key // renewed from now on, so a lost reply's hold is not left to expire
		p.mu.Unlock()
		// On failure, a release of the hold in case the script ran.
		acq := slotOp{key, []any{"a", token, max(conc, 1), delay.Microseconds()}}
		if leased {
			acq = slotOp{key, []any{"L", lh.token, token, max(conc, 1), delay.Microseconds()}}
		}
		res, err := f.call(ctx, acq, slotOp{key, []any{"r", token, 0}})
		if err != nil {
			p.mu.Lock()
			delete(p.held, token)
			p.mu.Unlock()
			if err := f.backOff(ctx, err, &backoff); err != nil {
				return giveUp(err)
			}
			continue
		}
		backoff = 50 * time.Millisecond
		wait, at, recovered, retry := toInt(res[0]), toInt(res[1]), toInt(res[2]), toInt(res[3])
		if wait >= 0 {
			p.learned(key, max(conc, 1))
		}
		// The lease's hold stays for the next try when the slot's downloads use its
		// concurrency (at -1); used, or gone, the next tries are plain acquisitions.
		leased = leased && wait < 0 && at == -1
		if recovered > 0 {
			f.stats.Inc("frontier/slot_holds_recovered", recovered)
			f.logger.Info(fmt.Sprintf("Slot %s: %d holds of stopped workers expired", key, recovered))
		}
		if wait >= 0 {
			reuse := wait == 0 && delay <= 0 && !popped // a hold that only counts: it may be reused
			hold := engine.SlotHold{
				Throttle: time.Duration(at) * time.Microsecond,
				Release: func(throttle time.Duration) {
					f.releaseSlot(key, token, reuse, throttle)
					if popped {
						p.leaseEnded(key)
					}
				},
			}
			if reuse {
				p.mu.Lock()
				p.fresh[key] = time.Now()
				p.mu.Unlock()
			}
			if err := f.awaitStart(ctx, key, token, delay, wait); err != nil {
				hold.Release(0)
				return engine.SlotHold{}, err
			}
			return hold, nil
		}
		p.mu.Lock()
		delete(p.held, token)
		p.mu.Unlock()
		if delay <= 0 && !popped && p.hasSpare(key) {
			continue // a download of this worker ended meanwhile
		}
		w := min(poll, max(time.Duration(retry)*time.Microsecond, time.Millisecond))
		poll = min(2*poll, 100*time.Millisecond)
		t := time.NewTimer(w)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return giveUp(ctx.Err())
		}
		t.Stop()
	}
}

// confirmAhead is how long before its reserved start a download confirms it.
const confirmAhead = 20 * time.Millisecond

// awaitStart sleeps until the reserved start of the hold token, wait µs from now. When
// that is further than confirmAhead, it confirms the start confirmAhead before it: a
// pause set meanwhile (another worker's Retry-After) moves it. When the confirmation
// cannot be made, the download keeps the start it has.
func (f *Frontier) awaitStart(ctx context.Context, key, token string, delay time.Duration, wait int64) error {
	start := time.Now().Add(time.Duration(wait) * time.Microsecond)
	for time.Until(start) > confirmAhead {
		if err := sleepCtx(ctx, time.Until(start)-confirmAhead); err != nil {
			return err
		}
		res, err := f.call(ctx, slotOp{key, []any{"c", token, 0, delay.Microseconds()}})
		if err != nil || toInt(res[0]) <= 0 {
			break
		}
		start = time.Now().Add(time.Duration(toInt(res[0])) * time.Microsecond)
	}
	return sleepCtx(ctx, time.Until(start))
}

// call runs op in one script call after the releases and pauses queued, and wakes this
// worker's acquisitions waiting for their slots. When the call fails, the queue is put
// back, followed by undo, for the next call.
func (f *Frontier) call(ctx context.Context, op slotOp, undo ...slotOp) ([]any, error) {
	p := &f.politeness
	p.mu.Lock()
	ops := append(p.queue, op)
	p.queue = nil
	p.mu.Unlock()
	n := len(ops) - 1
	res, err := f.runSlotOps(ctx, ops)
	if err != nil {
		p.mu.Lock()
		p.queue = append(append(ops[:n:n], undo...), p.queue...)
		p.mu.Unlock()
		p.kickLoop()
		return nil, err
	}
	p.wake(ops[:n])
	return res, nil
}

// PauseSlot implements engine.SlotGate: the pause is queued for the next call to Redis.
func (f *Frontier) PauseSlot(key string, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	p := f.polite()
	p.mu.Lock()
	delete(p.fresh, key) // spares wait for Redis's word on the pause
	p.paused[key] = time.Now()
	p.mu.Unlock()
	p.enqueue(slotOp{key, []any{"p", d.Microseconds()}})
}

// Spare holds (slots without a delay).
const (
	// spareLinger is how long a worker keeps the hold of a download that ended for
	// another download of the slot before releasing it.
	spareLinger = 20 * time.Millisecond
	// reuseFresh is how long after an acquisition of the slot granted without a wait the
	// worker reuses its spares without asking Redis (a pause set meanwhile by another
	// worker is seen that much later at most).
	reuseFresh = 100 * time.Millisecond
)

// leaseHold is the hold in a slot's holds:<key> that leasing a request reserved
// (syncScript), named by the lease's token.
type leaseHold struct {
	token   string
	granted time.Time // when the round trip that leased it was sent
}

// addLease records the hold of a leased request that Next handed out, for a download of
// slot key.
func (p *politeness) addLease(key string, lh leaseHold) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.leases[key] = append(p.leases[key], lh)
}

// takeLease returns the oldest hold of slot key that addLease recorded, and forgets it.
func (p *politeness) takeLease(key string) (leaseHold, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.leases[key]
	if len(l) == 0 {
		return leaseHold{}, false
	}
	lh := l[0]
	if len(l) == 1 {
		delete(p.leases, key)
	} else {
		p.leases[key] = l[1:]
	}
	return lh, true
}

// untakeLease puts back a hold takeLease returned that the download did not use.
func (p *politeness) untakeLease(key string, lh leaseHold) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.leases[key] = append([]leaseHold{lh}, p.leases[key]...)
}

// leaseEnded records that a download of slot key that took a lease's hold ended.
func (p *politeness) leaseEnded(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended[key]++
}

// doneLease records that the lease token of a request of slot key ended (Done), and
// returns the lease hold that goes with it in Redis ("": none). Downloads take any
// handed-out lease's hold of their slot (the gate does not know their requests), so the
// lease of a request that was downloaded leaves the holds as they are, and one that was
// not (a middleware dropped it) drops one not taken, its own if it is there. Which it was
// is told by counting: a request is done after its download has ended, so while
// downloads that took a lease's hold have ended that no Done has matched, the request
// done is taken to be one of them. A wrong guess swaps the roles of two requests of the
// slot, never the count of their holds.
func (p *politeness) doneLease(key, token string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.ended[key]; n > 0 {
		if n == 1 {
			delete(p.ended, key)
		} else {
			p.ended[key] = n - 1
		}
		return ""
	}
	l := p.leases[key]
	if len(l) == 0 {
		return ""
	}
	i := slices.IndexFunc(l, func(lh leaseHold) bool { return lh.token == token })
	i = max(i, 0)
	tok := l[i].token
	l = slices.Delete(l, i, i+1)
	if len(l) == 0 {
		delete(p.leases, key)
	} else {
		p.leases[key] = l
	}
	return tok
}

// adoptable reports whether a download of slot key with concurrency conc may take as it
// is the hold of a lease granted at t: Redis knew the slot's concurrency as conc from
// this worker before t (the lease counted it), and this worker has not paused the slot
// since.
func (p *politeness) adoptable(key string, conc int, t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.known[key]
	if !ok || k.conc != conc || !k.at.Before(t) {
		return false
	}
	at, ok := p.paused[key]
	return !ok || at.Before(t)
}

// learned records that Redis knows slot key's concurrency as conc (an acquisition
// recorded it).
func (p *politeness) learned(key string, conc int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.known[key]; !ok || k.conc != conc {
		p.known[key] = slotConf{conc: conc, at: time.Now()}
	}
}

// slotConf is a slot's concurrency as this worker's acquisitions recorded it in Redis,
// since at.
type slotConf struct {
	conc int
	at   time.Time
}

// releaseLeaseHold ends a download's hold that a lease reserved: its release rides on the
// next round trip of the frontier (syncScript's u), which looks at the slot again at once.
func (f *Frontier) releaseLeaseHold(key, token string, throttle time.Duration) {
	f.mu.Lock()
	f.ops = append(f.ops, op{args: []any{"u", key, token, max(throttle.Microseconds(), 0)}})
	f.mu.Unlock()
	f.poke()
	f.politeness.wake([]slotOp{{key: key}})
}

// spare is a hold kept for reuse.
type spare struct {
	token string
	since time.Time
}

// takeSpare returns a spare hold of slot key, or "" when there is none or the slot's
// last word from Redis is older than reuseFresh (then its spares are released, and the
// caller acquires a hold in Redis).
func (p *politeness) takeSpare(key string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	sp := p.spares[key]
	if len(sp) == 0 {
		return ""
	}
	if time.Since(p.fresh[key]) > reuseFresh || p.closed {
		for _, s := range sp {
			delete(p.held, s.token)
			p.queue = append(p.queue, slotOp{key, []any{"r", s.token, 0}})
		}
		delete(p.spares, key)
		return ""
	}
	token := sp[len(sp)-1].token
	if len(sp) == 1 {
		delete(p.spares, key)
	} else {
		p.spares[key] = sp[:len(sp)-1]
	}
	return token
}

// hasSpare reports whether slot key has a spare hold.
func (p *politeness) hasSpare(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.spares[key]) > 0
}

// releaseSlot ends a download's hold: a hold that may be reused (granted without a wait
// in a slot without a delay), without AutoThrottle's delay to share, becomes a spare
// (kept, renewed, for reuse); otherwise its release is queued. It wakes this worker's
// waiters for the slot.
func (f *Frontier) releaseSlot(key, token string, reuse bool, throttle time.Duration) {
	p := f.polite()
	p.mu.Lock()
	if reuse && throttle <= 0 && !p.closed {
		p.spares[key] = append(p.spares[key], spare{token, time.Now()})
		kick := !p.sweeping
		p.sweeping = true
		p.mu.Unlock()
		if kick {
			p.kickLoop()
		}
	} else {
		delete(p.held, token)
		p.mu.Unlock()
		p.enqueue(slotOp{key, []any{"r", token, max(throttle.Microseconds(), 0)}})
	}
	p.wake([]slotOp{{key: key}})
}

// sweepSpares queues the release of the spares older than spareLinger and reports whether
// some remain. Called with p.mu held.
func (p *politeness) sweepSpares() bool {
	now := time.Now()
	for key, sp := range p.spares {
		keep := sp[:0]
		for _, s := range sp {
			if now.Sub(s.since) >= spareLinger {
				delete(p.held, s.token)
				p.queue = append(p.queue, slotOp{key, []any{"r", s.token, 0}})
			} else {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			delete(p.spares, key)
		} else {
			p.spares[key] = keep
		}
	}
	return len(p.spares) > 0
}

func (p *politeness) enqueue(op slotOp) {
	p.mu.Lock()
	p.queue = append(p.queue, op)
	p.mu.Unlock()
	p.kickLoop()
}

// kickLoop makes the background goroutine send the queue.
func (p *politeness) kickLoop() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// wake wakes the acquisitions of this worker waiting for the slots of ops.
func (p *politeness) wake(ops []slotOp) {
	if len(ops) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, op := range ops {
		if ch := p.waiters[op.key]; ch != nil {
			close(ch)
			delete(p.waiters, op.key)
		}
	}
}

// runSlotOps runs slotScript on ops.
func (f *Frontier) runSlotOps(ctx context.Context, ops []slotOp) ([]any, error) {
	keys := make([]string, 0, 2*len(ops))
	args := make([]any, 2, 2+4*len(ops))
	args[0], args[1] = f.opts.LeaseTimeout.Microseconds(), f.prefix
	for _, op := range ops {
		keys = append(keys, f.prefix+keySlot+op.key, f.prefix+keyHolds+op.key)
		args = append(args, op.args...)
	}
	res, err := slotScript.Run(ctx, f.rdb, keys, args...).Slice()
	if err == nil && len(res) != 4 {
		err = fmt.Errorf("slot script returned %d values", len(res))
	}
	return res, err
}

// backOff handles a failed call for the shared slots or robots.txt: it waits *backoff
// (doubling it for the next time, up to 5 s) and returns nil when the call should be made
// again, or the error to give up with: ctx's, an error that will not go away (an error
// reply), or the frontier's once Redis has failed for longer than RetryTimeout. The
// frontier's round trips time the outage and log it: backOff pokes the background
// goroutine so that it notices.
func (f *Frontier) backOff(ctx context.Context, err error, backoff *time.Duration) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !retryable(err) {
		return fmt.Errorf("redis frontier: shared politeness: %w", err)
	}
	if ferr := f.Err(); ferr != nil {
		return ferr
	}
	f.poke()
	wait := *backoff
	*backoff = min(2*wait, 5*time.Second)
	return sleepCtx(ctx, wait)
}

// politeLoop sends the queued releases and pauses that no acquisition carried, and renews
// the worker's holds every third of the lease timeout, until closePolite or a closed
// connection (a killed worker).
func (f *Frontier) politeLoop() {
	p := &f.politeness
	defer close(p.loopDone)
	renew := time.NewTicker(f.opts.LeaseTimeout / 3)
	defer renew.Stop()
	backoff := 50 * time.Millisecond
	var retry, sweep <-chan time.Time
	for {
		renewing, stopping := false, false
		select {
		case <-p.kick:
		case <-renew.C:
			renewing = true
		case <-retry:
			retry = nil
		case <-sweep:
			sweep = nil
			p.mu.Lock()
			p.sweeping = p.sweepSpares()
			p.mu.Unlock()
		case <-p.stop:
			stopping = true
		}
		p.mu.Lock()
		if p.sweeping && sweep == nil {
			sweep = time.After(spareLinger)
		}
		ops := p.queue
		p.queue = nil
		if renewing {
			for tok, key := range p.held {
				ops = append(ops, slotOp{key, []any{"h", tok}})
			}
		}
		p.mu.Unlock()
		if len(ops) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := f.runSlotOps(ctx, ops)
			cancel()
			switch {
			case errors.Is(err, redis.ErrClosed):
				return
			case err != nil:
				if stopping || !retryable(err) || f.Err() != nil {
					f.logger.Warn(fmt.Sprintf("Dropping %d releases, pauses and renewals of shared download slots, their holds expire by themselves: %v", len(ops), err))
				} else {
					f.poke()
					again := slices.DeleteFunc(ops, func(op slotOp) bool { return op.args[0] == "h" })
					p.mu.Lock()
					p.queue = append(again, p.queue...)
					p.mu.Unlock()
					retry = time.After(backoff)
					backoff = min(2*backoff, 5*time.Second)
				}
			default:
				backoff = 50 * time.Millisecond
				p.wake(ops)
			}
		}
		if stopping {
			return
		}
	}
}

// closePolite releases the holds this worker still has, sends what is queued and stops
// the background goroutine. Close calls it before closing the connection.
func (f *Frontier) closePolite() {
	p := f.polite()
	p.mu.Lock()
	closed := p.closed
	p.closed = true
	clear(p.spares)
	for tok, key := range p.held {
		p.queue = append(p.queue, slotOp{key, []any{"r", tok, 0}})
	}
	clear(p.held)
	p.mu.Unlock()
	if !closed {
		close(p.stop)
	}
	<-p.loopDone
}

// sleepCtx waits for d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	return ctx.Err()
}

// Interface guards
var _ engine.SlotGate = (*Frontier)(nil)
