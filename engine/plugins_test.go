package engine_test

import (
	chromium "github.com/jscrawl/jscrawl/engine/browser"
	"github.com/jscrawl/jscrawl/engine/impersonate"
)

// The tests of this package use the plug-ins the jscrawl binary registers (plugins.go):
// browser requests render in Chromium (TestRecordReplayBrowser) and HTTP_IMPERSONATE
// presents engine/impersonate's profiles (impersonate_test.go, the guarded-site tests).
func init() {
	chromium.Register()
	impersonate.Register()
}
