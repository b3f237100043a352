package runtime

// The allocation guards of limits.js (JS_MAX_ALLOCATION_MB).

import (
	"context"
	_ "embed"

	"github.com/dop251/goja"
)

//go:embed limits.js
var limitsSrc string

var limitsProg = goja.MustCompile("jscrawl-limits.js", limitsSrc, true)

// DefaultMaxAllocation is the largest allocation in bytes one call of a built-in may ask for
// when Options.MaxAllocation is 0 (JS_MAX_ALLOCATION_MB's default).
const DefaultMaxAllocation = 512 << 20

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
