package jsapi

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/engine"
	"github.com/jscrawl/jscrawl/types"
)

// The Go types of the JS values exportValue converts specially.
var (
	timeType   = reflect.TypeFor[time.Time]()
	bigIntType = reflect.TypeFor[*big.Int]()
)

// maxExportDepth is the deepest nesting of arrays and objects exportValue converts: an
// item, meta or cbKwargs deeper fails its callback (JSON_MAX_DEPTH bounds JSON itself).
const maxExportDepth = 64

// exportValue converts a JS value into a JSON-like Go value: nil, bool, int64, float64,
// string, []any or types.Item (objects, keys in order). A Map becomes an object (its keys
// as strings), a Set an array, a BigInt its decimal string, and an object with a toJSON
// method what toJSON returns. Functions and symbols are errors; undefined is reported by
// ok=false so object keys holding it are skipped (as JSON does).
func exportValue(rt *goja.Runtime, v goja.Value, path string, depth int) (out any, ok bool, err error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, false, nil
	}
	if goja.IsNull(v) {
		return nil, true, nil
	}
	if depth > maxExportDepth {
		return nil, false, fmt.Errorf("%s is nested deeper than %d levels (a cycle?)", path, maxExportDepth)
	}
	if x, ok, scalar := exportScalar(v); scalar {
		return x, ok, nil
	}
	// ExportType, not Export: Export converts a whole object tree to Go maps, once per
	// level here (quadratic in the depth, and recursive in Go).
	switch v.ExportType() {
	case timeType:
		if x, ok := v.Export().(time.Time); ok {
			return x.UTC().Format("2006-01-02T15:04:05.000Z"), true, nil
		}
	case bigIntType:
		if x, ok := v.Export().(*big.Int); ok {
			// JSON.stringify throws on a BigInt; a decimal string keeps every digit.
			return x.String(), true, nil
		}
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return nil, false, fmt.Errorf("%s: %s values are not JSON-like", path, jsTypeName(v))
	}
	if _, isFn := goja.AssertFunction(v); isFn {
		return nil, false, fmt.Errorf("%s is a function: items, meta and cbKwargs hold JSON-like values only", path)
	}
	if obj.ClassName() == "Array" {
		n := int(obj.Get("length").ToInteger())
		return exportElements(rt, n, func(i int) goja.Value { return obj.Get(fmt.Sprint(i)) }, path, depth)
	}
	switch collectionOf(obj) {
	case "Map":
		item, err := exportMap(rt, obj, path, depth)
		return item, err == nil, err
	case "Set":
		entries, err := iterate(rt, obj, path)
		if err != nil {
			return nil, false, err
		}
		return exportElements(rt, len(entries), func(i int) goja.Value { return entries[i] }, path, depth)
	}
	r, replaced, err := callToJSON(obj)
	if err != nil {
		return nil, false, fmt.Errorf("%s.toJSON(): %w", path, err)
	}
	if replaced {
		return exportValue(rt, r, path, depth+1)
	}
	item, err := exportObject(rt, obj, path, depth)
	return item, err == nil, err
}

// exportElements is exportValue for the n elements of an array or a Set, at(i) giving
// element i (named path[i] in errors): a []any, with nil for an element that has no JSON
// value (undefined), as JSON.stringify writes null.
func exportElements(rt *goja.Runtime, n int, at func(i int) goja.Value, path string, depth int) ([]any, bool, error) {
	arr := make([]any, 0, n)
	for i := range n {
		e, ok, err := exportValue(rt, at(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			e = nil
		}
		arr = append(arr, e)
	}
	return arr, true, nil
}

// exportScalar is exportValue for the values that need no path (undefined, null, strings,
// booleans, finite numbers), so an item's fields skip building one: scalar is false for
// anything else.
func exportScalar(v goja.Value) (out any, ok, scalar bool) {
	if v == nil || goja.IsUndefined(v) {
		return nil, false, true
	}
	if goja.IsNull(v) {
		return nil, true, true
	}
	if _, isObj := v.(*goja.Object); isObj {
		return nil, false, false
	}
	switch x := v.Export().(type) {
	case string, bool, int64:
		return x, true, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, true, true // JSON.stringify writes null
		}
		return x, true, true
	}
	return nil, false, false
}

