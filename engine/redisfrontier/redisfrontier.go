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

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// Options configure Open.
type Options struct {
	// URL is the Redis server: redis://[:PASSWORD@]HOST:PORT/DB, or rediss:// for TLS
	// (FRONTIER).
	URL string
	// CrawlID namespaces the crawl's keys (CRAWL_ID, default the spider's name).
	CrawlID string
	// LeaseTimeout is how long a lease lasts unless renewed (FRONTIER_LEASE_TIMEOUT); 0
	// means 60 s. Leases are renewed every third of it.
	LeaseTimeout time.Duration
	// RetryTimeout is how long Redis may stay unreachable before the frontier fails
	// (FRONTIER_RETRY_TIMEOUT); 0 means 5 minutes.
	RetryTimeout time.Duration
	// Capacity is how many requests the worker can work on at once (CONCURRENT_REQUESTS):
	// it leases no more than that plus Prefetch (and no more of a slot than the slot can
	// start soon), so idle workers get the rest. 0 means 16.
	Capacity int
	// Prefetch is how many leased requests the worker keeps ready beyond Capacity, so that
	// a free slot does not wait for a round trip; it leases again when half of them are
	// taken. 0 means none: a request is leased when the engine has room for it.
	Prefetch int
	// FIFO orders requests of one priority first in, first out; false is LIFO
	// (SCHEDULER_MEMORY_QUEUE).
	FIFO bool
	// SlotConcurrency and SlotDelay are the concurrency and delay of a download slot that
	// the shared slot gate has not seen a download of yet (CONCURRENT_REQUESTS_PER_DOMAIN,
	// DOWNLOAD_DELAY): leasing requests of such a slot assumes them. Once a download of
	// the slot acquired it, the slot's own (DOWNLOAD_SLOTS, a Crawl-delay, AutoThrottle)
	// hold. 0 means 8 and none.
	SlotConcurrency int
	SlotDelay       time.Duration
	// WorkerID names this worker in the crawl; empty means host-pid-random.
	WorkerID string
	// Stats receives this worker's counters, and its integer stats are added to the
	// crawl's every heartbeat and at Close. Nil means a new engine.Stats.
	Stats *engine.Stats
	// Logger logs outages and take-overs; nil means slog.Default().
	Logger *slog.Logger
	// HoldAcks keeps the acknowledgements of Done requests until ReleaseAcks: a worker
	// whose feeds buffer items releases them once the items are written out (its feeds
	// flushed), so that a worker killed before that loses no item (the requests go to
	// other workers).
	HoldAcks bool
	// OnFatal is called once, from the background goroutine, when the frontier fails for
	// good (Redis unreachable for RetryTimeout): the crawl should close.
	OnFatal func(error)
}

// OptionsFromSettings returns the Options that settings give (FRONTIER, CRAWL_ID,
// FRONTIER_LEASE_TIMEOUT, FRONTIER_RETRY_TIMEOUT, CONCURRENT_REQUESTS,
// SCHEDULER_MEMORY_QUEUE); spider is the spider's name, the default crawl id. Prefetch is
// half of CONCURRENT_REQUESTS (at least 1): a worker holds at most 1.5× the requests it
// can work on, and a slot that frees up seldom waits for a round trip (BenchmarkCrawl, one
// run on a shared 2-core machine: 8.2k pages/s against 6.4k without prefetch, on a fast
// local site; BenchmarkFleet CPU-bound, one worker, medians of five runs twice: 0.84× and
// 0.74× the memory scheduler's pages/s with half, 0.65× and 0.59× with a quarter, and
// about 0.21 round trips per page instead of 0.25).
func OptionsFromSettings(s *types.Settings, spider string) Options {
	id := s.String(types.CrawlID)
	if id == "" {
		id = spider
	}
	return Options{
		URL:          s.String(types.Frontier),
		CrawlID:      id,
		LeaseTimeout: s.Duration(types.FrontierLeaseTimeout),
		RetryTimeout: s.Duration(types.FrontierRetryTimeout),
		Capacity:     s.Int(types.ConcurrentRequests),
		Prefetch:     max(1, s.Int(types.ConcurrentRequests)/2),
		FIFO:         strings.EqualFold(s.String(types.SchedulerMemoryQueue), "fifo"),

		SlotConcurrency: s.Int(types.ConcurrentRequestsPerDomain),
		SlotDelay:       s.Duration(types.DownloadDelay),
	}
}

// WorkerInfo is a worker's heartbeat, as the crawl's workers hash holds it.
type WorkerInfo struct {
	ID        string `json:"id"`
	Host      string `json:"host"`
	PID       int    `json:"pid"`
	Heartbeat string `json:"heartbeat"` // RFC 3339, the worker's clock
	InFlight  int    `json:"inFlight"`  // requests it holds leases of
	Start     bool   `json:"start"`     // it runs start()
}

// lease is a request this worker leased. Its fields but member, token and req are
// guarded by Frontier.mu.
type lease struct {
	member, token string
	slot          string    // its download slot (engine.SlotKey, as enqueued)
	granted       time.Time // when the round trip that leased it was sent
	req           *types.Request
	// valid is when the lease may have expired in Redis, at the earliest: the send time of
	// the round trip that leased or last renewed it, plus LeaseTimeout.
	valid time.Time
	// lost: Redis said another worker may hold it (a renewal refused), or Holds found
	// it past valid. Its work is no longer written, and Done releases it (token checked).
	lost bool
}

// op is one entry of the outbox: ARGV words of syncScript.
type op struct {
	args []any
	add  bool // an 'a' op: Len counts it
}

