package jsapi

import (
	"github.com/dop251/goja"
)

// jsResponse is a JS Response: a Go-backed object whose methods and getters live on the
// shared prototype responseProto (Response.prototype; prelude.js adds the methods written
// in JS). url and status are its own properties, writable and enumerable, as they were on
// the JS class (JSON.stringify and spread see them); properties a spider adds are kept in
// extra, in order. The values behind the getters are made on first use.
type jsResponse struct {
	h           *respHandle
	url, status goja.Value // nil once deleted
	extra       map[string]goja.Value
	keys        []string // extra's keys, in the order they were added
	req         goja.Value
	headers     goja.Value
	sel         goja.Value
	page        goja.Value // goja.Null() when the response has no page
	cheerio     goja.Value // response.$, made on first use
}

func (r *jsResponse) Get(k string) goja.Value {
	switch k {
	case "url":
		return r.url
	case "status":
		return r.status
	}
	return r.extra[k]
}

func (r *jsResponse) Set(k string, v goja.Value) bool {
	switch k {
	case "url":
		r.url = v
		return true
	case "status":
		r.status = v
		return true
	}
	if r.extra == nil {
		r.extra = map[string]goja.Value{}
	}
	if _, ok := r.extra[k]; !ok {
		r.keys = append(r.keys, k)
	}
	r.extra[k] = v
	return true
}

func (r *jsResponse) Has(k string) bool {
	switch k {
	case "url":
		return r.url != nil
	case "status":
		return r.status != nil
	}
	_, ok := r.extra[k]
	return ok
}

func (r *jsResponse) Delete(k string) bool {
	switch k {
	case "url":
		r.url = nil
		return true
	case "status":
		r.status = nil
		return true
	}
	if _, ok := r.extra[k]; ok {
		delete(r.extra, k)
		for i, x := range r.keys {
			if x == k {
				r.keys = append(r.keys[:i:i], r.keys[i+1:]...)
				break
			}
		}
	}
	return true
}

func (r *jsResponse) Keys() []string {
	out := make([]string, 0, 2+len(r.keys))
	if r.url != nil {
		out = append(out, "url")
	}
	if r.status != nil {
		out = append(out, "status")
	}
	return append(out, r.keys...)
}

// newJSResponse makes the JS Response of h; req, when not nil, is its request already made
// (new Response(body, { request })).
func (st *vmState) newJSResponse(h *respHandle, req goja.Value) *goja.Object {
	rt := st.rt
	o := rt.NewDynamicObject(&jsResponse{h: h, url: rt.ToValue(h.resp.URL), status: rt.ToValue(h.resp.Status), req: req})
	_ = o.SetPrototype(st.responseProto)
	return o
}

// responseOf returns the Go side of v when it is a JS Response.
func responseOf(v goja.Value) (*jsResponse, bool) {
	if isNil(v) {
		return nil, false
	}
	r, ok := v.Export().(*jsResponse)
	return r, ok
}

