package engine

import (
	"context"
	"sync"
)

// backlogDrop wakes the goroutines waiting in WaitBacklog: the engine goroutine calls
// notify after each pass, which closes the channel the waiters hold (if any waits).
type backlogDrop struct {
	mu sync.Mutex
	ch chan struct{} // nil while nobody waits
}

// wait returns a channel closed at the next notify.
func (b *backlogDrop) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// notify wakes the current waiters.
func (b *backlogDrop) notify() {
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
}

// WaitBacklog blocks until Backlog is at most n, or ctx ends (it then returns ctx's
// error). The engine wakes it when its scheduler pass leaves fewer requests waiting, so a
// producer of start requests resumes without polling (Scrapy pulls start requests when
// the scheduler has room). Safe from any goroutine; never from the engine goroutine.
func (e *Engine) WaitBacklog(ctx context.Context, n int) error {
	for {
		woken := e.in.drop.wait() // before reading the backlog, so no drop is missed
		if e.Backlog() <= n {
			return nil
		}
		select {
		case <-woken:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
