package jsapi

import (
	"context"
	"io"

	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/engine/job"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// The roles a *Spider serves, each for its own callers: a caller that needs one role takes
// that interface, so what it may do with the spider reads from its signature. *Spider
// implements them all on one VM pool.

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

// DevTools is the spider as the developer's tools use it, none of which a plain crawl
// calls: run --watch swaps its code (Reload), jscrawl shell opens a REPL on it (NewREPL),
// jscrawl test runs its tests export (Tests) and the control endpoint lists what runs
// (Running).
type DevTools interface {
	// Reload swaps the spider's code for prog; callbacks running now finish with the code
	// they started with.
	Reload(ctx context.Context, prog *runtime.Program) error
	// NewREPL prepares the first VM for a REPL (after Bind); print receives its output.
	NewREPL(print func(string)) (*REPL, error)
	// Tests returns the module's tests export.
	Tests() []SpiderTest
	// Running lists the callbacks and inline downloads in flight.
	Running() (callbacks []CallbackInfo, orphans []InlineDownload)
}

// Introspection is what the commands read about the loaded spider: its name, domains,
// settings, methods and which -a arguments it read. Safe from any goroutine once Load has
// returned.
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

// Interface guards.
var (
	_ EngineRole    = (*Spider)(nil)
	_ DevTools      = (*Spider)(nil)
	_ Introspection = (*Spider)(nil)
)
