package jsapi

import (
	"net/http"
	"sort"
	"strings"

	"github.com/dop251/goja"
)

// jsHeaders is a JS Headers: a Go-backed object (no own properties) whose methods live on
// the shared prototype headersProto, a live view of its response's http.Header.
type jsHeaders struct{ h *respHandle }

func (*jsHeaders) Get(string) goja.Value       { return nil }
func (*jsHeaders) Set(string, goja.Value) bool { return false }
func (*jsHeaders) Has(string) bool             { return false }
func (*jsHeaders) Delete(string) bool          { return true }
func (*jsHeaders) Keys() []string              { return nil }

// newHeaders makes the Headers of the response handle h.
func (st *vmState) newHeaders(h *respHandle) goja.Value {
	o := st.rt.NewDynamicObject(&jsHeaders{h: h})
	_ = o.SetPrototype(st.headersProto)
	return o
}

// installHeaders makes the Headers prototype with native methods; entries() is also its
// [Symbol.iterator].
func (st *vmState) installHeaders() {
	st.headersProto = st.rt.NewObject()
	bindMethods(st.rt, st.headersProto, headersMethods{st}, &bindOptions{iterator: "entries"})
}

// headersMethods are the methods of a JS Headers (Headers.prototype), on this. The
// paragraphs after this one, its methods and their doc comments are jscrawl_gen.d.ts.
//
// Response headers; names are case-insensitive.
//
//jscrawl:class interface Headers extends Iterable<[string, string]>
type headersMethods struct{ st *vmState }

// Get returns the values of the header name joined with ", ", or null (WHATWG Headers).
//
//jscrawl:ts get(name: string): string | null;
func (m headersMethods) Get(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	vs := x.h.resp.Headers.Values(c.Argument(0).String())
	if len(vs) == 0 {
		return goja.Null(), nil
	}
	return m.st.rt.ToValue(strings.Join(vs, ", ")), nil
}

// Has reports whether the header name is present.
//
//jscrawl:ts has(name: string): boolean;
func (m headersMethods) Has(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	return m.st.rt.ToValue(len(x.h.resp.Headers.Values(c.Argument(0).String())) > 0), nil
}

// Set replaces the values of the header name with value.
//
//jscrawl:ts set(name: string, value: string): void;
func (m headersMethods) Set(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	m.put(x, c, false)
	return goja.Undefined(), nil
}

// Append adds value to the values of the header name.
//
//jscrawl:ts append(name: string, value: string): void;
func (m headersMethods) Append(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	m.put(x, c, true)
	return goja.Undefined(), nil
}

// put is set() (add false) and append() (add true).
func (m headersMethods) put(x *jsHeaders, c goja.FunctionCall, add bool) {
	name, value := c.Argument(0).String(), c.Argument(1).String()
	r := x.h.resp
	if r.Headers == nil {
		r.Headers = http.Header{}
	}
	if add {
		r.Headers.Add(name, value)
	} else {
		r.Headers.Set(name, value)
	}
}

// Delete removes the header name.
//
//jscrawl:ts delete(name: string): void;
func (m headersMethods) Delete(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	x.h.resp.Headers.Del(c.Argument(0).String())
	return goja.Undefined(), nil
}

// GetAll returns every value of the header name, in order.
//
//jscrawl:ts getAll(name: string): string[];
func (m headersMethods) GetAll(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	return stringArray(m.st.rt, x.h.resp.Headers.Values(c.Argument(0).String())), nil
}

// Entries iterates over [name, value] pairs, names lowercased and sorted.
//
//jscrawl:ts entries(): IterableIterator<[string, string]>;
func (m headersMethods) Entries(x *jsHeaders, _ goja.FunctionCall) (goja.Value, error) {
	return m.iterate(m.entries(x))
}

// Keys iterates over the names, lowercased and sorted.
//
//jscrawl:ts keys(): IterableIterator<string>;
func (m headersMethods) Keys(x *jsHeaders, _ goja.FunctionCall) (goja.Value, error) {
	keys := sortedKeys(x.h.resp.Headers)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = strings.ToLower(k)
	}
	return m.iterate(m.st.rt.NewArray(out...))
}

// ForEach calls fn(value, name, headers) for each header, as entries() lists them.
//
//jscrawl:ts forEach(fn: (value: string, name: string, headers: Headers) => void): void;
func (m headersMethods) ForEach(x *jsHeaders, c goja.FunctionCall) (goja.Value, error) {
	fn, ok := goja.AssertFunction(c.Argument(0))
	if !ok {
		return nil, typeError("headers.forEach(fn): fn must be a function")
	}
	hdr := x.h.resp.Headers
	for _, k := range sortedKeys(hdr) {
		if _, err := fn(goja.Undefined(), m.st.rt.ToValue(strings.Join(hdr[k], ", ")), m.st.rt.ToValue(strings.ToLower(k)), c.This); err != nil {
			return nil, err
		}
	}
	return goja.Undefined(), nil
}

// ToJSON returns the headers as an object of lowercased names to values (JSON.stringify's).
//
//jscrawl:ts toJSON(): Record<string, string>;
func (m headersMethods) ToJSON(x *jsHeaders, _ goja.FunctionCall) (goja.Value, error) {
	rt := m.st.rt
	o := rt.NewObject()
	hdr := x.h.resp.Headers
	for _, k := range sortedKeys(hdr) {
		_ = o.Set(strings.ToLower(k), strings.Join(hdr[k], ", "))
	}
	return o, nil
}

// entries is the array of [name, value] pairs of x's headers.
func (m headersMethods) entries(x *jsHeaders) *goja.Object {
	rt := m.st.rt
	hdr := x.h.resp.Headers
	keys := sortedKeys(hdr)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = rt.NewArray(strings.ToLower(k), strings.Join(hdr[k], ", "))
	}
	return rt.NewArray(out...)
}

// iterate returns arr[Symbol.iterator]().
func (m headersMethods) iterate(arr *goja.Object) (goja.Value, error) {
	it, _ := goja.AssertFunction(arr.GetSymbol(goja.SymIterator))
	return it(arr)
}

// sortedKeys returns hdr's canonical names, sorted.
func sortedKeys(hdr http.Header) []string {
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// headersClass holds the natives the prelude needs to make Headers.
type headersClass struct{ st *vmState }

// HeadersOf(h) is the Headers of the response handle h.
func (x headersClass) HeadersOf(h *respHandle, _ goja.FunctionCall) (goja.Value, error) {
	return x.st.newHeaders(h), nil
}

// HeadersProto() is Headers.prototype, made in Go (installHeaders).
func (x headersClass) HeadersProto(goja.FunctionCall) (goja.Value, error) {
	return x.st.headersProto, nil
}

// Interface guards.
var _ goja.DynamicObject = (*jsHeaders)(nil)
