package jsapi

// The spider's life around the crawl (engine role): Bind makes the pool, Open prepares
// every VM (setup()), Close closes the pipelines left open and the VMs.

import (
	"context"
	"fmt"
	"sort"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// Bind connects the spider to the crawler and makes the pool of JS_VMS VMs (the first one
// exists already). Call it once, before the crawl starts.
func (s *Spider) Bind(c Crawler) error {
	s.crawler = c
	s.schemes = c.Settings().StringList(types.DownloadSchemes)
	s.callbackBudget = c.Settings().Duration(types.CallbackTimeout)
	s.highWater = max(4*c.Settings().Concurrency(), 64)
	s.jsonMaxDepth.Store(int64(c.Settings().Int(types.JSONMaxDepth)))
	s.outputPlan = c.OutputPlan()
	s.mu.Lock()
	var wanted []engine.Signal
	for sig := range s.signals {
		wanted = append(wanted, sig)
	}
	s.mu.Unlock()
	for _, sig := range wanted {
		s.connectSignal(sig)
	}
	s.first.StartWatchdog(c.Settings().Duration(types.JSCallbackTimeout))
	// The first VM was made before the crawler's settings were known.
	if err := s.first.SetMaxAllocation(int64(c.Settings().Int(types.JSMaxAllocationMB)) << 20); err != nil {
		return err
	}
	n := max(c.Settings().Int(types.JSVMs), 1)
	pool, err := runtime.NewPool(n, func(i int) (*runtime.VM, error) {
		s.mu.Lock()
		first := s.first
		s.mu.Unlock()
		if i == 0 && first != nil && !first.Broken() {
			return first, nil
		}
		vm, err := s.newVM()
		if err != nil {
			return nil, err
		}
		if ctx := s.openCtx(); ctx != nil {
			// A replacement for a VM broken during the crawl: forget the broken VMs (and
			// the memory their JS held), prepare it as Open did, and open the pipelines
			// the engine opened (they run on the first VM).
			s.mu.Lock()
			for old := range s.states {
				if old.Broken() {
					delete(s.states, old)
				}
			}
			s.mu.Unlock()
			err := s.prepareVM(ctx, vm)
			if err == nil && i == 0 {
				err = s.reopenPipelines(ctx, vm)
			}
			if err != nil {
				vm.Close()
				return nil, err
			}
		}
		if i == 0 {
			s.mu.Lock()
			s.first = vm
			s.mu.Unlock()
		}
		return vm, nil
	})
	if err != nil {
		return err
	}
	s.pool = pool
	return nil
}

// Open records the crawl's context for inline downloads (engine.Opener).
// On every VM it then calls the spider's setup(crawler), when defined, and awaits it: the
// place to connect signal handlers, after the -a arguments are set and before
// spider_opened.
func (s *Spider) Open(ctx context.Context) error {
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	vms := []*runtime.VM{s.first}
	if s.pool != nil {
		vms = s.pool.All()
	}
	for _, vm := range vms {
		if err := s.prepareVM(ctx, vm); err != nil {
			return err
		}
	}
	// setup() may have added methods (this.parseX = ...): read the names again.
	if st := s.state(vms[0]); st != nil {
		if err := vms[0].Do(ctx, func(*goja.Runtime) error { return st.readMethods() }); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.opened = true
	s.mu.Unlock()
	return nil
}

// reopenPipelines calls open(spider) of the pipelines still open on vm, a VM that replaces
// the first one: its pipeline objects are new.
func (s *Spider) reopenPipelines(ctx context.Context, vm *runtime.VM) error {
	s.mu.Lock()
	var idx []int
	for p := range s.open {
		idx = append(idx, p.index)
	}
	s.mu.Unlock()
	sort.Ints(idx)
	st := s.state(vm)
	for _, i := range idx {
		err := st.await(ctx, func(*goja.Runtime) (goja.Value, error) {
			obj := st.pipelines[i]
			fn, isFn := goja.AssertFunction(obj.Get("open"))
			if !isFn {
				return nil, nil
			}
			return fn(obj, st.spider)
		}, func(goja.Value) error { return nil })
		if err != nil {
			return fmt.Errorf("pipelines[%d].open() on a fresh VM: %w", i, err)
		}
	}
	return nil
}

// openCtx is the crawl's context once Open ran (nil before).
func (s *Spider) openCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opened {
		return nil
	}
	return s.ctx
}

// prepareVM gives vm the output plan and runs the spider's setup() on it: for every VM
// at Open, and for a VM that replaces a broken one (JS_CALLBACK_TIMEOUT) later.
func (s *Spider) prepareVM(ctx context.Context, vm *runtime.VM) error {
	st := s.state(vm)
	err := st.await(ctx, func(*goja.Runtime) (goja.Value, error) { return nil, st.setOutputPlan() },
		func(goja.Value) error { return nil })
	if err != nil {
		return err
	}
	if err := s.setup(ctx, vm); err != nil {
		return fmt.Errorf("%s.setup(): %w", s.name, err)
	}
	return nil
}

func (s *Spider) setup(ctx context.Context, vm *runtime.VM) error {
	st := s.state(vm)
	return st.await(ctx, func(*goja.Runtime) (goja.Value, error) {
		fn, isFn := goja.AssertFunction(st.spider.Get("setup"))
		if !isFn {
			return nil, nil
		}
		return fn(st.spider, st.spider.Get("crawler"))
	}, func(goja.Value) error { return nil })
}

// Close closes every VM (io.Closer). Pipelines still open are closed first, since they run
// on the spider's VM: the engine closes the spider before its pipelines.
// In a job (SetJobState), this.state is then read a last time, so JobState returns the
// final state after Close.
func (s *Spider) Close() error {
	s.mu.Lock()
	var open []*Pipeline
	for p := range s.open {
		open = append(open, p)
	}
	s.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return open[i].index < open[j].index })
	for _, p := range open {
		if err := p.Close(); err != nil {
			s.logger.Error(fmt.Sprintf("Error closing pipelines[%d]: %v", p.index, err))
		}
	}
	s.saveFinalState()
	s.closing.Wait()
	if s.pool != nil {
		s.pool.Close()
	} else if s.first != nil {
		s.first.Close()
	}
	return nil
}
