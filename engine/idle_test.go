package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestIdleHoldAndDontCloseSpider: a spider_idle handler returning ErrDontCloseSpider keeps
// the spider open until spider_idle is sent again (Scrapy: DontCloseSpider), and one taking
// a HoldIdle keeps it open, the engine goroutine not waiting, until the work it started
// crawls more and is done; once done leaves the crawl idle, it finishes.
func TestIdleHoldAndDontCloseSpider(t *testing.T) {
	t.Parallel()
	base := enginetest.Start(t).URL
	e, logs := newEngine(t, &enginetest.Spider{StartURLs: []string{base + "/item/1"}}, nil)
	engine.SetIdleRetry(e, 20*time.Millisecond)
	var idles atomic.Int32
	e.Connect(engine.SpiderIdle, func(_ context.Context, _ engine.SignalEvent) error {
		switch idles.Add(1) {
		case 1:
			return engine.ErrDontCloseSpider
		case 2:
			done := e.HoldIdle()
			go func() {
				time.Sleep(30 * time.Millisecond) // work the handler left running
				e.Crawl(&types.Request{URL: base + "/item/2"})
				done(false)
			}()
		case 3:
			done := e.HoldIdle()
			go done(false) // nothing more: the crawl finishes without a 4th spider_idle
		}
		return nil
	})
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := idles.Load(); n != 3 {
		t.Errorf("spider_idle sent %d times, want 3", n)
	}
	if n := stat(e, "response_received_count"); n != 2 {
		t.Errorf("response_received_count = %d, want 2 (the held handler's request)", n)
	}
	if s := logs.String(); strings.Contains(s, "Error caught on signal handler") {
		t.Errorf("DontCloseSpider was logged as an error:\n%s", s)
	}
}
