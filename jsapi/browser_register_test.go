package jsapi_test

import "github.com/jscrawl/jscrawl/engine/browser"

// The browser tests (browser_test.go) render pages: browser requests go to the browser
// handler, as in the jscrawl binary.
func init() { browser.Register() }
