package jsapi

// The "crawlee" and "@crawlee/cheerio" modules: Crawlee's CheerioCrawler, routers,
// datasets and key-value stores written on jscrawl's engine (crawlee.js), and what they
// need from Go: the per-crawl key-value stores (kvs.go), the maxRequestsPerCrawl counter
// and the spider made of a crawler or a router (construct).

import (
	_ "embed"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// CrawleeModule and CrawleeCheerioModule are the names Crawlee code imports Crawlee from;
// both give the same built-in module (crawlee.js).
const (
	CrawleeModule        = "crawlee"
	CrawleeCheerioModule = "@crawlee/cheerio"
)

//go:embed crawlee.js
var crawleeSrc string

var crawleeProg = goja.MustCompile("jscrawl-crawlee.js", crawleeSrc, true)

// crawleeState is what the Crawlee layer shares over the VMs of one crawl.
type crawleeState struct {
	handled atomic.Int64 // requests whose handler started (maxRequestsPerCrawl)
	kv      kvStores
}

// installCrawlee runs crawlee.js, after the jscrawl API is installed; on the loop.
func (st *vmState) installCrawlee(natives *goja.Object) error {
	rt := st.rt
	_ = natives.Set("crawlee", bindClass(rt, "crawlee", crawleeClass{st}))
	f, err := rt.RunProgram(crawleeProg)
	if err != nil {
		return err
	}
	init, _ := goja.AssertFunction(f)
	res, err := init(goja.Undefined(), rt.GlobalObject(), natives, st.helpers.Get("internals"), st.helpers)
	if err != nil {
		return runtime.ToScriptError(err)
	}
	st.crawlee = res.ToObject(rt)
	st.crawleeExports = st.crawlee.Get("exports").ToObject(rt)
	return nil
}

// crawleeSpider returns the spider object crawlee.js makes of the module's exports (a
// default export that is a router or a CheerioCrawler, or a crawler the script ran), or
// nil when the module is not in one of Crawlee's forms.
func (st *vmState) crawleeSpider(exports *goja.Object) (*goja.Object, error) {
	adapt, _ := goja.AssertFunction(st.crawlee.Get("adapt"))
	v, err := adapt(goja.Undefined(), exports)
	if err != nil {
		return nil, runtime.ToScriptError(err)
	}
	if o, ok := v.(*goja.Object); ok {
		return o, nil
	}
	return nil, nil
}

// crawleeClass holds the natives crawlee.js uses.
type crawleeClass struct{ st *vmState }

// TakeSlot(max) counts a request whose handler starts and reports whether it is within
// maxRequestsPerCrawl (max; 0: no limit), over every VM of the crawl.
func (x crawleeClass) TakeSlot(c goja.FunctionCall) (goja.Value, error) {
	limit := c.Argument(0).ToInteger()
	n := x.st.s.crawlee.handled.Add(1)
	return x.st.rt.ToValue(limit <= 0 || n <= limit), nil
}

// Primary reports whether this VM is the crawl's first (where start() runs and where
// crawler.run()'s promise resolves).
func (x crawleeClass) Primary(goja.FunctionCall) (goja.Value, error) {
	s := x.st.s
	s.mu.Lock()
	first := s.first
	s.mu.Unlock()
	return x.st.rt.ToValue(first == nil || first == x.st.vm), nil
}

// FileName is the spider's default name: the entry file's base name without its
// extension, made a valid spider name.
func (x crawleeClass) FileName(goja.FunctionCall) (goja.Value, error) {
	s := x.st.s
	s.mu.Lock()
	name := ""
	if s.prog != nil {
		name = s.prog.Name
	}
	s.mu.Unlock()
	return x.st.rt.ToValue(nameFromFile(name)), nil
}

// nameFromFile turns a file path into a spider name: its base name without extension,
// characters other than letters, digits, '-', '_' and '.' replaced by '_' ("crawler" when
// nothing is left).
func nameFromFile(path string) string {
	base := filepath.Base(filepath.ToSlash(path))
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" || checkName(name) != nil {
		return "crawler"
	}
	return name
}

// KvGet(store, key) returns [value, contentType] of a record of a key-value store, or
// null: the value is a string for text and JSON content types, an ArrayBuffer otherwise.
func (x crawleeClass) KvGet(c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	rec, ok, err := x.st.s.kvs().get(c.Argument(0).String(), c.Argument(1).String())
	if err != nil || !ok {
		return goja.Null(), err
	}
	var v goja.Value
	if isTextType(rec.contentType) {
		v = rt.ToValue(string(rec.data))
	} else {
		v = rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), rec.data...)))
	}
	return rt.NewArray(v, rec.contentType), nil
}

// KvSet(store, key, value, contentType) sets a record (value null: deletes it) and returns
// a promise that resolves once the record is durable: written to the job folder and
// synced with --jobdir, at once otherwise.
func (x crawleeClass) KvSet(c goja.FunctionCall) (goja.Value, error) {
	st := x.st
	store, key := c.Argument(0).String(), c.Argument(1).String()
	var data []byte
	del := goja.IsNull(c.Argument(2)) || goja.IsUndefined(c.Argument(2))
	if !del {
		switch v := c.Argument(2).Export().(type) {
		case goja.ArrayBuffer:
			data = append([]byte(nil), v.Bytes()...)
		case []byte:
			data = append([]byte(nil), v...)
		default:
			data = []byte(c.Argument(2).String())
		}
	}
	write, err := st.s.kvs().set(store, key, record{data: data, contentType: c.Argument(3).String()}, del)
	if err != nil {
		return nil, err
	}
	p, resolve, reject := st.rt.NewPromise()
	if write == nil {
		_ = resolve(goja.Undefined())
		return st.rt.ToValue(p), nil
	}
	enqueue := st.vm.Reserve()
	go func() {
		err := write()
		enqueue(func(rt *goja.Runtime) error {
			if err != nil {
				return reject(newJSError(rt, "Error", "KeyValueStore.setValue("+key+"): "+err.Error()))
			}
			return resolve(goja.Undefined())
		})
	}()
	return st.rt.ToValue(p), nil
}

// KvKeys(store) lists the keys of a key-value store, sorted.
func (x crawleeClass) KvKeys(c goja.FunctionCall) (goja.Value, error) {
	keys, err := x.st.s.kvs().keys(c.Argument(0).String())
	if err != nil {
		return nil, err
	}
	return x.st.rt.ToValue(keys), nil
}

// isTextType reports whether a content type is text that crawlee.js decodes as a string.
func isTextType(ct string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/javascript" || mt == ""
}
