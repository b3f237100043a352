package jsapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/jmespath/go-jmespath"
	"github.com/jscrawl/jscrawl/jsapi/selector"
	"github.com/jscrawl/jscrawl/types"
)

// isXML reports whether a response is an XML document (Scrapy's XmlResponse): an XML media
// type other than XHTML, which is HTML as in Scrapy, or no Content-Type and a body that
// starts with an XML declaration.
func isXML(resp *types.Response) bool {
	ct := resp.Headers.Get("Content-Type")
	if ct == "" {
		return strings.HasPrefix(bodyStart(resp), "<?xml")
	}
	mt := mediaType(ct)
	return mt == "text/xml" || mt == "application/xml" ||
		(strings.HasSuffix(mt, "+xml") && mt != "application/xhtml+xml")
}

// parseDocument parses a response body as XML or HTML by its type. A broken XML document
// still gives what parsed, as lxml's recover mode.
func parseDocument(resp *types.Response) (*selector.Document, error) {
	ct := contentType(resp)
	if isXML(resp) {
		d, _ := selector.ParseXML(resp.Body, ct)
		return d, nil
	}
	return selector.Parse(resp.Body, ct)
}

// jmesCache holds compiled JMESPath expressions (safe for concurrent use), bounded as the
// selector caches are.
var jmesCache struct {
	m sync.Map // string → jmesEntry
	n atomic.Int64
}

type jmesEntry struct {
	q   *jmespath.JMESPath
	err error
}

const jmesCacheLimit = 1024

func compileJMESPath(expr string) (*jmespath.JMESPath, error) {
	if v, ok := jmesCache.m.Load(expr); ok {
		e, _ := v.(jmesEntry) // only jmesEntry values are stored
		return e.q, e.err
	}
	q, err := jmespath.Compile(expr)
	if err != nil {
		err = fmt.Errorf("invalid JMESPath expression %q: %w", expr, err)
	}
	if jmesCache.n.Add(1) > jmesCacheLimit {
		jmesCache.m.Clear()
		jmesCache.n.Store(1)
	}
	jmesCache.m.Store(expr, jmesEntry{q, err})
	return q, err
}

// jsonValue returns the response body parsed as JSON, parsing it once.
func (h *respHandle) jsonValue() (any, error) {
	if !h.hasJSON {
		h.hasJSON = true
		if err := json.Unmarshal([]byte(h.body()), &h.json); err != nil {
			h.jsonErr = fmt.Errorf("the body of %s is not JSON: %w", h.resp.URL, err)
		}
	}
	return h.json, h.jsonErr
}

// jmesSearch runs a JMESPath expression on data and converts the result to a plain JS
// value; errors are TypeErrors.
func (st *vmState) jmesSearch(who, expr string, data any) (goja.Value, error) {
	q, err := compileJMESPath(expr)
	if err != nil {
		return nil, typeError("%s: %w", who, err)
	}
	v, err := q.Search(data)
	if err != nil {
		return nil, typeError("%s: JMESPath %q: %w", who, expr, err)
	}
	return jsonToJS(st.rt, v), nil
}

// jsonToJS converts a value decoded by encoding/json to a plain JS value. Object keys come
// in sorted order (Go maps keep none).
func jsonToJS(rt *goja.Runtime, v any) goja.Value {
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case map[string]any:
		o := rt.NewObject()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			_ = o.Set(k, jsonToJS(rt, x[k]))
		}
		return o
	case []any:
		vals := make([]any, len(x))
		for i, e := range x {
			vals[i] = jsonToJS(rt, e)
		}
		return rt.NewArray(vals...)
	default:
		return rt.ToValue(x)
	}
}
