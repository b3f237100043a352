package jsapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// crawlerObject is this.crawler: settings, stats, engine, signals, download (Scrapy's
// Crawler), http (a client for services) and sessions. Each part is a Go type whose methods are bound as the object's functions.
func (st *vmState) crawlerObject() *goja.Object {
	c := st.rt.NewObject()
	_ = c.Set("settings", visibleObject(st.rt, crawlerSettings{st}))
	_ = c.Set("stats", visibleObject(st.rt, crawlerStats{st}))
	_ = c.Set("signals", st.helper("signals"))
	_ = c.Set("engine", visibleObject(st.rt, crawlerEngine{st}))
	_ = c.Set("download", st.helper("crawlerDownload"))
	_ = c.Set("http", st.helper("crawlerHTTP"))
	_ = c.Set("sessions", visibleObject(st.rt, crawlerSessions{st}))
	return c
}

// visibleObject makes a plain object whose enumerable properties are v's methods.
func visibleObject[T any](rt *goja.Runtime, v T) *goja.Object {
	o := rt.NewObject()
	bindMethods(rt, o, v, &bindOptions{visible: true})
	return o
}

// crawlerSettings is this.crawler.settings: the crawl's settings, read with typed getters
// (Scrapy: settings.getint...). Before the crawl starts they read undefined. Spider code
// is untrusted: a secret setting (types.SecretSetting) reads masked, by every getter.
//
// The crawl's settings (defaults < customSettings < -s).
//
//jscrawl:class interface Settings
type crawlerSettings struct{ st *vmState }

// setting reads key with read, or the default given as argument 1 when key is not set.
func (x crawlerSettings) setting(c goja.FunctionCall, read func(*types.Settings, string) any) (goja.Value, error) {
	s := x.st.s
	if s.crawler == nil {
		return goja.Undefined(), nil
	}
	key := c.Argument(0).String()
	settings := s.crawler.Settings()
	if settings.Get(key) == nil {
		if d := c.Argument(1); !goja.IsUndefined(d) {
			return d, nil
		}
	}
	if types.SecretSetting(key) {
		settings = maskedSetting(settings, key)
	}
	return toJS(x.st.rt, read(settings, key)), nil
}

// maskedSetting returns settings holding only key, with its value masked
// (types.MaskSetting), for a typed getter to read as it reads the real one.
func maskedSetting(settings *types.Settings, key string) *types.Settings {
	m := types.NewSettings()
	if err := m.Set(key, types.MaskSetting(key, settings.Get(key)), types.PriorityCmdline); err != nil {
		_ = m.Set(key, nil, types.PriorityCmdline) // a mask its kind refuses reads as unset
	}
	return m
}

// Get returns the setting as it is, or `def` when it is not set.
//
//jscrawl:ts get<K extends keyof SettingsMap>(key: K, def?: SettingsMap[K]): SettingsMap[K];
//jscrawl:ts get(key: string, def?: unknown): any;
func (x crawlerSettings) Get(c goja.FunctionCall) (goja.Value, error) {
	return x.setting(c, (*types.Settings).Get)
}

// GetInt returns the setting as an integer, or `def` when it is not set.
//
//jscrawl:ts getInt(key: string, def?: number): number;
func (x crawlerSettings) GetInt(c goja.FunctionCall) (goja.Value, error) {
	return x.setting(c, anyOf((*types.Settings).Int))
}

// GetFloat returns the setting as a number, or `def` when it is not set.
//
//jscrawl:ts getFloat(key: string, def?: number): number;
func (x crawlerSettings) GetFloat(c goja.FunctionCall) (goja.Value, error) {
	return x.setting(c, anyOf((*types.Settings).Float))
}

// GetBool returns the setting as a boolean, or `def` when it is not set.
//
//jscrawl:ts getBool(key: string, def?: boolean): boolean;
func (x crawlerSettings) GetBool(c goja.FunctionCall) (goja.Value, error) {
	return x.setting(c, anyOf((*types.Settings).Bool))
}

// GetList returns the setting as an array, or `def` when it is not set.
//
//jscrawl:ts getList(key: string, def?: unknown[]): unknown[];
func (x crawlerSettings) GetList(c goja.FunctionCall) (goja.Value, error) {
	return x.setting(c, anyOf((*types.Settings).List))
}

