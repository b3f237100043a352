package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/types"
)

// TestSignalEvents: each signal's handlers get the SignalEvent fields it has.
func TestSignalEvents(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[engine.Signal]engine.SignalEvent{}
	record := func(_ context.Context, ev engine.SignalEvent) error {
		mu.Lock()
		defer mu.Unlock()
		got[ev.Signal] = ev
		return nil
	}
	page := enginetest.Start(t).URL + "/item/1"
	e, _ := newEngine(t, &enginetest.Spider{StartURLs: []string{page}, ParseFunc: keptAndDropped},
		nil, engine.WithPipelines(pipelineFunc(dropUnkept)))
	for _, s := range []engine.Signal{engine.RequestScheduled, engine.ResponseReceived, engine.ItemScraped,
		engine.ItemDropped, engine.SpiderClosed} {
		e.Connect(s, record)
	}
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ev := got[engine.RequestScheduled]; ev.Request == nil || ev.Request.URL != page {
		t.Errorf("request_scheduled: %+v", ev)
	}
	if ev := got[engine.ResponseReceived]; ev.Response == nil || ev.Request == nil || ev.Response.URL != page || ev.Request.URL != page {
		t.Errorf("response_received: %+v", ev)
	}
	if ev := got[engine.ItemScraped]; len(ev.Item) != 1 || ev.Response == nil || ev.Response.URL != page || ev.Err != nil {
		t.Errorf("item_scraped: %+v", ev)
	}
	if ev := got[engine.ItemDropped]; len(ev.Item) != 1 || !errors.Is(ev.Err, engine.ErrDropItem) {
		t.Errorf("item_dropped: %+v", ev)
	}
	if ev := got[engine.SpiderClosed]; ev.Reason != "finished" {
		t.Errorf("spider_closed: %+v", ev)
	}
}

// keptAndDropped emits an item dropUnkept keeps and one it drops.
func keptAndDropped(_ context.Context, _ *types.Response, emit engine.Emit) error {
	emit(types.Output{Item: types.Item{{Key: "keep", Value: true}}})
	emit(types.Output{Item: types.Item{{Key: "keep", Value: false}}})
	return nil
}

func dropUnkept(_ context.Context, it types.Item) (types.Item, error) {
	if v, _ := it.Get("keep"); v == false {
		return nil, engine.ErrDropItem
	}
	return it, nil
}

// TestDeferrableSignals: the signals whose handlers the sender may wait for are Scrapy's
// ("This signal supports returning deferreds from its handlers").
func TestDeferrableSignals(t *testing.T) {
	t.Parallel()
	for s, want := range map[engine.Signal]bool{
		engine.EngineStarted: true, engine.SpiderOpened: true, engine.SpiderClosed: true,
		engine.ItemScraped: true, engine.ItemDropped: true, engine.ItemError: true,
		engine.SpiderIdle: false, engine.RequestScheduled: false, engine.RequestDropped: false,
		engine.ResponseReceived: false, engine.SpiderError: false,
	} {
		if s.Deferrable() != want {
			t.Errorf("%s.Deferrable() = %v, want %v", s, !want, want)
		}
	}
}
