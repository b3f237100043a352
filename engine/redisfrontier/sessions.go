package redisfrontier

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jscrawl/jscrawl/engine"
)

// Sessions of a shared crawl (SESSION_POOL_ENABLED)
//
// A Frontier is the engine's SessionRegistry. Each worker names the sessions it creates
// with its own prefix (its worker id), so no two workers create the same session; each
// keeps its sessions, their cookies and counters, in memory. What the workers share is the
// set sessions:retired, the names of the sessions any of them retired: a worker asks it
// (SISMEMBER, one round trip) before each download pinned to a session by meta.session, so
// a pinned session retired by one worker is retired on all. Retirements are added in the
// background (SADD), waited for by Close.

// keySessionsRetired is the crawl's SET of retired session names.
const keySessionsRetired = "sessions:retired"

// sessionShare is the background writes of retirements.
type sessionShare struct {
	mu      sync.Mutex
	pending []string
	wg      sync.WaitGroup
	running bool
}

// SessionPrefix implements engine.SessionRegistry: the worker id and "-s".
func (f *Frontier) SessionPrefix() string { return f.worker + "-s" }

// SessionRetired implements engine.SessionRegistry.
func (f *Frontier) SessionRetired(ctx context.Context, name string) (bool, error) {
	ok, err := f.rdb.SIsMember(ctx, f.prefix+keySessionsRetired, name).Result()
	if err != nil {
		return false, fmt.Errorf("redis frontier: %w", err)
	}
	return ok, nil
}

// RetireSession implements engine.SessionRegistry: name is added to the crawl's retired
// sessions by a goroutine of the frontier, with the others retired meanwhile.
func (f *Frontier) RetireSession(name string) {
	s := &f.sessions
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, name)
	if s.running {
		return
	}
	s.running = true
	s.wg.Go(func() {
		for {
			s.mu.Lock()
			names := s.pending
			s.pending = nil
			if len(names) == 0 {
				s.running = false
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			members := make([]any, len(names))
			for i, n := range names {
				members[i] = n
			}
			ctx, cancel := context.WithTimeout(context.Background(), f.opts.RetryTimeout+time.Second)
			err := f.rdb.SAdd(ctx, f.prefix+keySessionsRetired, members...).Err()
			cancel()
			if err != nil {
				f.logger.Warn(fmt.Sprintf("Could not tell the other workers that sessions %v retired: %v", names, err))
			}
		}
	})
}

// waitSessions waits for the retirements being written.
func (f *Frontier) waitSessions() { f.sessions.wg.Wait() }

// Interface guards
var _ engine.SessionRegistry = (*Frontier)(nil)