// GetDict returns the setting as an object, or `def` when it is not set.
//
//jscrawl:ts getDict(key: string, def?: Record<string, unknown>): Record<string, unknown>;
func (x crawlerSettings) GetDict(c goja.FunctionCall) (goja.Value, error) {
	return x.setting(c, anyOf((*types.Settings).Map))
}

// anyOf makes a typed settings getter return any.
func anyOf[V any](get func(*types.Settings, string) V) func(*types.Settings, string) any {
	return func(s *types.Settings, k string) any { return get(s, k) }
}

// crawlerStats is this.crawler.stats: the crawl's stats (Scrapy's StatsCollector). Before
// the crawl starts, writes are ignored.
//
// The crawl's stats, dumped at the end with Scrapy's key names.
//
//jscrawl:class interface Stats
type crawlerStats struct{ st *vmState }

// Get returns a stat's value, or `def` (undefined) when it has none.
//
//jscrawl:ts get(key: string, def?: unknown): any;
func (x crawlerStats) Get(c goja.FunctionCall) (goja.Value, error) {
	s := x.st.s
	if s.crawler == nil {
		return goja.Undefined(), nil
	}
	v := s.crawler.Stats().Get(c.Argument(0).String())
	if v == nil {
		if d := c.Argument(1); !goja.IsUndefined(d) {
			return d, nil
		}
		return goja.Undefined(), nil
	}
	return x.st.rt.ToValue(v), nil
}

// Inc adds `n` (1) to a stat.
//
//jscrawl:ts inc(key: string, n?: number): void;
func (x crawlerStats) Inc(c goja.FunctionCall) (goja.Value, error) {
	if s := x.st.s; s.crawler != nil {
		n := int64(1)
		if v := c.Argument(1); !goja.IsUndefined(v) {
			n = v.ToInteger()
		}
		s.crawler.Stats().Inc(c.Argument(0).String(), n)
	}
	return goja.Undefined(), nil
}

// Set sets a stat to a JSON-like value.
//
//jscrawl:ts set(key: string, value: JSONValue): void;
func (x crawlerStats) Set(c goja.FunctionCall) (goja.Value, error) {
	if s := x.st.s; s.crawler != nil {
		v, _, err := exportValue(x.st.rt, c.Argument(1), "crawler.stats.set() value", 0)
		if err != nil {
			return nil, asTypeError(err)
		}
		s.crawler.Stats().Set(c.Argument(0).String(), v)
	}
	return goja.Undefined(), nil
}

// Max raises a stat to `value` (Scrapy: max_value).
//
//jscrawl:ts max(key: string, value: number): void;
func (x crawlerStats) Max(c goja.FunctionCall) (goja.Value, error) {
	if s := x.st.s; s.crawler != nil {
		s.crawler.Stats().Max(c.Argument(0).String(), c.Argument(1).ToInteger())
	}
	return goja.Undefined(), nil
}

// Min lowers a stat to `value` (Scrapy: min_value).
//
//jscrawl:ts min(key: string, value: number): void;
func (x crawlerStats) Min(c goja.FunctionCall) (goja.Value, error) {
	if s := x.st.s; s.crawler != nil {
		s.crawler.Stats().Min(c.Argument(0).String(), c.Argument(1).ToInteger())
	}
	return goja.Undefined(), nil
}

// GetStats returns every stat, as an object.
//
//jscrawl:ts getStats(): Record<string, any>;
func (x crawlerStats) GetStats(goja.FunctionCall) (goja.Value, error) {
	if s := x.st.s; s.crawler != nil {
		return toJS(x.st.rt, s.crawler.Stats().Snapshot()), nil
	}
	return x.st.rt.NewObject(), nil
}

// crawlerEngine is this.crawler.engine (Scrapy's ExecutionEngine): crawl and closeSpider.
//
// `this.crawler.engine`: the running crawl's engine (Scrapy: ExecutionEngine).
//
//jscrawl:class interface CrawlerEngine
type crawlerEngine struct{ st *vmState }

// Crawl schedules a request from anywhere, as a callback's output would be (Scrapy:
// engine.crawl).
//
//jscrawl:ts crawl(request: Request): void;
func (x crawlerEngine) Crawl(c goja.FunctionCall) (goja.Value, error) {
	r, ok := c.Argument(0).(*goja.Object)
	if !ok || !x.st.isRequestObject(r) {
		return nil, typeError("crawler.engine.crawl() needs a Request: new Request(url, {...})")
	}
	req, err := requestFromJS(x.st.rt, r)
	if err != nil {
		return nil, asTypeError(err)
	}
	if x.st.s.crawler == nil {
		return nil, typeError("crawler.engine.crawl(): the crawl has not started")
	}
	x.st.s.crawler.Crawl(req)
	return goja.Undefined(), nil
}

