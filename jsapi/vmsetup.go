package jsapi

// How a spider VM is made: the jscrawl API and preludes installed, the bundle run, the
// spider, its pipelines and middlewares constructed.

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

//go:embed prelude.js
var preludeSrc string

//go:embed spiders.js
var spidersSrc string

var (
	preludeProg = goja.MustCompile("jscrawl-prelude.js", preludeSrc, true)
	spidersProg = goja.MustCompile("jscrawl-spiders.js", spidersSrc, true)
)

// newVM makes a VM with the API, runs the bundle and constructs the spider instance.
func (s *Spider) newVM() (*runtime.VM, error) {
	st := &vmState{s: s}
	var timeout time.Duration
	var maxAlloc int64
	if s.crawler != nil {
		timeout = s.crawler.Settings().Duration(types.JSCallbackTimeout)
		selector.SetMatchTimeout(timeout) // re() and re:test() run in native code, out of the watchdog's reach
		maxAlloc = int64(s.crawler.Settings().Int(types.JSMaxAllocationMB)) << 20
	}
	vm, err := runtime.NewVM(runtime.Options{
		Modules: map[string]runtime.ModuleLoader{
			ModuleName:           func(rt *goja.Runtime, module *goja.Object) { _ = module.Set("exports", st.exports) },
			CheerioModuleName:    func(rt *goja.Runtime, module *goja.Object) { _ = module.Set("exports", st.cheerioModule) },
			CrawleeModule:        func(rt *goja.Runtime, module *goja.Object) { _ = module.Set("exports", st.crawleeExports) },
			CrawleeCheerioModule: func(rt *goja.Runtime, module *goja.Object) { _ = module.Set("exports", st.crawleeExports) },
		},
		Logger:          slog.New(spiderLogHandler{s}),
		CallbackTimeout: timeout,
		MaxAllocation:   maxAlloc,
		OnUnhandledRejection: func(err *runtime.ScriptError) {
			s.countException(err)
			s.logger.Error(err.Error())
		},
	})
	if err != nil {
		return nil, err
	}
	st.vm = vm
	err = vm.Do(context.Background(), func(rt *goja.Runtime) error {
		st.rt = rt
		if err := st.install(); err != nil {
			return err
		}
		s.mu.Lock()
		prog := s.prog
		s.mu.Unlock()
		exports, err := vm.Load(prog)
		if err != nil {
			return err
		}
		return st.construct(exports)
	})
	if err != nil {
		vm.Close()
		return nil, err
	}
	s.mu.Lock()
	s.states[vm] = st
	s.mu.Unlock()
	return vm, nil
}

// spiderLogHandler sends console output to the spider's logger as it is when the record is
// written, so a VM made before the spider's name was known (the first one, made by Load)
// still tags callback output with the name.
type spiderLogHandler struct{ s *Spider }

func (h spiderLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.s.logger.Handler().Enabled(ctx, l)
}

func (h spiderLogHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.s.logger.Handler().Handle(ctx, r)
}

func (h spiderLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return h.s.logger.Handler().WithAttrs(as)
}

func (h spiderLogHandler) WithGroup(name string) slog.Handler {
	return h.s.logger.Handler().WithGroup(name)
}

// instances reads an exported array of objects or classes (constructed with no arguments).
func instances(rt *goja.Runtime, exports *goja.Object, name string) ([]*goja.Object, error) {
	v := exports.Get(name)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	arr, ok := v.(*goja.Object)
	if !ok || arr.ClassName() != "Array" {
		return nil, fmt.Errorf("export const %s must be an array of objects or classes", name)
	}
	n := int(arr.Get("length").ToInteger())
	out := make([]*goja.Object, 0, n)
	for i := 0; i < n; i++ {
		p := arr.Get(fmt.Sprint(i))
		if _, isFn := goja.AssertFunction(p); isFn {
			obj, err := rt.New(p)
			if err != nil {
				return nil, runtime.ToScriptError(err)
			}
			out = append(out, obj)
			continue
		}
		obj, ok := p.(*goja.Object)
		if !ok {
			return nil, fmt.Errorf("%s[%d] must be an object or a class", name, i)
		}
		out = append(out, obj)
	}
	return out, nil
}