var (
	mapExportType = reflect.TypeOf([][2]any{})
	setExportType = reflect.TypeOf([]any{})
)

// collectionOf returns "Map" or "Set" when obj is one (or a subclass's instance), else "".
// goja gives them the class name "Object", but exports a Map as [][2]any and a Set as
// []any (as it does an Array, whose class name is "Array").
func collectionOf(obj *goja.Object) string {
	switch t := obj.ExportType(); {
	case t == mapExportType:
		return "Map"
	case t == setExportType && obj.ClassName() != "Array":
		return "Set"
	}
	return ""
}

// callToJSON calls obj.toJSON() when obj has one (as JSON.stringify does); replaced is false
// when it has none or it returns obj itself.
func callToJSON(obj *goja.Object) (r goja.Value, replaced bool, err error) {
	toJSON := obj.Get("toJSON")
	if toJSON == nil {
		return nil, false, nil
	}
	fn, isFn := goja.AssertFunction(toJSON)
	if !isFn {
		return nil, false, nil
	}
	if r, err = fn(obj); err != nil {
		return nil, false, err
	}
	if r2, ok := r.(*goja.Object); ok && r2 == obj {
		return nil, false, nil
	}
	return r, true, nil
}

// iterate returns the values obj's iterator yields (Array.from(obj)): a Set's values, a
// Map's [key, value] pairs.
func iterate(rt *goja.Runtime, obj *goja.Object, path string) ([]goja.Value, error) {
	from, ok := goja.AssertFunction(rt.Get("Array").ToObject(rt).Get("from"))
	if !ok {
		return nil, fmt.Errorf("%s: Array.from is not a function", path)
	}
	v, err := from(goja.Undefined(), obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	arr := v.ToObject(rt)
	n := int(arr.Get("length").ToInteger())
	out := make([]goja.Value, n)
	for i := range n {
		out[i] = arr.Get(fmt.Sprint(i))
	}
	return out, nil
}

// exportMap converts a Map into an Item, in insertion order. Keys become strings as
// String(key) writes them; an object key is an error (it has no useful name).
func exportMap(rt *goja.Runtime, obj *goja.Object, path string, depth int) (types.Item, error) {
	entries, err := iterate(rt, obj, path)
	if err != nil {
		return nil, err
	}
	item := make(types.Item, 0, len(entries))
	for _, e := range entries {
		pair := e.ToObject(rt)
		k, v := pair.Get("0"), pair.Get("1")
		if _, isObj := k.(*goja.Object); isObj {
			return nil, fmt.Errorf("%s: a Map key is an object: items need string or number keys", path)
		}
		key := k.String()
		x, ok, err := exportValue(rt, v, path+"."+key, depth+1)
		if err != nil {
			return nil, err
		}
		if ok {
			item = append(item, types.Field{Key: key, Value: x})
		}
	}
	return item, nil
}

// exportItem converts an object a callback yields, or a pipeline returns, into an item: a
// plain object key by key, a Map by its entries, an object with toJSON() by what toJSON
// returns (which must be an object).
func exportItem(rt *goja.Runtime, obj *goja.Object) (types.Item, error) {
	const path = "item"
	if collectionOf(obj) == "Map" {
		return exportMap(rt, obj, path, 0)
	}
	r, replaced, err := callToJSON(obj)
	if err != nil {
		return nil, fmt.Errorf("%s.toJSON(): %w", path, err)
	}
	if !replaced {
		return exportObject(rt, obj, path, 0)
	}
	v, ok, err := exportValue(rt, r, path, 1)
	if err != nil {
		return nil, err
	}
	item, isItem := v.(types.Item)
	if !ok || !isItem {
		return nil, errors.New("item.toJSON() must return an object")
	}
	return item, nil
}

// exportObject converts an object's own enumerable string keys, in order, into an Item.
func exportObject(rt *goja.Runtime, obj *goja.Object, path string, depth int) (types.Item, error) {
	keys := obj.Keys()
	item := make(types.Item, 0, len(keys))
	for _, k := range keys {
		jv := obj.Get(k)
		if depth < maxExportDepth {
			if x, ok, scalar := exportScalar(jv); scalar {
				if ok {
					item = append(item, types.Field{Key: k, Value: x})
				}
				continue
			}
		}
		v, ok, err := exportValue(rt, jv, path+"."+k, depth+1)
		if err != nil {
			return nil, err
		}
		if ok {
			item = append(item, types.Field{Key: k, Value: v})
		}
	}
	return item, nil
}

// toJS converts a JSON-like Go value into a plain JS value (objects keep key order).
func toJS(rt *goja.Runtime, v any) goja.Value {
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case types.Item:
		o := rt.NewObject()
		for _, f := range x {
			_ = o.Set(f.Key, toJS(rt, f.Value))
		}
		return o
	case []any:
		vals := make([]any, len(x))
		for i, e := range x {
			vals[i] = toJS(rt, e)
		}
		return rt.NewArray(vals...)
	case map[string]any:
		o := rt.NewObject()
		for k, e := range x {
			_ = o.Set(k, toJS(rt, e))
		}
		return o
	case []string:
		vals := make([]any, len(x))
		for i, e := range x {
			vals[i] = e
		}
		return rt.NewArray(vals...)
	default:
		return rt.ToValue(x)
	}
}

