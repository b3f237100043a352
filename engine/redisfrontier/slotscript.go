package redisfrontier

import (
	"github.com/redis/go-redis/v9"
)

// slotScript: the Lua script of the shared download slots (acquire, confirm, release, renew,
// pause), the one call each acquisition makes.

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