// Frontier is a worker's handle on a crawl's shared frontier: an engine.SharedScheduler.
// Enqueue, Next, Done, Len, StartDone and Settled are called from the engine goroutine
// only; the others are safe from any goroutine.
type Frontier struct {
	rdb    *redis.Client
	prefix string
	keys   []string
	opts   Options
	worker string
	host   string
	logger *slog.Logger
	stats  *engine.Stats

	// The engine goroutine's own: fingerprints sent lately (a duplicate found here is
	// dropped without asking Redis).
	hot, warm map[[16]byte]struct{}

	mu        sync.Mutex
	ops       []op
	adds      int    // 'a' ops in ops and in the round trip in flight
	sending   int    // ops in the round trip in flight
	buf       buffer // leased, not handed out yet
	held      map[*types.Request]*lease
	acks      []op // Done's acknowledgements held back (HoldAcks)
	hungry    bool // the engine found the buffer empty, or below half of Prefetch
	finished  bool
	startHeld bool
	startPos  map[*types.Request]int
	// The start lease: its token, the cancel of the start() running under it, and
	// whether another worker took it over (the fence refused this one's writes).
	startToken  string
	startCancel context.CancelFunc
	startFenced bool
	pushed      map[string]int64 // stats already added to the crawl's
	retry       *sent            // the round trip to send again (the loop's own)
	tripSeq     int64            // the last round trip's id (the loop's own)
	idle        time.Duration    // the loop's poll while it gets nothing (the loop's own)
	registered  bool             // in the crawl's hungry hash (the loop's own)
	totals      map[string]int64
	// The crawl's slots with queued requests, and how many of them can start one, as of
	// the last stats push.
	slotsQueued, slotsReady int
	down                    time.Time // since when Redis fails (zero: it works)
	err                     error
	closing                 bool

	kick     chan struct{}
	wake     chan struct{}
	loopDone chan struct{}
	// sub receives wake:<worker>: another worker left this one requests (syncScript).
	sub   *redis.PubSub
	woken <-chan *redis.Message
	fatal sync.Once

	politeness politeness   // the shared download slots (politeness.go)
	sessions   sessionShare // retired sessions being shared (sessions.go)

	// frozen is held by tests to stop the background goroutine between round trips, as
	// a stopped process (SIGSTOP) or a partition would (export_test.go).
	frozen sync.Mutex
}

const (
	defaultLease  = 60 * time.Second
	defaultRetry  = 5 * time.Minute
	maxOpsPerTrip = 4096 // ARGV words of ops per round trip, about
	// maxLeasePerTrip is how many requests a round trip leases at most.
	maxLeasePerTrip = 256
	// gatherOps is how long new requests and acknowledgements wait for others to share
	// their round trip, when nothing else calls for one.
	gatherOps   = 10 * time.Millisecond
	hotSize     = 1 << 16
	maxPriority = 1 << 50
)

