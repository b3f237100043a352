package redisfrontier

import (
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The keys of a crawl, in the order the scripts take them (KEYS[1] ... KEYS[12]).
const (
	keySeen     = "seen"     // SET of 16-byte fingerprints
	keySlots    = "slots"    // ZSET slot key → when it can next start a leased request (ms)
	keyReq      = "req"      // HASH member → request record (engine/frontier's codec)
	keyLeased   = "leased"   // ZSET member → lease deadline (ms, the server's clock)
	keyLease    = "lease"    // HASH member → lease token "<worker>#<n>"
	keyMeta     = "meta"     // HASH seq, lease (counters), pending (requests queued), layout
	keyStart    = "start"    // HASH owner, deadline, token, epoch, yielded, done
	keyFinished = "finished" // STRING: the server time (ms) the crawl was found over
	keyWorkers  = "workers"  // HASH worker id → JSON (WorkerInfo)
	keyStats    = "stats"    // HASH Scrapy stat key → crawl-wide integer
	keyTrips    = "trips"    // HASH worker id → its last round trip's id and reply
	keyHungry   = "hungry"   // HASH worker id → "<since>,<next poll>" (ms): workers waiting for requests
	keyCreated  = "created"  // STRING: when the first worker opened the crawl (its marker)
	keyPending  = "pending:" // + slot key: ZSET, every score 0: members order by priority, then sequence
	// keyOldPending is the single queue of the layout before per-slot queues (refused).
	keyOldPending = "pending"
)

var syncKeys = []string{keySeen, keySlots, keyReq, keyLeased, keyLease, keyMeta, keyStart, keyFinished, keyWorkers, keyStats, keyTrips, keyHungry}

// Leasing per slot (syncScript).
const (
	// leaseAhead is how far ahead of its reserved start a request may be leased.
	leaseAhead = 50 * time.Millisecond
	// fullRecheck is how soon a slot whose concurrency is in use is looked at again, at
	// the latest: a release of one of its holds looks at it at once.
	fullRecheck = 250 * time.Millisecond
	// deferWait is how long a worker that left requests to workers waiting longer than it
	// waits before it asks again; deferLate is how late such a worker may be for the
	// round trip it announced before it is no longer waited for (it is gone, or stopped).
	deferWait = 20 * time.Millisecond
	deferLate = time.Second
	// maxPoll is the longest a worker waiting for requests waits between round trips.
	maxPoll = 250 * time.Millisecond
)

// syncScript is the one script a worker's background goroutine runs per round trip. It
// applies the worker's outbox in order, returns expired leases to their slots' queues,
// leases up to n requests among the slots that can start them soon, renews the worker's
// leases, and reports the crawl's state, atomically.
//
// ARGV: worker, lease ms, fifo (1/0), n to lease, heartbeat JSON (” for none), totals
// wanted (1/0), trip id, key prefix, default slot concurrency, default slot delay (µs),
// the worker's idle poll (ms), registered in hungry (1/0), idle (1/0: the worker has
// room to work, not only for Prefetch), then ops, each a tag and its arguments:
//
//	a fp prio pos record fm ft slot
//	                      add a request to slot's queue: fp '' (dontFilter) skips the
//	                      seen-set; pos > 0 is its position in start()'s sequence (start's
//	                      yielded count). A request added to a finished crawl (scheduled
//	                      outside a callback, by a spider_idle handler) makes it unfinished
//	                      again. The fence: a start request (pos > 0) is refused unless ft
//	                      is the start lease's token; one yielded by the leased request fm
//	                      unless ft still holds fm's lease (fm '': no fence)
//	k member token hold   acknowledge (Done) a lease, if the token still holds it, and drop
//	                      the lease hold hold of its slot ('': none)
//	r member token hold   release a lease back to its slot's queue (a worker that stops),
//	                      dropping hold as k does
//	h member token        renew a lease and its slot hold (lost if the token no longer holds it)
//	u slot token at       release the slot hold token of a download (at > 0, µs: the
//	                      slot's AutoThrottle delay)
//	s held token          renew the start lease (held 1) or end it: 'd' done, 'x' released;
//	                      nothing if token is no longer the start lease's
//	i key delta           add delta to a crawl-wide stat
//	m key value           raise a crawl-wide stat to value (a maximum)
//	b                     the worker leaves (its heartbeat is removed)
//
// A member is 13 hex digits of 2^51-1-priority, 13 of the sequence number (or of 2^52-1
// minus it, LIFO), then the slot key. Leasing: the slots whose score has come (within
// leaseAhead) are the candidates; for each, its slot:<key> and holds:<key> (the shared
// slot gate's keys, politeness.go) give its next start (the later of now, last + delay and
// the pause) and its free concurrency (conc less its holds). The script picks requests
// one at a time, the best head among the candidates that can start one within
// leaseAhead (highest priority, then the slot that has waited longest, then the
// sequence), each pick taking one of its slot's free concurrency and moving its next
// start on by the slot's delay. A leased request's lease token becomes a hold in
// holds:<key> reserving that start, so the gate counts it from the lease on; the slot's
// last becomes the last start reserved; the slot is scored again by its next start (or
// fullRecheck when its concurrency is used up, or it leaves slots when its queue is
// empty). Fairness: workers with room to work waiting for requests (hungry) are served
// in turn (one that has only room for Prefetch does not wait in that queue): the picks
// of a round trip go round the waiting workers (those not deferLate late for the round
// trip they announced) and this one, one each, from the one that has waited longest;
// this worker takes its own and wakes the others that have picks left to them (PUBLISH
// wake:<worker>); one that frees room in a slot with queued requests (a lease's hold
// dropped) and leases nothing wakes as many of the waiting workers.
//
// Returns {added, filtered, acked, stale, recovered, pending, leased, finished, startLost,
// lost members, leased 5-tuples (member token record slot wait-µs), totals (key value
// ...), start requests fenced, other requests fenced, wait hint (ms, -1: none), registered
// in hungry, slots with queued requests and how many can start one now (with totals)}.
var syncScript = redis.NewScript(`
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local worker, leaseMs, fifo, n = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1', tonumber(ARGV[4])
local P, defConc, defDelay, idleMs, registered = ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), ARGV[12] == '1'
local idle = ARGV[13] == '1'
local aheadUs, fullMs, deferMs, lateMs, maxPollMs = ` + usArg(leaseAhead) + `, ` + msArg(fullRecheck) + `, ` + msArg(deferWait) + `, ` + msArg(deferLate) + `, ` + msArg(maxPoll) + `
local deadline = now + leaseMs
local leaseUs = leaseMs * 1000
local keepMs = 600000
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
local pendDelta = 0
-- Several members at once per command, in chunks (Lua's unpack has a limit).
local function each(cmd, key, list, per, opt)
  local step = 2000 * per
  for j = 1, #list, step do
    if opt then
      redis.call(cmd, key, opt, unpack(list, j, math.min(j + step - 1, #list)))
    else
      redis.call(cmd, key, unpack(list, j, math.min(j + step - 1, #list)))
    end
  end
end
local function slotOf(m) return string.sub(m, 27) end
-- Per slot, in the order first met: lease holds to drop, members back to the queue.
local holdSlots, holdToks = {}, {}
local function dropHold(s, tok)
  if not holdToks[s] then holdToks[s] = {}; holdSlots[#holdSlots+1] = s end
  local l = holdToks[s]
  l[#l+1] = tok
end
local backSlots, backMembers = {}, {}
local function requeue(m)
  local s = slotOf(m)
  if not backMembers[s] then backMembers[s] = {}; backSlots[#backSlots+1] = s end
  local l = backMembers[s]
  l[#l+1] = 0
  l[#l+1] = m
  pendDelta = pendDelta + 1
end
local adds, acks = {}, {} -- ARGV index of each added request; acknowledged members
local i = 14
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
    i = i + 8
  elseif tag == 'k' or tag == 'r' or tag == 'h' then
    local m, tok = ARGV[i+1], ARGV[i+2]
    if tag ~= 'h' then
      if ARGV[i+3] ~= '' then dropHold(slotOf(m), ARGV[i+3]) end
      i = i + 1
    end
    if redis.call('HGET', KEYS[5], m) == tok then
      if tag == 'h' then
        redis.call('ZADD', KEYS[4], 'XX', deadline, m)
        redis.call('ZADD', P .. 'holds:' .. slotOf(m), 'XX', 'GT', nowUs + leaseUs, tok)
      else
        if tag == 'k' then
          acks[#acks+1] = m
          acked = acked + 1
        else
          redis.call('ZREM', KEYS[4], m)
          redis.call('HDEL', KEYS[5], m)
          requeue(m)
        end
      end
    elseif tag == 'h' then
      lost[#lost+1] = m
    elseif tag == 'k' then
      stale = stale + 1
    end
    i = i + 3
  elseif tag == 'u' then
    dropHold(ARGV[i+1], ARGV[i+2])
    if tonumber(ARGV[i+3]) > 0 then redis.call('HSET', P .. 'slot:' .. ARGV[i+1], 'at', ARGV[i+3]) end
    i = i + 4
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
    if registered then redis.call('HDEL', KEYS[12], worker) end
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
  local hs, order, bySlot = {}, {}, {}
  for j, at in ipairs(adds) do
    local seq = base + j
    if not fifo then seq = 4503599627370495 - seq end
    local s = ARGV[at+7]
    local m = string.format('%013x%013x', 2251799813685247 - tonumber(ARGV[at+2]), seq) .. s
    if not bySlot[s] then bySlot[s] = {}; order[#order+1] = s end
    local l = bySlot[s]
    l[#l+1] = 0
    l[#l+1] = m
    hs[#hs+1] = m
    hs[#hs+1] = ARGV[at+4]
  end
  local sl = {}
  for _, s in ipairs(order) do
    each('ZADD', P .. 'pending:' .. s, bySlot[s], 2)
    sl[#sl+1] = now
    sl[#sl+1] = s
  end
  each('ZADD', KEYS[2], sl, 2, 'NX')
  each('HSET', KEYS[3], hs, 2)
  pendDelta = pendDelta + #adds
end
if #acks > 0 then
  each('ZREM', KEYS[4], acks, 1)
  each('HDEL', KEYS[5], acks, 1)
  each('HDEL', KEYS[3], acks, 1)
end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[9], worker, ARGV[5]) end
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1000)
for _, m in ipairs(expired) do
  local tok = redis.call('HGET', KEYS[5], m)
  if tok then dropHold(slotOf(m), tok) end
  redis.call('ZREM', KEYS[4], m)
  redis.call('HDEL', KEYS[5], m)
  requeue(m)
  recovered = recovered + 1
end
for _, s in ipairs(backSlots) do
  each('ZADD', P .. 'pending:' .. s, backMembers[s], 2)
  redis.call('ZADD', KEYS[2], 'NX', now, s)
end
-- A slot whose lease holds were dropped has room again: look at it now.
local freedUnits = 0
for _, s in ipairs(holdSlots) do
  local freed = 0
  local l = holdToks[s]
  for j = 1, #l, 2000 do
    freed = freed + redis.call('ZREM', P .. 'holds:' .. s, unpack(l, j, math.min(j + 1999, #l)))
  end
  if freed > 0 and redis.call('ZSCORE', KEYS[2], s) then
    redis.call('ZADD', KEYS[2], 'XX', 'LT', now, s)
    freedUnits = freedUnits + freed
  end
end
-- The workers waiting for requests with room to work, but this one, longest first
-- (alive: not deferLate late for the round trip they announced).
local function waiting()
  local hv = redis.call('HGETALL', KEYS[12])
  local mine, others = nil, {}
  for j = 1, #hv, 2 do
    local v = hv[j+1]
    local c = string.find(v, ',', 1, true)
    local since, nx = tonumber(string.sub(v, 1, c - 1)), tonumber(string.sub(v, c + 1))
    if hv[j] == worker then
      mine = since
    elseif nx < now - keepMs then
      redis.call('HDEL', KEYS[12], hv[j]) -- a worker gone without leaving
    elseif nx >= now - lateMs then
      others[#others+1] = {hv[j], since}
    end
  end
  table.sort(others, function(a, b) return a[2] < b[2] or a[2] == b[2] and a[1] < b[1] end)
  return mine, others
end
local function wake(list, k)
  for j = 1, math.min(k, #list) do redis.call('PUBLISH', P .. 'wake:' .. list[j][1], '1') end
end
local out, hint, got, reg = {}, -1, 0, 0
if n > 0 then
  -- The waiting workers in turn, this one among them: the picks go round them, one each,
  -- from the one that has waited longest; this worker takes its own.
  local mine, others = waiting()
  local my = mine or now
  local turn = {}
  local at = #others + 1
  for j, e in ipairs(others) do
    if at > #others and not (e[2] < my or (e[2] == my and e[1] < worker)) then
      at = j
    end
  end
  for j, e in ipairs(others) do
    if j == at then turn[#turn+1] = false end
    turn[#turn+1] = e
  end
  if at > #others then turn[#turn+1] = false end
  local woken = {}
  -- The candidate slots and their state.
  local horizonUs = nowUs + aheadUs
  local picks = math.min(n * #turn, 512)
  local cand = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', math.floor(horizonUs / 1000), 'WITHSCORES', 'LIMIT', 0, math.min(2 * picks + 8, 256))
  local cs = {}
  for j = 1, #cand, 2 do
    local s, score = cand[j], tonumber(cand[j+1])
    local pk, hk, zk = P .. 'pending:' .. s, P .. 'slot:' .. s, P .. 'holds:' .. s
    local v = redis.call('HMGET', hk, 'last', 'pause', 'delay', 'conc')
    redis.call('ZREMRANGEBYSCORE', zk, '-inf', nowUs)
    local free = tonumber(v[4] or defConc) - redis.call('ZCARD', zk)
    local delay = tonumber(v[3] or defDelay)
    local start = nowUs
    if v[1] then start = math.max(start, tonumber(v[1]) + delay) end
    if v[2] then start = math.max(start, tonumber(v[2])) end
    if free <= 0 then
      redis.call('ZADD', KEYS[2], now + fullMs, s)
    elseif start > horizonUs then
      redis.call('ZADD', KEYS[2], math.ceil(start / 1000), s)
    else
      -- As many of its queue's heads as it can start within leaseAhead.
      local can = math.min(free, picks)
      if delay > 0 then can = math.min(can, math.floor((horizonUs - start) / delay) + 1) end
      local heads = redis.call('ZRANGE', pk, 0, can - 1)
      if #heads == 0 then
        redis.call('ZREM', KEYS[2], s)
      else
        cs[#cs+1] = {s = s, pk = pk, hk = hk, zk = zk, score = score, heads = heads, off = 1, free = free,
          free0 = free, start = start, delay = delay, last = nil, took = {}, starts = {}}
      end
    end
  end
  -- Pick one at a time: highest priority, then the slot waiting longest, then sequence.
  local skipped = 0
  for step = 1, picks do
    local best = nil
    for _, c in ipairs(cs) do
      local h = c.heads[c.off]
      if h then
        if not best then
          best = c
        else
          local bh = best.heads[best.off]
          local a, b = string.sub(h, 1, 13), string.sub(bh, 1, 13)
          if a < b or a == b and (c.score < best.score or c.score == best.score and h < bh) then best = c end
        end
      end
    end
    if not best then break end
    local who = turn[(step - 1) % #turn + 1]
    if not who then
      if got == n then break end
      best.took[#best.took+1] = best.heads[best.off]
      best.starts[#best.starts+1] = best.start
      best.last = best.start
      got = got + 1
    else
      skipped = skipped + 1
      woken[who[1]] = true
    end
    best.off = best.off + 1
    best.free = best.free - 1
    best.start = best.start + best.delay
  end
  if got > 0 then
    local base = redis.call('HINCRBY', KEYS[6], 'lease', got) - got
    local zs, hs, ms, toks = {}, {}, {}, {}
    local k = 0
    for _, c in ipairs(cs) do
      if #c.took > 0 then
        local hz = {}
        for j, m in ipairs(c.took) do
          k = k + 1
          local tok = worker .. '#' .. string.format('%d', base + k)
          zs[#zs+1] = deadline
          zs[#zs+1] = m
          hs[#hs+1] = m
          hs[#hs+1] = tok
          ms[k] = m
          toks[k] = {tok, c.s, c.starts[j] - nowUs}
          hz[#hz+1] = c.starts[j] + leaseUs
          hz[#hz+1] = tok
        end
        each('ZREM', c.pk, c.took, 1)
        each('ZADD', c.zk, hz, 2)
        redis.call('PEXPIRE', c.zk, leaseMs + keepMs)
        if c.delay > 0 then
          redis.call('HSET', c.hk, 'last', c.last)
          redis.call('PEXPIRE', c.hk, leaseMs + keepMs)
        end
        if redis.call('EXISTS', c.pk) == 0 then
          redis.call('ZREM', KEYS[2], c.s)
        elseif c.free0 <= #c.took then
          redis.call('ZADD', KEYS[2], now + fullMs, c.s)
        else
          -- Picks left to other workers are theirs to take: the slot's room is as they
          -- left it.
          redis.call('ZADD', KEYS[2], math.max(now, math.ceil((c.last + c.delay) / 1000)), c.s)
        end
      end
    end
    each('ZADD', KEYS[4], zs, 2)
    each('HSET', KEYS[5], hs, 2)
    for j = 1, k, 2000 do
      local recs = redis.call('HMGET', KEYS[3], unpack(ms, j, math.min(j + 1999, k)))
      for r = 1, #recs do
        local at = j + r - 1
        out[#out+1] = ms[at]
        out[#out+1] = toks[at][1]
        out[#out+1] = recs[r] or ''
        out[#out+1] = toks[at][2]
        out[#out+1] = toks[at][3]
      end
    end
    pendDelta = pendDelta - got
  end
  -- The picks left to the other waiting workers: they come at once.
  for _, e in ipairs(others) do
    if woken[e[1]] then redis.call('PUBLISH', P .. 'wake:' .. e[1], '1') end
  end
  if got < n then
    if skipped > 0 then
      hint = deferMs
    else
      local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
      if #first > 0 then hint = math.max(1, tonumber(first[2]) - now) end
    end
  end
  if got < n and idle then
    -- Still hungry with room to work: in the queue of waiting workers, at its end when
    -- it got some.
    local since, nx = my, now + idleMs
    if got > 0 then since = now end
    if hint >= 0 then nx = now + math.min(hint, maxPollMs) end
    redis.call('HSET', KEYS[12], worker, since .. ',' .. nx)
    reg = 1
  elseif registered then
    redis.call('HDEL', KEYS[12], worker)
  end
else
  -- Not leasing now, but with room to work it keeps its place among the waiting.
  if registered and not bye and not idle then
    redis.call('HDEL', KEYS[12], worker)
  elseif registered and not bye then
    reg = 1
  end
  -- Room made in slots with queued requests, which this worker does not lease: for the
  -- workers waiting longest.
  if freedUnits > 0 then
    local _, others = waiting()
    wake(others, freedUnits)
  end
end
local pending
if pendDelta ~= 0 then
  pending = redis.call('HINCRBY', KEYS[6], 'pending', pendDelta)
else
  pending = tonumber(redis.call('HGET', KEYS[6], 'pending') or '0')
end
local leased = redis.call('ZCARD', KEYS[4])
local finished = redis.call('EXISTS', KEYS[8])
if finished == 0 and pending == 0 and leased == 0 and redis.call('HGET', KEYS[7], 'done') == '1' then
  redis.call('SET', KEYS[8], now)
  finished = 1
end
local totals, nslots, nready = {}, 0, 0
if ARGV[6] == '1' then
  totals = redis.call('HGETALL', KEYS[10])
  nslots = redis.call('ZCARD', KEYS[2])
  nready = redis.call('ZCOUNT', KEYS[2], '-inf', now)
end
local reply = {added, filtered, acked, stale, recovered, pending, leased, finished, startLost, lost, out, totals, fencedStart, fenced, hint, reg, nslots, nready}
if bye then
  redis.call('HDEL', KEYS[11], worker)
else
  redis.call('HSET', KEYS[11], worker, ARGV[7] .. '\n' .. cmsgpack.pack(reply))
end
return reply
`)

// usArg and msArg write a duration into a script as an integer of µs or ms.
func usArg(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) }
func msArg(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// layoutScript checks that the crawl's keys have the per-slot layout, and marks a new
// crawl's. KEYS: meta, the old pending, req. Returns 'ok', or 'old' for a crawl whose
// requests are in the old single pending queue.
var layoutScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'layout') == '2' then return 'ok' end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('HLEN', KEYS[3]) > 0 then return 'old' end
redis.call('HSET', KEYS[1], 'layout', '2')
return 'ok'
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
