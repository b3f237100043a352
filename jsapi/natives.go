package jsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/jsapi/links"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
	"golang.org/x/text/encoding"
)

// respHandle is the Go side of a JS Response; used on one loop only.
type respHandle struct {
	resp    *types.Response
	doc     *selector.Document
	docErr  error
	text    string
	hasText bool
	made    bool // built by new Response(...) in JS, from text
	json    any  // the body parsed as JSON, for jmespath()
	jsonErr error
	hasJSON bool
	base    string            // baseURL's result, once computed
	noted   bool              // the DEBUG note of a flattened document was logged
	enc     encoding.Encoding // urlEncoding's result, once hasEnc
	hasEnc  bool
}

// baseURL returns the URL relative links resolve against: the response URL, joined with
// the page's <base href> for HTML (Scrapy: get_base_url, used by urljoin and follow).
func (h *respHandle) baseURL() string {
	if h.base != "" {
		return h.base
	}
	h.base = h.resp.URL
	if h.made || isHTML(h.resp) {
		if doc, err := h.document(); err == nil && doc != nil && !doc.IsXML() {
			if page, err := url.Parse(h.resp.URL); err == nil {
				h.base = links.BaseURL(doc, page).String()
			}
		}
	}
	return h.base
}

func (h *respHandle) contentType() string { return h.resp.Headers.Get("Content-Type") }

// urlEncoding returns the encoding the queries of the page's links are percent-encoded in:
// the page's own, as browsers do (nil for UTF-8, and for UTF-16 pages, whose links browsers
// encode in UTF-8). Computed once.
func (h *respHandle) urlEncoding() encoding.Encoding {
	if !h.hasEnc {
		h.hasEnc = true
		if !h.made {
			h.enc = links.URLEncoding(selector.Encoding(h.resp.Body, h.contentType()))
		}
	}
	return h.enc
}

func (h *respHandle) body() string {
	if !h.hasText {
		h.text = selector.DecodeText(h.resp.Body, h.contentType())
		h.hasText = true
	}
	return h.text
}

func (h *respHandle) document() (*selector.Document, error) {
	if h.doc == nil && h.docErr == nil {
		if d, ok := h.resp.Parsed.(*selector.Document); ok {
			h.doc = d
		} else {
			if isXML(h.resp) {
				h.doc, h.docErr = parseDocument(h.resp)
			} else {
				h.doc, h.docErr = selector.ParseText(h.body())
			}
		}
	}
	return h.doc, h.docErr
}

// document is h.document() plus, the first time, the DEBUG note of a page nested too deeply
// for the parser (see selector.ParseText).
func (st *vmState) document(h *respHandle) (*selector.Document, error) {
	d, err := h.document()
	if d != nil && !h.noted {
		h.noted = true
		st.s.noteFlattened(h.resp.URL, d)
	}
	return d, err
}

// noteFlattened logs at DEBUG that d, the page at url, was nested too deeply and flattened.
func (s *Spider) noteFlattened(url string, d *selector.Document) {
	if d.Flattened() > 0 {
		s.logger.Debug(fmt.Sprintf("%s is nested deeper than the HTML parser allows (512 elements): %d elements past depth %d were flattened into siblings",
			url, d.Flattened(), selector.FlatDepth))
	}
}

