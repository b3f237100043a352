package browser_test

import (
	"os"
	"testing"

	"github.com/jscrawl/jscrawl/engine/browser"
)

// TestMain routes browser requests to the browser handler, as the jscrawl binary does.
// The crawl helpers (Settings, Crawl, NewEngine, Stat, Relay) are enginetest's.
func TestMain(m *testing.M) {
	browser.Register()
	os.Exit(m.Run())
}
