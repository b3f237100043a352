// Package vmtest runs JavaScript in a runtime.VM for tests: the script asserts by throwing.
package vmtest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// Run bundles code as a module named test.js (TypeScript when it starts with "// ts"),
// runs it in a fresh VM with the given native modules, and, when it exports a default
// function, calls it and waits for the returned promise. The test fails on a thrown error,
// a rejected promise or an unhandled rejection.
func Run(t testing.TB, code string, modules map[string]runtime.ModuleLoader) {
	t.Helper()
	name := "test.js"
	if len(code) > 5 && code[:5] == "// ts" {
		name = "test.ts"
	}
	var ext []string
	for k := range modules {
		ext = append(ext, k)
	}
	prog, err := runtime.BundleSource(name, code, runtime.BundleOptions{External: ext})
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	errc := make(chan error, 4)
	vm, err := runtime.NewVM(runtime.Options{
		Modules:              modules,
		Logger:               slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		OnUnhandledRejection: func(err *runtime.ScriptError) { errc <- err },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	ok := vm.Go(func(rt *goja.Runtime) {
		exports, err := vm.Load(prog)
		if err != nil {
			errc <- err
			return
		}
		def, isFn := goja.AssertFunction(exports.Get("default"))
		if !isFn {
			errc <- nil
			return
		}
		res, err := def(goja.Undefined())
		if err != nil {
			errc <- runtime.ToScriptError(err)
			return
		}
		vm.Drive(res, func(goja.Value) goja.Value { return nil }, func(err error) { errc <- err })
	})
	if !ok {
		t.Fatal("vm closed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("script did not finish within 30s")
	}
	// A rejection reported at the end of the last job.
	if err := vm.Do(ctx, func(*goja.Runtime) error { return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	default:
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
