package jsapi

import (
	"mime"
	"testing"

	"github.com/dop251/goja"
)

// TestIsFunctionAgreesWithAssertFunction checks isFunction's shortcut (the class
// "Function") against goja.AssertFunction on every kind of callable and non-callable value.
func TestIsFunctionAgreesWithAssertFunction(t *testing.T) {
	t.Parallel()
	rt := goja.New()
	for _, src := range []string{
		`(function () {})`, `(() => 1)`, `(async function () {})`, `(function* () {})`,
		`(class A {})`, `(function () {}).bind(null)`, `new Proxy(function () {}, {})`,
		`new Proxy({}, {})`, `({})`, `[]`, `Math.max`, `Object`, `Function.prototype`,
		`1`, `"f"`, `null`, `undefined`, `Symbol("s")`,
	} {
		v, err := rt.RunString(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		_, want := goja.AssertFunction(v)
		if got := isFunction(v); got != want {
			t.Errorf("isFunction(%s) = %v, AssertFunction says %v", src, got, want)
		}
	}
	if !isFunction(rt.ToValue(func(goja.FunctionCall) goja.Value { return nil })) {
		t.Error("a Go native function is not a function")
	}
}

// TestMediaTypeAgreesWithMime checks mediaType's shortcut against mime.ParseMediaType.
func TestMediaTypeAgreesWithMime(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{
		"text/html", "text/html; charset=utf-8", "text/html; charset=UTF-8", "TEXT/HTML",
		"text/html;charset=utf-8", "text/html; charset=utf-8; charset=latin1", "application/xhtml+xml",
		"text/xml; charset=utf-8", "application/atom+xml", "text/plain", "text/html/x", "", ";",
	} {
		want, _, _ := mime.ParseMediaType(ct)
		if got := mediaType(ct); got != want {
			t.Errorf("mediaType(%q) = %q, mime says %q", ct, got, want)
		}
	}
}
