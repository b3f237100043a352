package jsapi

import (
	"net/http"
	"sort"
	"strings"

	"github.com/dop251/goja"
)

// headersClass holds the natives of a JS Response's Headers (prelude.js): a live view of
// the response's http.Header, passed as the response handle. Names are case-insensitive;
// a name with several values reads as one string joined with ", " (WHATWG Headers).
type headersClass struct{ rt *goja.Runtime }

// HeaderGet(h, name) is headers.get(name): the values joined, or null.
func (x headersClass) HeaderGet(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	vs := h.resp.Headers.Values(c.Argument(1).String())
	if len(vs) == 0 {
		return goja.Null(), nil
	}
	return x.rt.ToValue(strings.Join(vs, ", ")), nil
}

// HeaderSet(h, name, value, append) is headers.set(name, value), or headers.append with
// append true.
func (x headersClass) HeaderSet(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	r := h.resp
	if r.Headers == nil {
		r.Headers = http.Header{}
	}
	if c.Argument(3).ToBoolean() {
		r.Headers.Add(c.Argument(1).String(), c.Argument(2).String())
	} else {
		r.Headers.Set(c.Argument(1).String(), c.Argument(2).String())
	}
	return goja.Undefined(), nil
}

// HeaderDelete(h, name) is headers.delete(name).
func (x headersClass) HeaderDelete(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	h.resp.Headers.Del(c.Argument(1).String())
	return goja.Undefined(), nil
}

// HeaderValues(h, name) is headers.getAll(name): every value, in order.
func (x headersClass) HeaderValues(h *respHandle, c goja.FunctionCall) (goja.Value, error) {
	return stringArray(x.rt, h.resp.Headers.Values(c.Argument(1).String())), nil
}

// HeaderEntries(h) lists [name, value] pairs, names lowercased and sorted.
func (x headersClass) HeaderEntries(h *respHandle, _ goja.FunctionCall) (goja.Value, error) {
	hdr := h.resp.Headers
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = x.rt.NewArray(strings.ToLower(k), strings.Join(hdr[k], ", "))
	}
	return x.rt.NewArray(out...), nil
}