// requestFromJS converts a JS Request into a types.Request; it runs on the loop. It reads
// only the request's own properties (the prototype holds the defaults).
func requestFromJS(rt *goja.Runtime, obj *goja.Object) (*types.Request, error) {
	req := &types.Request{}
	var err error
	for _, k := range obj.Keys() {
		v := obj.Get(k)
		switch k {
		case "url":
			req.URL = types.NormalizeURL(v.String())
		case "method":
			if s := strings.ToUpper(v.String()); s != http.MethodGet {
				req.Method = s
			}
		case "headers":
			if h, ok := v.(*goja.Object); ok {
				if req.Headers, err = headersFromJS(rt, h); err != nil {
					return nil, err
				}
			}
		case "body":
			if goja.IsUndefined(v) || goja.IsNull(v) {
				continue
			}
			switch x := v.Export().(type) {
			case []byte:
				req.Body = x
			case goja.ArrayBuffer:
				req.Body = x.Bytes()
			default:
				req.Body = []byte(v.String())
			}
		case "callback":
			if req.Callback, err = nameOf(v, "callback"); err != nil {
				return nil, err
			}
		case "errback":
			if req.Errback, err = nameOf(v, "errback"); err != nil {
				return nil, err
			}
		case "cbKwargs":
			if o, ok := v.(*goja.Object); ok {
				if req.CbKwargs, err = exportObject(rt, o, "cbKwargs", 0); err != nil {
					return nil, err
				}
			}
		case "meta":
			if o, ok := v.(*goja.Object); ok {
				if req.Meta, err = exportObject(rt, o, "meta", 0); err != nil {
					return nil, err
				}
				if err := checkScrapyMeta(req.Meta); err != nil {
					return nil, err
				}
				// depth is the engine's Go field. A depth set here is a start request's (or one
				// a built-in filter ran on between JS middlewares); DepthMiddleware sets it
				// again for requests a callback produces.
				if dv := o.Get(types.MetaDepth); dv != nil {
					if d, ok := dv.Export().(int64); ok && d >= 0 {
						req.Depth = int(d)
					}
				}
				req.Meta = dropKeys(req.Meta, types.MetaDepth)
			}
		case "cookies":
			if req.Cookies, err = cookiesFromJS(rt, v); err != nil {
				return nil, err
			}
		case "priority":
			req.Priority = int(v.ToInteger())
		case "dontFilter":
			req.DontFilter = v.ToBoolean()
		}
	}
	return req, nil
}

// cookiesFromJS converts a Request's cookies option: an object {name: value} or an array
// of {name, value, domain, path}.
func cookiesFromJS(rt *goja.Runtime, v goja.Value) ([]types.Cookie, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("cookies must be an object {name: value} or an array of {name, value, domain, path}")
	}
	var out []types.Cookie
	if obj.ClassName() != "Array" {
		for _, k := range obj.Keys() {
			cv := obj.Get(k)
			if goja.IsUndefined(cv) || goja.IsNull(cv) {
				continue
			}
			out = append(out, types.Cookie{Name: k, Value: cv.String()})
		}
		return out, nil
	}
	n := int(obj.Get("length").ToInteger())
	for i := 0; i < n; i++ {
		co, ok := obj.Get(fmt.Sprint(i)).(*goja.Object)
		if !ok {
			return nil, fmt.Errorf("cookies[%d] must be an object {name, value, domain, path}", i)
		}
		str := func(k string) string {
			x := co.Get(k)
			if x == nil || goja.IsUndefined(x) || goja.IsNull(x) {
				return ""
			}
			return x.String()
		}
		c := types.Cookie{Name: str("name"), Value: str("value"), Domain: str("domain"), Path: str("path")}
		if c.Name == "" {
			return nil, fmt.Errorf("cookies[%d] has no name", i)
		}
		out = append(out, c)
	}
	return out, nil
}