// Open connects to the crawl's Redis and returns its frontier for this worker, with its
// background goroutine running. A malformed URL, a wrong password or a database that does
// not exist fail at once; an unreachable server is retried for RetryTimeout (or until ctx
// ends). Close it at the end.
func Open(ctx context.Context, opts Options) (*Frontier, error) {
	if opts.CrawlID == "" {
		return nil, errors.New("redis frontier: empty crawl id")
	}
	if opts.LeaseTimeout <= 0 {
		opts.LeaseTimeout = defaultLease
	}
	if opts.RetryTimeout <= 0 {
		opts.RetryTimeout = defaultRetry
	}
	if opts.Capacity <= 0 {
		opts.Capacity = 16
	}
	if opts.SlotConcurrency <= 0 {
		opts.SlotConcurrency = 8
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Stats == nil {
		opts.Stats = engine.NewStats()
	}
	ro, err := parseURL(opts.URL)
	if err != nil {
		return nil, err
	}
	ro.MaxRetries = -1 // the frontier retries itself, with its own backoff
	ro.DialTimeout = 5 * time.Second
	ro.ReadTimeout = 10 * time.Second
	ro.WriteTimeout = 10 * time.Second
	ro.PoolSize = 4
	ro.DisableIdentity = true // no CLIENT SETINFO: older servers reject it
	host, _ := os.Hostname()
	f := &Frontier{
		rdb:      redis.NewClient(ro),
		prefix:   "jscrawl:" + opts.CrawlID + ":",
		opts:     opts,
		worker:   opts.WorkerID,
		host:     host,
		logger:   opts.Logger,
		stats:    opts.Stats,
		held:     map[*types.Request]*lease{},
		startPos: map[*types.Request]int{},
		pushed:   map[string]int64{},
		kick:     make(chan struct{}, 1),
		wake:     make(chan struct{}, 1),
		loopDone: make(chan struct{}),
	}
	if f.worker == "" {
		f.worker = fmt.Sprintf("%s-%d-%04x", host, os.Getpid(), rand.IntN(1<<16))
	}
	for _, k := range syncKeys {
		f.keys = append(f.keys, f.prefix+k)
	}
	finished, err := f.open(ctx)
	if err != nil {
		_ = f.rdb.Close()
		return nil, err
	}
	f.finished = finished
	f.sub = f.rdb.Subscribe(context.Background(), f.prefix+"wake:"+f.worker)
	f.woken = f.sub.Channel()
	go f.loop()
	return f, nil
}

// open checks the connection (retrying an unreachable server) and loads the scripts. It
// reports whether the crawl is finished.
func (f *Frontier) open(ctx context.Context) (bool, error) {
	var down time.Time
	backoff := 50 * time.Millisecond
	for {
		n, err := f.rdb.Exists(ctx, f.prefix+keyFinished).Result()
		if err == nil && n == 0 {
			// The crawl's marker: a worker that finds it gone later knows the crawl's state
			// was lost (checkState).
			err = f.rdb.SetNX(ctx, f.prefix+keyCreated, time.Now().UTC().Format(time.RFC3339), 0).Err()
		}
		if err == nil {
			if err = syncScript.Load(ctx, f.rdb).Err(); err == nil {
				err = startScript.Load(ctx, f.rdb).Err()
			}
		}
		if err == nil {
			var layout string
			layout, err = layoutScript.Run(ctx, f.rdb, []string{f.prefix + keyMeta, f.prefix + keyOldPending, f.prefix + keyReq}).Text()
			if err == nil && layout != "ok" {
				return false, fmt.Errorf("redis frontier %s: crawl %s: %w", redactURL(f.opts.URL), f.opts.CrawlID, ErrOldLayout)
			}
		}
		if err == nil {
			return n > 0, nil
		}
		if !retryable(err) {
			return false, fmt.Errorf("redis frontier %s: %w", redactURL(f.opts.URL), err)
		}
		if down.IsZero() {
			down = time.Now()
			f.logger.Warn(fmt.Sprintf("Redis frontier %s unreachable, retrying for %s: %v", redactURL(f.opts.URL), f.opts.RetryTimeout, err))
		}
		if time.Since(down) > f.opts.RetryTimeout {
			return false, fmt.Errorf("redis frontier %s: unreachable for %s: %w", redactURL(f.opts.URL), f.opts.RetryTimeout, err)
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("redis frontier %s: %w", redactURL(f.opts.URL), ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// ErrOldLayout is the error of Open for a crawl that an older jscrawl left in Redis with
// requests in its single pending queue: it is not migrated to the per-slot queues.
var ErrOldLayout = errors.New("the crawl's requests are in the single pending queue of an older jscrawl, which this one does not read: finish it with that version, or clear it (jscrawl frontier clear) and start it again")

// retryable reports whether err may go away by itself: the network, or a server that is
// loading or busy. An error reply (a wrong password, a missing database) is not.
func retryable(err error) bool {
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		for _, p := range []string{"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "NOSCRIPT"} {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, net.ErrClosed) || errors.Is(err, context.DeadlineExceeded) ||
		strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "connection")
}

// redactURL hides the password of a Redis URL (types.MaskURL): redis://:****@host:6379/0.
func redactURL(u string) string { return types.MaskURL(u) }

// WorkerID returns this worker's id in the crawl.
func (f *Frontier) WorkerID() string { return f.worker }

// Prefix returns the prefix of every key of the crawl: jscrawl:<crawl-id>:.
func (f *Frontier) Prefix() string { return f.prefix }

// Finished reports whether the crawl is over: nothing pending or leased, start() done. A
// worker that opens a finished crawl should not run it.
func (f *Frontier) Finished() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finished
}

// Err returns the error that made the frontier fail for good, or nil.
func (f *Frontier) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Totals returns the crawl-wide stats as of the last heartbeat (every worker's integer
// stats summed: item_scraped_count, response_received_count...), for CLOSESPIDER_* limits
// counted crawl-wide.
func (f *Frontier) Totals() map[string]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int64, len(f.totals))
	for k, v := range f.totals {
		out[k] = v
	}
	return out
}

func (f *Frontier) poke() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

func (f *Frontier) notify() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Enqueue implements engine.Scheduler: it queues req for the crawl. It returns false only
// for a request whose fingerprint this worker sent lately; the crawl's seen-set drops
// other duplicates later (counted in dupefilter/filtered).
func (f *Frontier) Enqueue(req *types.Request) bool {
	return f.enqueue(nil, req)
}

// EnqueueFrom implements engine.LeaseScheduler: Enqueue for a request yielded by parent's
// callback or errback, or made from parent by a middleware. It is fenced by parent's
// lease: dropped here (false) once this worker knows it lost the lease, refused by Redis
// (frontier/requests_fenced) when another worker holds it by the time it arrives.
func (f *Frontier) EnqueueFrom(parent, req *types.Request) bool {
	f.mu.Lock()
	l := f.held[parent]
	lost := l != nil && f.lapsed(l)
	f.mu.Unlock()
	if lost {
		f.stats.Inc("frontier/requests_fenced", 1)
		return false
	}
	return f.enqueue(l, req)
}

// enqueue queues req, fenced by the lease parent (nil: by the start lease for a start
// request, else none).
func (f *Frontier) enqueue(parent *lease, req *types.Request) bool {
	var fp []byte
	if !req.DontFilter {
		sum := frontier.Fingerprint(req)
		if f.sentLately(sum) {
			f.stats.Inc("dupefilter/filtered", 1)
			return false
		}
		fp = sum[:]
	}
	prio := max(min(req.Priority, maxPriority), -maxPriority)
	rec := frontier.EncodeRequest(nil, req)
	f.mu.Lock()
	pos := f.startPos[req]
	delete(f.startPos, req)
	fm, ft := "", ""
	switch {
	case pos > 0:
		ft = f.startToken
	case parent != nil:
		fm, ft = parent.member, parent.token
	}
	f.ops = append(f.ops, op{args: []any{"a", fp, prio, pos, rec, fm, ft, engine.SlotKey(req)}, add: true})
	f.adds++
	f.mu.Unlock()
	f.stats.Inc("scheduler/enqueued/redis", 1)
	f.stats.Inc("scheduler/enqueued", 1)
	f.poke()
	return true
}

// sentLately reports whether fp was sent lately, and remembers it.
func (f *Frontier) sentLately(fp [16]byte) bool {
	if _, ok := f.hot[fp]; ok {
		return true
	}
	if _, ok := f.warm[fp]; ok {
		return true
	}
	if f.hot == nil || len(f.hot) >= hotSize {
		f.warm, f.hot = f.hot, make(map[[16]byte]struct{}, hotSize/4)
	}
	f.hot[fp] = struct{}{}
	return false
}

// Next implements engine.Scheduler: a request this worker leased whose download slot can
// start a download (UseSlots' Readiness; without one, any), or nil when none is buffered
// (the background goroutine then leases more). It reserves the slot in the Readiness.
func (f *Frontier) Next() *types.Request {
	f.mu.Lock()
	released := false
	l := f.buf.take(time.Now(), func(l *lease) bool {
		if l.lost {
			return true // another worker's now
		}
		if f.lapsed(l) {
			// Not renewed for LeaseTimeout (paused, or cut off): maybe another worker's by
			// now. Back to pending if it is still this worker's (Redis checks the token).
			f.ops = append(f.ops, op{args: []any{"r", l.member, l.token, l.token}})
			released = true
			return true
		}
		return false
	})
	if l == nil {
		wasHungry := f.hungry
		f.hungry = true
		f.mu.Unlock()
		if !wasHungry || released {
			f.poke()
		}
		return nil
	}
	f.held[l.req] = l
	low := !f.hungry && f.opts.Prefetch > 0 && f.buf.len() <= f.opts.Prefetch/2
	if low {
		f.hungry = true
	}
	f.mu.Unlock()
	f.polite().addLease(l.slot, leaseHold{token: l.token, granted: l.granted})
	if low || released {
		f.poke()
	}
	f.stats.Inc("scheduler/dequeued/redis", 1)
	f.stats.Inc("scheduler/dequeued", 1)
	return l.req
}

// UseSlots implements engine.SlotScheduler: Next hands out requests of the slots r says
// can start a download.
func (f *Frontier) UseSlots(r frontier.Readiness) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	f.buf.index.Use(r)
}

// SlotChanged implements engine.SlotScheduler.
func (f *Frontier) SlotChanged(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	f.buf.index.Changed(key)
}

// NextReady implements engine.SlotScheduler, for the leases this worker holds.
func (f *Frontier) NextReady() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	return f.buf.index.NextAt()
}

// Recheck implements engine.SlotScheduler.
func (f *Frontier) Recheck() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	f.buf.index.Recheck()
}

