// Package jsapi is everything spider code sees: the "jscrawl" module (Request, Response,
// Selector, fetch, DropItem, sleep), the crawler and logger objects, and Spider and
// Pipeline, which implement the engine's interfaces on top of a runtime.Pool. It is the
// only package that handles both goja values and engine types.
package jsapi

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
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
// Its own methods are the engine role (EngineRole: engine.Spider, engine.Opener, io.Closer
// and the engine's other optional interfaces); the embedded Info is its introspection, and
// Dev returns its developer tools (see roles.go).
type Spider struct {
	// Info is what Load read of the spider (Introspection).
	Info

	prog   *runtime.Program // guarded by mu once the crawl runs (Reload replaces it)
	opts   Options
	logger *slog.Logger // tagged with the spider name

	itemFilters map[string]bool // feed URIs of customSettings.FEEDS with an itemFilter
	pipelines   int
	dlmwOrders  []int // the order number of each downloader middleware
	// outOrders: the order number of each spider middleware with an output hook; outIdx:
	// its index in the spiderMiddlewares export
	outOrders, outIdx []int

	crawler    Crawler
	outputPlan []engine.OutputStage // the spider's part of the output chain (engine.OutputPlan)
	schemes    []string             // DOWNLOAD_SCHEMES, read once in Bind
	// callbackBudget is CALLBACK_TIMEOUT and highWater the backlog at which start() pauses
	// (startHighWater), read once in Bind.
	callbackBudget time.Duration
	highWater      int
	ctx            context.Context // the crawl's context, for inline downloads
	opened         bool            // Open has prepared every VM; guarded by mu
	// interrupted is the reason given to Interrupt (nil until then).
	interrupted atomic.Pointer[string]
	// jsonMaxDepth is JSON_MAX_DEPTH, set by Bind (0 before: the default, see jsonDepth).
	jsonMaxDepth atomic.Int64

	running running        // callbacks and inline downloads in flight, for DevTools.Running
	closing sync.WaitGroup // pages JS closed, still closing (pageClass.ClosePage); Close waits

	mu     sync.Mutex
	states map[*runtime.VM]*vmState
	// signals JS handlers were connected to, and whether the engine dispatches them yet
	signals map[engine.Signal]bool
	first   *runtime.VM
	pool    *runtime.Pool
	open    map[*Pipeline]bool // pipelines opened and not yet closed
	job     jobState           // this.state and this.resumed of a job (jobstate.go)
	reloads int                // how many times DevTools.Reload swapped the code
	tests   []SpiderTest       // the module's tests export (DevTools.Tests)
	crawlee crawleeState       // what the Crawlee layer shares over the VMs (crawlee.go)
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
	cheerioProto  *goja.Object // Cheerio methods (cheerio_api.go)
	cheerioStatic *goja.Object // the prototype of every $ function: $.html(), $.root()...
	cheerioKey    *goja.Symbol // the property of a $ function holding its document
	cheerioModule *goja.Object // the "cheerio" module's exports
	next          *reloaded    // the new code between Reload's two phases
	// crawlee is crawlee.js's helpers, crawleeExports the "crawlee" module's exports.
	crawlee, crawleeExports *goja.Object
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

func (s *Spider) state(vm *runtime.VM) *vmState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[vm]
}
