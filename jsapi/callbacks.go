package jsapi

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// countException counts spider_exceptions/<name> and spider_exceptions/count, as the
// engine does for an error a callback returns.
func (s *Spider) countException(err error) {
	if s.crawler != nil {
		s.crawler.Stats().Inc("spider_exceptions/count", 1)
		s.crawler.Stats().Inc("spider_exceptions/"+engine.ErrorName(err), 1)
	}
}

// run calls a callback on a VM from getVM (released when done), drives what it returns and
// emits every produced value; it returns when the callback finished (including what it
// awaited) or ctx ended. where names the callback for error messages and, with url (the
// response's), in Running. With lazy set (start()), the next value is pulled only while the
// crawler's backlog is below a high-water mark, so a huge or endless start() does not flood
// the scheduler.
//
// When another callback on the same VM exceeds JS_CALLBACK_TIMEOUT, the VM is discarded
// (goja cannot go on after the interrupt) and this callback's work with it: run then runs
// it once more from its start on a fresh VM, skipping the values the first run already
// emitted, so its items are neither lost nor duplicated (as long as the callback produces
// the same values in the same order; its inline downloads are made again).
func (s *Spider) run(ctx context.Context, getVM func() (*runtime.VM, func(), error), where, url string, emit engine.Emit, lazy bool,
	prepare func(st *vmState) (invocation, error)) error {
	skip := int64(0)
	var broken *runtime.VM
	for {
		if err := s.interruptedErr(where, url); err != nil {
			return err
		}
		vm, release, err := getVM()
		if err != nil {
			return err
		}
		if broken != nil && (vm == broken || vm.Broken()) {
			// No fresh VM to run it on (a spider without a pool).
			release()
			return s.lostTo(where, url)
		}
		emitted, err := s.runOnce(ctx, vm, where, url, emit, lazy, skip, prepare)
		release()
		if !errors.Is(err, errInnocent) {
			return err
		}
		if broken != nil {
			// Its second VM was lost too: give up.
			return s.lostTo(where, url)
		}
		broken, skip = vm, emitted
		if s.crawler != nil {
			s.crawler.Stats().Inc("spider/callback_rerun_count", 1)
		}
		cause := "another callback exceeded JS_CALLBACK_TIMEOUT on its VM"
		if _, perr, panicked := vm.Panicked(); panicked {
			cause = "other code on its VM made goja panic (" + perr.Name + ")"
		}
		s.logger.Warn(fmt.Sprintf("%s (%s): %s, which was discarded: running %s again on a fresh VM, skipping the %d values it had produced",
			where, url, cause, where, emitted))
	}
}

// errInnocent is runOnce's error for a callback whose VM was broken by another callback's
// runaway: run runs it again.
var errInnocent = errors.New("vm lost to another callback's runaway")

// lostTo is the error of a callback that lost its VM to another's runaway and could not be
// run again.
func (s *Spider) lostTo(where, url string) error {
	msg := fmt.Sprintf("callback %s (%s) was lost: another callback exceeded JS_CALLBACK_TIMEOUT (%s) on its VM", where, url, s.callbackTimeout())
	return runtime.InterruptError("TimeoutError", msg, nil)
}

