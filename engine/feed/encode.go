package feed

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/jscrawl/jscrawl/types"
)

// maxJSONDepth is the deepest nesting of items and lists appendJSON writes: items from JS
// stop at 64 levels, and an item a Go component built deeper (or a list that holds itself)
// is an error instead of a goroutine stack overflow. It is encoding/json's limit on reading.
const maxJSONDepth = 10000

// appendJSON appends v as compact JSON to b. It writes the same bytes as types.Item.JSON
// (encoding/json without HTML escaping, keys in item order) for the value kinds an item
// holds, without encoding/json's per-value allocations; other values go through
// encoding/json. A value nested deeper than maxJSONDepth is an error.
func appendJSON(b []byte, v any) ([]byte, error) { return appendJSONAt(b, v, 0) }

// appendJSONAt is appendJSON for a value depth levels down.
func appendJSONAt(b []byte, v any, depth int) ([]byte, error) {
	var err error
	switch v.(type) {
	case types.Item, []any:
		if depth++; depth > maxJSONDepth {
			return b, fmt.Errorf("json: the value is nested deeper than %d levels (a cycle?)", maxJSONDepth)
		}
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, fmt.Errorf("json: unsupported value: %v", v)
		}
		return append(b, formatNumber(v)...), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case types.Item:
		if v == nil {
			return append(b, "{}"...), nil
		}
		b = append(b, '{')
		for i, f := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.Key)
			b = append(b, ':')
			if b, err = appendJSONAt(b, f.Value, depth); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSONAt(b, e, depth); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	j, err := marshalJSON(v)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does with HTML
// escaping off: quotes, backslashes and control characters, U+2028 and U+2029, and
// invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
