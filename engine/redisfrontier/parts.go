package redisfrontier

import "github.com/jscrawl/jscrawl/engine"

// Parts returns what the frontier does beyond engine.Scheduler, for engine.WithScheduler:
// it queues per slot, leases its requests to this worker, shares the crawl's start and end,
// download slots, robots.txt and retired sessions with the other workers.
func (f *Frontier) Parts() engine.SchedulerParts {
	return engine.SchedulerParts{Slots: f, Shared: f, Leases: f, Gate: f, Robots: f, Sessions: f}
}
