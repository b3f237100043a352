package jsapi

// Introspection: Info, what Load reads of a spider once (its name, allowedDomains and
// customSettings) and what it learns as the spider runs (its methods, the -a arguments read).

import (
	"sync"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// Info is the spider as the commands read it (Introspection). Spider embeds it, so its
// methods are the spider's too: the engine finds Name, AllowedDomains and HasCallback on
// the spider it drives by type assertion. Safe from any goroutine once Load has returned.
type Info struct {
	name    string
	allowed []string
	custom  map[string]any

	argReads argReads // the -a arguments read so far (ArgRead)

	methodsMu sync.Mutex
	methods   map[string]bool // the spider's method names (HasCallback); guarded by methodsMu
}

// Name returns the spider's name.
func (in *Info) Name() string { return in.name }

// AllowedDomains returns the spider's allowedDomains (nil: all).
func (in *Info) AllowedDomains() []string { return in.allowed }

// CustomSettings returns the spider's customSettings (Scrapy: custom_settings).
func (in *Info) CustomSettings() map[string]any { return in.custom }

// ArgRead reports whether the spider (on any VM) has read its argument name so far. It is
// false for a name that is not an argument. Safe from any goroutine.
func (in *Info) ArgRead(name string) bool {
	in.argReads.mu.Lock()
	defer in.argReads.mu.Unlock()
	return in.argReads.read[name]
}

// HasCallback reports whether the spider (its class, a base spider, or the instance) has a
// method name, so a restored request whose callback no longer exists can be reported.
// The empty name is the default callback: parse, or a base spider's _parse (as Parse
// dispatches it). The names are read when the spider is loaded and again once it is
// opened (after setup()); safe from any goroutine.
func (in *Info) HasCallback(name string) bool {
	in.methodsMu.Lock()
	defer in.methodsMu.Unlock()
	if name == "" {
		return in.methods["parse"] || in.methods["_parse"]
	}
	return in.methods[name]
}

// readMethods records the names of the methods of vm's spider (for HasCallback); on the loop.
func (st *vmState) readMethods() error {
	fn, _ := goja.AssertFunction(st.helper("methodNames"))
	res, err := fn(goja.Undefined(), st.spider)
	if err != nil {
		return runtime.ToScriptError(err)
	}
	var names []string
	if err := st.rt.ExportTo(res, &names); err != nil {
		return err
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	in := &st.s.Info
	in.methodsMu.Lock()
	in.methods = m
	in.methodsMu.Unlock()
	return nil
}
