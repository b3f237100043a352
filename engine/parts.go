package engine

// This file names what a scheduler can do beyond Scheduler. The engine is told (WithScheduler)
// instead of finding out by type assertions, so what changes its behaviour is written at the
// call that builds it.

import (
	"context"
)

// SchedulerParts are the capabilities of a scheduler beyond Scheduler, each nil when it has
// none. The package of a scheduler returns its value (MemoryScheduler.Parts,
// job.Scheduler.Parts, redisfrontier.Frontier.Parts); WithScheduler passes it to the engine.
type SchedulerParts struct {
	Slots    SlotScheduler   // queues per download slot: the engine tells it which slots changed
	Sizes    SlotSizer       // its slots' queue sizes, for Engine.Slots
	Shared   SharedScheduler // other processes crawl with it: start() and the end are shared
	Leases   LeaseScheduler  // its requests are leased and can be lost to another process
	Gate     SlotGate        // download slots shared with the other processes
	Robots   RobotsCache     // robots.txt shared with the other processes
	Sessions SessionRegistry // sessions retired anywhere in the crawl

	// memory is the MemoryScheduler itself: its duplicate filter may run before the
	// Referer header is set (outputChain), and the engine closes it (its spill folder).
	memory *MemoryScheduler
}

// Parts returns what s can do beyond Scheduler: it queues per slot and tells their sizes.
func (s *MemoryScheduler) Parts() SchedulerParts {
	return SchedulerParts{Slots: s, Sizes: s, memory: s}
}

// The engine's side of the Shared part: without one, the crawl is this process's alone,
// and each method does what a single process does.

// wrapStart returns start as the shared crawl runs it (in one process while the others wait).
func (p SchedulerParts) wrapStart(start func(context.Context, Emit) error) func(context.Context, Emit) error {
	if p.Shared == nil {
		return start
	}
	return p.Shared.WrapStart(start)
}

// wake receives when another process may have changed what this one can do (nil: never).
func (p SchedulerParts) wake() <-chan struct{} {
	if p.Shared == nil {
		return nil
	}
	return p.Shared.Wake()
}

// settled reports whether the whole crawl is over once this process is idle.
func (p SchedulerParts) settled() bool { return p.Shared == nil || p.Shared.Settled() }

// startDone tells the other processes that start() ended with err.
func (p SchedulerParts) startDone(err error) {
	if p.Shared != nil {
		p.Shared.StartDone(err)
	}
}
