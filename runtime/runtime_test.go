package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/runtime/vmtest"
)

// collect runs src's default export in a VM and returns what Drive produced.
func collect(t *testing.T, name, src string) ([]any, error) {
	t.Helper()
	prog, err := runtime.BundleSource(name, src, runtime.BundleOptions{})
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	vm := newVM(t, runtime.Options{})
	type result struct {
		vals []any
		err  error
	}
	ch := make(chan result, 1)
	vm.Go(func(rt *goja.Runtime) {
		var vals []any
		exports, err := vm.Load(prog)
		if err != nil {
			ch <- result{nil, err}
			return
		}
		fn, _ := goja.AssertFunction(exports.Get("default"))
		res, err := fn(goja.Undefined())
		if err != nil {
			ch <- result{nil, runtime.ToScriptError(err)}
			return
		}
		vm.Drive(res, func(v goja.Value) goja.Value { vals = append(vals, v.Export()); return nil }, func(err error) { ch <- result{vals, err} })
	})
	select {
	case r := <-ch:
		return r.vals, r.err
	case <-time.After(20 * time.Second):
		t.Fatal("drive did not finish")
		return nil, nil
	}
}

func TestDriveShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []any
		wantErr   string
	}{
		{"async generator with awaits", `export default async function* () {
			yield 1; const x = await Promise.resolve(2); yield x;
			await new Promise(r => setTimeout(r, 1)); yield* [3, 4]; yield Promise.resolve(5);
		}`, []any{int64(1), int64(2), int64(3), int64(4), int64(5)}, ""},
		{"async generator delegating to another", `async function* inner() { yield "a"; await null; yield "b"; }
		export default async function* () { yield* inner(); yield "c"; }`, []any{"a", "b", "c"}, ""},
		{"for await over async generator and user iterable", `async function* inner() { yield 1; yield 2; }
		class Src { [Symbol.asyncIterator]() { let i = 0; return { next: async () => ({ done: i >= 2, value: 10 + i++ }) }; } }
		export default async function* () { for await (const v of inner()) yield v; for await (const v of new Src()) yield v; }`,
			[]any{int64(1), int64(2), int64(10), int64(11)}, ""},
		{"sync generator", `export default function* () { yield "x"; yield ["y", "z"]; }`, []any{"x", "y", "z"}, ""},
		{"async function returning array", `export default async function () { await null; return [1, 2]; }`, []any{int64(1), int64(2)}, ""},
		{"plain function returning object", `export default function () { return { a: 1 }; }`, []any{map[string]any{"a": int64(1)}}, ""},
		{"undefined", `export default function () {}`, nil, ""},
		{"null", `export default async function () { return null; }`, nil, ""},
		{"throw after a value", `export default async function* () { yield 1; await null; throw new TypeError("bad thing"); }`, []any{int64(1)}, "TypeError: bad thing"},
		{"rejected await caught inside", `export default async function* () {
			try { await Promise.reject(new Error("x")); } catch (e) { yield "caught " + e.message; } }`, []any{"caught x"}, ""},
		{"sync throw", `export default function () { throw new RangeError("nope"); }`, nil, "RangeError: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vals, err := collect(t, "shapes.js", tc.src)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			if len(vals) != len(tc.want) {
				t.Fatalf("values = %#v, want %#v", vals, tc.want)
			}
			for i := range vals {
				if !equal(vals[i], tc.want[i]) {
					t.Fatalf("value %d = %#v, want %#v", i, vals[i], tc.want[i])
				}
			}
		})
	}
}

