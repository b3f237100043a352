package jsapi

import (
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// NewEngine builds the engine that crawls with crawl (s itself, or a command's wrapper of
// it, as jscrawl parse's) and binds s to it, the one call that wires a loaded spider:
// engine.New asks s for its own middlewares' order numbers and compiles both chains with
// them, and Bind gives s its part of the spider output chain (engine.Engine.OutputPlan),
// the crawler and the pool of JS_VMS VMs.
func (s *Spider) NewEngine(crawl engine.Spider, settings *types.Settings, opts ...engine.Option) (*engine.Engine, error) {
	e := engine.New(crawl, settings, opts...)
	if err := s.Bind(e); err != nil {
		return nil, err
	}
	return e, nil
}
