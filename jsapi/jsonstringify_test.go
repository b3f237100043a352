package jsapi

import (
	"testing"
	"time"

	"github.com/dop251/goja"
)

// TestStringifyDepthReplacer runs JSON.stringify with JSON_MAX_DEPTH 50 on values that
// stringify reaches through toJSON methods, replacers, BigInt.prototype.toJSON, shared
// objects and nested JSON.stringify calls: deeper than 50 throws the RangeError naming
// the setting; within it, the output, the calls a replacer sees and the errors are bare
// goja's. A 1,000,000-deep value fails at once.
func TestStringifyDepthReplacer(t *testing.T) {
	t.Parallel()
	const setup = `
const chain = (n, leaf) => { let v = leaf; for (let i = 0; i < n; i++) v = { a: v }; return v; };
const caught = (f) => { try { return f(); } catch (e) { return e.name + ": " + e.message; } };
`
	for _, tc := range []struct {
		name, code string
		deep       bool // the RangeError, else bare goja's result
	}{
		{"plain at the limit", `JSON.stringify(chain(49, [1]))`, false},
		{"plain deeper", `JSON.stringify(chain(50, [1]))`, true},
		{"array of primitives at the limit", `JSON.stringify(chain(49, [1, "x", null, true]), null, 1)`, false},
		{"toJSON result within", `JSON.stringify({ x: { toJSON() { return chain(48, 1); } } })`, false},
		{"toJSON result deeper", `JSON.stringify({ x: { toJSON() { return chain(49, {}); } } })`, true},
		{"replacer result deeper", `JSON.stringify({ x: 1 }, (k, v) => (k === "x" ? chain(49, {}) : v))`, true},
		{"replacer sees this, key, value", `(() => { const seen = []; const out = JSON.stringify({ a: [1, { b: 2 }], c: new Date(0) },
  function (k, v) { seen.push(typeof this + ":" + k + ":" + JSON.stringify(v)); return k === "b" ? undefined : v; }); return out + seen.join("|"); })()`, false},
		{"replacer throws", `caught(() => JSON.stringify({ a: 1 }, () => { throw new TypeError("mine"); }))`, false},
		{"BigInt toJSON deeper", `(() => { BigInt.prototype.toJSON = () => chain(51, 1); try { return JSON.stringify(1n); } finally { delete BigInt.prototype.toJSON; } })()`, true},
		{"BigInt without toJSON", `caught(() => JSON.stringify({ n: 1n }))`, false},
		{"shared object twice", `(() => { const s = chain(20, 1); return JSON.stringify({ a: s, b: [s, { c: s }] }); })()`, false},
		{"cycle", `caught(() => { const c = { x: [] }; c.x.push({ c }); return JSON.stringify(c); })`, false},
		{"deep cycle", `caught(() => { const c = chain(10, null); let e = c; while (e.a) e = e.a; e.a = c; return JSON.stringify(c); })`, false},
		{"nested stringify restores the depth", `JSON.stringify({ x: { toJSON() { JSON.stringify(chain(40, 1)); return chain(48, 1); } } })`, false},
		{"nested stringify, deeper outside", `JSON.stringify({ x: { toJSON() { JSON.stringify(chain(40, 1)); return chain(49, {}); } } })`, true},
		{"property list at the limit", `JSON.stringify(chain(50, 1), ["a"])`, false},
		{"property list deeper", `JSON.stringify(chain(51, 1), ["a"])`, true},
		{"property list within", `JSON.stringify({ a: chain(10, 1), b: 2 }, ["a"])`, false},
		{"primitives", `[JSON.stringify("x"), JSON.stringify(1.5), JSON.stringify(null), JSON.stringify(undefined), JSON.stringify(() => 1)].join(",")`, false},
		{"boxed and functions", `JSON.stringify([new Number(3), new String("s"), new Boolean(false), () => 1, Symbol("x"), { f() {} }])`, false},
		{"a non-array object as replacer is ignored", `JSON.stringify({ a: { b: 1 } }, { not: "a list" })`, false},
		{"space", `JSON.stringify({ a: [1, { b: 2 }] }, null, "--")`, false},
		{"descriptors as goja's", `JSON.stringify([Object.keys(JSON), ...["parse", "stringify"].flatMap((m) => [Object.getOwnPropertyDescriptor(JSON, m),
  Object.getOwnPropertyDescriptor(JSON[m], "name"), Object.getOwnPropertyDescriptor(JSON[m], "length")])])`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bare := goja.New()
			want, err := bare.RunString(setup + tc.code)
			if err != nil {
				t.Fatalf("bare goja: %v", err)
			}
			rt := goja.New()
			st := &vmState{s: &Spider{}, rt: rt}
			st.s.jsonMaxDepth.Store(50)
			if err := st.installJSON(); err != nil {
				t.Fatal(err)
			}
			got, err := rt.RunString(setup + "caught(() => " + tc.code + ")")
			if err != nil {
				t.Fatal(err)
			}
			if tc.deep {
				if g := got.String(); g != "RangeError: JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (50)" {
					t.Fatalf("got %q, want the RangeError", g)
				}
				return
			}
			if got.String() != want.String() {
				t.Fatalf("got %q, want %q (bare goja)", got, want)
			}
		})
	}
	t.Run("1,000,000 deep", func(t *testing.T) {
		t.Parallel()
		rt := goja.New()
		st := &vmState{s: &Spider{}, rt: rt}
		if err := st.installJSON(); err != nil {
			t.Fatal(err)
		}
		if _, err := rt.RunString(setup + `var v = chain(1000000, 1);`); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := rt.RunString(`caught(() => JSON.stringify(v))`)
		if err != nil {
			t.Fatal(err)
		}
		if want := "RangeError: JSON.stringify: the value is nested deeper than JSON_MAX_DEPTH (1000)"; got.String() != want {
			t.Fatalf("got %q", got)
		}
		// goja's own stringify would overflow the Go stack (or run for hours: its cycle
		// check is quadratic in the depth).
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("refused in %s", d)
		}
	})
}
