package jsapi

import (
	"testing"

	"github.com/dop251/goja"
)

// jsonBenchSetup is JS building a typical scraped value: 20 fields, a list of 10 small
// objects and a nested map, 3 levels deep, and a JSON text of it.
const jsonBenchSetup = `
var v = { url: "https://example.com/p/1", title: "A product title with some words", price: 12.5,
  tags: ["a", "b", "c", "d"], offers: [], meta: { depth: 2, via: { page: 3, q: "x y" } } };
for (let i = 0; i < 14; i++) v["field" + i] = "value number " + i;
for (let i = 0; i < 10; i++) v.offers.push({ seller: "s" + i, price: i * 1.5, stock: i % 2 === 0, ids: [i, i + 1] });
var text = JSON.stringify(v);
var nested = { leaf: true };
for (let i = 0; i < 200; i++) nested = { id: i, name: "level " + i, tags: ["x", i], child: nested };
`

// BenchmarkJSONStringify compares goja's native JSON.stringify with the depth-checked one
// every VM gets (installJSON) on a typical item and on a value nested 200 deep (4 fields a
// level), and JSON.parse likewise on the item's text.
func BenchmarkJSONStringify(b *testing.B) {
	for _, bc := range []struct {
		name, loop string
		wrapped    bool
	}{
		{"stringify/native", "JSON.stringify(v)", false},
		{"stringify/wrapped", "JSON.stringify(v)", true},
		{"stringify/nested/native", "JSON.stringify(nested)", false},
		{"stringify/nested/wrapped", "JSON.stringify(nested)", true},
		{"parse/native", "JSON.parse(text)", false},
		{"parse/wrapped", "JSON.parse(text)", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rt := goja.New()
			if bc.wrapped {
				st := &vmState{s: &Spider{}, rt: rt}
				if err := st.installJSON(); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := rt.RunString(jsonBenchSetup); err != nil {
				b.Fatal(err)
			}
			f, err := rt.RunString("(function (n) { for (let i = 0; i < n; i++) " + bc.loop + "; })")
			if err != nil {
				b.Fatal(err)
			}
			fn, _ := goja.AssertFunction(f)
			b.ResetTimer()
			if _, err := fn(goja.Undefined(), rt.ToValue(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkJSONTextDeeper is the scan JSON.parse runs before goja's parser, on a 1 MB
// body of objects and strings.
func BenchmarkJSONTextDeeper(b *testing.B) {
	var sb []byte
	for len(sb) < 1<<20 {
		sb = append(sb, `{"a":[1,2,{"b":"x \" [[[ y"}],"c":{"d":null}},`...)
	}
	text := "[" + string(sb[:len(sb)-1]) + "]"
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if jsonTextDeeper(text, 1000) {
			b.Fatal("deeper")
		}
	}
}
