package redisfrontier

import "github.com/redis/go-redis/v9"

// The keys of a crawl, in the order the scripts take them (KEYS[1] ... KEYS[9]).
const (
	keySeen     = "seen"     // SET of 16-byte fingerprints
	keyPending  = "pending"  // ZSET, every score 0: members order by priority, then sequence
	keyReq      = "req"      // HASH member → request record (engine/frontier's codec)
	keyLeased   = "leased"   // ZSET member → lease deadline (ms, the server's clock)
	keyLease    = "lease"    // HASH member → lease token "<worker>#<n>"
	keyMeta     = "meta"     // HASH seq (request counter), lease (lease counter)
	keyStart    = "start"    // HASH owner, deadline, token, epoch, yielded, done
	keyFinished = "finished" // STRING: the server time (ms) the crawl was found over
	keyWorkers  = "workers"  // HASH worker id → JSON (WorkerInfo)
	keyStats    = "stats"    // HASH Scrapy stat key → crawl-wide integer
	keyTrips    = "trips"    // HASH worker id → its last round trip's id and reply
	keyCreated  = "created"  // STRING: when the first worker opened the crawl (its marker)
)

var syncKeys = []string{keySeen, keyPending, keyReq, keyLeased, keyLease, keyMeta, keyStart, keyFinished, keyWorkers, keyStats, keyTrips}

// syncScript is the one script a worker's background goroutine runs per round trip. It
// applies the worker's outbox in order, returns expired leases to pending, leases up to n
// requests, renews the worker's leases, and reports the crawl's state, atomically.
//
// ARGV: worker, lease ms, fifo (1/0), n to lease, heartbeat JSON (” for none), totals
// wanted (1/0), then ops, each a tag and its arguments:
//
//	a fp prio pos record fm ft
//	                      add a request: fp '' (dontFilter) skips the seen-set; pos > 0 is
//	                      its position in start()'s sequence (start's yielded count). A
//	                      request added to a finished crawl (scheduled outside a callback,
//	                      by a spider_idle handler) makes it unfinished again. The fence:
//	                      a start request (pos > 0) is refused unless ft is the start
//	                      lease's token; one yielded by the leased request fm unless ft
//	                      still holds fm's lease (fm '': no fence)
//	k member token        acknowledge (Done) a lease, if the token still holds it
//	r member token        release a lease back to pending (a worker that stops)
//	h member token        renew a lease (lost if the token no longer holds it)
//	s held token          renew the start lease (held 1) or end it: 'd' done, 'x' released;
//	                      nothing if token is no longer the start lease's
//	i key delta           add delta to a crawl-wide stat
//	m key value           raise a crawl-wide stat to value (a maximum)
//	b                     the worker leaves (its heartbeat is removed)
//
// Returns {added, filtered, acked, stale, recovered, pending, leased, finished, startLost,
// lost members, leased triples (member token record), totals (key value ...), start
// requests fenced, other requests fenced}.
var syncScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local worker, leaseMs, fifo, n = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1', tonumber(ARGV[4])
local deadline = now + leaseMs
local saved = redis.call('HGET', KEYS[11], worker)
if saved then
  local nl = string.find(saved, '\n', 1, true)
  if nl and string.sub(saved, 1, nl - 1) == ARGV[7] then return cmsgpack.unpack(string.sub(saved, nl + 1)) end
