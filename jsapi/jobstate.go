package jsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// A job's state on the JS side: this.state (Scrapy's spider.state), a plain JSON object
// saved with each commit of a job and restored before setup() and opened() run, and
// this.resumed, true in a run that resumes a job.
//
// With JS_VMS > 1 each VM has its own spider instance, and so its own this.state: every VM
// starts with the restored state (a VM made later, replacing one discarded after a runaway
// callback, starts with the last state known: the one JobState last read), and the state
// saved is the first VM's. start(), the pipelines and customSettings' itemFilter run on the
// first VM only, and signal handlers (opened(), closed()) on every VM including it, so
// changes they make are saved; a parse callback runs on any VM, so its changes are saved
// only when it ran on the first one.

// jobState is what SetJobState gave and JobState read since; guarded by Spider.mu.
type jobState struct {
	set     bool   // SetJobState was called: a job runs
	state   []byte // the last state known (nil: none yet, a new job)
	resumed bool
}

// finalStateWait bounds how long Close waits for the first VM to read the final state.
const finalStateWait = 5 * time.Second

// SetJobState is called once, after Load and before the engine opens the spider (before
// setup() and opened() run): state is the JSON of this.state saved by the last commit (nil:
// a new job; this.state is then what the spider's constructor set, a class field
// state = {...}, or {}), resumed tells whether this run resumes a job (this.resumed). It
// sets both on every VM, and on VMs made later. Without a job, this.state is {} (or the
// spider's own) and this.resumed false. A state that is not a JSON object, or a spider
// whose own state cannot be saved (see JobState), is an error.
func (s *Spider) SetJobState(state []byte, resumed bool) error {
	if state != nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(state, &obj); err != nil || obj == nil {
			return fmt.Errorf("spider %s: the saved state is not a JSON object: %.80q", s.name, state)
		}
	}
	state = bytes.Clone(state)
	s.mu.Lock()
	s.job = jobState{set: true, state: state, resumed: resumed}
	s.mu.Unlock()
	for _, vm := range s.vms() {
		st := s.state(vm)
		if st == nil {
			continue // a broken VM, already forgotten
		}
		err := vm.Do(context.Background(), func(*goja.Runtime) error { return st.applyJobState(state, resumed, true) })
		if err != nil {
			return fmt.Errorf("spider %s: set this.state: %w", s.name, jsMessage(err))
		}
	}
	if state == nil {
		// A new job: check now that the spider's own state can be saved.
		if _, err := s.JobState(context.Background()); err != nil {
			return err
		}
	}
	return nil
}

// JobState returns JSON.stringify(this.state) of the spider instance on the first VM, run
// on that VM's loop (so it waits for the JS running there); safe from any goroutine; ctx
// bounds the wait. An unserialisable state (not an object; a function, a Symbol, a BigInt,
// a Map or a Set, a cycle anywhere in it) is an error naming the JS type and the path
// (state.x.y). Once the VMs are closed (Close, Interrupt) it returns the last state known:
// the one read by Close (which reads the final state before closing the VMs), by an earlier
// call, or given to SetJobState ({} without any).
//
// It waits while the first VM runs synchronous JS (up to JS_CALLBACK_TIMEOUT): call it
// from a goroutine that may wait (the commit's), never from the JS loop itself (a Go
// function JS calls), which deadlocks until ctx ends. The state is read as it is then:
// changes made by a callback still running (awaiting a download) are in it, though its
// request is not done yet.
func (s *Spider) JobState(ctx context.Context) ([]byte, error) {
	for again := false; ; again = true {
		if s.interrupted.Load() != nil {
			return s.lastState(), nil
		}
		vm, err := s.vm0()
		if errors.Is(err, runtime.ErrClosed) {
			return s.lastState(), nil
		}
		if err != nil {
			return nil, err
		}
		b, err := s.readState(ctx, vm)
		if errors.Is(err, runtime.ErrClosed) {
			if !again && vm.Broken() && s.pool != nil {
				continue // discarded after a runaway: the pool replaces it
			}
			return s.lastState(), nil
		}
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.job.state = b
		s.mu.Unlock()
		return bytes.Clone(b), nil
	}
}

// readState runs stateJSON on vm's spider.
func (s *Spider) readState(ctx context.Context, vm *runtime.VM) ([]byte, error) {
	st := s.state(vm)
	if st == nil {
		return nil, runtime.ErrClosed
	}
	var out []byte
	err := vm.Do(ctx, func(rt *goja.Runtime) error {
		fn, _ := goja.AssertFunction(st.helper("stateJSON"))
		res, err := fn(goja.Undefined(), st.spider)
		if err != nil {
			return runtime.ToScriptError(err)
		}
		pair := res.ToObject(rt)
		if j := pair.Get("0"); !goja.IsNull(j) {
			out = []byte(j.String())
			return nil
		}
		return fmt.Errorf("this.state of spider %s cannot be saved as JSON: %s", s.name, pair.Get("1").String())
	})
	return out, err
}

// lastState is the last state known, or {}.
func (s *Spider) lastState() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.job.state == nil {
		return []byte("{}")
	}
	return bytes.Clone(s.job.state)
}

// saveFinalState reads the first VM's state before Close closes the VMs, so JobState
// still returns it afterwards; only in a job.
func (s *Spider) saveFinalState() {
	s.mu.Lock()
	set := s.job.set
	s.mu.Unlock()
	if !set {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), finalStateWait)
	defer cancel()
	if _, err := s.JobState(ctx); err != nil {
		s.logger.Error(fmt.Sprintf("Saving this.state at close: %v", err))
	}
}

// applyJobState sets this.state and this.resumed on the VM's spider; on the loop. state nil
// keeps the spider's own state (or sets {}); strict (in a job) rejects an own state that
// is not an object.
func (st *vmState) applyJobState(state []byte, resumed, strict bool) error {
	fn, _ := goja.AssertFunction(st.helper("setJobState"))
	text := goja.Null()
	if state != nil {
		text = st.rt.ToValue(string(state))
	}
	_, err := fn(goja.Undefined(), st.spider, text, st.rt.ToValue(resumed), st.rt.ToValue(strict))
	if err != nil {
		return runtime.ToScriptError(err)
	}
	return nil
}

// initJobState sets this.state and this.resumed on a newly constructed spider: those of
// the job when one runs (the last state known), else {} and false; on the loop.
func (st *vmState) initJobState() error {
	st.s.mu.Lock()
	job := st.s.job
	st.s.mu.Unlock()
	return st.applyJobState(job.state, job.resumed, job.set)
}

// vms returns every VM (the pool's, or the first before Bind). Not with s.mu held: the
// pool's lock is taken before s.mu when it replaces a VM.
func (s *Spider) vms() []*runtime.VM {
	if s.pool != nil {
		return s.pool.All()
	}
	return []*runtime.VM{s.first}
}

// jsMessage turns a JS exception into a plain error with its message (no JS stack).
func jsMessage(err error) error {
	var se *runtime.ScriptError
	if errors.As(err, &se) && se.Message != "" {
		return errors.New(se.Message)
	}
	return err
}
