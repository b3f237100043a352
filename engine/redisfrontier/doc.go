// Package redisfrontier is a crawl frontier in Redis that many processes (workers) share:
// an engine.SharedScheduler whose requests, fingerprints, leases, start() progress and
// stats belong to the crawl, not to one process.
//
// # Design
//
// The engine calls Enqueue, Next, Done and Len on its own goroutine and must never wait on
// the network, so none of them does: Enqueue and Done append to a local outbox, and Next
// takes from a local buffer of requests already leased (see Slots). One background goroutine per
// worker does all the talking to Redis, one round trip at a time, each a single EVALSHA of
// one Lua script (syncScript) that atomically
//
//  1. applies the outbox in order: adds requests (through the seen-set unless dontFilter),
//     acknowledges leases (Done), records how many start requests were yielded, ends the
//     start lease, adds stat deltas;
//  2. renews this worker's leases (every LeaseTimeout/3, with its heartbeat), adds its
//     stats to the crawl's and reads the crawl's totals (every second);
//  3. returns expired leases of any worker to their slots' queues (counted by the worker
//     that runs it in frontier/leases_recovered);
//  4. leases up to n pending requests that their download slots can start soon, highest
//     priority first (see Slots), when the engine has room (n: its free slots, plus
//     Options.Prefetch ready ones);
//  5. reports pending and leased counts, and marks the crawl finished when nothing is
//     pending or leased and start() has run.
//
// Because one script does it all, the outbox's order is the order Redis sees: a request's
// children are in pending before its lease is acknowledged, so "nothing pending or leased"
// means no worker is in a callback that could still produce requests (a worker holds the
// lease of a request until its callback has returned and its items have left the
// pipelines). A worker in start() holds the start lease, which keeps the crawl open too.
// Redis's clock (TIME) dates the leases, so the workers' clocks do not matter.
//
// Round trips per request: Enqueue, Next and Done ride on shared round trips, and the
// background goroutine batches whatever the engine did during the previous one; new
// requests, acknowledgements and releases of slot holds wait up to gatherOps (10 ms) for
// more, unless the engine is short of requests (the buffer empty or below half of
// Prefetch, with a quarter of Capacity idle, or one for a Capacity under 8), the worker
// closes, or a heartbeat is due. The script handles a round trip's adds,
// acknowledgements and leases with a few multi-member commands (ZADD, HSET, HMGET, ZREM,
// HDEL) per slot touched, one SADD per new request, and about five commands per
// candidate slot when it leases (its queue's heads, its slot:<key> and holds:<key>). With
// a busy worker that is well under one round trip per request; on one host a worker's
// leases are bounded by the host's concurrency, not by Capacity and Prefetch, so it
// leases again about once per CONCURRENT_REQUESTS_PER_DOMAIN downloads, and workers that
// share a host's room wake each other for their turns. BenchmarkFleet (one host, 50 ms
// pages, CONCURRENT_REQUESTS_PER_DOMAIN 16 per worker; one run each on a shared 2-core
// machine, the shared politeness's included), 1/2/4 workers, before per-slot leasing and
// after: 0.44/0.49/0.55 round trips per page, then 0.36/0.58/0.95; 9.2/10.0/10.5 Redis
// commands per page, then 11.5/16.3/23.0; Redis CPU 78/69/66 µs per page, then
// 120/132/148; pages/s 0.91/0.87/0.89× what they were (the memory scheduler's 0.96×).
// BenchmarkCrawl (one worker, CONCURRENT_REQUESTS_PER_DOMAIN 8, a fast local site): 0.12
// round trips per page, then 0.28; pages/s 0.59× the memory scheduler's, then 0.34× in
// the same kind of run and 0.51–0.84× in three more (the machine's noise).
// A worker with a single request at a time needs about 1.6 (its add, then its lease with
// the acknowledgement of the one before), plus, for all its leases at once, a renewal
// every LeaseTimeout/3 and a stats push every second. The script keeps each worker's last
// reply (trips), so a round trip sent again after a lost reply is not applied twice.
//
// # Keys
//
// Every key of a crawl starts with jscrawl:<crawl-id>: (no hash tags: one Redis, not a
// cluster).
//
//	seen      SET   16-byte binary fingerprints (engine/frontier.Fingerprint)
//	pending:<slot>  ZSET  the requests queued for download slot <slot> (engine.SlotKey,
//	                computed by the worker that enqueues): members, every score 0, so
//	                they sort by member: 13 hex digits of 2^51-1-priority (higher
//	                priority first), 13 of the sequence number (FIFO) or of 2^52-1
//	                minus it (LIFO), then the slot key
//	slots     ZSET  slot key → when it can next start a leased request (ms, Redis's
//	                clock): the slots with queued requests
//	req       HASH  member → the request record (engine/frontier.EncodeRequest)
//	leased    ZSET  member → lease deadline (ms, Redis's clock)
//	lease     HASH  member → lease token <worker>#<n>: a Done or renewal of a lease that
//	                expired and went to another worker does nothing
//	meta      HASH  seq, lease: counters; pending: requests queued in all slots; layout
//	                2 (the per-slot queues)
//	start     HASH  owner, deadline, token <worker>#<epoch>, epoch (the start lease),
//	                yielded (start requests recorded, by position in start()'s
//	                sequence), done
//	finished  STRING  when the crawl was found over (Redis's clock, ms)
//	workers   HASH  worker id → WorkerInfo JSON (heartbeat every LeaseTimeout/3)
//	hungry    HASH  worker id → <since>,<next> (ms): a worker waiting for requests since
//	                <since>, and when its next round trip is due
//	stats     HASH  Scrapy stat key → crawl-wide integer (the workers' deltas summed,
//	                maxima as maxima)
//	trips     HASH  worker id → its last round trip's id and reply (removed at Close)
//	created   STRING when the first worker opened the crawl; a worker that finds it gone at
//	                a heartbeat fails with ErrStateLost (Redis lost its data, or a clear)
//	slot:<key>, holds:<key>           a download slot shared by the workers (politeness.go);
//	                holds:<key> also holds the lease token of each leased request of the
//	                slot whose download has not started
//	robots:<origin>, robotslock:<origin>  an origin's robots.txt, fetched once (robots.go)
//
// A queued request costs its member three times (pending:<slot>, req, and leased and lease
// while leased), so a long slot key makes every request of its slot dearer.
//
// # Slots
//
// Requests are queued per download slot, and a worker leases only requests that their
// slot can start soon, so that no worker holds a host's queue while the others idle and
// the shared slot gate (politeness.go) and the leases agree on which requests are ready.
// The slots whose score in slots has come (within leaseAhead, 50 ms) are the candidates
// of a lease; for each, the gate's slot:<key> (last start reserved, the pause, and the
// concurrency and delay that the last acquisition used; Options.SlotConcurrency and
// SlotDelay before any) and holds:<key> give its next start and its free concurrency.
// The script picks requests one at a time, the best head among the candidates that can
// start one within leaseAhead (highest priority, then the slot that waited longest), each
// pick taking one of the slot's free concurrency and moving its next start on by its
// delay: no more of a slot than its free concurrency and, with a delay, about one per
// delay. A leased request's token goes into holds:<key> at the start it reserves, and the
// slot's last moves to that start, so the gate counts it from the lease on and spaces
// other starts from it; the slot is scored again by its next start (fullRecheck, 250 ms,
// when its concurrency is in use; a release of any of its holds looks at it at once). A
// paused slot (PauseSlot, a Retry-After) is scored by the pause's end and blocks no other.
// Priorities hold across the candidates of a round trip (up to 2n+8 slots, the ones
// ready longest); a higher-priority request of a slot beyond them waits for a later
// round trip.
//
// The download of a leased request takes the hold a lease reserved (AcquireSlot; any
// lease of its slot that Next handed out, as the gate does not know the request): as it
// is, without a script call, in a slot without a delay (granted within reuseFresh, the
// slot's concurrency known), its release riding on a round trip; otherwise one script
// call moves the hold to the download at the start reserved (a late download starts now,
// or after a start reserved since). A lease that ends without a download (Done, a
// release, an expiry) drops a hold with it (politeness.doneLease).
//
// The other keys of the shared gate are as they were, and a crawl keeps them: the slot
// script records each acquisition's concurrency and delay in slot:<key> for the leases,
// and a release of a hold scores the slot in slots now.
//
// Workers waiting for requests are served in turn: a worker with room to work that gets
// less than it asked for records since when it waits and when it comes back (hungry; at
// the end of that queue when it got some), and the picks of a round trip go round the
// waiting workers and the one leasing, one each, longest waiting first: the worker takes
// its own and wakes the others that have picks left to them (PUBLISH wake:<worker>, which
// each worker subscribes to), as a worker that frees room in a slot with queued requests
// and leases nothing wakes as many waiting workers. A worker that gets nothing waits
// until the earliest slot's score (at most maxPoll, 250 ms) or a wake, instead of polling;
// one deferLate (1 s) late for the round trip it announced is no longer waited for. Three
// workers sharing one host with a 0.5 s delay fetch 8 pages of 24 each
// (TestFairShareDelay); three sharing a host's concurrency without a delay 199 to 202 of
// 600 pages each (TestFairShareSaturated).
//
// Locally, Next hands out the buffered leases through a frontier.SlotIndex over their
// slots: only those of slots that UseSlots' Readiness says can start a download, which
// it reserves (engine.SlotScheduler).
//
// A crawl that an older jscrawl left with requests in its single pending ZSET is refused
// (ErrOldLayout, which says to clear it with jscrawl frontier clear): its members carry no
// slot key, and the records that do cannot be decoded in Lua; Inspect and Clear still
// see its keys.
//
// # start()
//
// WrapStart lets one worker at a time run start(): the one that holds the start lease
// (renewed with the other leases). The others poll it (startScript, every LeaseTimeout/4,
// at most a second) until start() is done, so none ends the crawl meanwhile, or until its
// holder's lease expires, and then one of them takes over: it
// runs start() again and skips the outputs at the positions already recorded (yielded),
// so dontFilter start requests are not repeated and a start() that yields one URL twice
// still gets both. A position is recorded with the request that holds it, in the same
// script; items (and requests a filter dropped) at positions after the last recorded
// request are yielded again by a successor.
//
// # Fencing
//
// A worker can outlive its leases without dying: stopped (SIGSTOP, a long GC pause, a
// frozen VM) or cut off from Redis for longer than LeaseTimeout, it goes on where it was
// when it comes back. Every write it makes for a lease carries the lease's token, and the
// script compares it with the token Redis holds, in the same atomic call that applies
// the write: a start request carries the start lease's token (a new one per take-over),
// a request a callback yielded (EnqueueFrom) the token of its parent's lease, an
// acknowledgement, release or renewal the token of its own lease. A write whose token no
// longer holds is refused (frontier/requests_fenced, frontier/leases_lost): a start
// request refused does not raise yielded, so the start lease's new holder yields that
// position itself, once. The fenced worker stops start() when Redis refuses its start
// lease (frontier/start_fenced), drops a leased request from its buffer when a renewal is
// refused, and, from its own clock, treats a lease it has not renewed for LeaseTimeout as
// lost (Holds: the engine neither parses its response nor exports its items, and Done
// releases it, the token checked, instead of acknowledging it). What it wrote before it
// knew stays: items in its feeds and requests Redis accepted while the lease was live; a
// request processed again by the lease's new holder may then give its items, and its
// dontFilter children, twice (at least once, as for a killed worker).
//
// # Duplicates
//
// Enqueue cannot ask Redis, so it drops only the fingerprints this worker sent lately
// (returning false as any scheduler does for a duplicate); the seen-set in Redis drops the
// rest, counted in dupefilter/filtered when the script reports them, after Enqueue has
// returned true.
//
// # Failures
//
// A Redis error in the background (unreachable, restarting, loading) stops the leasing
// and is retried with backoff, the outbox kept, for RetryTimeout; after that the
// frontier fails for good (Err, Options.OnFatal: the crawl should close, and the worker
// exit non-zero; starting workers again continues the crawl). A round trip whose reply
// was lost is sent again as it was, with its trip id: the script returns the reply it
// saved instead of applying it twice, so nothing is lost or doubled, not even a
// dontFilter request, a lease or a stat delta. (The reply is saved by the same script,
// so a Redis that lost the round trip's effects, restarting from an older append-only
// file, lost the saved reply too, and applies the round trip again.) Leases a worker
// held while it could not renew them may have expired meanwhile and gone to another
// worker: such requests are processed twice (at least once; frontier/leases_lost). Open
// fails at once, without retrying, for a malformed URL, a wrong password or a database
// that does not exist; an unreachable server is retried for RetryTimeout.
package redisfrontier
