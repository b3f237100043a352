package job

import (
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// Scheduler is a job's engine.SlotScheduler: the on-disk frontier, with its requests
// queued per download slot (engine.SlotKey), counting Scrapy's stats
// (scheduler/enqueued/disk, scheduler/dequeued/disk, dupefilter/filtered) and the requests
// done. Only the engine goroutine calls it.
type Scheduler struct {
	f     *frontier.Frontier
	stats *engine.Stats
	done  int64
}

func (s *Scheduler) inc(key string) {
	if s.stats != nil {
		s.stats.Inc(key, 1)
	}
}

// Enqueue implements engine.Scheduler.
func (s *Scheduler) Enqueue(req *types.Request) bool {
	if !s.f.Enqueue(req) {
		s.inc("dupefilter/filtered")
		return false
	}
	s.inc("scheduler/enqueued/disk")
	s.inc("scheduler/enqueued")
	return true
}

// Next implements engine.Scheduler.
func (s *Scheduler) Next() *types.Request {
	req := s.f.Next()
	if req != nil {
		s.inc("scheduler/dequeued/disk")
		s.inc("scheduler/dequeued")
	}
	return req
}

// Done implements engine.Scheduler.
func (s *Scheduler) Done(req *types.Request) {
	s.f.Done(req)
	s.done++
}

// Len implements engine.Scheduler.
func (s *Scheduler) Len() int { return s.f.Len() }

// UseSlots implements engine.SlotScheduler.
func (s *Scheduler) UseSlots(r frontier.Readiness) { s.f.UseSlots(r) }

// SlotChanged implements engine.SlotScheduler.
func (s *Scheduler) SlotChanged(key string) { s.f.SlotChanged(key) }

// NextReady implements engine.SlotScheduler.
func (s *Scheduler) NextReady() (time.Time, bool) { return s.f.NextReady() }

// Recheck implements engine.SlotScheduler.
func (s *Scheduler) Recheck() { s.f.Recheck() }

// SlotCounts implements engine.SlotScheduler.
func (s *Scheduler) SlotCounts() (slots, ready, waiting int) { return s.f.SlotCounts() }

// SlotSizes implements engine.SlotSizer.
func (s *Scheduler) SlotSizes(n int) []frontier.SlotSize { return s.f.SlotSizes(n) }

// Interface guards
var (
	_ engine.SlotScheduler = (*Scheduler)(nil)
	_ engine.SlotSizer     = (*Scheduler)(nil)
)
