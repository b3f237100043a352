package engine

// This file keeps the spider open past spider_idle: a handler returning
// ErrDontCloseSpider (Scrapy: raising DontCloseSpider) and a handler whose work is still
// pending (HoldIdle: a JS handler's promise).

import (
	"errors"
	"sync/atomic"
	"time"
)

// ErrDontCloseSpider, returned by a spider_idle handler (or wrapped), keeps the spider open
// (Scrapy: DontCloseSpider): spider_idle is sent again after IdleRetry if nothing came to
// do in the meantime.
var ErrDontCloseSpider = errors.New("dont close spider")

// IdleRetry is how long a spider kept open by ErrDontCloseSpider waits before spider_idle is
// sent again: Scrapy's engine heartbeat.
const IdleRetry = 5 * time.Second

// idleState is spider_idle's bookkeeping: the holds of HoldIdle not yet done (taken from
// any goroutine); owned by the engine goroutine: whether spider_idle was sent since the crawl
// was last busy, the DontCloseSpider retry timer and its period (0: IdleRetry).
type idleState struct {
	holds      atomic.Int64
	sent       bool
	retry      <-chan time.Time
	retryEvery time.Duration
}

// HoldIdle keeps the spider open while work a spider_idle handler started is pending, as a
// JS handler's promise: the crawl does not finish until done is called, exactly once, from
// any goroutine. done(true) asks for a DontCloseSpider retry (the work failed with it).
// Requests the work schedules with Crawl before calling done are seen before done is, so
// the crawl goes on with them; when done leaves the crawl idle, it finishes without sending
// spider_idle again, unless dontClose. A graceful or hard close does not wait for holds.
func (e *Engine) HoldIdle() (done func(dontClose bool)) {
	e.idle.holds.Add(1)
	var called atomic.Bool
	return func(dontClose bool) {
		if called.Swap(true) {
			panic("engine: HoldIdle's done called twice")
		}
		ev := event{kind: evIdleDone}
		if dontClose {
			ev.err = ErrDontCloseSpider
		}
		e.in.post(ev)
	}
}

// held reports whether the idle spider is kept open: a hold is pending or a
// DontCloseSpider retry is due. On the engine goroutine.
func (s *idleState) held() bool {
	return s.holds.Load() > 0 || s.retry != nil
}

// dontClose starts the DontCloseSpider retry timer, unless one runs. On the engine
// goroutine.
func (s *idleState) dontClose() {
	if s.retry == nil {
		d := s.retryEvery
		if d <= 0 {
			d = IdleRetry
		}
		s.retry = time.After(d)
	}
}

// retried is called when the DontCloseSpider retry is due: spider_idle is sent again
// at the next idle pass. On the engine goroutine.
func (s *idleState) retried() {
	s.retry = nil
	s.sent = false
}

// done handles the evIdleDone of a hold. On the engine goroutine.
func (s *idleState) done(ev *event) {
	s.holds.Add(-1)
	if errors.Is(ev.err, ErrDontCloseSpider) {
		s.dontClose()
	}
}
