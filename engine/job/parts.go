package job

import "github.com/jscrawl/jscrawl/engine"

// Parts returns what the job's scheduler does beyond engine.Scheduler, for
// engine.WithScheduler: it queues per slot and tells their sizes.
func (s *Scheduler) Parts() engine.SchedulerParts {
	return engine.SchedulerParts{Slots: s, Sizes: s}
}
