package main

import (
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/browser"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/engine/impersonate"
)

// registerPlugins gives the engine the plug-ins that live outside it, for every command:
// browser requests render in Chromium (engine/browser), HTTP_IMPERSONATE presents a
// browser's TLS and HTTP/2 fingerprint (engine/impersonate), and a memory scheduler past
// SCHEDULER_MEMORY_MAX spills to engine/frontier's pebble store. newApp calls it; calling
// it again changes nothing.
func registerPlugins() {
	browser.Register()
	impersonate.Register()
	engine.RegisterSpillStore(openSpill)
}

// openSpill opens a scheduler's spill store: a frontier queueing per download slot.
func openSpill(dir string, fifo bool) (engine.SpillStore, error) {
	f, err := frontier.Open(dir, frontier.Options{FIFO: fifo, SlotKey: engine.SlotKey})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Interface guards
var _ engine.SpillStore = (*frontier.Frontier)(nil)
