package runtime

import (
	"fmt"
	"sync"
)

// Pool holds N VMs made by one factory and hands out the least busy one. A VM that broke
// (interrupted) is replaced by a fresh one from the factory on the next Acquire. Safe for
// concurrent use.
type Pool struct {
	factory func(i int) (*VM, error)

	mu     sync.Mutex
	vms    []*VM
	active []int
	closed bool
}

// NewPool makes n VMs (at least 1) with factory, which gets the VM's index.
func NewPool(n int, factory func(i int) (*VM, error)) (*Pool, error) {
	n = max(n, 1)
	p := &Pool{factory: factory, vms: make([]*VM, n), active: make([]int, n)}
	for i := range n {
		vm, err := factory(i)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.vms[i] = vm
	}
	return p, nil
}

// Len returns the number of VMs.
func (p *Pool) Len() int { return len(p.vms) }

// Acquire returns the VM with the fewest current users and a release func to call when
// done with it. A broken VM is replaced first.
func (p *Pool) Acquire() (*VM, func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil, ErrClosed
	}
	best := 0
	for i := range p.vms {
		if p.active[i] < p.active[best] {
			best = i
		}
	}
	vm, err := p.fresh(best)
	if err != nil {
		return nil, nil, err
	}
	p.active[best]++
	var once sync.Once
	return vm, func() {
		once.Do(func() {
			p.mu.Lock()
			p.active[best]--
			p.mu.Unlock()
		})
	}, nil
}

// VM returns VM i (replacing it first if it broke).
func (p *Pool) VM(i int) (*VM, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	return p.fresh(i)
}

// fresh returns vms[i], replacing a broken one; p.mu is held.
func (p *Pool) fresh(i int) (*VM, error) {
	vm := p.vms[i]
	if !vm.Broken() {
		return vm, nil
	}
	vm.Close()
	nvm, err := p.factory(i)
	if err != nil {
		return nil, fmt.Errorf("replace broken vm %d: %w", i, err)
	}
	p.vms[i] = nvm
	return nvm, nil
}

// All returns the current VMs.
func (p *Pool) All() []*VM {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*VM(nil), p.vms...)
}

// Close closes every VM.
func (p *Pool) Close() {
	p.mu.Lock()
	vms := p.vms
	p.closed = true
	p.mu.Unlock()
	for _, vm := range vms {
		if vm != nil {
			vm.Close()
		}
	}
}
