// Test helpers shared by the runtime tests: starting a VM and loading a module in it.
package runtime_test

import (
	"context"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// newVM starts a VM with opts and closes it when the test ends.
func newVM(tb testing.TB, opts runtime.Options) *runtime.VM {
	tb.Helper()
	vm, err := runtime.NewVM(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(vm.Close)
	return vm
}

// loadExports loads prog's module in vm and returns its exports, to be used on vm's loop.
func loadExports(tb testing.TB, vm *runtime.VM, prog *runtime.Program) *goja.Object {
	tb.Helper()
	var exports *goja.Object
	if err := vm.Do(context.Background(), func(*goja.Runtime) error {
		var err error
		exports, err = vm.Load(prog)
		return err
	}); err != nil {
		tb.Fatal(err)
	}
	return exports
}
