package types

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file converts setting values: text from -s KEY=VALUE and JSON-like values from a
// spider to the kind of their key, and values back to text for error messages.

func convert(kind Kind, v any) (any, error) {
	switch kind {
	case KindInt:
		f, err := toFloat(v)
		if err != nil || f != math.Trunc(f) {
			return nil, fmt.Errorf("want an integer, got %s", describe(v))
		}
		return int(f), nil
	case KindFloat, KindDuration:
		f, err := toFloat(v)
		if err != nil {
			return nil, fmt.Errorf("want a %s, got %s", kind, describe(v))
		}
		return f, nil
	case KindBool:
		b, err := toBool(v)
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %s", describe(v))
		}
		return b, nil
	case KindString:
		switch v := v.(type) {
		case string:
			return v, nil
		case nil: // unset, as the default of HTTP_AUTH_DOMAIN
			return nil, nil
		default:
			return nil, fmt.Errorf("want a string, got %s", describe(v))
		}
	case KindList:
		switch v := v.(type) {
		case []any:
			return v, nil
		case []string:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = x
			}
			return out, nil
		case string:
			t := strings.TrimSpace(v)
			if strings.HasPrefix(t, "[") {
				var l []any
				if err := json.Unmarshal([]byte(t), &l); err != nil {
					return nil, fmt.Errorf("want a JSON array: %v", err)
				}
				return l, nil
			}
			var out []any
			for _, p := range strings.Split(t, ",") {
				if p = strings.TrimSpace(p); p != "" {
					if n, err := strconv.Atoi(p); err == nil {
						out = append(out, n)
					} else {
						out = append(out, p)
					}
				}
			}
			return out, nil
		default:
			return nil, fmt.Errorf("want a list, got %s", describe(v))
		}
	case KindMap:
		switch v := v.(type) {
		case map[string]any:
			return v, nil
		case string:
			var m map[string]any
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				return nil, fmt.Errorf("want a JSON object: %v", err)
			}
			return m, nil
		default:
			return nil, fmt.Errorf("want an object, got %s", describe(v))
		}
	}
	// KindAny: text that looks like a number or boolean is kept as text; the reader
	// converts it with a typed getter.
	return v, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprintf("%T", v)
		}
		return string(b)
	}
}

func toFloat(v any) (float64, error) {
	switch v := v.(type) {
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case string:
		return strconv.ParseFloat(strings.TrimSpace(v), 64)
	}
	return 0, fmt.Errorf("not a number")
}

func toBool(v any) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case int:
		return v != 0, nil
	case int64:
		return v != 0, nil
	case float64:
		return v != 0, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes", "on":
			return true, nil
		case "0", "false", "no", "off", "":
			return false, nil
		}
	}
	return false, fmt.Errorf("not a boolean")
}