// install runs the API prelude with its Go natives.
func (st *vmState) install() error {
	rt := st.rt
	for k, v := range st.s.opts.Vars {
		if err := rt.Set(k, v); err != nil {
			return err
		}
	}
	if err := st.installJSON(); err != nil {
		return err
	}
	st.installSelectors()
	st.installHeaders()
	st.installResponse()
	st.installPage()
	st.installCheerio()
	f, err := rt.RunProgram(preludeProg)
	if err != nil {
		return err
	}
	init, _ := goja.AssertFunction(f)
	natives := st.natives()
	res, err := init(goja.Undefined(), rt.GlobalObject(), natives)
	if err != nil {
		return runtime.ToScriptError(err)
	}
	o := res.ToObject(rt)
	st.helpers = o
	st.exports = o.Get("exports").ToObject(rt)
	// spiders.js adds LinkExtractor and the base spiders to the module.
	f, err = rt.RunProgram(spidersProg)
	if err != nil {
		return err
	}
	initSpiders, _ := goja.AssertFunction(f)
	more, err := initSpiders(goja.Undefined(), rt.GlobalObject(), natives, o.Get("internals"))
	if err != nil {
		return runtime.ToScriptError(err)
	}
	mo := more.ToObject(rt)
	for _, k := range mo.Keys() {
		if err := st.exports.Set(k, mo.Get(k)); err != nil {
			return err
		}
	}
	st.wrapOutput, _ = goja.AssertFunction(o.Get("wrapOutput"))
	st.wrapStart, _ = goja.AssertFunction(o.Get("wrapStart"))
	st.makeRequest, _ = goja.AssertFunction(o.Get("makeRequest"))
	st.requestProto = o.Get("requestProto").ToObject(rt)
	return st.installCrawlee(natives)
}

// construct makes the spider instance from the module's exports.
func (st *vmState) construct(exports *goja.Object) error {
	rt := st.rt
	st.module = exports
	def := exports.Get("default")
	if cs, err := st.crawleeSpider(exports); err != nil {
		return err
	} else if cs != nil {
		def = cs
	}
	if def == nil || goja.IsUndefined(def) || goja.IsNull(def) {
		return errors.New("the spider module has no default export: export default class MySpider { name = \"...\"; ... }")
	}
	var spider *goja.Object
	if _, isFn := goja.AssertFunction(def); isFn {
		obj, err := rt.New(def)
		if err != nil {
			return runtime.ToScriptError(err)
		}
		spider = obj
	} else if obj, ok := def.(*goja.Object); ok {
		spider = obj
	} else {
		return fmt.Errorf("the default export must be a spider class or object, got %s", def.String())
	}
	if n := spider.Get("name"); n == nil || goja.IsUndefined(n) || goja.IsNull(n) || n.String() == "" {
		return errors.New("the spider has no name: set name = \"myspider\"")
	}
	if err := st.applyArgs(spider); err != nil {
		return err
	}
	st.spider = spider
	if err := st.initJobState(); err != nil {
		return err
	}
	setSpider, _ := goja.AssertFunction(st.helper("setSpider"))
	if _, err := setSpider(goja.Undefined(), spider); err != nil {
		return err
	}
	crawler := st.crawlerObject()
	if err := spider.Set("crawler", crawler); err != nil {
		return err
	}
	logger, _ := goja.AssertFunction(st.helper("logger"))
	lg, err := logger(goja.Undefined(), spider.Get("name"))
	if err != nil {
		return err
	}
	if err := spider.Set("logger", lg); err != nil {
		return err
	}
	if st.pipelines, err = instances(rt, exports, "pipelines"); err != nil {
		return err
	}
	if st.dlmws, err = instances(rt, exports, "downloaderMiddlewares"); err != nil {
		return err
	}
	if st.spms, err = instances(rt, exports, "spiderMiddlewares"); err != nil {
		return err
	}
	set, _ := goja.AssertFunction(st.helper("setSpiderMiddlewares"))
	list := make([]any, len(st.spms))
	for i, m := range st.spms {
		list[i] = m
	}
	if _, err := set(goja.Undefined(), rt.NewArray(list...)); err != nil {
		return err
	}
	if st.s.crawler != nil {
		return st.setOutputPlan()
	}
	return nil
}

// middlewareOrder is the order number of a JS middleware: its `order` property when that
// is a number, else engine.DefaultMiddlewareOrder.
func middlewareOrder(m *goja.Object) int {
	if v := m.Get("order"); v != nil {
		if o, ok := engine.MiddlewareOrder(v.Export()); ok {
			return o
		}
	}
	return engine.DefaultMiddlewareOrder
}

// setOutputPlan gives the prelude the spider's part of the output chain (the engine's plan),
// spider side first: { mw } for the spider middleware mw of the export, { go } for the
// built-in filters of the plan's stage go (natives.outputFilters); on the loop.
func (st *vmState) setOutputPlan() error {
	rt := st.rt
	list := make([]any, len(st.s.outputPlan))
	for i, stage := range st.s.outputPlan {
		o := rt.NewObject()
		if stage.Own >= 0 {
			_ = o.Set("mw", st.s.outIdx[stage.Own])
		} else {
			_ = o.Set("go", i)
		}
		list[i] = o
	}
	set, _ := goja.AssertFunction(st.helper("setOutputPlan"))
	_, err := set(goja.Undefined(), rt.NewArray(list...))
	return err
}
