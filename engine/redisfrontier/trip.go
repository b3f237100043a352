package redisfrontier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/jscrawl/jscrawl/engine/frontier"
)

// The background goroutine's round trips to Redis: when to send (loop), what (build, statOps),
// what the reply means (trip), and failures (failing, checkState).

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

// failing handles a failed round trip: it reports false once Redis has failed for longer
// than RetryTimeout (the frontier has failed for good).
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
