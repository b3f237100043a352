package engine_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// sharedSched is a SharedScheduler whose other processes are the test: it injects
// requests "from another worker" and says when the crawl is settled.
type sharedSched struct {
	*engine.MemoryScheduler
	mu        sync.Mutex
	injected  []*types.Request
	settled   atomic.Bool
	wrapped   atomic.Bool
	wake      chan struct{}
	startDone chan error
}

func (s *sharedSched) Next() *types.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.injected) > 0 {
		r := s.injected[0]
		s.injected = s.injected[1:]
		return r
	}
	return s.MemoryScheduler.Next()
}

func (s *sharedSched) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.injected) + s.MemoryScheduler.Len()
}

func (s *sharedSched) WrapStart(start func(context.Context, engine.Emit) error) func(context.Context, engine.Emit) error {
	s.wrapped.Store(true)
	return start
}

func (s *sharedSched) StartDone(err error)   { s.startDone <- err }
func (s *sharedSched) Settled() bool         { return s.settled.Load() }
func (s *sharedSched) Wake() <-chan struct{} { return s.wake }

func (s *sharedSched) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// TestSharedSchedulerKeepsTheCrawlOpen: an engine on a shared scheduler does not finish
// when it is idle itself while the crawl is not settled; it takes requests that come later
// (on Wake) and finishes once the crawl is settled.
func TestSharedSchedulerKeepsTheCrawlOpen(t *testing.T) {
	t.Parallel()
	srv := enginetest.Start(t)
	set := settings(t, nil)
	s := &sharedSched{MemoryScheduler: engine.NewMemoryScheduler(set, nil, nil, nil),
		wake: make(chan struct{}, 1), startDone: make(chan error, 1)}
	spider := &enginetest.Spider{StartURLs: []string{srv.URL + "/item/1"}}
	e := engine.New(spider, set, engine.WithScheduler(s, engine.SchedulerParts{Slots: s, Sizes: s, Shared: s}), engine.WithLogger(discard()))
	idle := make(chan struct{}, 16)
	e.Connect(engine.SpiderIdle, func(context.Context, engine.SignalEvent) error {
		select {
		case idle <- struct{}{}:
		default:
		}
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- e.Run(context.Background()) }()
	<-idle
	select {
	case <-done:
		t.Fatal("the engine finished while the shared crawl was not settled")
	default:
	}
	if err := <-s.startDone; err != nil {
		t.Errorf("StartDone(%v), want nil", err)
	}
	if !s.wrapped.Load() {
		t.Error("start() was not wrapped")
	}
	s.mu.Lock()
	s.injected = append(s.injected, &types.Request{URL: srv.URL + "/item/2"})
	s.mu.Unlock()
	s.poke()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Hits("/item/2") == 0 { // polling an observable condition
		if time.Now().After(deadline) {
			t.Fatal("the request of another worker was not downloaded")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.settled.Store(true)
	s.poke()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the engine did not finish once the crawl was settled")
	}
	if r := e.Stats().Get("finish_reason"); r != "finished" {
		t.Errorf("finish_reason %v, want finished", r)
	}
}
