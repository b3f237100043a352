package jsapi

// The engine role of Spider: Start, Parse and Errback (engine.Spider), Interrupt
// (engine.Interrupter), and the choice of the VM they run on.

import (
	"context"
	"fmt"
	"mime"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// Interrupt stops the JS running on every VM and closes the VMs; the callbacks running
// fail with an InterruptedError naming reason, and no callback runs afterwards (pipelines
// still do, on a fresh VM). The engine calls it when MEMUSAGE_LIMIT_MB is exceeded
// (engine.Interrupter). Safe from any goroutine.
func (s *Spider) Interrupt(reason string) {
	if !s.interrupted.CompareAndSwap(nil, &reason) {
		return
	}
	vms := []*runtime.VM{s.first}
	if s.pool != nil {
		vms = s.pool.All()
	}
	for _, vm := range vms {
		if vm != nil {
			vm.Interrupt(reason)
			go vm.Close() // the callbacks waiting on it see Done
		}
	}
}

// Start runs the spider's start() on the first VM, or yields startUrls to parse when it
// has none (engine.Spider).
func (s *Spider) Start(ctx context.Context, emit engine.Emit) error {
	return s.run(ctx, s.acquire0, "start", "", emit, true, func(st *vmState) (invocation, error) {
		wrap := st.wrap(st.wrapStart)
		if start := st.spider.Get("start"); isFunction(start) {
			return invocation{fn: start, this: st.spider, wrap: wrap}, nil
		}
		urls := st.spider.Get("startUrls")
		if urls == nil || goja.IsUndefined(urls) || goja.IsNull(urls) {
			s.logger.Warn("the spider has neither start() nor startUrls: nothing to crawl")
			return invocation{result: goja.Undefined()}, nil
		}
		list, err := stringList(st.rt, urls, "startUrls")
		if err != nil {
			return invocation{}, err
		}
		out := make([]any, 0, len(list))
		for _, u := range list {
			if err := s.checkURL(u); err != nil {
				return invocation{}, fmt.Errorf("startUrls: %w", err)
			}
			r, err := st.makeRequest(goja.Undefined(), st.rt.ToValue(u), goja.Undefined())
			if err != nil {
				return invocation{}, err
			}
			out = append(out, r)
		}
		reqs := st.rt.NewArray(out...)
		return invocation{fn: st.rt.ToValue(func(goja.FunctionCall) goja.Value { return reqs }), wrap: wrap}, nil
	})
}

// acquire0 is acquire for the first VM (start() and pipelines run there).
func (s *Spider) acquire0() (*runtime.VM, func(), error) {
	vm, err := s.vm0()
	return vm, func() {}, err
}

func (s *Spider) vm0() (*runtime.VM, error) {
	if s.pool != nil {
		return s.pool.VM(0)
	}
	return s.first, nil
}

func (s *Spider) acquire() (*runtime.VM, func(), error) {
	if s.pool == nil {
		return s.first, func() {}, nil
	}
	return s.pool.Acquire()
}

// isHTML reports whether a body should be parsed as HTML ahead of the callback.
func isHTML(resp *types.Response) bool {
	ct := resp.Headers.Get("Content-Type")
	if ct == "" {
		return strings.HasPrefix(bodyStart(resp), "<")
	}
	mt := mediaType(ct)
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// bodyStart is the start of resp's body past white space and a byte order mark, enough
// to tell HTML from XML when a response has no Content-Type.
func bodyStart(resp *types.Response) string {
	return strings.TrimLeft(string(resp.Body[:min(len(resp.Body), 64)]), " \t\r\n\ufeff")
}

// mediaType is the media type of a Content-Type as mime.ParseMediaType gives it ("" when
// invalid), with the usual HTML values answered without parsing (a map and a lowercased
// copy per call).
func mediaType(ct string) string {
	switch ct {
	case "text/html", "text/html; charset=utf-8", "text/html; charset=UTF-8":
		return "text/html"
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// Parse runs the callback named by the request on a VM of the pool (engine.Spider). The
// HTML is parsed here, on the calling goroutine, so the JS loop only runs JS.
func (s *Spider) Parse(ctx context.Context, resp *types.Response, emit engine.Emit) error {
	h := &respHandle{resp: resp}
	if isHTML(resp) || isXML(resp) {
		h.doc, h.docErr = parseDocument(resp)
		if h.doc != nil {
			h.noted = true
			s.noteFlattened(resp.URL, h.doc)
		}
	}
	name := resp.Request.CallbackName()
	return s.run(ctx, s.acquire, name, resp.URL, emit, false, func(st *vmState) (invocation, error) {
		fn := st.spider.Get(name)
		if resp.Request.Callback == "" {
			// A base spider (CrawlSpider, XMLFeedSpider...) handles requests without a
			// callback in _parse, as Scrapy's Spider._parse.
			if d := st.spider.Get("_parse"); isFunction(d) {
				fn = d
			}
		}
		if !isFunction(fn) {
			return invocation{}, s.missingCallback("method", name, resp.URL)
		}
		jr, err := st.responseToJS(h)
		if err != nil {
			return invocation{}, err
		}
		return st.wrapped(invocation{fn: fn, this: st.spider, args: []goja.Value{jr, toJS(st.rt, kwargs(resp.Request.CbKwargs))}}, jr), nil
	})
}

func kwargs(it types.Item) types.Item {
	if it == nil {
		return types.Item{}
	}
	return it
}

// Errback runs the request's errback with a failure object
// { request, error: { name, message }, response } (engine.Spider).
func (s *Spider) Errback(ctx context.Context, f *types.Failure, emit engine.Emit) error {
	name := f.Request.Errback
	url := f.Request.URL
	if f.Response != nil {
		url = f.Response.URL
	}
	return s.run(ctx, s.acquire, name, url, emit, false, func(st *vmState) (invocation, error) {
		fn := st.spider.Get(name)
		if !isFunction(fn) {
			return invocation{}, s.missingCallback("errback method", name, "")
		}
		rt := st.rt
		fo := rt.NewObject()
		req, err := st.requestToJS(f.Request)
		if err != nil {
			return invocation{}, err
		}
		_ = fo.Set("request", req)
		eo := rt.NewObject()
		_ = eo.Set("name", f.Name)
		_ = eo.Set("message", f.Message)
		_ = fo.Set("error", eo)
		if f.Response != nil {
			jr, err := st.responseToJS(&respHandle{resp: f.Response})
			if err != nil {
				return invocation{}, err
			}
			_ = fo.Set("response", jr)
		} else {
			_ = fo.Set("response", goja.Null())
		}
		return st.wrapped(invocation{fn: fn, this: st.spider, args: []goja.Value{fo}}, fo.Get("response")), nil
	})
}

// Interface guards.
var (
	_ engine.Spider      = (*Spider)(nil)
	_ engine.Opener      = (*Spider)(nil)
	_ engine.Interrupter = (*Spider)(nil)
)
