package redisfrontier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// start() once per crawl: the start lease (WrapStart, acquireStart) and its end (StartDone).

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