// natives builds the object of Go functions the prelude calls.
func (st *vmState) natives() *goja.Object {
	rt := st.rt
	n := rt.NewObject()
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = n.Set(name, fn) }
	throwType := func(msg string) { throwJS(rt, "TypeError", errors.New(msg)) }
	resp := func(v goja.Value) *respHandle {
		h, ok := v.Export().(*respHandle)
		if !ok {
			throwType("not a jscrawl Response")
		}
		return h
	}
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
	// checkURL(url, who) returns url as a string once it is an absolute URL with a scheme
	// DOWNLOAD_SCHEMES enables; else it throws a TypeError naming who, the URL and why. A
	// URL object stands for its href.
	set("checkURL", func(c goja.FunctionCall) goja.Value {
		raw := c.Argument(0)
		who := c.Argument(1).String()
		if goja.IsUndefined(raw) || goja.IsNull(raw) {
			throwType(who + "() needs a URL, got " + raw.String())
		}
		s := raw.String()
		if !goja.IsString(raw) {
			if _, isObj := raw.(*goja.Object); !isObj || isFunction(raw) || strings.HasPrefix(s, "[object ") {
				throwType(fmt.Sprintf("%s() needs a URL string, got %s", who, describe(raw)))
			}
			raw = rt.ToValue(s)
		}
		if err := st.s.checkURL(s); err != nil {
			throwType(fmt.Sprintf("%s(): %v", who, err))
		}
		if safe := types.NormalizeURL(s); safe != s {
			return rt.ToValue(safe)
		}
		return raw
	})
	// The base of consecutive urljoin calls is nearly always the same response URL: keep
	// its parse (the loop is single-threaded).
	var lastBase string
	var lastBaseURL *url.URL
	resolve := func(who string, c goja.FunctionCall) *url.URL {
		b := c.Argument(0).String()
		base := lastBaseURL
		if b != lastBase || base == nil {
			var err error
			if base, err = url.Parse(b); err != nil {
				throwType(who + ": invalid base URL " + b)
			}
			lastBase, lastBaseURL = b, base
		}
		href := c.Argument(1).String()
		ref, err := types.ParseURL(href)
		if err != nil {
			throwType(fmt.Sprintf("%s: invalid URL %q: %v", who, href, urlReason(err)))
		}
		u := base.ResolveReference(ref)
		var enc encoding.Encoding
		if h, ok := c.Argument(4).Export().(*respHandle); ok {
			enc = h.urlEncoding()
		}
		types.MakeSafe(u, enc)
		return u
	}
	// urljoin(base, href, _, _, response handle): the response's encoding encodes the query.
	set("urljoin", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(resolve("urljoin", c).String())
	})
	// join(base, href, page, lenient) is urljoin plus the checks of new Request, for
	// response.follow and followAll. Links that cannot be downloaded, as pages are full of
	// (an empty or "#..." href, mailto:, tel:, javascript:, data: unless DOWNLOAD_SCHEMES
	// enables it), give null: they are skipped, counted in follow/skipped_scheme and noted at
	// DEBUG, as Scrapy drops them quietly. An invalid URL throws a TypeError, unless lenient
	// (followAll), which skips it too, counting it in follow/skipped_invalid.
	set("join", func(c goja.FunctionCall) goja.Value {
		href := types.CleanURL(c.Argument(1).String())
		page := c.Argument(2).String()
		lenient := c.Argument(3).ToBoolean()
		if href == "" || href[0] == '#' {
			st.s.skipLink(page, href, "it points into the page itself", skippedScheme)
			return goja.Null()
		}
		if sc := hrefScheme(href); sc != "" && !st.s.schemeEnabled(sc) {
			st.s.skipLink(page, href, fmt.Sprintf("scheme %q is not in DOWNLOAD_SCHEMES", sc), skippedScheme)
			return goja.Null()
		}
		if lenient {
			if _, err := types.ParseURL(href); err != nil {
				st.s.skipLink(page, href, "it is not a valid URL", skippedInvalid)
				return goja.Null()
			}
		}
		u := resolve("follow()", c)
		abs := u.String()
		if err := st.s.checkParsed(abs, u); err != nil {
			if lenient {
				st.s.skipLink(page, href, err.Error(), skippedInvalid)
				return goja.Null()
			}
			throwType("follow(): " + err.Error())
		}
		return rt.ToValue(abs)
	})
	set("headerGet", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0)).resp.Headers
		vs := h.Values(c.Argument(1).String())
		if len(vs) == 0 {
			return goja.Null()
		}
		return rt.ToValue(strings.Join(vs, ", "))
	})
	set("headerSet", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0)).resp
		if h.Headers == nil {
			h.Headers = http.Header{}
		}
		if c.Argument(3).ToBoolean() {
			h.Headers.Add(c.Argument(1).String(), c.Argument(2).String())
		} else {
			h.Headers.Set(c.Argument(1).String(), c.Argument(2).String())
		}
		return goja.Undefined()
	})
	set("headerDelete", func(c goja.FunctionCall) goja.Value {
		resp(c.Argument(0)).resp.Headers.Del(c.Argument(1).String())
		return goja.Undefined()
	})
	set("headerValues", func(c goja.FunctionCall) goja.Value {
		return toJS(rt, resp(c.Argument(0)).resp.Headers.Values(c.Argument(1).String()))
	})
	set("headerEntries", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0)).resp.Headers
		keys := make([]string, 0, len(h))
		for k := range h {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = rt.NewArray(strings.ToLower(k), strings.Join(h[k], ", "))
		}
		return rt.NewArray(out...)
	})
	set("request", func(c goja.FunctionCall) goja.Value {
		r := resp(c.Argument(0)).resp.Request
		if r == nil {
			return goja.Null()
		}
		v, err := st.requestToJS(r)
		if err != nil {
			throwJS(rt, "TypeError", err)
		}
		return v
	})
	set("responseURL", func(c goja.FunctionCall) goja.Value { return rt.ToValue(resp(c.Argument(0)).resp.URL) })
	set("responseBase", func(c goja.FunctionCall) goja.Value { return rt.ToValue(resp(c.Argument(0)).baseURL()) })
	set("responseStatus", func(c goja.FunctionCall) goja.Value { return rt.ToValue(resp(c.Argument(0)).resp.Status) })
	set("responseProtocol", func(c goja.FunctionCall) goja.Value { return rt.ToValue(resp(c.Argument(0)).resp.Protocol) })
	set("responseFlags", func(c goja.FunctionCall) goja.Value {
		flags := resp(c.Argument(0)).resp.Flags
		out := make([]any, len(flags))
		for i, f := range flags {
			out[i] = f
		}
		return rt.NewArray(out...)
	})
	set("responseEncoding", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		if h.made {
			return rt.ToValue("utf-8")
		}
		return rt.ToValue(selector.Encoding(h.resp.Body, h.contentType()))
	})
	// newResponse(body, status, headers, url, request) backs new Response(...).
	set("newResponse", func(c goja.FunctionCall) goja.Value {
		r := &types.Response{Body: []byte(c.Argument(0).String()), Status: int(c.Argument(1).ToInteger()), URL: c.Argument(3).String()}
		if h, ok := c.Argument(2).(*goja.Object); ok {
			hdr, err := headersFromJS(rt, h)
			if err != nil {
				throwType("new Response(): " + err.Error())
			}
			r.Headers = hdr
		}
		if r.Headers == nil {
			r.Headers = http.Header{}
		}
		if o, ok := c.Argument(4).(*goja.Object); ok {
			req, err := requestFromJS(rt, o)
			if err != nil {
				throwType("new Response(): " + err.Error())
			}
			r.Request = req
			if r.URL == "" {
				r.URL = req.URL
			}
		}
		// The body is text already: it must not be decoded again by the charset its
		// headers may name.
		return rt.ToValue(&respHandle{resp: r, text: c.Argument(0).String(), hasText: true, made: true})
	})
	set("text", func(c goja.FunctionCall) goja.Value { return rt.ToValue(resp(c.Argument(0)).body()) })
	set("css", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		doc, err := st.document(h)
		if err != nil {
			throwJS(rt, "Error", fmt.Errorf("parse %s: %w", h.resp.URL, err))
		}
		return st.selectAll(c.Argument(1).String(), doc.Root())
	})
	// rootSelector(h) is response.selector: the root of the document, whose namespaces
	// response.xpath uses.
	set("rootSelector", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		doc, err := st.document(h)
		if err != nil {
			throwJS(rt, "Error", fmt.Errorf("parse %s: %w", h.resp.URL, err))
		}
		return st.newSelector(doc.Root())
	})
	// parseSelector(text, type) backs new Selector({ text, type }).
	set("parseSelector", func(c goja.FunctionCall) goja.Value {
		text := c.Argument(0).String()
		var doc *selector.Document
		var err error
		typ := c.Argument(1).String()
		switch {
		case typ == "text" || (typ == "json" || typ == "html" || typ == "xml") && json.Valid([]byte(text)):
			// parsel: a text that is JSON makes a "json" selector whatever the type asked
			// (except "text"); jmespath() queries it, css() and xpath() throw.
			if typ != "text" {
				typ = "json"
			}
			return st.newDataSelector(text, typ)
		case typ == "json":
			return st.newDataSelector(text, typ) // not JSON: jmespath() finds nothing
		}
		switch typ {
		case "xml":
			doc, _ = selector.ParseXML([]byte(text), "text/xml; charset=utf-8")
		case "html":
			doc, err = selector.ParseText(text)
		default:
			throwType(fmt.Sprintf("new Selector(): type must be \"html\", \"xml\", \"json\" or \"text\", got %q", typ))
		}
		if err != nil {
			throwJS(rt, "Error", fmt.Errorf("new Selector(): %w", err))
		}
		return st.newSelector(doc.Root())
	})
	set("jmespath", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		data, err := h.jsonValue()
		if err != nil {
			throwType("response.jmespath(): " + err.Error())
		}
		return st.jmesSearch("response.jmespath()", c.Argument(1).String(), data)
	})
	// jsonLdTexts(h) returns the text of every <script type="application/ld+json">.
	set("jsonLdTexts", func(c goja.FunctionCall) goja.Value {
		h := resp(c.Argument(0))
		doc, err := st.document(h)
		if err != nil || doc.IsXML() {
			return rt.NewArray()
		}
		rs, err := selector.Select([]selector.Result{doc.Root()}, `script[type="application/ld+json" i]`)
		if err != nil {
			throwJS(rt, "Error", err)
		}
		out := make([]any, len(rs))
		for i, r := range rs {
			out[i] = r.Text()
		}
		return rt.NewArray(out...)
	})
	set("statInc", func(c goja.FunctionCall) goja.Value {
		if st.s.crawler != nil {
			st.s.crawler.Stats().Inc(c.Argument(0).String(), 1)
		}
		return goja.Undefined()
	})
	set("replaceEntities", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(selector.ReplaceEntities(c.Argument(0).String()))
	})
	// selectorHref(selector, lenient) is the URL a Selector points to: its text or
	// attribute value, or the element's href, else src. An element with neither throws a
	// TypeError, or gives null when lenient (followAll skips it, as Scrapy's follow_all).
	set("selectorHref", func(c goja.FunctionCall) goja.Value {
		s, ok := c.Argument(0).Export().(*jsSelector)
		if !ok {
			return goja.Undefined()
		}
		if s.r.Kind != selector.KindElement {
			return rt.ToValue(s.r.Get())
		}
		for _, a := range s.r.Attrib() {
			if a.Key == "href" {
				return rt.ToValue(a.Val)
			}
		}
		for _, a := range s.r.Attrib() {
			if a.Key == "src" {
				return rt.ToValue(a.Val)
			}
		}
		el := "element"
		if s.r.Node != nil {
			el = "<" + s.r.Node.Data + "> element"
		}
		if c.Argument(1).ToBoolean() {
			st.s.logger.Debug("followAll(): skipped an " + el + " without href or src")
			return goja.Null()
		}
		throwType("response.follow(): the selected " + el + " has no href or src attribute")
		return nil
	})
	set("selectorProto", func(goja.FunctionCall) goja.Value { return st.selProto })
	set("listProto", func(goja.FunctionCall) goja.Value { return st.listProto })
	// listFrom(array) makes a SelectorList of an array of Selectors, or gives undefined.
	set("listFrom", func(c goja.FunctionCall) goja.Value {
		if o, ok := c.Argument(0).(*goja.Object); ok {
			if l := st.listFrom(o); l != nil {
				return l
			}
		}
		return goja.Undefined()
	})
	// inspect renders a this.logger argument; an Error's stack shows the spider's frames only.
	set("inspect", func(c goja.FunctionCall) goja.Value {
		s := st.vm.Inspect(c.Argument(0))
		if o, ok := c.Argument(0).(*goja.Object); ok && o.ClassName() == "Error" {
			s = runtime.CleanStack(s)
		}
		return rt.ToValue(s)
	})
	set("log", func(c goja.FunctionCall) goja.Value {
		msg := c.Argument(1).String()
		switch c.Argument(0).String() {
		case "debug":
			st.s.logger.Debug(msg)
		case "warn":
			st.s.logger.Warn(msg)
		case "error":
			st.s.logger.Error(msg)
		default:
			st.s.logger.Info(msg)
		}
		return goja.Undefined()
	})
	set("download", func(c goja.FunctionCall) goja.Value {
		p, cancel := st.download(c.Argument(0), uint64(c.Argument(1).ToInteger()))
		return rt.NewArray(p, cancel)
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
	st.linkNatives(set)
	return n
}

// The stats of the links response.follow and followAll skip.
const (
	skippedScheme  = "follow/skipped_scheme"  // cannot be downloaded: mailto:, "#"...
	skippedInvalid = "follow/skipped_invalid" // not a valid URL (followAll only)
)

// skipLink counts in stat and notes a link response.follow or followAll skipped; on the
// loop.
func (s *Spider) skipLink(page, href, why, stat string) {
	if s.crawler != nil {
		s.crawler.Stats().Inc(stat, 1)
	}
	s.logger.Debug(fmt.Sprintf("follow(): skipped link %q on %s: %s", href, page, why))
}

// hrefScheme returns the lowercased scheme of href when it has one ("mailto" for
// "mailto:x@y", "" for "/a:b" or "a/b:c"), as a URL parser reads it (RFC 3986 section 3.1).
func hrefScheme(href string) string {
	for i := 0; i < len(href); i++ {
		c := href[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return ""
			}
		case c == ':':
			if i == 0 {
				return ""
			}
			return strings.ToLower(href[:i])
		default:
			return ""
		}
	}
	return ""
}

