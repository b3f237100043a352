// Package codec is the compact binary form of a request that the frontiers store and the
// memory scheduler keeps a waiting request in (EncodeRequest, DecodeRequest), and the
// 16-byte fingerprint of a seen-set. It holds no storage, so the engine uses it without
// the frontier's store.
package codec

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"unsafe"

	"github.com/jscrawl/jscrawl/types"
)

// The request encoding is a compact binary form, about 4× faster to decode than JSON and
// exact for the JSON-like values Meta and CbKwargs hold (an int64 stays an int64, an Item
// keeps its key order). A value of another type is stored as its JSON (json.RawMessage).

const codecVersion = 1

// value tags
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagFloat
	tagInt64
	tagString
	tagList
	tagItem
	tagJSON
	tagStrings
	tagInt
)

var errShort = errors.New("truncated request record")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// EncodeRequest appends the record of req to b: the compact binary form the on-disk
// frontier stores, and the Redis frontier too.
func EncodeRequest(b []byte, req *types.Request) []byte {
	b = append(b, codecVersion)
	b = appendString(b, req.URL)
	b = appendString(b, req.Method)
	b = appendString(b, req.Callback)
	b = appendString(b, req.Errback)
	b = binary.AppendVarint(b, int64(req.Priority))
	b = binary.AppendVarint(b, int64(req.Depth))
	b = binary.AppendVarint(b, int64(req.Retries))
	if req.DontFilter {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = appendBytes(b, req.Body)
	b = binary.AppendUvarint(b, uint64(len(req.Headers)))
	for k, vs := range req.Headers {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendString(b, v)
		}
	}
	b = appendItem(b, req.CbKwargs)
	b = appendItem(b, req.Meta)
	b = binary.AppendUvarint(b, uint64(len(req.Cookies)))
	for _, c := range req.Cookies {
		b = appendString(b, c.Name)
		b = appendString(b, c.Value)
		b = appendString(b, c.Domain)
		b = appendString(b, c.Path)
	}
	return b
}

func appendItem(b []byte, it types.Item) []byte {
	if it == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(it)))
	for _, f := range it {
		b = appendString(b, f.Key)
		b = appendValue(b, f.Value)
	}
	return b
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, tagNil)
	case bool:
		if v {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case float64:
		b = append(b, tagFloat)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	case int64:
		return binary.AppendVarint(append(b, tagInt64), v)
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(v))
	case string:
		return appendString(append(b, tagString), v)
	case []string:
		b = binary.AppendUvarint(append(b, tagStrings), uint64(len(v)))
		for _, s := range v {
			b = appendString(b, s)
		}
		return b
	case []any:
		b = binary.AppendUvarint(append(b, tagList), uint64(len(v)))
		for _, e := range v {
			b = appendValue(b, e)
		}
		return b
	case types.Item:
		return appendItem(append(b, tagItem), v)
	}
	j, err := json.Marshal(v)
	if err != nil {
		j = []byte("null")
	}
	return appendBytes(append(b, tagJSON), j)
}

// decoder reads a record; the first error sticks.
type decoder struct {
	b   []byte
	err error
	// shared: b is the bytes of an immutable string, and strings read may point into it
	// instead of copying.
	shared bool
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if !d.skip(n) {
		return 0
	}
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if !d.skip(n) {
		return 0
	}
	return v
}

// skip consumes the n bytes of a varint just read, or fails the decoder when there was
// none (n ≤ 0: too short, or overflowing), reporting which.
func (d *decoder) skip(n int) bool {
	if n <= 0 {
		d.fail()
		return false
	}
	d.b = d.b[n:]
	return true
}

