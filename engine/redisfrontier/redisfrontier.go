package redisfrontier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine"
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
		Capacity:     s.Concurrency(),
		Prefetch:     max(1, s.Concurrency()/2),
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

// Interface guards
var (
	_ engine.SharedScheduler = (*Frontier)(nil)
	_ engine.LeaseScheduler  = (*Frontier)(nil)
	_ engine.SlotScheduler   = (*Frontier)(nil)
)
