package runtime

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/eventloop"
	"github.com/dop251/goja_nodejs/require"
)

//go:embed prelude.js
var preludeSrc string

var preludeProg = goja.MustCompile("prelude.js", preludeSrc, true)

//go:embed limits.js
var limitsSrc string

var limitsProg = goja.MustCompile("jscrawl-limits.js", limitsSrc, true)

// DefaultMaxAllocation is the largest allocation in bytes one call of a built-in may ask for
// when Options.MaxAllocation is 0 (JS_MAX_ALLOCATION_MB's default).
const DefaultMaxAllocation = 512 << 20

// FieldNameMapper is how every VM names Go fields and methods in JS: a field by its js
// tag, a method by its name with the first letter lowercased (Css → css). jsapi names the
// natives it binds with it.
var FieldNameMapper = goja.TagFieldNameMapper("js", true)

// closeGrace is how long Close lets a running job finish before interrupting it.
const closeGrace = time.Second

// ErrClosed is returned for work submitted to a VM that was closed or discarded.
var ErrClosed = errors.New("vm closed")

// ModuleLoader fills module.exports of a native module; it runs on the VM's loop.
type ModuleLoader = require.ModuleLoader

// Options configure a VM.
type Options struct {
	// Modules are the native modules require() can load (for example "jscrawl"). Nothing
	// else is loadable: there is no file system access.
	Modules map[string]ModuleLoader
	// Logger receives console output; nil means slog.Default().
	Logger *slog.Logger
	// CallbackTimeout interrupts a job that runs synchronously longer than this (0: never).
	// An interrupted VM is broken: discard it. It cannot go on, even for the callbacks that
	// did not run away: an interrupt that unwinds through a generator (every lowered async
	// function) leaves goja's frame stacks unbalanced, so promise jobs never run again, and
	// a host function that catches the interrupt cannot hand JS a normal error instead (the
	// JS catch around it is skipped). Measured with goja v0.0.0-20260917113740; see
	// TestInterruptInGeneratorBreaksRuntime.
	CallbackTimeout time.Duration
	// OnUnhandledRejection is called on the loop with a promise rejection that nothing
	// handled by the end of a job (nil: it is logged at ERROR).
	OnUnhandledRejection func(err *ScriptError)
	// MaxAllocation is the most bytes one call of an allocating built-in may ask for
	// (String.prototype.repeat, padStart, padEnd, Array.prototype.join, fill, the ArrayBuffer
	// and typed array constructors): past it the call throws a RangeError instead of
	// allocating (0: DefaultMaxAllocation). goja would allocate it in Go, where too large a
	// size is a fatal out-of-memory error or a panic that no catch sees.
	MaxAllocation int64
}

// VM is one goja Runtime with its own event loop (goja_nodejs eventloop, started in the
// background). Every method is safe to call from any goroutine unless its doc says it must
// run on the loop.
type VM struct {
	loop   *eventloop.EventLoop
	opts   Options
	logger atomic.Pointer[slog.Logger]

	// Fields below are used on the loop only.
	rt       *goja.Runtime
	drive    goja.Callable
	call     goja.Callable
	inspect  goja.Callable
	setMax   goja.Callable // limits.js's setMax(bytes)
	cur      *goja.Object  // the prelude's cur: cur.scope is the running callback's scope
	rejected map[*goja.Promise]struct{}
	runs     map[int64]run // the runs Drive and Call started that have not ended, by id
	lastRun  int64

	reserved  sync.WaitGroup // reservations not yet enqueued
	busySince atomic.Int64   // unix nanos when the running job started, 0 when idle
	broken    atomic.Bool
	// ranAway is set when the watchdog broke the VM; runaway is then the tag of the scope
	// whose code was interrupted (0: none or untagged), recorded on the loop before Done.
	ranAway  atomic.Bool
	runaway  atomic.Uint64
	watching atomic.Bool
	limit    atomic.Int64 // StartWatchdog's limit in nanoseconds, 0 without a watchdog
	// panicked holds the error of a Go panic that escaped goja while a job ran (the VM is
	// then broken); panicTag is the tag of the scope whose code was running then.
	panicked  atomic.Pointer[ScriptError]
	panicTag  atomic.Uint64
	closeOnce sync.Once
	done      chan struct{}
	stopWatch chan struct{}
}