// schemeEnabled reports whether DOWNLOAD_SCHEMES has scheme (lowercase).
func (s *Spider) schemeEnabled(scheme string) bool {
	if s.schemes == nil {
		return scheme == "http" || scheme == "https"
	}
	for _, sc := range s.schemes {
		if strings.EqualFold(sc, scheme) {
			return true
		}
	}
	return false
}

// checkURL rejects relative URLs and schemes that DOWNLOAD_SCHEMES does not enable.
func (s *Spider) checkURL(raw string) error {
	u, err := types.ParseURL(raw)
	if err != nil {
		return fmt.Errorf("invalid URL %q: %v", raw, urlReason(err))
	}
	return s.checkParsed(raw, u)
}

func (s *Spider) checkParsed(raw string, u *url.URL) error {
	if !u.IsAbs() {
		return fmt.Errorf("relative URL %q: make it absolute with response.urljoin(%q)", raw, raw)
	}
	schemes := s.schemes
	if schemes == nil {
		schemes = []string{"http", "https"}
	}
	for _, sc := range schemes {
		if strings.EqualFold(sc, u.Scheme) {
			if u.Host == "" && (u.Scheme == "http" || u.Scheme == "https") {
				return fmt.Errorf("invalid URL %q: no host", raw)
			}
			return nil
		}
	}
	return fmt.Errorf("URL %q: scheme %q is not enabled (DOWNLOAD_SCHEMES is %s)", raw, u.Scheme, strings.Join(schemes, ","))
}