// runOnce is one run of a callback on vm: it skips the first skip values the callback
// produces and returns how many it produced in all. Its error wraps errInnocent when the
// VM was lost to another callback's runaway.
func (s *Spider) runOnce(ctx context.Context, vm *runtime.VM, where, url string, emit engine.Emit, lazy bool, skip int64,
	prepare func(st *vmState) (invocation, error)) (int64, error) {
	st := s.state(vm)
	id := s.running.addCallback(where, url, vm)
	defer s.running.removeCallback(id)
	done := make(chan error, 1)
	var produced atomic.Int64
	// CALLBACK_TIMEOUT: the whole callback, awaited time included; for start() (lazy), each
	// step from one value to the next, not counting its pauses for the backlog.
	budget := s.budget()
	var expired <-chan time.Time
	var clock *time.Timer
	if budget > 0 {
		clock = time.NewTimer(budget)
		defer clock.Stop()
		expired = clock.C
	}
	// abandoned is set once the callback is over its budget: what it produces later is
	// dropped.
	var abandoned atomic.Bool
	onValue := func(v goja.Value) goja.Value {
		if abandoned.Load() {
			return nil
		}
		if produced.Add(1) <= skip {
			return nil // emitted by the run this one repeats
		}
		st.emitValue(v, where, url, emit)
		if !lazy || s.crawler == nil {
			return nil
		}
		if ctx.Err() != nil {
			// The crawl is closing: leave start() suspended for good.
			p, _, _ := st.rt.NewPromise()
			return st.rt.ToValue(p)
		}
		if s.crawler.Backlog() >= s.startHighWater() {
			if clock != nil {
				clock.Stop()
			}
			return st.waitBacklog(ctx, func() {
				if clock != nil {
					clock.Reset(budget)
				}
			})
		}
		if clock != nil {
			clock.Reset(budget)
		}
		return nil
	}
	ok := st != nil && vm.Go(func(rt *goja.Runtime) {
		inv, err := prepare(st)
		if err != nil {
			done <- runtime.ToScriptError(err)
			return
		}
		if inv.fn == nil {
			vm.Drive(inv.result, onValue, func(err error) { done <- err })
			return
		}
		// In a scope: if the callback fails, the downloads it still awaits are cancelled.
		vm.CallTagged(id, inv.fn, inv.this, inv.args, inv.wrap, onValue, func(err error) { done <- err })
	})
	if !ok {
		_, ranAway := vm.Runaway()
		_, _, panicked := vm.Panicked()
		if ranAway || panicked {
			return 0, errInnocent // broken between getVM and now
		}
		return 0, fmt.Errorf("%s: %w", where, runtime.ErrClosed)
	}
	// failed names the error of a callback cut short by an interrupt.
	failed := func(err error) error {
		if err == nil || !vm.Broken() {
			return err
		}
		if ierr := s.interruptedErr(where, url); ierr != nil {
			return ierr
		}
		return s.namedTimeout(err, where, vm)
	}
	select {
	case err := <-done:
		return produced.Load(), failed(err)
	case <-vm.Done():
		select {
		case err := <-done:
			return produced.Load(), failed(err)
		default:
		}
		if err := s.interruptedErr(where, url); err != nil {
			return produced.Load(), err
		}
		if tag, ranAway := vm.Runaway(); ranAway {
			if tag == id {
				return produced.Load(), s.namedTimeout(runtime.InterruptError("TimeoutError", "interrupted", nil), where, vm)
			}
			return produced.Load(), errInnocent
		}
		if tag, perr, panicked := vm.Panicked(); panicked {
			if tag == id {
				return produced.Load(), panicError(perr, where)
			}
			return produced.Load(), errInnocent
		}
		if vm.Broken() {
			return produced.Load(), s.namedTimeout(runtime.InterruptError("TimeoutError", "interrupted", nil), where, vm)
		}
		return produced.Load(), &runtime.ScriptError{Name: "Error", Message: where + ": the VM was closed (shutdown)"}
	case <-expired:
		abandoned.Store(true)
		err := s.overBudget("callback "+where, url, id)
		s.running.cancelInline(id) // the downloads it awaits are of no use now
		return produced.Load(), err
	case <-ctx.Done():
		return produced.Load(), ctx.Err()
	}
}

// budget is CALLBACK_TIMEOUT, the wall-clock time a callback or a pipeline or middleware
// call may take, awaited time included (0: no limit, and without a crawler).
func (s *Spider) budget() time.Duration {
	return s.callbackBudget
}

// overBudget is the error of callback id (where, processing url) still unsettled at the
// end of its CALLBACK_TIMEOUT: a TimeoutError naming the spider code that started the
// inline downloads it awaits, if any. The callback is left pending on its VM (nothing can
// cancel an await from Go); what it produces later is dropped.
func (s *Spider) overBudget(where, url string, id uint64) error {
	msg := fmt.Sprintf("%s did not settle within CALLBACK_TIMEOUT (%s)", where, s.budget())
	if url != "" {
		msg += " processing <" + url + ">"
	}
	if id != 0 {
		if at := s.running.awaitedBy(id); at != "" {
			msg += "; it awaits " + at
		}
	}
	return &runtime.ScriptError{Name: "TimeoutError", Message: msg, Stack: "TimeoutError: " + msg}
}