// SlotCounts implements engine.SlotScheduler for the crawl: its slots with queued
// requests in Redis, how many of them can start one, and how many wait (on a delay, a
// pause or their concurrency), as of the last stats push (every second; also the
// scheduler/slots and scheduler/ready stats). LocalSlotCounts counts this worker's
// leases.
func (f *Frontier) SlotCounts() (slots, ready, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slotsQueued, f.slotsReady, f.slotsQueued - f.slotsReady
}

// LocalSlotCounts is SlotCounts for the leases this worker holds and has not handed out.
// Called on the engine goroutine.
func (f *Frontier) LocalSlotCounts() (slots, ready, waiting int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.file()
	return f.buf.index.Counts(time.Now())
}

// Done implements engine.Scheduler: the lease of req is acknowledged, after everything
// Enqueue received before.
func (f *Frontier) Done(req *types.Request) {
	f.mu.Lock()
	l := f.held[req]
	now := false
	if l != nil {
		hold := f.polite().doneLease(l.slot, l.token) // Redis drops it with the lease
		delete(f.held, req)
		ack := op{args: []any{"k", l.member, l.token, hold}}
		switch {
		case l.lost:
			// Its work was not written: the request goes back to pending if the lease
			// is still this worker's after all (Redis checks the token).
			f.ops = append(f.ops, op{args: []any{"r", l.member, l.token, hold}})
			now = true
		case f.opts.HoldAcks:
			f.acks = append(f.acks, ack)
		default:
			f.ops = append(f.ops, ack)
			now = true
		}
	}
	f.mu.Unlock()
	if now {
		f.poke()
	}
}

// Holds implements engine.LeaseScheduler: whether this worker still holds the lease of
// req as far as it knows, from Redis (a renewal refused) or from its own clock (not renewed
// for LeaseTimeout: paused, or cut off from Redis). False is final: the engine writes
// nothing more of req's work, and Done releases the lease instead of acknowledging it.
// Safe from any goroutine.
func (f *Frontier) Holds(req *types.Request) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.held[req]
	return l == nil || !f.lapsed(l)
}

// lapsed reports whether l is lost, marking it so when its validity has passed. With f.mu
// held.
func (f *Frontier) lapsed(l *lease) bool {
	if !l.lost && time.Now().After(l.valid) {
		l.lost = true
		f.stats.Inc("frontier/leases_lapsed", 1)
	}
	return l.lost
}

// ReleaseAcks sends the acknowledgements held back since the last call (HoldAcks): call
// it once what the requests produced is safe (the feeds flushed). Safe from any goroutine.
func (f *Frontier) ReleaseAcks() {
	f.mu.Lock()
	n := len(f.acks)
	f.ops = append(f.ops, f.acks...)
	f.acks = nil
	f.mu.Unlock()
	if n > 0 {
		f.poke()
	}
}

// Len implements engine.Scheduler: requests this worker holds that the engine has not
// taken, leased ones in the buffer and new ones not yet in Redis.
func (f *Frontier) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.len() + f.adds
}