// NewVM starts a VM: a fresh Runtime, its loop, the prelude and the sandbox (no process
// environment, no file system, console to the logger).
func NewVM(opts Options) (*VM, error) {
	reg := require.NewRegistry(require.WithLoader(func(path string) ([]byte, error) {
		return nil, require.ModuleFileDoesNotExistError
	}))
	var urlModule *goja.Object
	for _, name := range []string{"url", "node:url"} {
		reg.RegisterNativeModule(name, func(rt *goja.Runtime, module *goja.Object) {
			_ = module.Set("exports", urlModule)
		})
	}
	for name, l := range opts.Modules {
		reg.RegisterNativeModule(name, l)
	}
	vm := &VM{
		loop:      eventloop.NewEventLoop(eventloop.EnableConsole(false), eventloop.WithRegistry(reg)),
		opts:      opts,
		rejected:  map[*goja.Promise]struct{}{},
		runs:      map[int64]run{},
		done:      make(chan struct{}),
		stopWatch: make(chan struct{}),
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	vm.logger.Store(opts.Logger)
	vm.loop.Start()
	err := vm.Do(context.Background(), func(rt *goja.Runtime) error {
		vm.rt = rt
		rt.SetFieldNameMapper(FieldNameMapper)
		rt.SetPromiseRejectionTracker(vm.trackRejection)
		if err := guardBuiltins(rt); err != nil {
			return err
		}
		m, err := installURL(rt)
		if err != nil {
			return err
		}
		urlModule = m
		if vm.setMax, err = installLimits(rt, opts.MaxAllocation); err != nil {
			return err
		}
		hooks := rt.NewObject()
		if err := hooks.Set("log", vm.consoleLog); err != nil {
			return err
		}
		if err := hooks.Set("value", vm.hostValue); err != nil {
			return err
		}
		if err := hooks.Set("done", vm.hostDone); err != nil {
			return err
		}
		f, err := rt.RunProgram(preludeProg)
		if err != nil {
			return err
		}
		init, _ := goja.AssertFunction(f)
		res, err := init(goja.Undefined(), rt.GlobalObject(), hooks)
		if err != nil {
			return err
		}
		o := res.ToObject(rt)
		vm.drive, _ = goja.AssertFunction(o.Get("drive"))
		vm.call, _ = goja.AssertFunction(o.Get("call"))
		vm.inspect, _ = goja.AssertFunction(o.Get("inspect"))
		vm.cur = o.Get("cur").ToObject(rt)
		return nil
	})
	if err != nil {
		vm.Close()
		return nil, fmt.Errorf("start vm: %w", err)
	}
	vm.StartWatchdog(opts.CallbackTimeout)
	return vm, nil
}

// SetLogger replaces the logger of console output. Safe from any goroutine.
func (vm *VM) SetLogger(l *slog.Logger) { vm.logger.Store(l) }

// StartWatchdog interrupts any job that runs synchronously longer than limit (0: never);
// the VM is then broken and closed, and Runaway names the callback that ran away. It takes
// effect once: later calls do nothing.
func (vm *VM) StartWatchdog(limit time.Duration) {
	if limit <= 0 || !vm.watching.CompareAndSwap(false, true) {
		return
	}
	vm.limit.Store(int64(limit))
	go vm.watch(limit)
}

// Budget is how long the job running now may still run before the watchdog interrupts it
// (StartWatchdog's limit less the time it has run; at least 1 ns); ok is false without a
// watchdog or outside a job. Native code that can run long (a backtracking match) bounds
// itself with it and fails cleanly instead of breaking the VM. On the loop.
func (vm *VM) Budget() (left time.Duration, ok bool) {
	limit, since := vm.limit.Load(), vm.busySince.Load()
	if limit == 0 || since == 0 {
		return 0, false
	}
	return max(time.Duration(limit)-time.Since(time.Unix(0, since)), 1), true
}

func (vm *VM) consoleLog(level, msg string) {
	if strings.Contains(msg, "\n\tat ") {
		msg = cleanStack(msg) // a logged stack shows the spider's frames only
	}
	switch level {
	case "debug":
		vm.logger.Load().Debug(msg)
	case "warn":
		vm.logger.Load().Warn(msg)
	case "error":
		vm.logger.Load().Error(msg)
	default:
		vm.logger.Load().Info(msg)
	}
}

func (vm *VM) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if op == goja.PromiseRejectionReject {
		vm.rejected[p] = struct{}{}
	} else {
		delete(vm.rejected, p)
	}
}

