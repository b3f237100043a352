package engine_test

import chromium "github.com/jscrawl/jscrawl/engine/browser"

// The browser tests of this package (TestRecordReplayBrowser) render pages: browser
// requests go to the browser handler, as in the jscrawl binary.
func init() { chromium.Register() }