func dropKeys(it types.Item, keys ...string) types.Item {
	out := it[:0]
outer:
	for _, f := range it {
		for _, k := range keys {
			if f.Key == k {
				continue outer
			}
		}
		out = append(out, f)
	}
	return out
}

func nameOf(v goja.Value, what string) (string, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "", nil
	}
	if s, ok := v.Export().(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s must be a spider method or its name", what)
}

func headersFromJS(rt *goja.Runtime, h *goja.Object) (http.Header, error) {
	hdr := http.Header{}
	if entries := h.Get("entries"); entries != nil {
		if _, ok := goja.AssertFunction(entries); ok {
			// A Headers instance: use its JSON form.
			if tj, ok := goja.AssertFunction(h.Get("toJSON")); ok {
				v, err := tj(h)
				if err != nil {
					return nil, err
				}
				h = v.ToObject(rt)
			}
		}
	}
	for _, k := range h.Keys() {
		v := h.Get(k)
		if o, ok := v.(*goja.Object); ok && o.ClassName() == "Array" {
			n := int(o.Get("length").ToInteger())
			for i := 0; i < n; i++ {
				hdr.Add(k, o.Get(fmt.Sprint(i)).String())
			}
			continue
		}
		if goja.IsUndefined(v) || goja.IsNull(v) {
			continue
		}
		hdr.Set(k, v.String())
	}
	return hdr, nil
}

// requestToJS makes a JS Request from a types.Request; it runs on the loop.
func (st *vmState) requestToJS(req *types.Request) (goja.Value, error) {
	rt := st.rt
	o := rt.NewObject()
	if req.Method != "" {
		_ = o.Set("method", req.Method)
	}
	hdr := rt.NewObject()
	for k, vs := range req.Headers {
		if len(vs) == 1 {
			_ = hdr.Set(k, vs[0])
		} else {
			_ = hdr.Set(k, toJS(rt, vs))
		}
	}
	_ = o.Set("headers", hdr)
	if req.Body != nil {
		_ = o.Set("body", string(req.Body))
	}
	_ = o.Set("cbKwargs", toJS(rt, req.CbKwargs))
	meta := toJS(rt, req.Meta).ToObject(rt)
	_ = meta.Set(types.MetaDepth, req.Depth)
	_ = o.Set("meta", meta)
	if len(req.Cookies) > 0 {
		cs := make([]any, len(req.Cookies))
		for i, c := range req.Cookies {
			co := rt.NewObject()
			_ = co.Set("name", c.Name)
			_ = co.Set("value", c.Value)
			if c.Domain != "" {
				_ = co.Set("domain", c.Domain)
			}
			if c.Path != "" {
				_ = co.Set("path", c.Path)
			}
			cs[i] = co
		}
		_ = o.Set("cookies", rt.NewArray(cs...))
	}
	_ = o.Set("priority", req.Priority)
	_ = o.Set("dontFilter", req.DontFilter)
	v, err := st.makeRequest(goja.Undefined(), rt.ToValue(req.URL), o)
	if err != nil {
		return nil, err
	}
	// The callback names are set after the constructor, which would check that the spider
	// has them: a request whose callback a reload removed still reaches its errback.
	jr := v.ToObject(rt)
	if req.Callback != "" {
		_ = jr.Set("callback", req.Callback)
	}
	if req.Errback != "" {
		_ = jr.Set("errback", req.Errback)
	}
	return jr, nil
}

// dropError is a DropItem raised by a JS pipeline; it wraps the engine's ErrDropItem.
type dropError struct{ reason string }

func (e *dropError) Error() string { return e.reason }
func (e *dropError) Unwrap() error { return engine.ErrDropItem }
