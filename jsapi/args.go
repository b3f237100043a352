package jsapi

import (
	"fmt"
	"sort"
	"sync"

	"github.com/dop251/goja"
)

// ArgumentError is a spider argument (-a NAME=VALUE) that cannot be applied because the
// spider has a method of that name: the string would replace the method.
type ArgumentError struct {
	Name string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("-a %s: the spider has a method %s; an argument cannot replace it", e.Name, e.Name)
}

// argReads records which spider arguments were read, over every VM.
type argReads struct {
	mu   sync.Mutex
	read map[string]bool
}

func (a *argReads) mark(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.read == nil {
		a.read = map[string]bool{}
	}
	a.read[name] = true
}

// applyArgs sets the -a arguments on the spider instance (on the loop). A name of a method
// of the spider (own, inherited or from its class) is an *ArgumentError. Each argument is
// an accessor property that records its reads (for ArgRead) and behaves like the plain
// property it replaces: enumerable, writable through its setter, configurable.
func (st *vmState) applyArgs(spider *goja.Object) error {
	rt := st.rt
	args := make([]string, 0, len(st.s.opts.Args))
	for k := range st.s.opts.Args {
		args = append(args, k)
	}
	sort.Strings(args)
	for _, k := range args {
		if _, isFn := goja.AssertFunction(spider.Get(k)); isFn {
			return &ArgumentError{Name: k}
		}
	}
	gopd, _ := goja.AssertFunction(rt.Get("Object").ToObject(rt).Get("getOwnPropertyDescriptor"))
	for _, k := range args {
		if isAccessor(rt, gopd, spider, k) {
			// The spider's own getter and setter handle it; its reads cannot be told.
			if err := spider.Set(k, st.s.opts.Args[k]); err != nil {
				return fmt.Errorf("spider argument %s: %w", k, err)
			}
			st.s.argReads.mark(k)
			continue
		}
		value := rt.ToValue(st.s.opts.Args[k])
		get := rt.ToValue(func(goja.FunctionCall) goja.Value {
			st.s.argReads.mark(k)
			return value
		})
		set := rt.ToValue(func(c goja.FunctionCall) goja.Value {
			value = c.Argument(0)
			return goja.Undefined()
		})
		if err := spider.DefineAccessorProperty(k, get, set, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return fmt.Errorf("spider argument %s: %w", k, err)
		}
	}
	return nil
}

// isAccessor reports whether obj's property k, own or inherited, has a getter or setter.
func isAccessor(rt *goja.Runtime, gopd goja.Callable, obj *goja.Object, k string) bool {
	for o := obj; o != nil; o = o.Prototype() {
		d, err := gopd(goja.Undefined(), o, rt.ToValue(k))
		if err != nil || d == nil || goja.IsUndefined(d) {
			continue
		}
		desc := d.ToObject(rt)
		set := func(v goja.Value) bool { return v != nil && !goja.IsUndefined(v) }
		return set(desc.Get("get")) || set(desc.Get("set"))
	}
	return false
}
