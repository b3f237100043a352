package engine

import "github.com/jscrawl/jscrawl/engine/frontier"

// The tests of the engine's package (and of engine_test, in the same binary) spill to
// engine/frontier's store, as the jscrawl binary does (newApp).
func init() {
	RegisterSpillStore(func(dir string, fifo bool) (SpillStore, error) {
		f, err := frontier.Open(dir, frontier.Options{FIFO: fifo, SlotKey: SlotKey})
		if err != nil {
			return nil, err
		}
		return f, nil
	})
}

// Interface guards
var _ SpillStore = (*frontier.Frontier)(nil)
