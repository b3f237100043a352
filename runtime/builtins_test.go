package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// builtinsProbe describes goja's built-ins as JS sees them: each probe's result, as JSON.
// The guarded built-ins every VM gets must describe the same as a bare goja Runtime's.
const builtinsProbe = `(() => {
  const TypedArray = Object.getPrototypeOf(Uint8Array);
  const where = { globalThis, "TypedArray": TypedArray, "TypedArray.prototype": TypedArray.prototype };
  for (const k of Object.getOwnPropertyNames(globalThis)) {
    const v = globalThis[k];
    if (typeof v === "function" || (typeof v === "object" && v !== null && v !== globalThis)) {
      where[k] = v;
      if (typeof v === "function" && v.prototype) where[k + ".prototype"] = v.prototype;
    }
  }
  const out = {};
  const fns = new Map();
  for (const [name, o] of Object.entries(where)) {
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (typeof d.value !== "function") continue;
      const f = d.value, key = name + "." + String(k);
      // The first path of each function object: aliases must stay aliases.
      if (!fns.has(f)) fns.set(f, key);
      let constructs = true;
      try { Reflect.construct(String, [], f); } catch (e) { constructs = false; }
      out[key] = [d.writable, d.enumerable, d.configurable, f.name, f.length, fns.get(f),
        Function.prototype.toString.call(f), constructs, Object.getPrototypeOf(f) === Function.prototype,
        Object.prototype.hasOwnProperty.call(f, "prototype")];
    }
  }
  return JSON.stringify(out);
})()`

// TestBuiltinsLookTheSame checks that guarding the built-ins (builtins.js) changes nothing
// JS can see: every built-in function has the same attributes, name, length, aliases,
// source text and constructor behaviour as in a bare goja Runtime; and errors the built-ins
// throw are the same catchable exceptions, with the same stacks.
func TestBuiltinsLookTheSame(t *testing.T) {
	t.Parallel()
	bare := goja.New()
	want, err := bare.RunString(builtinsProbe)
	if err != nil {
		t.Fatal(err)
	}
	vm := newVM(t, runtime.Options{})
	var got goja.Value
	if err := vm.Do(context.Background(), func(rt *goja.Runtime) error {
		got, err = rt.RunString(builtinsProbe)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var wantM, gotM map[string]json.RawMessage
	if err := json.Unmarshal([]byte(want.String()), &wantM); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got.String()), &gotM); err != nil {
		t.Fatal(err)
	}
	// limits.js replaces some with JS functions on purpose (compared in its own tests).
	const native = `{ [native code] }`
	compared := 0
	for k, w := range wantM {
		g, ok := gotM[k]
		if !ok || (strings.Contains(string(w), native) && !strings.Contains(string(g), native)) {
			continue
		}
		compared++
		if string(g) != string(w) {
			t.Errorf("%s: %s, want %s (bare goja)", k, g, w)
		}
	}
	for k := range gotM {
		// No method keyed by a symbol appears on goja's built-ins.
		holder, _, isSym := strings.Cut(k, ".Symbol(")
		if _, ok := wantM[k]; !ok && isSym && wantM[holder+".constructor"] != nil {
			t.Errorf("%s: a native bare goja does not have", k)
		}
	}
	if compared < 300 {
		t.Fatalf("compared %d built-ins: the probe is broken", compared)
	}

	const throws = `(() => {
  const out = [];
  for (const f of [() => JSON.parse("{"), () => null.x, () => [].reduce((a, b) => a),
    () => "x".normalize("bad"), () => new Array(-1), () => Symbol().toString.call(1),
    () => [1, 2].map((x) => { throw new TypeError("in map " + x); })]) {
    try { f(); out.push("no throw"); } catch (e) { out.push(e.constructor.name + ": " + e.message + " | " + e.stack); }
  }
  return out.join("\n");
})()`
	wantT, err := goja.New().RunString(throws)
	if err != nil {
		t.Fatal(err)
	}
	var gotT goja.Value
	if err := vm.Do(context.Background(), func(rt *goja.Runtime) error {
		gotT, err = rt.RunString(throws)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if gotT.String() != wantT.String() {
		t.Errorf("errors thrown by built-ins:\n%s\nwant (bare goja):\n%s", gotT, wantT)
	}
}
