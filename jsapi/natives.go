package jsapi

import (
	"github.com/dop251/goja"
)

// natives builds the object the preludes receive as n: one object of Go natives per
// JS-visible class (see bind.go), which the preludes destructure at the top.
func (st *vmState) natives() *goja.Object {
	rt := st.rt
	n := rt.NewObject()
	st.urls = &urlsClass{st: st}
	for name, class := range map[string]*goja.Object{
		"response":  bindClass(rt, "response", responseClass{st}),
		"headers":   bindClass(rt, "headers", headersClass{st}),
		"urls":      bindClass(rt, "urls", st.urls),
		"selectors": bindClass(rt, "selectors", selectorClass{st}),
		"links":     bindClass(rt, "links", linksClass{st}),
		"feeds":     bindClass(rt, "feeds", &feedsClass{st: st}),
		"crawl":     bindClass(rt, "crawl", crawlClass{st}),
		"logger":    bindClass(rt, "logger", loggerClass{st}),
		"output":    bindClass(rt, "output", outputClass{st}),
		"signals":   bindClass(rt, "signals", signalsClass{st, &signalHub{st: st}}),
		"page":      bindClass(rt, "page", pageClass{st}),
	} {
		_ = n.Set(name, class)
	}
	return n
}
