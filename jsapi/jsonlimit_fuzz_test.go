package jsapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// FuzzJSONParse feeds arbitrary bytes to the JSON.parse every VM has (the one
// response.json() calls): it must never panic or crash the process; text nested deeper
// than JSON_MAX_DEPTH is a SyntaxError naming it; other valid UTF-8 text is accepted
// exactly when encoding/json says it is valid, and then JSON.stringify of the result
// decodes to what encoding/json decodes.
func FuzzJSONParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"x\"y"}`, `[]`, `""`, `-0.5e3`, `{"a":1,}`, `[1 2]`,
		`"\ud800"`, `{"__proto__":1}`, ` [true , false] `, `[1]x`, "", "[", `"abc`, `"[[[["`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001), strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000)} {
		f.Add([]byte(s))
	}
	var mu sync.Mutex // one runtime for every input: goja's are not safe for concurrent use
	rt := goja.New()
	st := &vmState{s: &Spider{}, rt: rt}
	if err := st.installJSON(); err != nil {
		f.Fatal(err)
	}
	v, err := rt.RunString(`(function (text) {
  try { return [true, JSON.stringify(JSON.parse(text))]; } catch (e) { return [false, e.name + ": " + e.message]; }
})`)
	if err != nil {
		f.Fatal(err)
	}
	roundTrip, _ := goja.AssertFunction(v)
	f.Fuzz(func(t *testing.T, b []byte) {
		mu.Lock()
		res, err := roundTrip(goja.Undefined(), rt.ToValue(string(b)))
		var out []any
		if err == nil {
			out, _ = res.Export().([]any)
		}
		mu.Unlock()
		if err != nil || len(out) != 2 {
			t.Fatalf("JSON.parse(%q): %v %v", b, err, out)
		}
		ok, msg := out[0].(bool), out[1].(string)
		if jsonTextDeeper(string(b), defaultJSONDepth) {
			if want := "SyntaxError: JSON.parse: the text is nested deeper than JSON_MAX_DEPTH"; ok || !strings.HasPrefix(msg, want) {
				t.Fatalf("JSON.parse of text deeper than the limit: %v %.200s", ok, msg)
			}
			return
		}
		if !ok && !strings.HasPrefix(msg, "SyntaxError: ") {
			t.Fatalf("JSON.parse(%q) threw %s, not a SyntaxError", b, msg)
		}
		if !utf8.Valid(b) {
			return // goja reads the text as UTF-16, with U+FFFD for invalid bytes
		}
		if !ok && strings.Contains(msg, "cannot unmarshal number") {
			return // goja refuses numbers beyond float64 (1e999), which JS reads as Infinity
		}
		if valid := json.Valid(b); ok != valid {
			t.Fatalf("JSON.parse(%q) accepted %v (%s), encoding/json says valid %v", b, ok, msg, valid)
		}
		if !ok {
			return
		}
		var want, got any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(msg), &got); err != nil {
			t.Fatalf("JSON.stringify(JSON.parse(%q)) = %q: %v", b, msg, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("JSON.parse(%q) round trip %q, encoding/json reads %#v", b, msg, want)
		}
	})
}