end
local bye = false
local added, filtered, acked, stale, recovered, startLost = 0, 0, 0, 0, 0, 0
local fencedStart, fenced = 0, 0
local lost = {}
local startPos = 0
-- Several members at once per command, in chunks (Lua's unpack has a limit).
local function each(cmd, key, list, per)
  local step = 2000 * per
  for j = 1, #list, step do
    redis.call(cmd, key, unpack(list, j, math.min(j + step - 1, #list)))
  end
end
local adds, acks = {}, {} -- ARGV index of each added request; acknowledged members
local i = 8
while i <= #ARGV do
  local tag = ARGV[i]
  if tag == 'a' then
    local fp, pos, fm, ft = ARGV[i+1], tonumber(ARGV[i+3]), ARGV[i+5], ARGV[i+6]
    -- The fence: a worker whose lease went to another one adds nothing for it.
    local ok = true
    if pos > 0 then
      ok = redis.call('HGET', KEYS[7], 'token') == ft
    elseif fm ~= '' then
      ok = redis.call('HGET', KEYS[5], fm) == ft
    end
    if not ok then
      if pos > 0 then fencedStart = fencedStart + 1 else fenced = fenced + 1 end
    else
      if fp == '' or redis.call('SADD', KEYS[1], fp) == 1 then
        adds[#adds+1] = i
        if added == 0 then redis.call('DEL', KEYS[8]) end -- work again: the crawl is not over
        added = added + 1
      else
        filtered = filtered + 1
      end
      if pos > startPos then startPos = pos end
    end
    i = i + 7
  elseif tag == 'k' or tag == 'r' or tag == 'h' then
    local m, tok = ARGV[i+1], ARGV[i+2]
    if redis.call('HGET', KEYS[5], m) == tok then
      if tag == 'h' then
        redis.call('ZADD', KEYS[4], 'XX', deadline, m)
      else
        if tag == 'k' then
          acks[#acks+1] = m
          acked = acked + 1
        else
          redis.call('ZREM', KEYS[4], m)
          redis.call('HDEL', KEYS[5], m)
          redis.call('ZADD', KEYS[2], 0, m)
        end
      end
    elseif tag == 'h' then
      lost[#lost+1] = m
    elseif tag == 'k' then
      stale = stale + 1
    end
    i = i + 3
  elseif tag == 's' then
    if startPos > 0 then
      local y = tonumber(redis.call('HGET', KEYS[7], 'yielded') or '0')
      if startPos > y then redis.call('HSET', KEYS[7], 'yielded', startPos) end
      startPos = 0
    end
    if redis.call('HGET', KEYS[7], 'token') == ARGV[i+2] then
      if ARGV[i+1] == '1' then
        redis.call('HSET', KEYS[7], 'deadline', deadline)
      else
        if ARGV[i+1] == 'd' then redis.call('HSET', KEYS[7], 'done', '1') end
        redis.call('HDEL', KEYS[7], 'owner', 'deadline', 'token')
      end
    else
      startLost = 1
    end
    i = i + 3
  elseif tag == 'i' then
    redis.call('HINCRBY', KEYS[10], ARGV[i+1], ARGV[i+2])
    i = i + 3
  elseif tag == 'm' then
    local cur = redis.call('HGET', KEYS[10], ARGV[i+1])
    if not cur or tonumber(cur) < tonumber(ARGV[i+2]) then redis.call('HSET', KEYS[10], ARGV[i+1], ARGV[i+2]) end
    i = i + 3
  elseif tag == 'b' then
    redis.call('HDEL', KEYS[9], worker)
    bye = true
    i = i + 1
  else
    return redis.error_reply('unknown op ' .. tostring(tag))
  end
end
if startPos > 0 then
  local y = tonumber(redis.call('HGET', KEYS[7], 'yielded') or '0')
  if startPos > y then redis.call('HSET', KEYS[7], 'yielded', startPos) end
end
if #adds > 0 then
  local base = redis.call('HINCRBY', KEYS[6], 'seq', #adds) - #adds
  local zs, hs = {}, {}
  for j, at in ipairs(adds) do
    local seq = base + j
    if not fifo then seq = 4503599627370495 - seq end
    local m = string.format('%013x%013x', 2251799813685247 - tonumber(ARGV[at+2]), seq)
    zs[#zs+1] = 0
    zs[#zs+1] = m
    hs[#hs+1] = m
    hs[#hs+1] = ARGV[at+4]
  end
  each('ZADD', KEYS[2], zs, 2)
  each('HSET', KEYS[3], hs, 2)
end
if #acks > 0 then
  each('ZREM', KEYS[4], acks, 1)
  each('HDEL', KEYS[5], acks, 1)
  each('HDEL', KEYS[3], acks, 1)
end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[9], worker, ARGV[5]) end
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1000)
for _, m in ipairs(expired) do
  redis.call('ZREM', KEYS[4], m)
  redis.call('HDEL', KEYS[5], m)
  redis.call('ZADD', KEYS[2], 0, m)
  recovered = recovered + 1
end
local out = {}
if n > 0 then
  local popped = redis.call('ZPOPMIN', KEYS[2], n)
  local k = #popped / 2
  if k > 0 then
    local base = redis.call('HINCRBY', KEYS[6], 'lease', k) - k
    local zs, hs, ms = {}, {}, {}
    for j = 1, k do
      local m = popped[2*j - 1]
      local tok = worker .. '#' .. string.format('%d', base + j)
      zs[#zs+1] = deadline
      zs[#zs+1] = m
      hs[#hs+1] = m
      hs[#hs+1] = tok
      ms[j] = m
    end
    each('ZADD', KEYS[4], zs, 2)
    each('HSET', KEYS[5], hs, 2)
    for j = 1, k, 2000 do
      local recs = redis.call('HMGET', KEYS[3], unpack(ms, j, math.min(j + 1999, k)))
      for r = 1, #recs do
        local at = j + r - 1
        out[#out+1] = ms[at]
        out[#out+1] = hs[2*at]
        out[#out+1] = recs[r] or ''
      end
    end
  end
end
local pending = redis.call('ZCARD', KEYS[2])
local leased = redis.call('ZCARD', KEYS[4])
local finished = redis.call('EXISTS', KEYS[8])
if finished == 0 and pending == 0 and leased == 0 and redis.call('HGET', KEYS[7], 'done') == '1' then
  redis.call('SET', KEYS[8], now)
  finished = 1
end
local totals = {}
if ARGV[6] == '1' then totals = redis.call('HGETALL', KEYS[10]) end
local reply = {added, filtered, acked, stale, recovered, pending, leased, finished, startLost, lost, out, totals, fencedStart, fenced}
if bye then
  redis.call('HDEL', KEYS[11], worker)
else
  redis.call('HSET', KEYS[11], worker, ARGV[7] .. '\n' .. cmsgpack.pack(reply))
end
return reply
`)

// startScript takes the crawl's start lease. ARGV: worker, lease ms. Returns {state,
// yielded, previous owner, token}: state 'done' (start() has run), 'held' (another worker's
// lease is live; previous owner is its id) or 'mine' (previous owner: a worker whose lease
// expired, or ”; token: this lease's, <worker>#<epoch>, which the start requests and the
// renewals carry: those of an earlier owner are refused).
var startScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 'done', 'owner', 'deadline', 'yielded')
local yielded = tonumber(h[4] or '0')
if h[1] == '1' then return {'done', yielded, '', ''} end
if h[2] and h[2] ~= ARGV[1] and tonumber(h[3] or '0') > now then return {'held', yielded, h[2], ''} end
local tok = ARGV[1] .. '#' .. redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'deadline', now + tonumber(ARGV[2]), 'token', tok)
return {'mine', yielded, h[2] or '', tok}
`)
