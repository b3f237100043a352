package runtime_test

import (
	"context"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// BenchmarkNewVM measures starting one VM: the Runtime, its loop, the built-in guards and the
// prelude (a pool starts one per JS_VMS, and a fresh one after each runaway or panic).
func BenchmarkNewVM(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		vm, err := runtime.NewVM(runtime.Options{})
		if err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
}

// BenchmarkBuiltinCalls measures JS calling goja built-ins in a loop as spider code does
// (string, array, Math and JSON methods): ns/op is the cost of one round of 10 calls.
func BenchmarkBuiltinCalls(b *testing.B) {
	vm, err := runtime.NewVM(runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer vm.Close()
	var fn goja.Callable
	if err := vm.Do(context.Background(), func(rt *goja.Runtime) error {
		v, err := rt.RunString(`(function (n) {
  const s = "  Product 12 - $12.99  ", a = [];
  let k = 0;
  for (let i = 0; i < n; i++) {
    const t = s.trim();
    k += t.indexOf("$") + t.slice(0, 7).length + t.split(" ").length;
    a.push(Math.max(i, k));
    k += parseInt("42", 10) + t.toLowerCase().length + (t.includes("12") ? 1 : 0);
    if (a.length > 100) a.length = 0;
    k += Array.isArray(a) ? 1 : 0;
  }
  return k;
})`)
		if err != nil {
			return err
		}
		fn, _ = goja.AssertFunction(v)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := vm.Do(context.Background(), func(rt *goja.Runtime) error {
		_, err := fn(goja.Undefined(), rt.ToValue(b.N))
		return err
	}); err != nil {
		b.Fatal(err)
	}
}
