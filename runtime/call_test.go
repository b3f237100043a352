package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// TestCallTagged calls a spider-like function with 0 to 3 arguments, with and without a
// wrapper, and checks what the function saw (its arguments, its this, its scope's tag),
// what the host got, that onDone ran once, and that the VM forgot every run once it ended.
func TestCallTagged(t *testing.T) {
	t.Parallel()
	prog, err := runtime.BundleSource("call.js", `
export function gen(...args) {
  return (async function* (self) {
    yield "n=" + args.length + " " + args.join(",") + " this=" + self.name + " tag=" + __jscrawlScope().tag;
    await null;
    // Outside the callback's scope when a wrapper pulls it (a promise job of its for await).
    yield "after await tag=" + (__jscrawlScope() || { tag: "none" }).tag;
  })(this);
}
export function fails() { throw new RangeError("boom " + arguments.length); }
export async function* failsLater() { await null; throw new TypeError("later"); }
export function wrap(r) {
  return (async function* () {
    yield "wrapped";
    if (typeof r.then === "function") return void (await r); // the thenable of a throw
    for await (const v of r) yield v;
  })();
}
export const self = { name: "spider" };
`, runtime.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vm := newVM(t, runtime.Options{})
	exports := loadExports(t, vm, prog)
	tests := []struct {
		name    string
		fn      string
		args    []any
		wrap    bool
		tag     uint64
		want    []string
		wantErr string
	}{
		{"no arguments", "gen", nil, false, 7, []string{"n=0  this=spider tag=7", "after await tag=7"}, ""},
		{"one argument", "gen", []any{"a"}, false, 8, []string{"n=1 a this=spider tag=8", "after await tag=8"}, ""},
		{"two arguments", "gen", []any{"a", 2}, false, 9, []string{"n=2 a,2 this=spider tag=9", "after await tag=9"}, ""},
		{"three arguments", "gen", []any{"a", 2, true}, false, 1000, []string{"n=3 a,2,true this=spider tag=1000", "after await tag=1000"}, ""},
		{"untagged", "gen", []any{"x"}, false, 0, []string{"n=1 x this=spider tag=0", "after await tag=0"}, ""},
		{"wrapped", "gen", []any{"a", "b"}, true, 3, []string{"wrapped", "n=2 a,b this=spider tag=3", "after await tag=none"}, ""},
		{"synchronous throw", "fails", []any{1, 2, 3}, false, 4, nil, "RangeError: boom 3"},
		{"synchronous throw, wrapped", "fails", []any{1}, true, 5, []string{"wrapped"}, "RangeError: boom 1"},
		{"later rejection", "failsLater", []any{1, 2}, false, 6, nil, "TypeError: later"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				vals []string
				err  error
				runs int
			}
			ch := make(chan result, 2)
			var vals []string
			vm.Go(func(rt *goja.Runtime) {
				args := make([]goja.Value, len(tc.args))
				for i, a := range tc.args {
					args[i] = rt.ToValue(a)
				}
				var wrap goja.Value
				if tc.wrap {
					wrap = exports.Get("wrap")
				}
				vm.CallTagged(tc.tag, exports.Get(tc.fn), exports.Get("self"), args, wrap,
					func(v goja.Value) goja.Value { vals = append(vals, v.String()); return nil },
					func(err error) { ch <- result{vals, err, runtime.RunsInFlight(vm)} })
			})
			var r result
			select {
			case r = <-ch:
			case <-time.After(20 * time.Second):
				t.Fatal("the call did not end")
			}
			if tc.wantErr == "" && r.err != nil {
				t.Fatalf("unexpected error: %v", r.err)
			}
			if tc.wantErr != "" && (r.err == nil || !strings.Contains(r.err.Error(), tc.wantErr)) {
				t.Fatalf("error = %v, want %q", r.err, tc.wantErr)
			}
			if strings.Join(r.vals, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("values = %q, want %q", r.vals, tc.want)
			}
			if r.runs != 0 {
				t.Fatalf("%d runs still registered when onDone ran", r.runs)
			}
			// onDone ran once: nothing more arrives after a job that lets promises settle.
			if err := vm.Do(context.Background(), func(*goja.Runtime) error { return nil }); err != nil {
				t.Fatal(err)
			}
			select {
			case r := <-ch:
				t.Fatalf("onDone ran a second time: %v", r.err)
			default:
			}
		})
	}
}
