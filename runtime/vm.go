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
