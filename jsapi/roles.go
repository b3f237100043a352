package jsapi

import (
	"io"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/job"
	"github.com/jscrawl/jscrawl/types"
)

// The roles a *Spider serves, each for its own callers, and each with its methods in its
// own files:
//   - the engine role (EngineRole): the methods of *Spider itself (enginerole.go,
//     lifecycle.go, pipeline.go, middleware.go, jobstate.go, ...);
//   - introspection (Introspection): *Info, which *Spider embeds (info.go);
//   - the developer's tools: *DevTools, from Spider.Dev (reload.go, repl.go,
//     spidertests.go, running.go).
// A caller that needs one role takes that type, so what it may do with the spider reads
// from its signature.

// EngineRole is the spider as the crawl drives it: the engine (engine.Spider and its
// optional interfaces, called from the engine's goroutines as they document), the job that
// saves its state, and the wiring in jscrawl run (Bind, Pipelines, ItemFilter,
// SetJobState before the crawl; Close after it).
type EngineRole interface {
	engine.Spider
	engine.Opener
	engine.Interrupter
	engine.OwnMiddlewares
	engine.BlockDetector
	job.StateSource
	io.Closer
	// Bind gives the spider its crawler (settings, stats, signals, the inline download
	// path) and makes the other VMs.
	Bind(c Crawler) error
	// Pipelines returns the spider's item pipelines, in order.
	Pipelines() []engine.Pipeline
	// ItemFilter returns the itemFilter of the feed uri in customSettings.FEEDS, or nil.
	ItemFilter(uri string) func(types.Item) (bool, error)
	// SetJobState gives the spider its job's saved state (nil: a new job).
	SetJobState(state []byte, resumed bool) error
}

// Introspection is what the commands read about the loaded spider: its name, domains,
// settings, methods and which -a arguments it read (*Info implements it). Safe from any
// goroutine once Load has returned.
type Introspection interface {
	// Name returns the spider's name.
	Name() string
	// AllowedDomains returns the spider's allowedDomains.
	AllowedDomains() []string
	// CustomSettings returns the spider's customSettings.
	CustomSettings() map[string]any
	// HasCallback reports whether the spider has a method name.
	HasCallback(name string) bool
	// ArgRead reports whether the spider read the -a argument name.
	ArgRead(name string) bool
}

// DevTools is the spider as the developer's tools use it, none of which a plain crawl
// calls: run --watch swaps its code (Reload), jscrawl shell opens a REPL on it (NewREPL),
// jscrawl test runs its tests export (Tests) and the control endpoint lists what runs
// (Running). Its methods are safe from any goroutine unless their docs say otherwise.
type DevTools struct{ s *Spider }

// Dev returns the spider's developer tools.
func (s *Spider) Dev() *DevTools { return &DevTools{s: s} }

// Interface guards.
var (
	_ EngineRole    = (*Spider)(nil)
	_ Introspection = (*Info)(nil)
	_ Introspection = (*Spider)(nil)
)