// reportRejections runs at the end of every job, on the loop.
func (vm *VM) reportRejections() {
	for p := range vm.rejected {
		delete(vm.rejected, p)
		se := FromValue(p.Result(), nil)
		se.Stack = "Uncaught (in promise) " + se.Stack
		if vm.opts.OnUnhandledRejection != nil {
			vm.opts.OnUnhandledRejection(se)
		} else {
			vm.logger.Load().Error(se.Stack)
		}
	}
}

// watch interrupts a job that has been running longer than limit.
func (vm *VM) watch(limit time.Duration) {
	t := time.NewTicker(watchTick(limit))
	defer t.Stop()
	for {
		select {
		case <-vm.stopWatch:
			return
		case <-t.C:
			if since := vm.busySince.Load(); since != 0 && time.Since(time.Unix(0, since)) > limit {
				vm.ranAway.Store(true)
				vm.broken.Store(true)
				vm.rt.Interrupt(fmt.Sprintf("callback ran synchronously for more than %s (JS_CALLBACK_TIMEOUT)", limit))
				go vm.Close() // waits for the interrupted job to unwind; waiters see Done
				return
			}
		}
	}
}

// installLimits runs limits.js, the allocation guards, with max bytes (0: the default),
// and returns its setMax.
func installLimits(rt *goja.Runtime, max int64) (goja.Callable, error) {
	if max <= 0 {
		max = DefaultMaxAllocation
	}
	f, err := rt.RunProgram(limitsProg)
	if err != nil {
		return nil, err
	}
	install, _ := goja.AssertFunction(f)
	setMax, err := install(goja.Undefined(), rt.GlobalObject(), rt.ToValue(max))
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(setMax)
	return fn, nil
}

// SetMaxAllocation changes Options.MaxAllocation (0: the default) and waits until it is in
// effect. Not from the loop.
func (vm *VM) SetMaxAllocation(max int64) error {
	if max <= 0 {
		max = DefaultMaxAllocation
	}
	return vm.Do(context.Background(), func(rt *goja.Runtime) error {
		_, err := vm.setMax(goja.Undefined(), rt.ToValue(max))
		return err
	})
}

// job wraps fn with the watchdog clock, the panic guard and the rejection report.
func (vm *VM) job(fn func(rt *goja.Runtime)) func(*goja.Runtime) {
	return func(rt *goja.Runtime) {
		if vm.broken.Load() {
			return
		}
		vm.busySince.Store(time.Now().UnixNano())
		ok := vm.guard(rt, fn)
		vm.busySince.Store(0)
		if !ok || vm.panicked.Load() != nil {
			return // broken by a Go panic (a Do's fn recovers its own)
		}
		if vm.ranAway.Load() {
			// Interrupted by the watchdog: goja skipped the finally blocks, so cur.scope
			// still names the callback whose code ran.
			vm.runaway.Store(vm.scopeTag())
			return
		}
		if len(vm.rejected) > 0 {
			vm.reportRejections()
		}
	}
}

// Go runs fn on the loop without waiting. It returns false when the VM is closed; fn then
// never runs.
func (vm *VM) Go(fn func(rt *goja.Runtime)) bool {
	if vm.broken.Load() {
		return false
	}
	return vm.loop.RunOnLoop(vm.job(fn))
}