// count reads a length that must fit in what is left (each element takes ≥ 1 byte).
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) string() string {
	b := d.bytes()
	if d.shared && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// DecodeRequest decodes a record written by EncodeRequest. It never panics on damaged input.
func DecodeRequest(b []byte) (*types.Request, error) {
	return decode(&decoder{b: b})
}

// DecodeRequestString decodes a record held in a string, as DecodeRequest does, without
// copying its strings: the request's URL, headers and other strings point into rec (which
// they keep alive) where DecodeRequest makes copies.
func DecodeRequestString(rec string) (*types.Request, error) {
	return decode(&decoder{b: unsafe.Slice(unsafe.StringData(rec), len(rec)), shared: true})
}

func decode(d *decoder) (*types.Request, error) {
	if v := d.byte(); d.err == nil && v != codecVersion {
		return nil, fmt.Errorf("request record version %d, want %d", v, codecVersion)
	}
	r := &types.Request{}
	r.URL = d.string()
	r.Method = d.string()
	r.Callback = d.string()
	r.Errback = d.string()
	r.Priority = int(d.varint())
	r.Depth = int(d.varint())
	r.Retries = int(d.varint())
	r.DontFilter = d.byte() == 1
	if body := d.bytes(); len(body) > 0 {
		r.Body = append([]byte(nil), body...)
	}
	if n := d.count(); n > 0 {
		r.Headers = make(http.Header, n)
		for range n {
			k := d.string()
			m := d.count()
			vs := make([]string, m)
			for j := range vs {
				vs[j] = d.string()
			}
			r.Headers[k] = vs
		}
	}
	r.CbKwargs = d.item(0)
	r.Meta = d.item(0)
	if n := d.count(); n > 0 {
		r.Cookies = make([]types.Cookie, n)
		for i := range r.Cookies {
			r.Cookies[i] = types.Cookie{Name: d.string(), Value: d.string(), Domain: d.string(), Path: d.string()}
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes after request record")
	}
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}

const maxDepth = 1000

func (d *decoder) item(depth int) types.Item {
	if d.byte() == 0 || d.err != nil {
		return nil
	}
	n := d.count()
	it := make(types.Item, 0, n)
	for range n {
		k := d.string()
		it = append(it, types.Field{Key: k, Value: d.value(depth + 1)})
		if d.err != nil {
			return nil
		}
	}
	return it
}

func (d *decoder) value(depth int) any {
	if depth > maxDepth {
		d.err = errors.New("request record nested too deep")
		d.b = nil
		return nil
	}
	switch d.byte() {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagFloat:
		if len(d.b) < 8 {
			d.fail()
			return nil
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		d.b = d.b[8:]
		return v
	case tagInt64:
		return d.varint()
	case tagInt:
		return int(d.varint())
	case tagString:
		return d.string()
	case tagStrings:
		l := make([]string, d.count())
		for i := range l {
			l[i] = d.string()
		}
		return l
	case tagList:
		l := make([]any, d.count())
		for i := range l {
			l[i] = d.value(depth + 1)
		}
		return l
	case tagItem:
		return d.item(depth)
	case tagJSON:
		return json.RawMessage(append([]byte(nil), d.bytes()...))
	}
	if d.err == nil {
		d.err = errors.New("unknown value tag in request record")
	}
	d.b = nil
	return nil
}

// Fingerprint returns the first 16 bytes of req's fingerprint (a SHA-1): the compact form
// a seen-set keeps.
func Fingerprint(req *types.Request) [16]byte {
	sum := req.FingerprintSum()
	return [16]byte(sum[:16])
}

// EncodesExactly reports whether DecodeRequest(EncodeRequest(req)) gives back a request
// equal to req field for field (its parsed-URL cache aside): true unless req holds what the
// record cannot tell apart or keep exactly. Those are an empty non-nil Body, Headers or
// Cookies (decoded as nil), a header key with a nil value list, and in Meta or CbKwargs a
// value of a type other than nil, bool, float64, int64, int, string, a non-nil []string or
// []any, and types.Item (another type is stored as its JSON).
func EncodesExactly(req *types.Request) bool {
	if req.Body != nil && len(req.Body) == 0 ||
		req.Headers != nil && len(req.Headers) == 0 ||
		req.Cookies != nil && len(req.Cookies) == 0 {
		return false
	}
	for _, vs := range req.Headers {
		if vs == nil {
			return false
		}
	}
	return itemExact(req.CbKwargs, 0) && itemExact(req.Meta, 0)
}

func itemExact(it types.Item, depth int) bool {
	for _, f := range it {
		if !valueExact(f.Value, depth+1) {
			return false
		}
	}
	return true
}

// valueExact mirrors decoder.value's depth count: a record nested deeper does not decode.
func valueExact(v any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch v := v.(type) {
	case nil, bool, float64, int64, int, string:
		return true
	case []string:
		return v != nil
	case []any:
		if v == nil {
			return false
		}
		for _, e := range v {
			if !valueExact(e, depth+1) {
				return false
			}
		}
		return true
	case types.Item:
		return itemExact(v, depth)
	}
	return false
}
