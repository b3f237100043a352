package jsapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// BenchmarkRunningCallback is what Running costs each callback: one registration and
// removal (compare with BenchmarkParseCallback's time per page).
func BenchmarkRunningCallback(b *testing.B) {
	var r running
	for b.Loop() {
		r.removeCallback(r.addCallback("parse", "http://example.com/page", nil))
	}
}

// BenchmarkUserLocation is what each inline download pays to record where it started, a
// few frames below spider code.
func BenchmarkUserLocation(b *testing.B) {
	vm, err := runtime.NewVM(runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer vm.Close()
	err = vm.Do(context.Background(), func(rt *goja.Runtime) error {
		_ = rt.Set("loc", func(goja.FunctionCall) goja.Value { return rt.ToValue(userLocation(rt)) })
		prog := goja.MustCompile("spider.js", `function a() { return loc(); } function b() { return a(); }
function run(n) { let s; for (let i = 0; i < n; i++) s = b(); return s; }`, false)
		if _, err := rt.RunProgram(prog); err != nil {
			return err
		}
		run, _ := goja.AssertFunction(rt.Get("run"))
		v, err := run(nil, rt.ToValue(1))
		if err != nil || v.String() != "spider.js:1:26" {
			return fmt.Errorf("location %v, %v", v, err)
		}
		b.ResetTimer()
		_, err = run(nil, rt.ToValue(b.N))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
