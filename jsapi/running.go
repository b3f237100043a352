package jsapi

import (
	"cmp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// CallbackInfo describes a spider callback still running (for `jscrawl ps`): start(), a
// parse callback or an errback, with the inline downloads it awaits.
type CallbackInfo struct {
	ID uint64 `json:"id"`
	// Method is the spider method: "start", "parse", an errback's name.
	Method string `json:"method"`
	// URL is the URL of the response the callback got ("" for start, the request's URL for
	// an errback without a response).
	URL     string    `json:"url"`
	Started time.Time `json:"started"`
	// VM is the index of the VM in the pool that runs it.
	VM int `json:"vm"`
	// Awaits are the inline downloads it started that have not finished, oldest first.
	Awaits []InlineDownload `json:"awaits"`
}

// InlineDownload is an inline download (fetch or crawler.download) not finished yet.
type InlineDownload struct {
	// ID is the engine.WithOrigin tag of its download (engine.DownloadInfo.Origin).
	ID      uint64    `json:"id"`
	URL     string    `json:"url"`
	Method  string    `json:"method"`
	Started time.Time `json:"started"`
	// Location is where spider code started it: file:line:col of the innermost frame outside
	// jscrawl's own code ("" when none was found).
	Location string `json:"location,omitempty"`
	// Callback is the ID of the callback that started it, 0 when none did (a signal handler,
	// a pipeline, a middleware).
	Callback uint64 `json:"callback,omitempty"`
	// cancel cancels the download (a callback over CALLBACK_TIMEOUT cancels those it awaits).
	cancel func()
}

// running is the registry of callbacks and inline downloads in flight: a mutex'd map insert
// and delete for each, read only when someone asks.
type running struct {
	mu        sync.Mutex
	last      uint64
	callbacks map[uint64]*runningCallback
	inline    map[uint64]*InlineDownload
}

type runningCallback struct {
	info CallbackInfo // Awaits unused
	vm   *runtime.VM
}

func (r *running) nextID() uint64 {
	r.last++
	return r.last
}

// addCallback registers a callback about to run on vm and returns its id.
func (r *running) addCallback(method, url string, vm *runtime.VM) uint64 {
	c := &runningCallback{info: CallbackInfo{Method: method, URL: url, Started: time.Now()}, vm: vm}
	r.mu.Lock()
	if r.callbacks == nil {
		r.callbacks = map[uint64]*runningCallback{}
	}
	c.info.ID = r.nextID()
	r.callbacks[c.info.ID] = c
	r.mu.Unlock()
	return c.info.ID
}

func (r *running) removeCallback(id uint64) {
	r.mu.Lock()
	delete(r.callbacks, id)
	r.mu.Unlock()
}

// addInline registers an inline download and returns its id.
func (r *running) addInline(d InlineDownload) uint64 {
	d.Started = time.Now()
	r.mu.Lock()
	if r.inline == nil {
		r.inline = map[uint64]*InlineDownload{}
	}
	d.ID = r.nextID()
	r.inline[d.ID] = &d
	r.mu.Unlock()
	return d.ID
}

func (r *running) removeInline(id uint64) {
	r.mu.Lock()
	delete(r.inline, id)
	r.mu.Unlock()
}

// awaitedBy describes the oldest inline download callback id awaits ("fetch GET URL
// started at file:line:col"), or "" when it awaits none.
func (r *running) awaitedBy(id uint64) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var oldest *InlineDownload
	for _, d := range r.inline {
		if d.Callback == id && (oldest == nil || d.ID < oldest.ID) {
			oldest = d
		}
	}
	if oldest == nil {
		return ""
	}
	s := "the inline download " + oldest.Method + " " + oldest.URL
	if oldest.Location != "" {
		s += " started at " + oldest.Location
	}
	return s
}

// cancelInline cancels the inline downloads callback id started that have not finished.
func (r *running) cancelInline(id uint64) {
	var cancels []func()
	r.mu.Lock()
	for _, d := range r.inline {
		if d.Callback == id && d.cancel != nil {
			cancels = append(cancels, d.cancel)
		}
	}
	r.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// Running returns the callbacks running now, oldest first, each with the inline downloads
// it awaits, and the inline downloads no callback started. Safe from any goroutine.
func (d *DevTools) Running() (callbacks []CallbackInfo, orphans []InlineDownload) {
	s := d.s
	var vms []*runtime.VM
	s.mu.Lock()
	if s.pool != nil {
		vms = s.pool.All()
	} else if s.first != nil {
		vms = []*runtime.VM{s.first}
	}
	s.mu.Unlock()
	r := &s.running
	r.mu.Lock()
	byID := make(map[uint64]int, len(r.callbacks))
	for _, c := range r.callbacks {
		info := c.info
		info.VM = slices.Index(vms, c.vm)
		byID[info.ID] = len(callbacks)
		callbacks = append(callbacks, info)
	}
	for _, d := range r.inline {
		if i, ok := byID[d.Callback]; ok {
			callbacks[i].Awaits = append(callbacks[i].Awaits, *d)
		} else {
			orphans = append(orphans, *d)
		}
	}
	r.mu.Unlock()
	byAge := func(a, b InlineDownload) int { return cmp.Compare(a.ID, b.ID) }
	slices.SortFunc(callbacks, func(a, b CallbackInfo) int { return cmp.Compare(a.ID, b.ID) })
	for _, c := range callbacks {
		slices.SortFunc(c.Awaits, byAge)
	}
	slices.SortFunc(orphans, byAge)
	return callbacks, orphans
}

// userLocation returns file:line:col of the innermost JS frame outside jscrawl's preludes
// (source-mapped to the spider's own file), or "". On the loop.
func userLocation(rt *goja.Runtime) string {
	var buf [12]goja.StackFrame
	for _, f := range rt.CaptureCallStack(len(buf), buf[:0]) {
		if f.SrcName() == "<native>" || runtime.InternalSources[f.SrcName()] {
			continue
		}
		p := f.Position()
		if p.Filename == "" {
			p.Filename = f.SrcName()
		}
		return p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
	}
	return ""
}