// Do runs fn on the loop and waits for it to return (not for promises it starts). It must
// not be called from the loop itself.
func (vm *VM) Do(ctx context.Context, fn func(rt *goja.Runtime) error) error {
	errc := make(chan error, 1)
	ok := vm.loop.RunOnLoop(vm.job(func(rt *goja.Runtime) {
		defer func() {
			if r := recover(); r != nil {
				if isJSThrow(r) {
					// A JS exception that goja's API raised in fn's Go code: the Runtime is
					// consistent, the caller decides.
					errc <- fmt.Errorf("panic on the JS loop: %v", r)
					return
				}
				errc <- vm.recoveredIn(unwrapPanic(r))
			}
		}()
		errc <- fn(rt)
	}))
	if !ok {
		return ErrClosed
	}
	select {
	case err := <-errc:
		return err
	case <-vm.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reserve must be called on the loop. It returns enqueue, which is safe from any goroutine
// and must be called exactly once: it runs fn on the loop (an error from fn is logged).
// While a reservation is open, Close waits for it (k6's RegisterCallback pattern).
func (vm *VM) Reserve() (enqueue func(fn func(rt *goja.Runtime) error)) {
	vm.reserved.Add(1)
	var once atomic.Bool
	return func(fn func(rt *goja.Runtime) error) {
		if !once.CompareAndSwap(false, true) {
			panic("runtime: reservation enqueued twice")
		}
		ok := vm.Go(func(rt *goja.Runtime) {
			defer vm.reserved.Done()
			if err := fn(rt); err != nil {
				vm.logger.Load().Error(ToScriptError(err).Error())
			}
		})
		if !ok {
			vm.reserved.Done()
		}
	}
}

// Runtime returns the goja Runtime. Use it only on the loop.
func (vm *VM) Runtime() *goja.Runtime { return vm.rt }

// Drive must run on the loop: it consumes a callback's result (async or sync generator,
// promise, array, value), calling onValue for each produced value and onDone exactly once.
// onValue returns nil to go on, or a promise: the next value is pulled only once it settles
// (backpressure; a rejection is thrown into the generator).
func (vm *VM) Drive(result goja.Value, onValue func(goja.Value) goja.Value, onDone func(err error)) {
	id := vm.startRun(onValue, onDone)
	_, err := vm.drive(goja.Undefined(), vm.rt.ToValue(id), result)
	vm.endRunOnError(id, err)
}

// Call must run on the loop: it calls fn with this and args and drives the result as Drive
// does, in a scope: downloads and other cancellable work the callback starts while its code
// runs (its synchronous start and each step of a generator) are cancelled when it fails.
// Work registers with the scope through the hidden global __jscrawlScope().
// wrap, when not nil, is a JS function applied to the result before it is driven.
func (vm *VM) Call(fn, this goja.Value, args []goja.Value, wrap goja.Value, onValue func(goja.Value) goja.Value, onDone func(err error)) {
	vm.CallTagged(0, fn, this, args, wrap, onValue, onDone)
}

// CallTagged is Call with a scope tagged tag: __jscrawlScope().tag is tag while the
// callback's code runs, so the host can tell which callback started a piece of work (the
// control endpoint's "callback awaiting this download"). 0 means untagged.
func (vm *VM) CallTagged(tag uint64, fn, this goja.Value, args []goja.Value, wrap goja.Value, onValue func(goja.Value) goja.Value, onDone func(err error)) {
	if wrap == nil {
		wrap = goja.Undefined()
	}
	id := vm.startRun(onValue, onDone)
	// The prelude's call(id, tag, wrap, fn, self, n, a0, a1): up to two arguments one by
	// one, more in an array.
	var a0, a1 goja.Value = goja.Undefined(), goja.Undefined()
	switch len(args) {
	case 0:
	case 1:
		a0 = args[0]
	case 2:
		a0, a1 = args[0], args[1]
	default:
		a0 = vm.rt.NewArray(toAny(args)...)
	}
	_, err := vm.call(goja.Undefined(), vm.rt.ToValue(id), vm.rt.ToValue(tag), wrap, fn, this, vm.rt.ToValue(len(args)), a0, a1)
	vm.endRunOnError(id, err)
}

func toAny(vs []goja.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// run is the host side of a callback Drive or Call drives: where its produced values and
// its end go. The prelude names it by an id (hostValue, hostDone) instead of a pair of
// native functions made per callback, which cost goja about 18 allocations.
//
// A run whose JS never ends (a callback awaiting a promise that never settles) stays in
// vm.runs until the VM is closed; its caller has stopped waiting by then (its context
// ended), as the engine does only when the crawl stops.
type run struct {
	onValue func(goja.Value) goja.Value
	onDone  func(err error)
}

// startRun registers a run and returns its id. On the loop.
func (vm *VM) startRun(onValue func(goja.Value) goja.Value, onDone func(err error)) int64 {
	vm.lastRun++
	vm.runs[vm.lastRun] = run{onValue: onValue, onDone: onDone}
	return vm.lastRun
}

// endRunOnError ends run id with err when the prelude's call or drive threw (an
// interrupt) and the run has not ended yet. On the loop.
func (vm *VM) endRunOnError(id int64, err error) {
	if err == nil {
		return
	}
	if r, ok := vm.runs[id]; ok {
		delete(vm.runs, id)
		r.onDone(ToScriptError(err))
	}
}

// hostValue is the prelude's hostValue(id, v): v goes to run id's onValue, whose promise
// (pause) it returns.
func (vm *VM) hostValue(c goja.FunctionCall) goja.Value {
	if r, ok := vm.runs[c.Argument(0).ToInteger()]; ok {
		if p := r.onValue(c.Argument(1)); p != nil {
			return p
		}
	}
	return goja.Undefined()
}

// hostDone is the prelude's hostDone(id, e): run id ended, with the error e (undefined:
// success).
func (vm *VM) hostDone(c goja.FunctionCall) goja.Value {
	id := c.Argument(0).ToInteger()
	r, ok := vm.runs[id]
	if !ok {
		return goja.Undefined()
	}
	delete(vm.runs, id)
	if e := c.Argument(1); !goja.IsUndefined(e) {
		r.onDone(FromValue(e, nil))
	} else {
		r.onDone(nil)
	}
	return goja.Undefined()
}

// Inspect renders v as console.log would. On the loop only.
func (vm *VM) Inspect(v goja.Value) string {
	s, err := vm.inspect(goja.Undefined(), v)
	if err != nil {
		return v.String()
	}
	return s.String()
}

// Load runs the program as a CommonJS module and returns its module.exports. On the loop.
func (vm *VM) Load(p *Program) (*goja.Object, error) {
	rt := vm.rt
	f, err := rt.RunProgram(p.prog)
	if err != nil {
		return nil, ToScriptError(err)
	}
	fn, ok := goja.AssertFunction(f)
	if !ok {
		return nil, errors.New("bundle is not a module function")
	}
	module := rt.NewObject()
	exports := rt.NewObject()
	if err := module.Set("exports", exports); err != nil {
		return nil, err
	}
	req := rt.Get("require")
	if _, err := fn(goja.Undefined(), exports, req, module, rt.ToValue(p.Name), rt.ToValue(".")); err != nil {
		return nil, ToScriptError(err)
	}
	return module.Get("exports").ToObject(rt), nil
}

// scopeTag returns the tag of cur.scope (0 when none). On the loop; it runs no JS.
func (vm *VM) scopeTag() uint64 {
	if vm.cur == nil {
		return 0
	}
	scope, ok := vm.cur.Get("scope").(*goja.Object)
	if !ok {
		return 0
	}
	if t := scope.Get("tag"); t != nil {
		if n := t.ToInteger(); n > 0 {
			return uint64(n)
		}
	}
	return 0
}

// Runaway reports whether the watchdog (JS_CALLBACK_TIMEOUT) broke the VM and, if so, the
// tag (see CallTagged) of the callback whose code was running then: 0 when the code was not
// a tagged callback's (a pipeline, a promise handler outside any callback). Valid once Done
// is closed. The other callbacks in flight on the VM are innocent: their work is lost with
// the VM (goja does not let an interrupted VM go on: see Options.CallbackTimeout).
func (vm *VM) Runaway() (tag uint64, ok bool) {
	return vm.runaway.Load(), vm.ranAway.Load()
}

// Panicked reports whether a Go panic escaped goja while the VM ran a job (a built-in or a
// native function that panicked), which broke the VM, and if so its error (a RangeError
// for a length or size out of range, else an InternalError, naming the panic) and the tag
// (see CallTagged) of the callback whose code was running then (0: none). Valid once Done is
// closed. As after an interrupt, the other callbacks in flight on the VM are innocent.
func (vm *VM) Panicked() (tag uint64, err *ScriptError, ok bool) {
	err = vm.panicked.Load()
	return vm.panicTag.Load(), err, err != nil
}

// Broken reports whether the VM was interrupted; a broken VM runs nothing more.
func (vm *VM) Broken() bool { return vm.broken.Load() }

// Done is closed when the VM is closed.
func (vm *VM) Done() <-chan struct{} { return vm.done }

// Interrupt stops whatever JS runs now and breaks the VM (for a hard stop).
func (vm *VM) Interrupt(reason string) {
	vm.broken.Store(true)
	vm.rt.Interrupt(reason)
}

// Wait blocks until every reservation was enqueued and run, or ctx ends.
func (vm *VM) Wait(ctx context.Context) error {
	ch := make(chan struct{})
	go func() { vm.reserved.Wait(); close(ch) }()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close terminates the loop; pending reservations are dropped. Safe to call twice.
func (vm *VM) Close() {
	vm.closeOnce.Do(func() {
		close(vm.stopWatch)
		// Terminate waits for the running job. A job that is still running after a grace
		// period (a runaway loop with the watchdog off) is interrupted, so Close cannot hang;
		// one that is just finishing is left to finish.
		stuck := time.AfterFunc(closeGrace, func() {
			if vm.busySince.Load() != 0 && !vm.broken.Swap(true) && vm.rt != nil {
				vm.rt.Interrupt("vm closed")
			}
		})
		vm.loop.Terminate()
		stuck.Stop()
		close(vm.done)
	})
}
