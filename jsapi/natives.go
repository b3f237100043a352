package jsapi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/types"
)

// natives builds the object the preludes receive as n: one object of Go natives per
// JS-visible class (see bind.go), which the preludes destructure at the top, plus the
// spider-output and signal natives below.
func (st *vmState) natives() *goja.Object {
	rt := st.rt
	n := rt.NewObject()
	for name, class := range map[string]*goja.Object{
		"response":  bindClass(rt, "response", responseClass{st}),
		"headers":   bindClass(rt, "headers", headersClass{rt}),
		"urls":      bindClass(rt, "urls", &urlsClass{st: st}),
		"selectors": bindClass(rt, "selectors", selectorClass{st}),
		"links":     bindClass(rt, "links", linksClass{st}),
		"feeds":     bindClass(rt, "feeds", &feedsClass{st: st}),
		"crawl":     bindClass(rt, "crawl", crawlClass{st}),
		"logger":    bindClass(rt, "logger", loggerClass{st}),
	} {
		_ = n.Set(name, class)
	}
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = n.Set(name, namedFunc(rt, name, fn)) }
	throwType := func(msg string) { throwJS(rt, "TypeError", errors.New(msg)) }
	// outputFilters(stage, request, responseHandle|null) runs the built-in spider output
	// filters of stage of the engine's output plan (spider side first) on a request a
	// callback produced: the request as they changed it, or null when one dropped it.
	set("outputFilters", func(c goja.FunctionCall) goja.Value {
		stage := int(c.Argument(0).ToInteger())
		if stage < 0 || stage >= len(st.s.outputPlan) {
			throwType(fmt.Sprintf("outputFilters: no stage %d", stage))
		}
		req, err := requestFromJS(rt, c.Argument(1).ToObject(rt))
		if err != nil {
			throwJS(rt, "TypeError", err)
		}
		var parent *types.Response
		if h, ok := c.Argument(2).Export().(*respHandle); ok {
			parent = h.resp
		}
		out := types.Output{Request: req}
		for _, f := range st.s.outputPlan[stage].Filters {
			var keep bool
			if out, keep = f.ProcessSpiderOutput(st.s.ctx, parent, out); !keep || out.Request == nil {
				return goja.Null()
			}
		}
		v, err := st.requestToJS(out.Request)
		if err != nil {
			throwJS(rt, "TypeError", err)
		}
		return v
	})
	set("connectSignal", func(c goja.FunctionCall) goja.Value {
		name := c.Argument(0).String()
		sig, ok := signalNames[name]
		if !ok {
			throwType(fmt.Sprintf("unknown signal %q: use one of %s", name, strings.Join(signalList(), ", ")))
		}
		st.s.wantSignal(sig)
		return goja.Undefined()
	})
	return n
}