// responseToJS makes the JS Response for resp; on the loop. Its request is made on first use.
func (st *vmState) responseToJS(h *respHandle) (goja.Value, error) {
	return st.makeResponse(goja.Undefined(), st.rt.ToValue(h))
}

// download starts an inline download of a JS Request and returns a promise of its
// Response; on the loop. The download runs on its own goroutine through the engine's
// downloader; the result comes back through a reservation on this loop. The second value
// is a function that cancels the download (its Go context), for AbortSignal. callback is
// the tag of the scope that started it (the id of a running callback, or 0).
func (st *vmState) download(v goja.Value, callback uint64) (goja.Value, goja.Value) {
	rt := st.rt
	obj, ok := v.(*goja.Object)
	if !ok {
		throwJS(rt, "TypeError", errors.New("download() needs a Request"))
	}
	req, err := requestFromJS(rt, obj)
	if err != nil {
		throwJS(rt, "TypeError", err)
	}
	req.DontFilter = true
	p, resolve, reject := rt.NewPromise()
	crawler := st.s.crawler
	if crawler == nil {
		_ = reject(newJSError(rt, "Error", fmt.Sprintf("download %s: the crawl has not started", req.URL)))
		return rt.ToValue(p), goja.Undefined()
	}
	enqueue := st.vm.Reserve()
	id := st.s.running.addInline(InlineDownload{URL: req.URL, Method: req.HTTPMethod(), Callback: callback, Location: userLocation(rt)})
	ctx, cancel := context.WithCancel(engine.WithOrigin(st.s.ctx, id))
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
	return rt.ToValue(p), rt.ToValue(func(goja.FunctionCall) goja.Value { cancel(); return goja.Undefined() })
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

// crawlerObject is this.crawler: settings, stats and download.
func (st *vmState) crawlerObject() *goja.Object {
	rt := st.rt
	s := st.s
	c := rt.NewObject()
	settings := rt.NewObject()
	get := func(f func(*types.Settings, string) any) func(goja.FunctionCall) goja.Value {
		return func(call goja.FunctionCall) goja.Value {
			if s.crawler == nil {
				return goja.Undefined()
			}
			key := call.Argument(0).String()
			if s.crawler.Settings().Get(key) == nil {
				if d := call.Argument(1); !goja.IsUndefined(d) {
					return d
				}
			}
			return toJS(rt, f(s.crawler.Settings(), key))
		}
	}
	_ = settings.Set("get", get(func(st *types.Settings, k string) any { return st.Get(k) }))
	_ = settings.Set("getInt", get(func(st *types.Settings, k string) any { return st.Int(k) }))
	_ = settings.Set("getFloat", get(func(st *types.Settings, k string) any { return st.Float(k) }))
	_ = settings.Set("getBool", get(func(st *types.Settings, k string) any { return st.Bool(k) }))
	_ = settings.Set("getList", get(func(st *types.Settings, k string) any { return st.List(k) }))
	_ = settings.Set("getDict", get(func(st *types.Settings, k string) any { return st.Map(k) }))
	_ = c.Set("settings", settings)
	stats := rt.NewObject()
	num := func(v goja.Value) int64 {
		if goja.IsUndefined(v) {
			return 1
		}
		return v.ToInteger()
	}
	_ = stats.Set("get", func(call goja.FunctionCall) goja.Value {
		if s.crawler == nil {
			return goja.Undefined()
		}
		v := s.crawler.Stats().Get(call.Argument(0).String())
		if v == nil {
			if d := call.Argument(1); !goja.IsUndefined(d) {
				return d
			}
			return goja.Undefined()
		}
		return rt.ToValue(v)
	})
	_ = stats.Set("inc", func(call goja.FunctionCall) goja.Value {
		if s.crawler != nil {
			s.crawler.Stats().Inc(call.Argument(0).String(), num(call.Argument(1)))
		}
		return goja.Undefined()
	})
	_ = stats.Set("set", func(call goja.FunctionCall) goja.Value {
		if s.crawler != nil {
			v, _, err := exportValue(rt, call.Argument(1), "crawler.stats.set() value", 0)
			if err != nil {
				throwJS(rt, "TypeError", err)
			}
			s.crawler.Stats().Set(call.Argument(0).String(), v)
		}
		return goja.Undefined()
	})
	_ = stats.Set("max", func(call goja.FunctionCall) goja.Value {
		if s.crawler != nil {
			s.crawler.Stats().Max(call.Argument(0).String(), call.Argument(1).ToInteger())
		}
		return goja.Undefined()
	})
	_ = stats.Set("min", func(call goja.FunctionCall) goja.Value {
		if s.crawler != nil {
			s.crawler.Stats().Min(call.Argument(0).String(), call.Argument(1).ToInteger())
		}
		return goja.Undefined()
	})
	_ = stats.Set("getStats", func(call goja.FunctionCall) goja.Value {
		if s.crawler == nil {
			return rt.NewObject()
		}
		return toJS(rt, s.crawler.Stats().Snapshot())
	})
	_ = c.Set("stats", stats)
	_ = c.Set("signals", st.helper("signals"))
	eng := rt.NewObject()
	_ = eng.Set("crawl", func(call goja.FunctionCall) goja.Value {
		r, ok := call.Argument(0).(*goja.Object)
		if !ok || !st.isRequestObject(r) {
			throwJS(rt, "TypeError", errors.New("crawler.engine.crawl() needs a Request: new Request(url, {...})"))
		}
		req, err := requestFromJS(rt, r)
		if err != nil {
			throwJS(rt, "TypeError", err)
		}
		if s.crawler == nil {
			throwJS(rt, "TypeError", errors.New("crawler.engine.crawl(): the crawl has not started"))
		}
		s.crawler.Crawl(req)
		return goja.Undefined()
	})
	_ = eng.Set("closeSpider", func(call goja.FunctionCall) goja.Value {
		reason := "cancelled"
		if r := call.Argument(0); !goja.IsUndefined(r) {
			reason = r.String()
		}
		if s.crawler != nil {
			s.crawler.CloseSpider(reason)
		}
		return goja.Undefined()
	})
	_ = c.Set("engine", eng)
	_ = c.Set("download", st.helper("crawlerDownload"))
	return c
}