// installResponse makes the Response prototype with native methods and getters.
func (st *vmState) installResponse() {
	st.responseProto = st.rt.NewObject()
	getters := map[string]bool{}
	for _, k := range []string{"request", "meta", "headers", "body", "protocol", "flags", "session", "page",
		"screenshot", "encoding", "selector", "baseUrl"} {
		getters[k] = true
	}
	bindMethods(st.rt, st.responseProto, responseMethods{st}, &bindOptions{getters: getters})
	// response.$: a Go name cannot be $, so the getter is bound here.
	get := typed(st.rt, onThis(responseMethods{st}, func(m responseMethods, r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
		return st.cheerioOf(r)
	}, "Response"))
	_ = st.responseProto.DefineAccessorProperty("$", namedFunc(st.rt, "get $", get), nil, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// responseMethods are the methods and getters of a JS Response (Response.prototype), on
// this. The paragraphs after this one, the //jscrawl:ts lines (members written in JS, in
// prelude.js), its methods and their doc comments are jscrawl_gen.d.ts.
//
// A downloaded page (Scrapy: Response). An HTTP error status is a Response too.
//
//jscrawl:doc Builds a response, WHATWG-style (a downloader middleware may return one).
//jscrawl:ts constructor(body?: string | null, init?: ResponseInit);
//jscrawl:doc A copy with some parts changed (Scrapy: Response.replace).
//jscrawl:ts replace(changes: { body?: string; status?: number; headers?: Record<string, string | string[]>; url?: string; request?: Request }): Response;
//jscrawl:doc The URL (an own property: JSON.stringify and spread show it).
//jscrawl:ts readonly url: string;
//jscrawl:doc The HTTP status (an own property).
//jscrawl:ts readonly status: number;
//jscrawl:doc cheerio's `$` over the parsed page (the same tree as `css()`, not parsed again):
//jscrawl:doc `response.$("div.product").each((i, el) => ...)`. `prop("href")` resolves against
//jscrawl:doc the response URL. See the "cheerio" module.
//jscrawl:ts readonly $: import("cheerio").CheerioAPI;
//jscrawl:doc The body decoded to text, as a promise.
//jscrawl:ts text(): Promise<string>;
//jscrawl:doc The body parsed as JSON, as a promise.
//jscrawl:ts json<T = any>(): Promise<T>;
//jscrawl:doc Every `<script type="application/ld+json">` block parsed, arrays spread and `@graph`
//jscrawl:doc nodes flattened into the list (each with the block's `@context` unless it has one).
//jscrawl:doc Invalid blocks are skipped and counted in the `jsonld/invalid` stat.
//jscrawl:ts jsonLd(): Record<string, any>[];
//jscrawl:doc Requests for links, skipping those `follow` skips, invalid URLs and elements without href.
//jscrawl:ts followAll(targets: Iterable<string | Selector | Request | null | undefined> | null | undefined, options?: RequestOptions): Request[];
//jscrawl:doc Scrapy's positional callback: `response.followAll(links, this.parseAuthor)` (null: parse).
//jscrawl:ts followAll(targets: Iterable<string | Selector | Request | null | undefined> | null | undefined, callback: CallbackRef | null, options?: RequestOptionsAfterCallback): Request[];
//jscrawl:class class Response
type responseMethods struct{ st *vmState }

// Request is the request the response answers, made on first use.
//
//jscrawl:ts readonly request: Request;
func (m responseMethods) Request(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	if r.req == nil {
		if r.h.resp.Request == nil {
			r.req = goja.Null()
		} else {
			v, err := m.st.requestToJS(r.h.resp.Request)
			if err != nil {
				return nil, asTypeError(err)
			}
			r.req = v
		}
	}
	return r.req, nil
}

// Meta is the request's meta.
//
//jscrawl:ts readonly meta: Record<string, any>;
func (m responseMethods) Meta(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	req, err := m.Request(r, c)
	if err != nil {
		return nil, err
	}
	return req.ToObject(m.st.rt).Get("meta"), nil
}

// Headers is the response headers, a live view.
//
//jscrawl:ts readonly headers: Headers;
func (m responseMethods) Headers(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	if r.headers == nil {
		r.headers = m.st.newHeaders(r.h)
	}
	return r.headers, nil
}

// Body is the body decoded to text (charset from a BOM, the header, `<meta charset>`, else
// sniffed).
//
//jscrawl:ts readonly body: string;
func (m responseMethods) Body(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(r.h.body()), nil
}

// Encoding is the encoding `body` was decoded with, a WHATWG name such as "utf-8" or
// "shift_jis" (Scrapy: response.encoding).
//
//jscrawl:ts readonly encoding: string;
func (m responseMethods) Encoding(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	return responseClass(m).ResponseEncoding(r.h, c)
}

// Protocol is the HTTP version, "HTTP/1.1" or "HTTP/2.0"; "" for file: and data: URLs
// (Scrapy: response.protocol).
//
//jscrawl:ts readonly protocol: string;
func (m responseMethods) Protocol(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(r.h.resp.Protocol), nil
}

// Flags says how the response was obtained: ["cached"] when the HTTP cache served it
// (Scrapy: response.flags).
//
//jscrawl:ts readonly flags: string[];
func (m responseMethods) Flags(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	return stringArray(m.st.rt, r.h.resp.Flags), nil
}

// Session is the session of the session pool that served the response; null without
// SESSION_POOL_ENABLED.
//
//jscrawl:ts readonly session: ResponseSession | null;
func (m responseMethods) Session(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	return responseClass(m).ResponseSession(r.h, c)
}

// Screenshot is the PNG of a browser request with `screenshot: true`; null otherwise.
//
//jscrawl:ts readonly screenshot: Uint8Array | null;
func (m responseMethods) Screenshot(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	return responseClass(m).ResponseScreenshot(r.h, c)
}

// Page is the open page of a browser request with `includePage: true`; undefined otherwise.
//
//jscrawl:ts readonly page: Page | undefined;
func (m responseMethods) Page(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	if r.page == nil {
		r.page = goja.Null()
		if r.h.resp.Page != nil {
			r.page = m.st.newPage(r.h)
		}
	}
	if goja.IsNull(r.page) {
		return goja.Undefined(), nil
	}
	return r.page, nil
}

// Selector is the root Selector of the document (parsel: response.selector); the
// namespaces registered on it serve `xpath()`.
//
//jscrawl:ts readonly selector: Selector;
func (m responseMethods) Selector(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	if r.sel == nil {
		doc, err := m.st.document(r.h)
		if err != nil {
			return nil, err
		}
		r.sel = m.st.newSelector(doc.Root())
	}
	return r.sel, nil
}

// Css selects with CSS from the root (see `Selector.css`).
//
//jscrawl:ts css(query: string): SelectorList;
func (m responseMethods) Css(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	if r.sel != nil {
		s := r.sel.Export().(*jsSelector)
		return m.st.selectAllNS(c.Argument(0).String(), s.ns, s.r)
	}
	doc, err := m.st.document(r.h)
	if err != nil {
		return nil, err
	}
	return m.st.selectAll(c.Argument(0).String(), doc.Root())
}

// Xpath selects with XPath 1.0 from the root element (see `Selector.xpath`), with the
// namespaces registered on `response.selector`. An XML response (an XML Content-Type, or
// none and an XML declaration) is parsed as XML: its namespaces need a prefix
// (`response.selector.registerNamespace("s", uri)`) or `removeNamespaces()`.
//
//jscrawl:ts xpath(expr: string, namespaces?: Namespaces | null, variables?: XPathVariables): SelectorList;
func (m responseMethods) Xpath(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	sel, err := m.Selector(r, c)
	if err != nil {
		return nil, err
	}
	s := sel.Export().(*jsSelector)
	return m.st.xpathAll(c.Argument(0), c.Argument(1), c.Argument(2), s.ns, s.r)
}

// Jmespath runs a JMESPath expression on the body parsed as JSON (parsed once per
// response) and returns a plain value (`null` when nothing matches; object keys sorted).
// Throws a TypeError when the body is not JSON or the expression is invalid.
//
//jscrawl:ts jmespath(expr: string): any;
func (m responseMethods) Jmespath(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	data, err := r.h.jsonValue()
	if err != nil {
		return nil, typeError("response.jmespath(): %v", err)
	}
	return m.st.jmesSearch("response.jmespath()", c.Argument(0).String(), data)
}

// BaseUrl is the URL relative links resolve against: the URL, or the page's `<base href>`.
//
//jscrawl:ts readonly baseUrl: string;
func (m responseMethods) BaseUrl(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(r.h.baseURL()), nil
}

// Urljoin resolves a URL against baseUrl (the page's `<base href>` when it has one), as
// Scrapy.
//
//jscrawl:ts urljoin(href: string): string;
func (m responseMethods) Urljoin(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	return m.st.urls.urljoin(r.h.baseURL(), c.Argument(0).String(), r.h)
}

// Follow makes a Request for a link: a URL (relative is fine), an `<a>` Selector or a
// Request. A link that cannot be downloaded (an empty or `#...` href, `mailto:`, `tel:`,
// `javascript:`, or a scheme DOWNLOAD_SCHEMES does not enable, such as `data:`) gives
// `undefined` (counted in `follow/skipped_scheme`); yielding `undefined` yields nothing.
//
//jscrawl:ts follow(target: Request, options?: RequestOptions): Request;
//jscrawl:ts follow(target: Request, callback: CallbackRef | null, options?: RequestOptionsAfterCallback): Request;
//jscrawl:ts follow(target: string | Selector | Request, options?: RequestOptions): Request | undefined;
//jscrawl:ts follow(target: string | Selector | Request, callback: CallbackRef | null, options?: RequestOptionsAfterCallback): Request | undefined;
func (m responseMethods) Follow(r *jsResponse, c goja.FunctionCall) (goja.Value, error) {
	// The common case, a string href without options, is joined here; the others go to
	// the prelude's followRequest.
	if len(c.Arguments) == 1 && goja.IsString(c.Arguments[0]) {
		page := ""
		if r.url != nil {
			page = r.url.String()
		}
		str, err := m.st.urls.join(r.h.baseURL(), c.Arguments[0].String(), page, false, r.h)
		if err != nil || str == "" {
			return goja.Undefined(), err
		}
		// What new Request(url) makes (the URL as its one own property), without the
		// constructor call.
		o := m.st.rt.NewObject()
		_ = o.SetPrototype(m.st.requestProto)
		_ = o.Set("url", str)
		return o, nil
	}
	if m.st.followSlow == nil {
		m.st.followSlow, _ = goja.AssertFunction(m.st.helper("follow"))
	}
	return m.st.followSlow(c.This, c.Arguments...)
}

// ToString returns "<status url>".
//
//jscrawl:ts toString(): string;
func (m responseMethods) ToString(r *jsResponse, _ goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue("<" + jsString(r.status) + " " + jsString(r.url) + ">"), nil
}

// jsString is String(v), "undefined" for a missing value.
func jsString(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	return v.String()
}

// Interface guards.
var _ goja.DynamicObject = (*jsResponse)(nil)
