package jsapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/jsapi/links"
	"github.com/jscrawl/jscrawl/jsapi/selector"
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
	ldDone  bool // response.jsonLd() ran (its invalid blocks are counted once)
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

func (h *respHandle) contentType() string { return contentType(h.resp) }

// contentType is every Content-Type header of resp, joined by ", " as Fetch combines a
// header list: its "extract a MIME type" (selector.DecodeText) reads them all.
func contentType(resp *types.Response) string {
	return strings.Join(resp.Headers.Values("Content-Type"), ", ")
}

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
		if isXML(h.resp) {
			h.doc, h.docErr = parseDocument(h.resp)
		} else {
			h.doc, h.docErr = selector.ParseText(h.body())
		}
	}
	return h.doc, h.docErr
}

// pageURL returns the response URL parsed.
func (h *respHandle) pageURL() (*url.URL, error) {
	u, err := url.Parse(h.resp.URL)
	if err != nil {
		return nil, typeError("invalid response URL %q", h.resp.URL)
	}
	return u, nil
}

// document is h.document() plus, the first time, the DEBUG note of a page nested too deeply
// for the parser (see selector.ParseText). A parse error names the URL.
func (st *vmState) document(h *respHandle) (*selector.Document, error) {
	d, err := h.document()
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", h.resp.URL, err)
	}
	if d != nil && !h.noted {
		h.noted = true
		st.s.noteFlattened(h.resp.URL, d)
	}
	return d, nil
}

// noteFlattened logs at DEBUG that d, the page at url, was nested too deeply and flattened.
func (s *Spider) noteFlattened(url string, d *selector.Document) {
	if d.Flattened() > 0 {
		s.logger.Debug(fmt.Sprintf("%s is nested deeper than the HTML parser allows (512 elements): %d elements past depth %d were flattened into siblings",
			url, d.Flattened(), selector.FlatDepth))
	}
}

// responseToJS makes the JS Response for resp; on the loop. Its request is made on first use.
func (st *vmState) responseToJS(h *respHandle) (goja.Value, error) {
	return st.newJSResponse(h, nil), nil
}

// responseClass holds the natives prelude.js needs for the JS Response (a Go-backed object:
// jsresponse.go), which take its respHandle (handleOf) as their first argument.
type responseClass struct{ st *vmState }

// ResponseProto() is Response.prototype, made in Go (installResponse).
func (r responseClass) ResponseProto(goja.FunctionCall) (goja.Value, error) {
	return r.st.responseProto, nil
}

// HandleOf(v) is Response.handleOf(v): the respHandle of a Response, else undefined.
func (r responseClass) HandleOf(c goja.FunctionCall) (goja.Value, error) {
	if x, ok := responseOf(c.Argument(0)); ok {
		return r.st.rt.ToValue(x.h), nil
	}
	return goja.Undefined(), nil
}

// NewResponse(body, status, headers, url, request) backs new Response(...): the Response.
func (r responseClass) NewResponse(c goja.FunctionCall) (goja.Value, error) {
	rt := r.st.rt
	resp := &types.Response{Body: []byte(c.Argument(0).String()), Status: int(c.Argument(1).ToInteger()), URL: c.Argument(3).String()}
	if h, ok := c.Argument(2).(*goja.Object); ok {
		hdr, err := headersFromJS(rt, h)
		if err != nil {
			return nil, typeError("new Response(): %v", err)
		}
		resp.Headers = hdr
	}
	if resp.Headers == nil {
		resp.Headers = http.Header{}
	}
	if o, ok := c.Argument(4).(*goja.Object); ok {
		req, err := requestFromJS(rt, o)
		if err != nil {
			return nil, typeError("new Response(): %v", err)
		}
		resp.Request = req
		if resp.URL == "" {
			resp.URL = req.URL
		}
	}
	// The body is text already: it must not be decoded again by the charset its
	// headers may name.
	h := &respHandle{resp: resp, text: c.Argument(0).String(), hasText: true, made: true}
	var req goja.Value
	if o, ok := c.Argument(4).(*goja.Object); ok {
		req = o
	}
	return r.st.newJSResponse(h, req), nil
}

// ResponseScreenshot(h) is response.screenshot: the PNG of a browser request with the
// option screenshot, as a Uint8Array (a copy); null otherwise.
func (r responseClass) ResponseScreenshot(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	if len(h.resp.Screenshot) == 0 {
		return goja.Null(), nil
	}
	return uint8Array(r.st.rt, h.resp.Screenshot)
}

// uint8Array makes a JS Uint8Array over a copy of b.
func uint8Array(rt *goja.Runtime, b []byte) (goja.Value, error) {
	ctor, ok := goja.AssertConstructor(rt.Get("Uint8Array"))
	if !ok {
		return nil, fmt.Errorf("no Uint8Array constructor")
	}
	return ctor(nil, rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), b...))))
}

// ResponseEncoding(h) is response.encoding: the WHATWG name of the body's encoding.
func (r responseClass) ResponseEncoding(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	if h.made {
		return r.st.rt.ToValue("utf-8"), nil
	}
	return r.st.rt.ToValue(selector.Encoding(h.resp.Body, h.contentType())), nil
}

// Text(h) is response.body and response.text(): the body decoded.
func (r responseClass) Text(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return r.st.rt.ToValue(h.body()), nil
}

// JsonLdTexts(h) returns [the text of every <script type="application/ld+json">, whether
// this is the first call] (invalid blocks are counted in a stat on the first call only).
func (r responseClass) JsonLdTexts(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	first := !h.ldDone
	h.ldDone = true
	doc, err := r.st.document(h)
	if err != nil || doc.IsXML() {
		return r.st.rt.NewArray(r.st.rt.NewArray(), first), nil
	}
	rs, err := selector.Select([]selector.Result{doc.Root()}, `script[type="application/ld+json" i]`)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(rs))
	for i, res := range rs {
		out[i] = res.Text()
	}
	return r.st.rt.NewArray(r.st.rt.NewArray(out...), first), nil
}

// IsHTMLResponse(h) reports whether the response is HTML (CrawlSpider follows links in
// HTML only).
func (r responseClass) IsHTMLResponse(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return r.st.rt.ToValue(isHTML(h.resp)), nil
}

// stringArray makes a JS array of ss.
func stringArray(rt *goja.Runtime, ss []string) *goja.Object {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return rt.NewArray(out...)
}
