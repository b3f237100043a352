package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/runtime/vmtest"
)

// TestHugeAllocationThrows asks each guarded built-in for more than the default
// MaxAllocation in one call: each throws a catchable RangeError before allocating (without
// the guards, goja panics or the process dies of out-of-memory), and calls under the limit
// and the built-ins' own semantics (conversions once, subclassing, identity) are intact.
func TestHugeAllocationThrows(t *testing.T) {
	t.Parallel()
	vmtest.Run(t, `
function rangeError(name, f, want) {
  try { f(); } catch (e) {
    if (!(e instanceof RangeError)) throw new Error(name + ": not a RangeError: " + e);
    if (!e.message.startsWith(want) || !e.message.includes("JS_MAX_ALLOCATION_MB")) throw new Error(name + ": message " + e.message);
    return;
  }
  throw new Error(name + ": did not throw");
}
function eq(name, got, want) { if (got !== want) throw new Error(name + ": got " + got + ", want " + want); }
rangeError("repeat", () => "a".repeat(2 ** 53 - 1), "Invalid string length");
rangeError("repeat 2", () => "ab".repeat(2 ** 28), "Invalid string length");
rangeError("padEnd", () => "x".padEnd(2 ** 40), "Invalid string length");
rangeError("padStart", () => "x".padStart(2 ** 40, "ab"), "Invalid string length");
rangeError("join", () => Array(1e9).join("ab"), "Invalid string length");
rangeError("fill", () => new Array(2 ** 32 - 1).fill(0), "Invalid array length");
rangeError("fill sparse", () => { const a = []; a.length = 2 ** 32 - 1; a.fill(0); }, "Invalid array length");
rangeError("ArrayBuffer", () => new ArrayBuffer(2 ** 33), "Array buffer allocation failed");
rangeError("Uint8Array", () => new Uint8Array(2 ** 33), "Invalid typed array length");
rangeError("Float64Array", () => new Float64Array(2 ** 27), "Invalid typed array length");
rangeError("Uint8Array of an array-like", () => new Uint8Array({ length: 2 ** 33 }), "Invalid typed array length");
class Big extends Uint8Array {}
rangeError("subclass", () => new Big(2 ** 33), "Invalid typed array length");

eq("repeat", "ab".repeat(3), "ababab");
eq("repeat empty", "".repeat(2 ** 40), "");
let calls = 0;
eq("repeat converts once", "x".repeat({ valueOf() { calls++; return 2; } }), "xx");
eq("calls", calls, 1);
eq("repeat negative", (() => { try { "x".repeat(-1); } catch (e) { return e instanceof RangeError; } })(), true);
eq("padStart", "5".padStart(3, "0"), "005");
eq("padEnd", "5".padEnd(3), "5  ");
eq("padEnd empty fill", "x".padEnd(2 ** 40, ""), "x");
eq("join", [1, [2, 3], null].join("-"), "1-2,3-");
eq("join default", [1, 2].join(), "1,2");
eq("join undefined", [1, 2].join(undefined), "1,2");
eq("join long separator", [1, 2].join("-".repeat(100)).length, 102);
eq("repeat fraction", "ab".repeat(2.5), "abab");
eq("repeat NaN", "x".repeat(NaN), "");
eq("repeat on an object", String.prototype.repeat.call({ toString() { return "o"; } }, 2), "oo");
eq("padStart with an object", "1".padStart(3, { toString() { return "0"; } }), "001");
rangeError("join long separator, many", () => Array(2 ** 20).join("-".repeat(1000)), "Invalid string length");
eq("join array-like", Array.prototype.join.call({ length: 2, 0: "a", 1: "b" }, "+"), "a+b");
eq("fill", [1, 2, 3, 4].fill(0, 1, -1).join(), "1,0,0,4");
eq("fill start only", [1, 2, 3].fill(9, 1).join(), "1,9,9");
eq("huge sparse fill of a small range", (() => { const a = []; a.length = 2 ** 32 - 1; a.fill(7, 5, 7); return a[5] + a[6]; })(), 14);
const b = new ArrayBuffer(8);
eq("buffer", b.byteLength, 8);
eq("buffer instanceof", b instanceof ArrayBuffer, true);
eq("buffer constructor", b.constructor, ArrayBuffer);
eq("buffer slice", b.slice(2).byteLength, 6);
eq("isView", ArrayBuffer.isView(new Uint8Array(b)), true);
const u = new Uint8Array([1, 2, 3]);
eq("typed", u.length + u[2], 6);
eq("typed constructor", u.constructor, Uint8Array);
eq("typed map", u.map((x) => x * 2)[2], 6);
eq("typed from", Uint8Array.from([4, 5])[1], 5);
eq("typed view", new Uint16Array(new ArrayBuffer(8), 2, 1).length, 1);
eq("subclass", new Big(2) instanceof Big && new Big(2) instanceof Uint8Array, true);
eq("not callable", (() => { try { ArrayBuffer(1); } catch (e) { return e instanceof TypeError; } })(), true);
`, nil)
}

