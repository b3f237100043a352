package feed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/jscrawl/jscrawl/types"
)

// project returns the fields of it named in fields, in the order of fields; keys that the
// item lacks are left out (Scrapy's fields_to_export with include_empty off). A nil fields
// keeps the item as it is.
func project(it types.Item, fields []string) types.Item {
	if fields == nil {
		return it
	}
	out := make(types.Item, 0, len(fields))
	for _, k := range fields {
		if v, ok := it.Get(k); ok {
			out = append(out, types.Field{Key: k, Value: v})
		}
	}
	return out
}

// marshalJSON encodes v as compact JSON without HTML escaping, keeping the key order of
// types.Item values.
func marshalJSON(v any) ([]byte, error) {
	if it, ok := v.(types.Item); ok {
		return it.JSON()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// formatNumber writes f as JavaScript's Number.prototype.toString does: 3 not 3.0,
// 1e+21, 1e-7, NaN and Infinity.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0" // also -0, as JS prints it
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 and e+07; JS writes e-7 and e+7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}

// formatScalar turns one item value into text for the CSV and XML formats. Numbers and
// booleans are written as JavaScript prints them, nil as "", and objects and arrays as
// compact JSON.
func formatScalar(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return formatNumber(v), nil
	case float32:
		return formatNumber(float64(v)), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int32:
		return strconv.FormatInt(int64(v), 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case uint:
		return strconv.FormatUint(uint64(v), 10), nil
	case json.Number:
		return v.String(), nil
	case types.Item, []any, map[string]any, []string:
		b, err := appendJSON(nil, v)
		if err != nil {
			return "", err
		}
		return string(b), nil
	case json.Marshaler:
		b, err := marshalJSON(v)
		if err != nil {
			return "", err
		}
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s, nil
		}
		return string(b), nil
	case fmt.Stringer:
		return v.String(), nil
	}
	if b, err := marshalJSON(v); err == nil {
		return string(b), nil
	}
	return fmt.Sprint(v), nil
}