// CloseSpider ends the crawl gracefully; the reason ("cancelled") becomes finish_reason.
//
//jscrawl:ts closeSpider(reason?: string): void;
func (x crawlerEngine) CloseSpider(c goja.FunctionCall) (goja.Value, error) {
	reason := "cancelled"
	if r := c.Argument(0); !goja.IsUndefined(r) {
		reason = r.String()
	}
	if x.st.s.crawler != nil {
		x.st.s.crawler.CloseSpider(reason)
	}
	return goja.Undefined(), nil
}

// crawlClass holds the prelude's natives that reach the crawl: inline downloads (fetch,
// crawler.download) and the stats the prelude counts itself.
type crawlClass struct{ st *vmState }

// Download(request, callback) starts an inline download: [promise, cancel] (see download).
func (x crawlClass) Download(c goja.FunctionCall) (goja.Value, error) {
	p, cancel, err := x.st.download(c.Argument(0), uint64(c.Argument(1).ToInteger()))
	if err != nil {
		return nil, err
	}
	return x.st.rt.NewArray(p, cancel), nil
}

// StatInc(key) adds 1 to a stat.
func (x crawlClass) StatInc(c goja.FunctionCall) (goja.Value, error) {
	if x.st.s.crawler != nil {
		x.st.s.crawler.Stats().Inc(c.Argument(0).String(), 1)
	}
	return goja.Undefined(), nil
}

// UserLocation() is the file:line:col of the spider code that called into jscrawl (source
// mapped), or "": the prelude's TypeErrors about options name it.
func (x crawlClass) UserLocation(goja.FunctionCall) (goja.Value, error) {
	return x.st.rt.ToValue(userLocation(x.st.rt)), nil
}

// download starts an inline download of a JS Request and returns a promise of its
// Response; on the loop. The download runs on its own goroutine through the engine's
// downloader; the result comes back through a reservation on this loop. The second value
// is a function that cancels the download (its Go context), for AbortSignal. callback is
// the tag of the scope that started it (the id of a running callback, or 0).
func (st *vmState) download(v goja.Value, callback uint64) (goja.Value, goja.Value, error) {
	rt := st.rt
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, nil, typeError("download() needs a Request")
	}
	req, err := requestFromJS(rt, obj)
	if err != nil {
		return nil, nil, asTypeError(err)
	}
	req.DontFilter = true
	p, resolve, reject := rt.NewPromise()
	crawler := st.s.crawler
	if crawler == nil {
		_ = reject(newJSError(rt, "Error", fmt.Sprintf("download %s: the crawl has not started", req.URL)))
		return rt.ToValue(p), goja.Undefined(), nil
	}
	enqueue := st.vm.Reserve()
	base, cancel := context.WithCancel(st.s.ctx)
	id := st.s.running.addInline(InlineDownload{URL: req.URL, Method: req.HTTPMethod(), Callback: callback, Location: userLocation(rt), cancel: cancel})
	ctx := engine.WithOrigin(base, id)
	go func() {
		defer cancel()
		resp, err := crawler.Download(ctx, req)
		st.s.running.removeInline(id)
		enqueue(func(rt *goja.Runtime) error {
			if err != nil {
				return reject(st.jsError(err, req))
			}
			jr, err := st.responseToJS(&respHandle{resp: resp})
			if err != nil {
				return reject(err)
			}
			return resolve(jr)
		})
	}()
	return rt.ToValue(p), rt.ToValue(func(goja.FunctionCall) goja.Value { cancel(); return goja.Undefined() }), nil
}

// jsError makes a JS Error for a Go download error: its name is the engine's error name
// (TimeoutError, ConnectionRefusedError, ...) and its message names the URL.
func (st *vmState) jsError(err error, req *types.Request) goja.Value {
	rt := st.rt
	msg := err.Error()
	if !strings.Contains(msg, req.URL) {
		msg = fmt.Sprintf("%s %s: %s", req.HTTPMethod(), req.URL, msg)
	}
	return newJSError(rt, engine.ErrorName(err), msg)
}