// panicError is the error of the callback (or pipeline call) where, whose code made goja
// panic: perr (a RangeError or an InternalError, see runtime.PanicError) naming where,
// with the same name, so it is counted in spider_exceptions/<name>.
func panicError(perr *runtime.ScriptError, where string) error {
	msg := perr.Message + " in " + where + ": goja panicked, so its VM was discarded (no catch or finally block ran)"
	return perr.WithMessage(msg)
}

// interruptedErr is the error of a callback after Interrupt (nil before).
func (s *Spider) interruptedErr(where, url string) error {
	reason := s.interrupted.Load()
	if reason == nil {
		return nil
	}
	msg := fmt.Sprintf("callback %s (%s) interrupted: %s", where, url, *reason)
	return runtime.InterruptError("InterruptedError", msg, nil)
}

// callbackTimeout is JS_CALLBACK_TIMEOUT as text ("?" without a crawler).
func (s *Spider) callbackTimeout() string {
	if s.crawler == nil {
		return "?"
	}
	return s.crawler.Settings().Duration(types.JSCallbackTimeout).String()
}

// namedTimeout rewrites the error of a callback cut short by the watchdog so it names the
// callback: "callback parseBook exceeded JS_CALLBACK_TIMEOUT (2s)".
func (s *Spider) namedTimeout(err error, where string, vm *runtime.VM) error {
	var se *runtime.ScriptError
	if !errors.Is(err, runtime.ErrInterrupted) || !errors.As(err, &se) || !vm.Broken() {
		return err
	}
	msg := fmt.Sprintf("callback %s exceeded JS_CALLBACK_TIMEOUT (%s)", where, s.callbackTimeout())
	return runtime.InterruptError("TimeoutError", msg, se.Value)
}

// wrap returns the spider middlewares' wrapper for a callback's result (helper
// st.wrapStart or st.wrapOutput), or nil when no middleware has the hook.
func (st *vmState) wrap(fn goja.Callable, args ...goja.Value) goja.Value {
	w, err := fn(goja.Undefined(), args...)
	if err != nil || goja.IsUndefined(w) {
		return nil
	}
	return w
}

// wrapped adds the spider middlewares' processSpiderOutput chain for a callback of response
// (null for an errback without one) to inv.
func (st *vmState) wrapped(inv invocation, response goja.Value) invocation {
	inv.wrap = st.wrap(st.wrapOutput, response)
	return inv
}

// isFunction reports whether v is callable. Functions (and callable proxies) have the class
// "Function": they are told apart without goja.AssertFunction, which makes a closure.
func isFunction(v goja.Value) bool {
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Function" {
		return true
	}
	_, ok := goja.AssertFunction(v)
	return ok
}

// invocation is what run calls: fn with this and args, or, when fn is nil, a ready result.
type invocation struct {
	fn, this goja.Value
	args     []goja.Value
	wrap     goja.Value // nil, or a JS function applied to the result (spider middlewares)
	result   goja.Value
}

// startHighWater is the backlog at which start() pauses: enough queued requests to keep
// every download slot busy several times over (4 × CONCURRENT_REQUESTS, at least 64).
func (s *Spider) startHighWater() int { return s.highWater }

// waitBacklog returns a promise that settles once the backlog is below half the high-water
// mark, and never when ctx ends first; on the loop. resumed is called (off the loop) just
// before it settles. The engine wakes the wait off the loop
// (Crawler.WaitBacklog).
func (st *vmState) waitBacklog(ctx context.Context, resumed func()) goja.Value {
	p, resolve, _ := st.rt.NewPromise()
	enqueue := st.vm.Reserve()
	low := st.s.startHighWater() / 2
	go func() {
		if st.s.crawler.WaitBacklog(ctx, low) != nil {
			// The crawl is closing: the promise stays pending, so start() stays
			// suspended instead of producing requests nobody schedules.
			enqueue(func(*goja.Runtime) error { return nil })
			return
		}
		resumed()
		enqueue(func(*goja.Runtime) error { return resolve(nil) })
	}()
	return st.rt.ToValue(p)
}
