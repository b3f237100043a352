package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi"
)

// warnIgnoredDemo warns once when a spider run with --demo has not read its baseUrl
// argument by the time its first request is scheduled (or, with none, by the end of the
// crawl): its URLs are its own, not the demo site's.
func warnIgnoredDemo(eng *engine.Engine, spider jsapi.Introspection, logger *slog.Logger, demoURL string) {
	var once sync.Once
	check := func(context.Context, engine.SignalEvent) error {
		once.Do(func() {
			if !spider.ArgRead("baseUrl") {
				logger.Warn(fmt.Sprintf("The spider ignores the demo site at %s: it never read this.baseUrl, which --demo sets to the demo's address", demoURL))
			}
		})
		return nil
	}
	eng.Connect(engine.RequestScheduled, check)
	eng.Connect(engine.SpiderClosed, check)
}