// TestPanicInNativeBreaksVM makes a native function panic while a tagged callback's code
// runs: the process lives, the VM is broken and closed (the interrupt policy: goja skipped
// the callback's catch and finally blocks), and Panicked names the callback's tag and a
// RangeError for a length out of range, with the stack of the JS code that called the
// built-in that panicked; a panic outside any callback blames no callback.
func TestPanicInNativeBreaksVM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, panics string
		tag          uint64
		wantName     string
		wantMsg      string
		wantAt       string // the frame of the JS code that called the native, when known
	}{
		{"makeslice in a callback", "makeslice", 7, "RangeError", "Invalid array length (runtime error: makeslice: len out of range)", ""},
		{"nil map in a callback", "nilmap", 9, "InternalError", "assignment to entry in nil map", ""},
		// MaxAllocation lets the call through to goja's own repeat, which panics.
		{"goja's repeat", "repeat", 3, "RangeError", "Invalid string length in String.prototype.repeat (runtime error: makeslice: len out of range)", "cb (panic.js:4:"},
		// A guarded native is named by its guard; an unguarded one called by
		// Function.prototype.call (a guarded forwarder) is not named after call, but the
		// stack is known.
		{"a guarded native", "guarded", 4, "InternalError", "Go panic in boom.guarded (assignment to entry in nil map)", "cb (panic.js:4:"},
		{"a native by call", "call", 5, "InternalError", "Go panic in a built-in or native function (assignment to entry in nil map)", "cb (panic.js:4:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prog, err := runtime.BundleSource("panic.js", `
import { boom, guarded } from "boom";
export function cb(kind) {
  try { if (kind === "repeat") "a".repeat(2 ** 53 - 1); else if (kind === "guarded") guarded(); else if (kind === "call") boom.call(null, "nilmap"); else boom(kind); } catch (e) { return "caught " + e; } finally { globalThis.finallyRan = true; }
  return "returned";
}
`, runtime.BundleOptions{External: []string{"boom"}})
			if err != nil {
				t.Fatal(err)
			}
			vm := newVM(t, runtime.Options{MaxAllocation: 1 << 62, Modules: map[string]runtime.ModuleLoader{
				"boom": func(rt *goja.Runtime, module *goja.Object) {
					exports := rt.NewObject()
					_ = exports.Set("boom", func(kind string) {
						n := -1
						if kind == "makeslice" {
							_ = make([]byte, n) // a runtime error as goja's own repeat raises
						}
						var m map[string]int
						m["x"] = 1
					})
					_ = exports.Set("guarded", runtime.GuardNative(rt, func(goja.FunctionCall) goja.Value {
						var m map[string]int
						m["x"] = 1
						return nil
					}, "boom.guarded"))
					_ = module.Set("exports", exports)
				},
			}})
			exports := loadExports(t, vm, prog)
			done := make(chan error, 1)
			vm.Go(func(rt *goja.Runtime) {
				vm.CallTagged(tc.tag, exports.Get("cb"), goja.Undefined(), []goja.Value{rt.ToValue(tc.panics)}, nil,
					func(v goja.Value) goja.Value { done <- errors.New("produced " + v.String()); return nil },
					func(err error) { done <- err })
			})
			select {
			case <-vm.Done():
			case err := <-done:
				t.Fatalf("the callback ended (%v): want the VM closed", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the VM was not closed")
			}
			tag, se, ok := vm.Panicked()
			if !ok || !vm.Broken() {
				t.Fatalf("Panicked() ok=%v, Broken()=%v: want both", ok, vm.Broken())
			}
			if tag != tc.tag || se.Name != tc.wantName || !errors.Is(se, runtime.ErrPanicked) {
				t.Fatalf("Panicked() = %d, %q (%v): want tag %d, %s wrapping ErrPanicked", tag, se.Name, se, tc.tag, tc.wantName)
			}
			if !strings.Contains(se.Message, tc.wantMsg) {
				t.Fatalf("message %q", se.Message)
			}
			if tc.wantAt != "" && !strings.Contains(se.Stack, "\n\tat "+tc.wantAt) {
				t.Fatalf("stack %q: want a frame at %s", se.Stack, tc.wantAt)
			}
			if vm.Go(func(*goja.Runtime) {}) {
				t.Fatal("a broken VM took more work")
			}
		})
	}
}

// TestPanicInDo: a Go runtime error in a Do's function breaks the VM and comes back as
// Panicked's error (an InternalError: an index out of range is a bug, not a size); a JS exception that goja's API raises there does not break it.
func TestPanicInDo(t *testing.T) {
	t.Parallel()
	vm := newVM(t, runtime.Options{})
	err := vm.Do(context.Background(), func(rt *goja.Runtime) error {
		goja.Null().ToObject(rt) // panics with a TypeError
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "TypeError") || vm.Broken() {
		t.Fatalf("a JS throw in Do: err %v, Broken %v: want a TypeError, not broken", err, vm.Broken())
	}
	err = vm.Do(context.Background(), func(rt *goja.Runtime) error {
		var s []int
		_ = s[len(s)+1]
		return nil
	})
	var se *runtime.ScriptError
	if !errors.As(err, &se) || !errors.Is(err, runtime.ErrPanicked) || !vm.Broken() {
		t.Fatalf("a Go panic in Do: err %v, Broken %v: want ErrPanicked, broken", err, vm.Broken())
	}
	if _, perr, ok := vm.Panicked(); !ok || perr.Name != "InternalError" || !strings.Contains(perr.Message, "index out of range") {
		t.Fatalf("Panicked() = %v, %v", perr, ok)
	}
}
