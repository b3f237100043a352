package runtime

// The watchdog (JS_CALLBACK_TIMEOUT): it interrupts a job that runs synchronously too long,
// which breaks the VM, and records whose code ran away.

import (
	"fmt"
	"time"

	"github.com/dop251/goja"
)

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