func equal(a, b any) bool {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if ok1 && ok2 {
		if len(am) != len(bm) {
			return false
		}
		for k := range am {
			if am[k] != bm[k] {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestStackPointsAtOriginalTypeScript(t *testing.T) {
	t.Parallel()
	src := "// ts\ninterface P { x: number }\nconst f = (p: P): number => {\n  return p.x;\n};\nexport default async function* () {\n  yield f({ x: 1 });\n  throw new Error(\"boom\");\n}\n"
	_, err := collect(t, "spider.ts", src)
	if err == nil || !strings.Contains(err.Error(), "spider.ts:8:") {
		t.Fatalf("stack does not point at spider.ts:8: %v", err)
	}
	var se *runtime.ScriptError
	if !errors.As(err, &se) || se.Name != "Error" || se.Message != "boom" {
		t.Fatalf("not a ScriptError with name and message: %#v", err)
	}
}

func TestBundleErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, file, src, want string
	}{
		{"syntax error in ts", "bad.ts", "export default class {\n  name = \"x\";\n  parse() { return 1 +; }\n}\n", "bad.ts:3:23: Unexpected \";\""},
		{"missing import", "imp.ts", "import x from \"./nope\";\nexport default x;\n", "imp.ts:1:15: Could not resolve"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := write(tc.file, tc.src)
			_, err := runtime.Bundle(p, runtime.BundleOptions{})
			var se *runtime.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want SyntaxError, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) || se.File != p {
				t.Fatalf("error %q (file %q), want it to contain %q and name %q", err, se.File, tc.want, p)
			}
		})
	}
	if _, err := runtime.Bundle(filepath.Join(dir, "absent.js"), runtime.BundleOptions{}); !errors.Is(err, runtime.ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestBundleResolvesImportsAndNodeModules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"main.ts":                          "import { twice } from \"./lib\";\nimport pad from \"padder\";\nexport default () => pad(String(twice(21)));\n",
		"lib.ts":                           "export const twice = (n: number): number => n * 2;\n",
		"node_modules/padder/package.json": `{"name":"padder","main":"index.js","module":"index.mjs"}`,
		"node_modules/padder/index.mjs":    "export default function pad(s) { return '[' + s + ']'; }\n",
		"node_modules/padder/index.js":     "module.exports = function pad(s) { return 'cjs'; };\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := runtime.Bundle(filepath.Join(dir, "main.ts"), runtime.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The local inputs (what run --watch watches): the entry first, no node_modules package.
	if want := []string{filepath.Join(dir, "main.ts"), filepath.Join(dir, "lib.ts")}; !slices.Equal(prog.Inputs, want) {
		t.Errorf("Inputs = %q, want %q", prog.Inputs, want)
	}
	vm := newVM(t, runtime.Options{})
	ex := loadExports(t, vm, prog)
	var got string
	err = vm.Do(context.Background(), func(rt *goja.Runtime) error {
		fn, _ := goja.AssertFunction(ex.Get("default"))
		v, err := fn(goja.Undefined())
		got = v.String()
		return err
	})
	if err != nil || got != "[42]" {
		t.Fatalf("got %q, %v; want [42] (ESM entry of the package)", got, err)
	}
}

func TestSandbox(t *testing.T) {
	t.Setenv("JSCRAWL_SECRET_FOR_TEST", "leak")
	vmtest.Run(t, `
		export default function () {
			for (const m of ["fs", "child_process", "net", "os", "./x.js", "/etc/passwd"]) {
				let ok = false;
				try { require(m); } catch (e) { ok = true; }
				if (!ok) throw new Error("require(" + m + ") worked");
			}
			if (Object.keys(process.env).length !== 0) throw new Error("process.env is not empty");
			if (JSON.stringify(globalThis).includes("leak")) throw new Error("env leaked");
			const u = new URL("/a?b=1", "http://h.test/x/");
			if (u.href !== "http://h.test/a?b=1") throw new Error("URL: " + u.href);
		}`, nil)
}

func TestUnhandledRejectionIsReported(t *testing.T) {
	t.Parallel()
	prog, err := runtime.BundleSource("rej.js", `export default () => { Promise.reject(new Error("lost")); }`, runtime.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *runtime.ScriptError, 1)
	vm := newVM(t, runtime.Options{OnUnhandledRejection: func(e *runtime.ScriptError) { got <- e }})
	vm.Go(func(rt *goja.Runtime) {
		ex, _ := vm.Load(prog)
		fn, _ := goja.AssertFunction(ex.Get("default"))
		fn(goja.Undefined())
	})
	select {
	case e := <-got:
		if !strings.Contains(e.Error(), "Uncaught (in promise) Error: lost") {
			t.Fatalf("report = %q", e.Error())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("unhandled rejection not reported")
	}
}

func TestRunawayCallbackIsInterruptedAndReplaced(t *testing.T) {
	t.Parallel()
	prog, err := runtime.BundleSource("spin.js", `export default () => { for (;;) {} }`, runtime.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	pool, err := runtime.NewPool(1, func(int) (*runtime.VM, error) {
		made++
		// The first VM runs the runaway; its replacement only has to work, so its limit is
		// one a loaded machine cannot reach by descheduling the loop (CI saw "1+1" exceed
		// 50 ms under -race).
		limit := 250 * time.Millisecond
		if made > 1 {
			limit = time.Minute
		}
		return runtime.NewVM(runtime.Options{CallbackTimeout: limit})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	vm, release, err := pool.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	vm.Go(func(rt *goja.Runtime) {
		ex, err := vm.Load(prog)
		if err != nil {
			errc <- fmt.Errorf("load: %w", err)
			return
		}
		fn, _ := goja.AssertFunction(ex.Get("default"))
		_, err = fn(goja.Undefined())
		errc <- runtime.ToScriptError(err)
	})
	err = <-errc
	release()
	var se *runtime.ScriptError
	if !errors.As(err, &se) || se.Name != "TimeoutError" || !strings.Contains(se.Message, "JS_CALLBACK_TIMEOUT") {
		t.Fatalf("want TimeoutError naming JS_CALLBACK_TIMEOUT, got %v", err)
	}
	<-vm.Done()
	vm2, release2, err := pool.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if vm2 == vm || made != 2 {
		t.Fatalf("broken VM not replaced (made %d)", made)
	}
	if err := vm2.Do(context.Background(), func(rt *goja.Runtime) error {
		_, err := rt.RunString("1+1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func TestReservationsKeepWaitOpen(t *testing.T) {
	t.Parallel()
	vm := newVM(t, runtime.Options{})
	enq := make(chan func(func(*goja.Runtime) error), 1)
	vm.Go(func(rt *goja.Runtime) { enq <- vm.Reserve() })
	enqueue := <-enq
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := vm.Wait(ctx); err == nil {
		t.Fatal("Wait returned while a reservation was open")
	}
	ran := make(chan bool, 1)
	enqueue(func(*goja.Runtime) error { ran <- true; return nil })
	if err := vm.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !<-ran {
		t.Fatal("reservation did not run")
	}
}

func TestIncomplete(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]bool{
		"function f() {":        true,
		"[1,":                   true,
		"`abc":                  true,
		"/* comment":            true,
		"a +":                   true,
		"foo(":                  true,
		"let x = ":              true,
		"x.":                    true,
		"({a: 1":                true,
		"1 + 1":                 false,
		"":                      false,
		"}":                     false, // an error more input cannot fix
		"a b":                   false,
		`"unterminated`:         false,
		"function f() {\n}\nf(": true,
	} {
		if got := runtime.Incomplete(src); got != want {
			t.Errorf("Incomplete(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestInterruptInGeneratorBreaksRuntime pins the goja behaviour that makes the pool discard a
// VM after a JS_CALLBACK_TIMEOUT instead of clearing the interrupt and letting its other
// callbacks go on: an interrupt that unwinds through a generator (every esbuild-lowered
// async function is one) leaves the runtime unable to run promise jobs, and a host function
// that catches the interrupt and throws a normal error is not caught by the JS around it.
// If this test fails, goja changed: a VM might then survive a runaway callback.
func TestInterruptInGeneratorBreaksRuntime(t *testing.T) {
	t.Parallel()
	// spin returns an endless generator that interrupts rt once it has started spinning.
	spin := func(rt *goja.Runtime) *goja.Object {
		started := make(chan struct{})
		_ = rt.Set("started", func() { close(started) })
		go func() { <-started; rt.Interrupt("stop") }()
		v, err := rt.RunString(`(function () { function* gen() { started(); for (;;) {} } return gen(); })()`)
		if err != nil {
			t.Fatal(err)
		}
		return v.ToObject(rt)
	}

	t.Run("promise jobs never run again", func(t *testing.T) {
		rt := goja.New()
		it := spin(rt)
		next, _ := goja.AssertFunction(it.Get("next"))
		if _, err := next(it); err == nil {
			t.Fatal("the endless generator returned")
		}
		rt.ClearInterrupt()
		if _, err := rt.RunString(`var x = 0; Promise.resolve().then(() => { x = 1; });`); err != nil {
			t.Fatal(err)
		}
		if x := rt.Get("x").ToInteger(); x != 0 {
			t.Fatalf("x = %d: promise jobs run again after an interrupt in a generator", x)
		}
	})
	t.Run("a caught interrupt skips the JS catch", func(t *testing.T) {
		rt := goja.New()
		it := spin(rt)
		_ = rt.Set("it", it)
		_ = rt.Set("guard", func(c goja.FunctionCall) goja.Value {
			f, _ := goja.AssertFunction(c.Argument(0))
			if _, err := f(c.Argument(1)); err != nil {
				rt.ClearInterrupt()
				panic(rt.ToValue("caught"))
			}
			return goja.Undefined()
		})
		v, err := rt.RunString(`let out = "not caught"; try { guard(it.next, it); } catch (e) { out = "caught in JS"; } out`)
		if err == nil && v.String() == "caught in JS" {
			t.Fatal("the JS catch ran: goja now recovers from an interrupt in a generator")
		}
	})
}
