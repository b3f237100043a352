package jsapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// Reload swaps the spider's code for prog's, a new bundle of the same spider (run
// --watch), without stopping the crawl. On each VM, between two callbacks (it queues a
// job on the VM's loop), it runs the new module, constructs its default export and its
// pipelines and middlewares as Load does, and gives the objects that run the crawl the
// new code: the spider instance, and each pipeline and middleware instance whose export
// still has one at its index, take the new class's prototype and the new instance's own
// function properties (arrow-function fields). Their other properties are kept:
// this.state, what setup() or the constructor stored, a pipeline's counters. So the
// requests queued run the new callbacks (they name their callback), and the callbacks
// running now, start() included, finish with the code they started with. What is read
// once when the crawl starts is kept too: name, customSettings, allowedDomains, the
// number and order of middlewares and pipelines.
//
// Reload is all or nothing: when the new module throws, or has no spider, on any VM, no
// VM changes and the error is returned (the old code runs on). Safe from any goroutine.
func (d *DevTools) Reload(ctx context.Context, prog *runtime.Program) error {
	s := d.s
	vms := s.vms()
	// Phase 1: evaluate the new module on every VM, keeping the result on the VM.
	var err error
	for _, vm := range vms {
		st := s.state(vm)
		if st == nil {
			continue
		}
		if err = vm.Do(ctx, func(*goja.Runtime) error { return st.prepareReload(prog) }); err != nil {
			break
		}
	}
	// Phase 2: swap (or, after an error, forget what phase 1 prepared).
	swap := err == nil
	for _, vm := range vms {
		st := s.state(vm)
		if st == nil {
			continue
		}
		if derr := vm.Do(ctx, func(*goja.Runtime) error { return st.finishReload(swap) }); derr != nil && swap {
			err = errors.Join(err, fmt.Errorf("vm swap: %w", derr))
		}
	}
	if err != nil {
		return fmt.Errorf("reload %s: %w", prog.Name, err)
	}
	s.mu.Lock()
	s.prog = prog // a VM made later (replacing a broken one) runs the new code
	s.reloads++
	s.mu.Unlock()
	// The callbacks may have changed: HasCallback reads the new names.
	if vm, err := s.vm0(); err == nil {
		if st := s.state(vm); st != nil {
			return vm.Do(ctx, func(*goja.Runtime) error { return st.readMethods() })
		}
	}
	return nil
}

// reloaded is what prepareReload made of a new bundle on one VM; used on that VM's loop.
type reloaded struct {
	spider               *goja.Object
	pipelines, dlmw, spm []*goja.Object
}

// prepareReload runs prog's module on the VM and constructs its spider, pipelines and
// middlewares, kept in st.next until finishReload; on the loop.
func (st *vmState) prepareReload(prog *runtime.Program) error {
	st.next = nil
	exports, err := st.vm.Load(prog)
	if err != nil {
		return err
	}
	def := exports.Get("default")
	var next reloaded
	if _, isFn := goja.AssertFunction(def); isFn {
		obj, err := st.rt.New(def)
		if err != nil {
			return runtime.ToScriptError(err)
		}
		next.spider = obj
	} else if obj, ok := def.(*goja.Object); ok {
		next.spider = obj
	} else {
		return errors.New("the new code has no default export (a spider class or object)")
	}
	if next.pipelines, err = instances(st.rt, exports, "pipelines"); err != nil {
		return err
	}
	if next.dlmw, err = instances(st.rt, exports, "downloaderMiddlewares"); err != nil {
		return err
	}
	if next.spm, err = instances(st.rt, exports, "spiderMiddlewares"); err != nil {
		return err
	}
	st.next = &next
	return nil
}

// finishReload gives the running objects the code prepareReload made when swap is set,
// and forgets it either way; on the loop.
func (st *vmState) finishReload(swap bool) error {
	next := st.next
	st.next = nil
	if !swap || next == nil {
		return nil
	}
	if err := adopt(st.spider, next.spider); err != nil {
		return fmt.Errorf("spider: %w", err)
	}
	for _, set := range []struct {
		name     string
		old, new []*goja.Object
	}{{"pipelines", st.pipelines, next.pipelines}, {"downloaderMiddlewares", st.dlmws, next.dlmw}, {"spiderMiddlewares", st.spms, next.spm}} {
		if len(set.old) != len(set.new) {
			st.s.logger.Warn(fmt.Sprintf("Reload: the %s export has %d entries instead of %d: the running %s keep their code until the crawl is restarted",
				set.name, len(set.new), len(set.old), set.name))
			continue
		}
		for i := range set.old {
			if err := adopt(set.old[i], set.new[i]); err != nil {
				return fmt.Errorf("%s[%d]: %w", set.name, i, err)
			}
		}
	}
	return nil
}

// adopt gives obj the code of fresh: fresh's prototype, and fresh's own properties whose
// values are functions; obj keeps its other properties (its state).
func adopt(obj, fresh *goja.Object) error {
	if obj == fresh {
		return nil
	}
	if err := obj.SetPrototype(fresh.Prototype()); err != nil {
		return err
	}
	for _, k := range fresh.GetOwnPropertyNames() {
		if v := fresh.Get(k); isFunction(v) {
			if err := obj.Set(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// missingCallback is the error of a request whose callback the spider does not have; after
// a reload, it says that the new code lost it.
func (s *Spider) missingCallback(kind, name, url string) error {
	s.mu.Lock()
	reloads, file := s.reloads, s.prog.Name
	s.mu.Unlock()
	msg := fmt.Sprintf("spider %s has no %s %q", s.name, kind, name)
	if url != "" {
		msg += " for " + url
	}
	if reloads > 0 {
		msg += fmt.Sprintf(" (the code reloaded from %s no longer defines it)", file)
	}
	return &runtime.ScriptError{Name: "TypeError", Message: msg}
}
