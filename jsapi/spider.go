// Package jsapi is everything spider code sees: the "jscrawl" module (Request, Response,
// Selector, fetch, DropItem, sleep), the crawler and logger objects, and Spider and
// Pipeline, which implement the engine's interfaces on top of a runtime.Pool. It is the
// only package that handles both goja values and engine types.
package jsapi

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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

//go:embed jscrawl.d.ts
var typeDefinitions string

// generatedDefinitions declares the Go-backed classes, from their Go methods and doc
// comments (package internal/dtsgen; TestGeneratedDefinitionsAreCurrent fails when stale).
//
//go:generate go run ./internal/dtsgen/gendts -o jscrawl_gen.d.ts
//go:embed jscrawl_gen.d.ts
var generatedDefinitions string

// TypeDefinitions is jscrawl.d.ts: TypeScript declarations of the "jscrawl" module and the
// globals spiders see, with every known setting and its type (written by `jscrawl types`).
var TypeDefinitions = typeDefinitions + "\n" + generatedDefinitions + settingsDeclarations()

// settingsDeclarations declares SettingsMap from types.Defs, so customSettings and
// crawler.settings.get() are type-checked against the settings jscrawl knows.
func settingsDeclarations() string {
	var b strings.Builder
	b.WriteString("\n// Generated from jscrawl's settings table.\ndeclare module \"jscrawl\" {\n")
	b.WriteString("  /** The settings jscrawl knows, with their types (defaults < customSettings < -s). */\n")
	b.WriteString("  export interface SettingsMap {\n")
	for _, d := range types.Defs {
		ts := "unknown"
		switch d.Kind {
		case types.KindInt, types.KindFloat, types.KindDuration:
			ts = "number"
		case types.KindBool:
			ts = "boolean"
		case types.KindString:
			ts = "string"
		case types.KindList:
			ts = "unknown[]"
		case types.KindMap:
			ts = "Record<string, unknown>"
		}
		who := ""
		switch a := types.AccessOf(d.Key); a {
		case types.OperatorOnly:
			who = " Operator only: a spider's customSettings may not set it (-s " + d.Key + "=VALUE)."
		case types.SpiderPath:
			who = " In customSettings: a relative path inside the working folder."
		case types.SpiderTightens:
			who = " In customSettings: tighter than the default only."
		case types.SpiderChecked:
			who = " In customSettings: checked (no file scheme; paths inside the working folder)."
		}
		fmt.Fprintf(&b, "    /** %s (%s).%s */\n    %s?: %s;\n", d.Doc, d.Kind, who, d.Key, ts)
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

var (
	preludeProg = goja.MustCompile("jscrawl-prelude.js", preludeSrc, true)
	spidersProg = goja.MustCompile("jscrawl-spiders.js", spidersSrc, true)
)

// ModuleName is the name spiders import the API from.
const ModuleName = "jscrawl"

// Crawler is what a running spider reaches of the engine (engine.Engine implements it):
// inline downloads (Scrapy: engine.download_async), stats and settings.
type Crawler interface {
	Download(ctx context.Context, req *types.Request) (*types.Response, error)
	// Backlog is the number of requests waiting to be downloaded; start() pauses while it
	// is high.
	Backlog() int
	// WaitBacklog blocks until Backlog is at most n or ctx ends; start() resumes when it
	// returns.
	WaitBacklog(ctx context.Context, n int) error
	// Connect runs fn each time sig is sent (Scrapy: signals.connect).
	Connect(sig engine.Signal, fn engine.SignalHandler)
	// Crawl schedules a request from anywhere (Scrapy: engine.crawl).
	Crawl(req *types.Request)
	// HoldIdle keeps the idle spider open until done is called: a spider_idle handler's
	// promise is pending (engine.Engine.HoldIdle).
	HoldIdle() (done func(dontClose bool))
	// CloseSpider ends the crawl gracefully with reason (Scrapy: engine.close_spider).
	CloseSpider(reason string)
	// OutputPlan is the spider's part of the spider output chain, which the prelude runs
	// on what callbacks produce (engine.Engine.OutputPlan).
	OutputPlan() []engine.OutputStage
	Stats() *engine.Stats
	Settings() *types.Settings
}

// Options configure Load.
type Options struct {
	// Args are the -a key=value spider arguments, set as instance properties after the
	// constructor.
	Args map[string]string
	// Logger is the crawl's logger; spider logs are tagged with the spider name.
	Logger *slog.Logger
	// Vars are extra JS globals of every VM (for example for the REPL); values must be
	// plain Go data.
	Vars map[string]any
}

// Spider runs a JS spider module on a pool of VMs (JS_VMS; one spider instance per VM).
// It implements engine.Spider, engine.Opener and io.Closer.
type Spider struct {
	prog   *runtime.Program // guarded by mu once the crawl runs (Reload replaces it)
	opts   Options
	logger *slog.Logger // tagged with the spider name

	name        string
	allowed     []string
	custom      map[string]any
	itemFilters map[string]bool // feed URIs of customSettings.FEEDS with an itemFilter
	pipelines   int
	dlmwOrders  []int // the order number of each downloader middleware
	// outOrders: the order number of each spider middleware with an output hook; outIdx:
	// its index in the spiderMiddlewares export
	outOrders, outIdx []int

	crawler    Crawler
	outputPlan []engine.OutputStage // the spider's part of the output chain (engine.OutputPlan)
	schemes    []string             // DOWNLOAD_SCHEMES, read once in Bind
	ctx        context.Context      // the crawl's context, for inline downloads
	opened     bool                 // Open has prepared every VM; guarded by mu
	// interrupted is the reason given to Interrupt (nil until then).
	interrupted atomic.Pointer[string]
	// jsonMaxDepth is JSON_MAX_DEPTH, set by Bind (0 before: the default, see jsonDepth).
	jsonMaxDepth atomic.Int64

	running  running        // callbacks and inline downloads in flight, for Running
	argReads argReads       // the -a arguments read so far (ArgRead)
	closing  sync.WaitGroup // pages JS closed, still closing (pageClass.ClosePage); Close waits

	mu     sync.Mutex
	states map[*runtime.VM]*vmState
	// signals JS handlers were connected to, and whether the engine dispatches them yet
	signals map[engine.Signal]bool
	first   *runtime.VM
	pool    *runtime.Pool
	open    map[*Pipeline]bool // pipelines opened and not yet closed
	job     jobState           // this.state and this.resumed of a job (jobstate.go)
	methods map[string]bool    // the spider's method names (HasCallback)
	reloads int                // how many times Reload swapped the code
	tests   []SpiderTest       // the module's tests export (Tests)
}

// vmState is one VM's spider instance and the prelude's helpers; used on that VM's loop.
type vmState struct {
	s             *Spider
	vm            *runtime.VM
	rt            *goja.Runtime
	spider        *goja.Object
	exports       *goja.Object // the jscrawl module's
	module        *goja.Object // the spider module's exports
	makeRequest   goja.Callable
	wrapOutput    goja.Callable // the prelude's helpers of that name, looked up once
	wrapStart     goja.Callable
	pipelines     []*goja.Object
	dlmws         []*goja.Object // downloaderMiddlewares, in order
	spms          []*goja.Object // spiderMiddlewares, in order
	helpers       *goja.Object
	requestProto  *goja.Object
	selProto      *goja.Object  // Selector methods
	listProto     *goja.Object  // SelectorList methods, inheriting Array.prototype
	headersProto  *goja.Object  // Headers methods
	responseProto *goja.Object  // Response methods and getters (prelude.js adds the JS ones)
	followSlow    goja.Callable // response.follow off its fast path (the prelude's)
	pageProto     *goja.Object  // Page methods
	pageScoped    goja.Callable // the prelude's pageScoped
	urls          *urlsClass
	next          *reloaded // the new code between Reload's two phases
}

func (st *vmState) helper(name string) goja.Value { return st.helpers.Get(name) }

// Load runs the program in a first VM, constructs the spider (the default export: a class
// constructed with no arguments, or a plain object), applies the -a arguments and reads its
// name, allowedDomains, customSettings and pipelines. A name that cannot be one path
// element fails with a *NameError. The other VMs are made by Bind.
func Load(prog *runtime.Program, opts Options) (*Spider, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Spider{prog: prog, opts: opts, logger: opts.Logger, states: map[*runtime.VM]*vmState{}, ctx: context.Background()}
	vm, err := s.newVM()
	if err != nil {
		return nil, err
	}
	s.first = vm
	st := s.states[vm]
	err = vm.Do(context.Background(), func(rt *goja.Runtime) error {
		if err := st.readMethods(); err != nil {
			return err
		}
		if err := st.checkScrapyNames(); err != nil {
			return err
		}
		s.name = st.spider.Get("name").String()
		if err := checkName(s.name); err != nil {
			return err
		}
		var err error
		if s.tests, err = st.readTests(); err != nil {
			return err
		}
		if v := st.spider.Get("allowedDomains"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
			allowed, err := stringList(rt, v, "allowedDomains")
			if err != nil {
				return err
			}
			for i, d := range allowed {
				allowed[i] = types.PunycodeHost(d) // as request URLs have their hosts
			}
			s.allowed = allowed
		}
		if v := st.spider.Get("customSettings"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
			obj, ok := v.(*goja.Object)
			if !ok {
				return errors.New("customSettings must be an object")
			}
			s.custom = map[string]any{}
			for _, k := range obj.Keys() {
				s.custom[k] = exportSetting(rt, obj.Get(k))
			}
			s.takeItemFilters(rt, obj)
		}
		s.pipelines = len(st.pipelines)
		for _, m := range st.dlmws {
			s.dlmwOrders = append(s.dlmwOrders, middlewareOrder(m))
		}
		for i, m := range st.spms {
			if isFunction(m.Get("processSpiderOutput")) || isFunction(m.Get("processSpiderException")) {
				s.outOrders = append(s.outOrders, middlewareOrder(m))
				s.outIdx = append(s.outIdx, i)
			}
		}
		return nil
	})
	if err != nil {
		vm.Close()
		return nil, err
	}
	s.logger = opts.Logger.With("logger", s.name)
	vm.SetLogger(s.logger)
	return s, nil
}

// scrapyNames maps the snake_case names of Scrapy's spider attributes and methods to what
// jscrawl reads instead; base, when set, is the jscrawl base class whose hook it is (a
// method of that name in another spider is the spider's own business). jscrawl spells
// them camelCase and does not read the snake_case ones, so a spider ported as written
// would silently lose them: Load refuses them.
var scrapyNames = []struct{ scrapy, jscrawl, base string }{
	{"start_urls", "startUrls", ""},
	{"start_requests", "start (async *start() { yield ... })", ""},
	{"custom_settings", "customSettings", ""},
	{"allowed_domains", "allowedDomains", ""},
	{"parse_start_url", "parseStartUrl", ""},
	{"handle_httpstatus_list", "meta: { handleHttpStatusList: [...] } on the requests, or customSettings: { HTTPERROR_ALLOWED_CODES: [...] }", ""},
	{"handle_httpstatus_all", "meta: { handleHttpStatusAll: true } on the requests, or customSettings: { HTTPERROR_ALLOW_ALL: true }", ""},
	{"download_delay", "customSettings: { DOWNLOAD_DELAY: ... }", ""},
	{"sitemap_urls", "sitemapUrls", ""},
	{"sitemap_rules", "sitemapRules", ""},
	{"sitemap_follow", "sitemapFollow", ""},
	{"sitemap_alternate_links", "sitemapAlternateLinks", ""},
	{"sitemap_filter", "sitemapFilter", "SitemapSpider"},
	{"process_results", "processResults", "CrawlSpider"},
	{"process_results", "processResults", "XMLFeedSpider"},
	{"process_results", "processResults", "CSVFeedSpider"},
	{"adapt_response", "adaptResponse", "XMLFeedSpider"},
	{"adapt_response", "adaptResponse", "CSVFeedSpider"},
	{"parse_node", "parseNode", "XMLFeedSpider"},
	{"parse_row", "parseRow", "CSVFeedSpider"},
}

// checkScrapyNames refuses a spider that has one of Scrapy's snake_case names (own or
// from its classes), naming jscrawl's for each; on the loop.
func (st *vmState) checkScrapyNames() error {
	var bad []string
	for _, n := range scrapyNames {
		v := st.spider.Get(n.scrapy)
		if v == nil || goja.IsUndefined(v) {
			continue
		}
		if n.base != "" {
			base, ok := st.exports.Get(n.base).(*goja.Object)
			if !ok || !st.rt.InstanceOf(st.spider, base) {
				continue
			}
		}
		bad = append(bad, n.scrapy+": use "+n.jscrawl)
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("the spider uses Scrapy's names, which jscrawl does not read (it spells them camelCase): %s", strings.Join(bad, "; "))
}

func exportSetting(rt *goja.Runtime, v goja.Value) any {
	x, ok, err := exportValue(rt, v, "setting", 0)
	if err != nil || !ok {
		return v.Export()
	}
	return plain(x)
}

// plain turns Items into maps for settings (which are not ordered).
func plain(v any) any {
	switch x := v.(type) {
	case types.Item:
		m := make(map[string]any, len(x))
		for _, f := range x {
			m[f.Key] = plain(f.Value)
		}
		return m
	case []any:
		for i := range x {
			x[i] = plain(x[i])
		}
		return x
	}
	return v
}

// Name returns the spider's name.
func (s *Spider) Name() string { return s.name }

// AllowedDomains returns the spider's allowedDomains (nil: all).
func (s *Spider) AllowedDomains() []string { return s.allowed }

// takeItemFilters finds the itemFilter functions of customSettings.FEEDS, which settings
// (plain data) cannot hold: it records their feed URIs and removes them from s.custom.
func (s *Spider) takeItemFilters(rt *goja.Runtime, custom *goja.Object) {
	feeds, ok := custom.Get(types.Feeds).(*goja.Object)
	if !ok {
		return
	}
	exported, _ := s.custom[types.Feeds].(map[string]any)
	for _, uri := range feeds.Keys() {
		opts, ok := feeds.Get(uri).(*goja.Object)
		if !ok || !isFunction(opts.Get("itemFilter")) {
			continue
		}
		if s.itemFilters == nil {
			s.itemFilters = map[string]bool{}
		}
		s.itemFilters[uri] = true
		if o, ok := exported[uri].(map[string]any); ok {
			delete(o, "itemFilter")
		}
	}
}

// ItemFilter returns the JS itemFilter of the feed uri in customSettings.FEEDS, as a Go
// function that calls it on the spider's first VM (a promise is awaited; the result is
// taken as a boolean), or nil when that feed has none.
func (s *Spider) ItemFilter(uri string) func(types.Item) (bool, error) {
	if !s.itemFilters[uri] {
		return nil
	}
	return func(item types.Item) (bool, error) {
		vm, err := s.vm0()
		if err != nil {
			return false, err
		}
		st := s.state(vm)
		var keep bool
		err = st.await(s.ctx, func(rt *goja.Runtime) (goja.Value, error) {
			feeds := st.spider.Get("customSettings").ToObject(rt).Get(types.Feeds).ToObject(rt)
			fn, ok := goja.AssertFunction(feeds.Get(uri).ToObject(rt).Get("itemFilter"))
			if !ok {
				return nil, fmt.Errorf("customSettings.FEEDS[%q].itemFilter is no longer a function", uri)
			}
			return fn(goja.Undefined(), toJS(rt, item))
		}, func(v goja.Value) error {
			keep = v != nil && v.ToBoolean()
			return nil
		})
		return keep, err
	}
}

// CustomSettings returns the spider's customSettings (Scrapy: custom_settings).
func (s *Spider) CustomSettings() map[string]any { return s.custom }

// Pipelines returns one engine.Pipeline per entry of the module's `pipelines` export, in
// order. They run on the first VM, so a pipeline has one instance whatever JS_VMS is.
func (s *Spider) Pipelines() []engine.Pipeline {
	ps := make([]engine.Pipeline, s.pipelines)
	for i := range ps {
		ps[i] = &Pipeline{s: s, index: i}
	}
	return ps
}

// Bind connects the spider to the crawler and makes the pool of JS_VMS VMs (the first one
// exists already). Call it once, before the crawl starts.
func (s *Spider) Bind(c Crawler) error {
	s.crawler = c
	s.schemes = c.Settings().StringList(types.DownloadSchemes)
	s.jsonMaxDepth.Store(int64(c.Settings().Int(types.JSONMaxDepth)))
	s.outputPlan = c.OutputPlan()
	s.mu.Lock()
	var wanted []engine.Signal
	for sig := range s.signals {
		wanted = append(wanted, sig)
	}
	s.mu.Unlock()
	for _, sig := range wanted {
		s.connectSignal(sig)
	}
	s.first.StartWatchdog(c.Settings().Duration(types.JSCallbackTimeout))
	// The first VM was made before the crawler's settings were known.
	if err := s.first.SetMaxAllocation(int64(c.Settings().Int(types.JSMaxAllocationMB)) << 20); err != nil {
		return err
	}
	n := max(c.Settings().Int(types.JSVMs), 1)
	pool, err := runtime.NewPool(n, func(i int) (*runtime.VM, error) {
		s.mu.Lock()
		first := s.first
		s.mu.Unlock()
		if i == 0 && first != nil && !first.Broken() {
			return first, nil
		}
		vm, err := s.newVM()
		if err != nil {
			return nil, err
		}
		if ctx := s.openCtx(); ctx != nil {
			// A replacement for a VM broken during the crawl: forget the broken VMs (and
			// the memory their JS held), prepare it as Open did, and open the pipelines
			// the engine opened (they run on the first VM).
			s.mu.Lock()
			for old := range s.states {
				if old.Broken() {
					delete(s.states, old)
				}
			}
			s.mu.Unlock()
			err := s.prepareVM(ctx, vm)
			if err == nil && i == 0 {
				err = s.reopenPipelines(ctx, vm)
			}
			if err != nil {
				vm.Close()
				return nil, err
			}
		}
		if i == 0 {
			s.mu.Lock()
			s.first = vm
			s.mu.Unlock()
		}
		return vm, nil
	})
	if err != nil {
		return err
	}
	s.pool = pool
	return nil
}

// Open records the crawl's context for inline downloads (engine.Opener).
// On every VM it then calls the spider's setup(crawler), when defined, and awaits it: the
// place to connect signal handlers, after the -a arguments are set and before
// spider_opened.
func (s *Spider) Open(ctx context.Context) error {
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	vms := []*runtime.VM{s.first}
	if s.pool != nil {
		vms = s.pool.All()
	}
	for _, vm := range vms {
		if err := s.prepareVM(ctx, vm); err != nil {
			return err
		}
	}
	// setup() may have added methods (this.parseX = ...): read the names again.
	if st := s.state(vms[0]); st != nil {
		if err := vms[0].Do(ctx, func(*goja.Runtime) error { return st.readMethods() }); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.opened = true
	s.mu.Unlock()
	return nil
}

// reopenPipelines calls open(spider) of the pipelines still open on vm, a VM that replaces
// the first one: its pipeline objects are new.
func (s *Spider) reopenPipelines(ctx context.Context, vm *runtime.VM) error {
	s.mu.Lock()
	var idx []int
	for p := range s.open {
		idx = append(idx, p.index)
	}
	s.mu.Unlock()
	sort.Ints(idx)
	st := s.state(vm)
	for _, i := range idx {
		err := st.await(ctx, func(*goja.Runtime) (goja.Value, error) {
			obj := st.pipelines[i]
			fn, isFn := goja.AssertFunction(obj.Get("open"))
			if !isFn {
				return nil, nil
			}
			return fn(obj, st.spider)
		}, func(goja.Value) error { return nil })
		if err != nil {
			return fmt.Errorf("pipelines[%d].open() on a fresh VM: %w", i, err)
		}
	}
	return nil
}

// openCtx is the crawl's context once Open ran (nil before).
func (s *Spider) openCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opened {
		return nil
	}
	return s.ctx
}

// prepareVM gives vm the output plan and runs the spider's setup() on it: for every VM
// at Open, and for a VM that replaces a broken one (JS_CALLBACK_TIMEOUT) later.
func (s *Spider) prepareVM(ctx context.Context, vm *runtime.VM) error {
	st := s.state(vm)
	err := st.await(ctx, func(*goja.Runtime) (goja.Value, error) { return nil, st.setOutputPlan() },
		func(goja.Value) error { return nil })
	if err != nil {
		return err
	}
	if err := s.setup(ctx, vm); err != nil {
		return fmt.Errorf("%s.setup(): %w", s.name, err)
	}
	return nil
}

func (s *Spider) setup(ctx context.Context, vm *runtime.VM) error {
	st := s.state(vm)
	return st.await(ctx, func(*goja.Runtime) (goja.Value, error) {
		fn, isFn := goja.AssertFunction(st.spider.Get("setup"))
		if !isFn {
			return nil, nil
		}
		return fn(st.spider, st.spider.Get("crawler"))
	}, func(goja.Value) error { return nil })
}

// Close closes every VM (io.Closer). Pipelines still open are closed first, since they run
// on the spider's VM: the engine closes the spider before its pipelines.
// In a job (SetJobState), this.state is then read a last time, so JobState returns the
// final state after Close.
func (s *Spider) Close() error {
	s.mu.Lock()
	var open []*Pipeline
	for p := range s.open {
		open = append(open, p)
	}
	s.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return open[i].index < open[j].index })
	for _, p := range open {
		if err := p.Close(); err != nil {
			s.logger.Error(fmt.Sprintf("Error closing pipelines[%d]: %v", p.index, err))
		}
	}
	s.saveFinalState()
	s.closing.Wait()
	if s.pool != nil {
		s.pool.Close()
	} else if s.first != nil {
		s.first.Close()
	}
	return nil
}

func (s *Spider) state(vm *runtime.VM) *vmState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[vm]
}

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
			ModuleName: func(rt *goja.Runtime, module *goja.Object) { _ = module.Set("exports", st.exports) },
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
	return nil
}

// construct makes the spider instance from the module's exports.
func (st *vmState) construct(exports *goja.Object) error {
	rt := st.rt
	st.module = exports
	def := exports.Get("default")
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