// Settled implements engine.SharedScheduler: the crawl is over everywhere (nothing pending
// or leased, start() done) and this worker has nothing left to send.
func (f *Frontier) Settled() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finished && len(f.ops) == 0 && f.sending == 0 && len(f.held) == 0 && f.buf.len() == 0 && len(f.acks) == 0
}

// Wake implements engine.SharedScheduler: it receives when Next may return a request or
// Settled may have changed.
func (f *Frontier) Wake() <-chan struct{} { return f.wake }

// WrapStart implements engine.SharedScheduler: the returned function runs start() if this
// worker holds the crawl's start lease, skipping the outputs an earlier holder recorded;
// waits while another worker holds it; and returns nil once start() has run.
func (f *Frontier) WrapStart(start func(context.Context, engine.Emit) error) func(context.Context, engine.Emit) error {
	return func(ctx context.Context, emit engine.Emit) error {
		skip, err := f.acquireStart(ctx)
		if err != nil || skip < 0 {
			return err
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		f.mu.Lock()
		f.startCancel = cancel
		if f.startFenced { // between the start lease and here
			cancel()
		}
		f.mu.Unlock()
		pos := 0
		err = start(ctx, func(o types.Output) {
			pos++
			if pos <= skip {
				return
			}
			f.mu.Lock()
			fenced := f.startFenced
			if o.Request != nil && !fenced {
				f.startPos[o.Request] = pos
			}
			f.mu.Unlock()
			if !fenced {
				emit(o)
			}
		})
		f.mu.Lock()
		fenced := f.startFenced
		f.startCancel = nil
		f.mu.Unlock()
		if fenced {
			return errStartFenced
		}
		return err
	}
}

// errStartFenced ends a start() whose lease another worker took over: it goes on there.
var errStartFenced = fmt.Errorf("redis frontier: the start lease went to another worker: %w", context.Canceled)

// acquireStart waits for the start lease: it returns how many outputs to skip, or -1
// when start() has run.
func (f *Frontier) acquireStart(ctx context.Context) (int, error) {
	poll := min(f.opts.LeaseTimeout/4, time.Second)
	var down time.Time
	waiting := ""
	for {
		res, err := startScript.Run(ctx, f.rdb, []string{f.prefix + keyStart}, f.worker, f.opts.LeaseTimeout.Milliseconds()).Slice()
		if err == nil && len(res) != 4 {
			err = fmt.Errorf("start script returned %d values", len(res))
		}
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			if !retryable(err) {
				return 0, fmt.Errorf("redis frontier: start lease: %w", err)
			}
			if down.IsZero() {
				down = time.Now()
			} else if time.Since(down) > f.opts.RetryTimeout {
				return 0, fmt.Errorf("redis frontier: start lease: unreachable for %s: %w", f.opts.RetryTimeout, err)
			}
		} else {
			down = time.Time{}
			state, _ := res[0].(string)
			yielded, _ := res[1].(int64)
			prev, _ := res[2].(string)
			switch state {
			case "done":
				return -1, nil
			case "mine":
				if prev != "" && prev != f.worker {
					f.logger.Info(fmt.Sprintf("Taking over start() from worker %s, whose lease expired: skipping the %d outputs it recorded", prev, yielded))
					f.stats.Inc("frontier/start_taken_over", 1)
				}
				token, _ := res[3].(string)
				f.mu.Lock()
				f.startHeld, f.startToken = true, token
				f.mu.Unlock()
				return int(yielded), nil
			case "held":
				if waiting != prev {
					waiting = prev
					f.logger.Info(fmt.Sprintf("Worker %s runs start(): waiting for it", prev))
				}
			default:
				return 0, fmt.Errorf("redis frontier: start lease: unexpected state %q", state)
			}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// StartDone implements engine.SharedScheduler: the engine has routed every output of the
// wrapped start, which returned err. A start() that ran to its end (or failed) is done for
// the crawl; one cut short (context.Canceled: this worker stops) leaves the start lease
// to another worker.
func (f *Frontier) StartDone(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.startPos)
	if !f.startHeld {
		return
	}
	f.startHeld = false
	end := "d"
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		end = "x"
	}
	f.ops = append(f.ops, op{args: []any{"s", end, f.startToken}})
	f.poke()
}

// Close sends what the outbox holds, returns the leases of requests the engine did not
// finish to pending (buffered ones, ones never Done after a stop, and with HoldAcks the
// Done ones whose acknowledgements were not released: call ReleaseAcks first), gives up
// the start lease if start() did not finish, adds the last stats to the crawl's, removes
// this worker's heartbeat, and closes the connection. It waits for Redis up to ctx's end.
func (f *Frontier) Close(ctx context.Context) error {
	f.mu.Lock()
	if f.closing {
		f.mu.Unlock()
		return nil
	}
	f.closing = true
	for _, l := range f.buf.all() {
		f.ops = append(f.ops, op{args: []any{"r", l.member, l.token, l.token}})
	}
	f.buf.reset()
	for req, l := range f.held {
		f.ops = append(f.ops, op{args: []any{"r", l.member, l.token, l.token}})
		delete(f.held, req)
	}
	for _, a := range f.acks { // never released: what they produced may be lost
		f.ops = append(f.ops, op{args: []any{"r", a.args[1], a.args[2], a.args[3]}})
	}
	f.acks = nil
	if f.startHeld {
		f.startHeld = false
		f.ops = append(f.ops, op{args: []any{"s", "x", f.startToken}})
	}
	f.mu.Unlock()
	f.poke()
	var err error
	select {
	case <-f.loopDone:
	case <-ctx.Done():
		err = fmt.Errorf("redis frontier: close: %w", ctx.Err())
	}
	f.mu.Lock()
	if err == nil && f.err != nil && (len(f.ops) > 0 || f.sending > 0) {
		err = f.err
	}
	f.mu.Unlock()
	f.closePolite()
	f.waitSessions()
	_ = f.sub.Close()
	if cerr := f.rdb.Close(); err == nil && cerr != nil && !errors.Is(cerr, redis.ErrClosed) {
		err = fmt.Errorf("redis frontier: close: %w", cerr)
	}
	return err
}

// loop is the background goroutine: one round trip at a time.
func (f *Frontier) loop() {
	defer close(f.loopDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	renewEvery := f.opts.LeaseTimeout / 3
	statsEvery := min(renewEvery, time.Second)
	lastRenew, lastStats := time.Now(), time.Now()
	f.idle = 5 * time.Millisecond
	backoff := 50 * time.Millisecond
	timer := time.NewTimer(0)
	defer timer.Stop()
	reset := func(wait time.Duration) {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(max(wait, 0))
	}
	var gather time.Time // when the outbox goes out unless something sends it sooner
	for {
		select {
		case <-f.kick:
		case <-timer.C:
		case <-f.woken:
			// Another worker left this one requests: it takes them if it has room (the
			// engine took what it was given, and has not asked again yet).
			f.mu.Lock()
			if len(f.held)+f.buf.len() < f.opts.Capacity {
				f.hungry = true
			}
			f.mu.Unlock()
		}
		f.frozen.Lock()
		f.frozen.Unlock() //nolint:staticcheck // only waits while a test holds it
		f.mu.Lock()
		closing := f.closing
		ops, hungry, down := len(f.ops), f.hungry, !f.down.IsZero()
		// Short of requests: a quarter of its capacity idle (or one, for a small one), not
		// a single download ending while the others go on (its slot's concurrency, not
		// Prefetch, bounds the leases of a busy host).
		short := hungry && f.opts.Capacity-len(f.held)-f.buf.len() >= max(1, f.opts.Capacity/4)
		f.mu.Unlock()
		heartbeat := time.Since(lastRenew) >= renewEvery || closing
		stats := heartbeat || time.Since(lastStats) >= statsEvery
		// New requests and acknowledgements wait up to gatherOps for more to share the
		// round trip, unless the engine is short of requests, the worker closes, or a
		// heartbeat, a stats push or a retry is due anyway.
		if ops > 0 && ops < maxOpsPerTrip/8 && !short && !closing && !heartbeat && !stats && !down && f.retry == nil {
			if gather.IsZero() {
				gather = time.Now().Add(gatherOps)
			}
			if d := time.Until(gather); d > 0 {
				reset(d)
				continue
			}
		}
		gather = time.Time{}
		got, s, err := f.trip(ctx, heartbeat, stats, closing)
		var wait time.Duration
		switch {
		case err != nil:
			if !f.failing(err) {
				return // failed for good
			}
			wait = backoff
			backoff = min(2*backoff, 5*time.Second)
		default:
			backoff = 50 * time.Millisecond
			if s.heartbeat {
				lastRenew = time.Now()
				if !s.bye && !f.checkState(ctx) {
					return // the crawl's state is gone: failed for good
				}
			}
			if s.stats {
				lastStats = time.Now()
			}
			f.mu.Lock()
			// Done after the round trip that said goodbye, when nothing is left to send.
			more, hungry, done := len(f.ops) > 0, f.hungry, s.bye && len(f.ops) == 0
			f.mu.Unlock()
			if done {
				return
			}
			switch {
			case more:
				wait = 0
			case hungry && got < s.n && s.k == 0 && s.hint >= 0:
				// Nothing (more) for this worker now: a slot can start a request then (or
				// the workers that waited longer get theirs first), or another worker
				// wakes it (wake), or the engine takes a request (kick).
				wait = min(max(s.hint, time.Millisecond), maxPoll)
			case hungry && got == 0 && s.k == 0:
				wait = f.idle
				f.idle = min(2*f.idle, maxPoll)
			case hungry:
				f.idle = 5 * time.Millisecond
				wait = 0
			default:
				wait = min(renewEvery-time.Since(lastRenew), statsEvery-time.Since(lastStats))
			}
		}
		reset(wait)
	}
}

// failing handles a failed round trip: it reports false once Redis has failed for longer
// than RetryTimeout (the frontier has failed for good).
// ErrStateLost is the error of a worker that finds its crawl's keys gone from Redis while
// it works: Redis restarted without persistence (or from an older snapshot), or the crawl
// was cleared. The state cannot be rebuilt from the workers, so the worker stops.
var ErrStateLost = errors.New("the crawl's state is gone from Redis (it restarted without its data, or the crawl was cleared): stop the workers, clear the crawl (jscrawl frontier clear) and start it again; run Redis with appendonly yes for crawls that matter")

// checkState reports whether the crawl's marker is still in Redis; when it is not, the
// frontier fails for good with ErrStateLost. A Redis error is left to the next round trip.
func (f *Frontier) checkState(ctx context.Context) bool {
	n, err := f.rdb.Exists(ctx, f.prefix+keyCreated).Result()
	if err != nil || n > 0 {
		return true
	}
	return f.failing(ErrStateLost)
}

func (f *Frontier) failing(err error) bool {
	if errors.Is(err, redis.ErrClosed) {
		return false // Close gave up waiting
	}
	f.mu.Lock()
	first := f.down.IsZero()
	if first {
		f.down = time.Now()
	}
	since := time.Since(f.down)
	f.mu.Unlock()
	lost := errors.Is(err, ErrStateLost)
	if first && !lost {
		f.logger.Warn(fmt.Sprintf("Redis frontier unreachable, not taking work, retrying for %s: %v", f.opts.RetryTimeout, err))
		f.stats.Inc("frontier/redis_errors", 1)
	}
	if since <= f.opts.RetryTimeout && retryable(err) {
		return true
	}
	ferr := fmt.Errorf("redis frontier %s: %s failing: %w", redactURL(f.opts.URL), since.Round(time.Second), err)
	switch {
	case lost:
		ferr = fmt.Errorf("redis frontier %s: %w", redactURL(f.opts.URL), err)
	case retryable(err):
		ferr = fmt.Errorf("redis frontier %s: unreachable for %s (FRONTIER_RETRY_TIMEOUT): %w", redactURL(f.opts.URL), since.Round(time.Second), err)
	}
	f.mu.Lock()
	f.err = ferr
	f.mu.Unlock()
	f.logger.Error(ferr.Error())
	f.fatal.Do(func() {
		if f.opts.OnFatal != nil {
			f.opts.OnFatal(ferr)
		}
	})
	f.notify()
	return false
}

// sent is a round trip's request, kept to be sent again as it is when its reply was lost.
type sent struct {
	args      []any
	k         int           // ops of the outbox it carries
	heartbeat bool          // it renews the leases
	stats     bool          // it pushes the stats and reads the crawl's
	bye       bool          // it is the last one (Close)
	n         int           // requests it leases at most
	at        time.Time     // when it was built: the leases it renews or takes last from then
	renewed   []*lease      // the leases it renews
	hint      time.Duration // the reply's: when a slot can start a request (-1: none has any)
}

// trip runs one round trip: the outbox, the renewals and heartbeat (heartbeat), and a
// lease of what the engine has room for; or the round trip that failed last, again. It
// reports how many requests it leased, and what it sent.
func (f *Frontier) trip(ctx context.Context, heartbeat, stats, closing bool) (int, *sent, error) {
	s := f.retry
	if s == nil {
		s = f.build(heartbeat, stats, closing)
	}
	res, err := syncScript.Run(ctx, f.rdb, f.keys, s.args...).Slice()
	if err == nil && len(res) != 18 {
		err = fmt.Errorf("sync script returned %d values", len(res))
	}
	if err != nil {
		f.retry = s // the same trip id: the script does not apply it twice
		return 0, s, err
	}
	f.retry = nil
	k := s.k
	filtered, stale := toInt(res[1]), toInt(res[3])
	recovered, finished, startLost := toInt(res[4]), toInt(res[7]) == 1, toInt(res[8]) == 1
	fencedStart, fenced := toInt(res[12]), toInt(res[13])
	if fencedStart+fenced > 0 {
		f.stats.Inc("frontier/requests_fenced", fencedStart+fenced)
	}
	if fenced > 0 {
		f.logger.Warn(fmt.Sprintf("Redis refused %d requests yielded for leases that had expired and gone to other workers (this worker was paused or cut off longer than FRONTIER_LEASE_TIMEOUT): those workers process their requests", fenced))
	}
	if filtered > 0 {
		f.stats.Inc("dupefilter/filtered", filtered)
	}
	if stale > 0 {
		f.stats.Inc("frontier/leases_lost", stale)
		f.logger.Warn(fmt.Sprintf("%d requests were done after their leases had expired: other workers may process them again", stale))
	}
	if recovered > 0 {
		f.stats.Inc("frontier/leases_recovered", recovered)
		f.logger.Info(fmt.Sprintf("Recovered %d expired leases: their requests are pending again", recovered))
	}
	var got []*lease
	if out, _ := res[10].([]any); len(out) > 0 {
		for i := 0; i+4 < len(out); i += 5 {
			m, _ := out[i].(string)
			tok, _ := out[i+1].(string)
			rec, _ := out[i+2].(string)
			slot, _ := out[i+3].(string)
			req, derr := frontier.DecodeRequest([]byte(rec))
			if derr != nil {
				f.logger.Error(fmt.Sprintf("Redis frontier: dropping the damaged request %s: %v", m, derr))
				f.mu.Lock()
				f.ops = append(f.ops, op{args: []any{"k", m, tok, tok}})
				f.mu.Unlock()
				continue
			}
			got = append(got, &lease{member: m, token: tok, slot: slot, granted: s.at, req: req, valid: s.at.Add(f.opts.LeaseTimeout)})
		}
	}
	s.hint = -1
	if h := toInt(res[14]); h >= 0 {
		s.hint = time.Duration(h) * time.Millisecond
	}
	f.registered = toInt(res[15]) == 1
	var lostMembers []string
	if lost, _ := res[9].([]any); len(lost) > 0 {
		for _, m := range lost {
			s, _ := m.(string)
			lostMembers = append(lostMembers, s)
		}
	}
	var totals map[string]int64
	if tv, _ := res[11].([]any); s.stats {
		totals = make(map[string]int64, len(tv)/2)
		for i := 0; i+1 < len(tv); i += 2 {
			k, _ := tv[i].(string)
			v, _ := tv[i+1].(string)
			totals[k], _ = strconv.ParseInt(v, 10, 64)
		}
	}

	f.mu.Lock()
	wasDown := !f.down.IsZero()
	f.down = time.Time{}
	for _, o := range f.ops[:k] {
		if o.add {
			f.adds--
		}
	}
	f.ops = f.ops[k:]
	f.sending = 0
	changed := finished != f.finished || len(got) > 0 || len(f.ops) == 0 && k > 0
	f.finished = finished
	if len(got) > 0 {
		f.buf.add(got)
	}
	if len(got) > 0 || s.n <= 0 && f.buf.len() > 0 {
		f.hungry = false // refilled, or no room for more until the engine asks again
	}
	var stopStart context.CancelFunc
	if (startLost || fencedStart > 0) && !f.startFenced {
		// Fenced: another worker took start() over and Redis refuses this one's start
		// requests; it stops start() (its engine drops what start() still yields) and
		// goes on as a worker like the others.
		f.startFenced, f.startHeld = true, false
		stopStart = f.startCancel
		f.stats.Inc("frontier/start_fenced", 1)
		f.logger.Warn(fmt.Sprintf("The start lease expired and went to another worker, which goes on with start() (this worker was paused or cut off longer than FRONTIER_LEASE_TIMEOUT): stopping start() here; Redis refused the %d start requests it sent since", fencedStart))
	}
	lostSet := make(map[string]bool, len(lostMembers))
	for _, m := range lostMembers {
		lostSet[m] = true
	}
	if s.heartbeat {
		for _, l := range s.renewed {
			if lostSet[l.member] {
				l.lost = true
			} else if !l.lost {
				l.valid = s.at.Add(f.opts.LeaseTimeout)
			}
		}
	}
	if len(lostSet) > 0 {
		// Leased but not started: the other worker has them now.
		f.buf.remove(func(l *lease) bool { return lostSet[l.member] })
	}
	if totals != nil {
		f.totals = totals
		f.slotsQueued, f.slotsReady = int(toInt(res[16])), int(toInt(res[17]))
		// Gauges of the crawl, not summed across workers (not int64: statOps skips them).
		f.stats.Set("scheduler/slots", f.slotsQueued)
		f.stats.Set("scheduler/ready", f.slotsReady)
	}
	f.mu.Unlock()
	if stopStart != nil {
		stopStart()
	}
	if len(lostMembers) > 0 {
		f.stats.Inc("frontier/leases_lost", int64(len(lostMembers)))
		f.logger.Warn(fmt.Sprintf("%d leases expired before they were renewed: other workers may process their requests again", len(lostMembers)))
	}
	if wasDown {
		f.logger.Info("Redis frontier reachable again")
	}
	if changed || wasDown {
		f.notify()
	}
	return len(got), s, nil
}

// build makes the next round trip's request.
func (f *Frontier) build(heartbeat, stats, closing bool) *sent {
	f.mu.Lock()
	n := 0
	if f.hungry && !closing && f.err == nil {
		n = f.opts.Capacity + f.opts.Prefetch - len(f.held) - f.buf.len()
		if f.buf.len() == 0 {
			n = max(n, 1) // the engine asked: it has room
		}
		n = min(n, maxLeasePerTrip)
	}
	// The outbox, up to maxOpsPerTrip words.
	words := 0
	k := 0
	for k < len(f.ops) && words < maxOpsPerTrip {
		words += len(f.ops[k].args)
		k++
	}
	f.sending = k
	f.tripSeq++
	at := time.Now()
	var renewed []*lease
	args := []any{f.worker, f.opts.LeaseTimeout.Milliseconds(), boolArg(f.opts.FIFO), n, "", "0", f.tripSeq,
		f.prefix, f.opts.SlotConcurrency, f.opts.SlotDelay.Microseconds(), f.idle.Milliseconds(), boolArg(f.registered),
		boolArg(len(f.held)+f.buf.len() < f.opts.Capacity)}
	for _, o := range f.ops[:k] {
		args = append(args, o.args...)
	}
	if heartbeat {
		for _, l := range f.held {
			if l.lost {
				continue // another worker's, maybe: its work is not written (Holds)
			}
			args = append(args, "h", l.member, l.token)
			renewed = append(renewed, l)
		}
		for _, l := range f.buf.all() {
			args = append(args, "h", l.member, l.token)
			renewed = append(renewed, l)
		}
		for _, a := range f.acks {
			args = append(args, "h", a.args[1], a.args[2])
		}
		if f.startHeld {
			args = append(args, "s", "1", f.startToken)
		}
		inFlight, start := len(f.held)+f.buf.len(), f.startHeld
		f.mu.Unlock()
		if closing {
			args = append(args, "b")
		} else {
			info, _ := json.Marshal(WorkerInfo{ID: f.worker, Host: f.host, PID: os.Getpid(),
				Heartbeat: time.Now().UTC().Format(time.RFC3339), InFlight: inFlight, Start: start})
			args[4] = string(info)
		}
	} else {
		f.mu.Unlock()
	}
	if stats {
		args = append(args, f.statOps()...)
		args[5] = "1"
	}
	return &sent{args: args, k: k, heartbeat: heartbeat, stats: stats, bye: heartbeat && closing, n: n, at: at, renewed: renewed}
}

// statOps returns the ops that add this worker's stats since the last push to the
// crawl's; maxima (keys ending in max or startup) are raised, not added.
func (f *Frontier) statOps() []any {
	var args []any
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range f.stats.Snapshot() {
		n, ok := v.(int64)
		if !ok || n == f.pushed[k] {
			continue
		}
		if isMax(k) {
			args = append(args, "m", k, n)
		} else {
			args = append(args, "i", k, n-f.pushed[k])
		}
		f.pushed[k] = n
	}
	return args
}

func isMax(key string) bool {
	return strings.HasSuffix(key, "max") || strings.HasSuffix(key, "startup")
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func toInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

// Interface guards
var (
	_ engine.SharedScheduler = (*Frontier)(nil)
	_ engine.LeaseScheduler  = (*Frontier)(nil)
	_ engine.SlotScheduler   = (*Frontier)(nil)
)
