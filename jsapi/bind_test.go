package jsapi

import (
	"errors"
	"mime"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/types"
)

// testClass is a class of natives for TestBindClass.
type testClass struct{ rt *goja.Runtime }

// Echo(s) returns s.
func (x testClass) Echo(c goja.FunctionCall) (goja.Value, error) { return c.Argument(0), nil }

// Fail(kind) returns an error thrown as kind.
func (x testClass) Fail(c goja.FunctionCall) (goja.Value, error) {
	if k := c.Argument(0).String(); k != "Error" {
		return nil, &jsError{k, errors.New("bad " + k)}
	}
	return nil, errors.New("plain")
}

// Status(h) reads the handle.
func (x testClass) Status(h *respHandle, _ goja.FunctionCall) (goja.Value, error) {
	return x.rt.ToValue(h.resp.Status), nil
}

// Raw is goja's fast form, unchanged.
func (x testClass) Raw(goja.FunctionCall) goja.Value { return x.rt.ToValue("raw") }

// badClass has a method with a signature bind.go does not know.
type badClass struct{}

// Typed has a reflection signature.
func (badClass) Typed(string) string { return "" }

func TestBindClass(t *testing.T) {
	t.Parallel()
	rt := goja.New()
	rt.SetFieldNameMapper(runtime.FieldNameMapper)
	_ = rt.Set("n", bindClass(rt, "test", testClass{rt}))
	_ = rt.Set("h", &respHandle{resp: &types.Response{Status: 418}})
	for _, tc := range []struct{ name, js, want string }{
		{"typed", `n.echo("x")`, "x"},
		{"named", `n.echo.name`, "echo"},
		{"handle", `n.status(h)`, "418"},
		{"raw", `n.raw()`, "raw"},
		{"error class", `try { n.fail("SyntaxError") } catch (e) { (e instanceof SyntaxError) + " " + e.message }`, "true bad SyntaxError"},
		{"plain error", `try { n.fail("Error") } catch (e) { e.name + " " + e.message }`, "Error plain"},
		{"not a handle", `try { n.status({}) } catch (e) { e.name + ": " + e.message }`, "TypeError: not a jscrawl Response"},
		// A misspelled native fails where the preludes take it, when the VM is set up.
		{"misspelled", `try { const { ecoh } = n; "no error" } catch (e) { e.name + ": " + e.message }`, `TypeError: jscrawl: test has no native "ecoh"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := rt.RunString(tc.js)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("%s = %q, want %q", tc.js, got, tc.want)
			}
		})
	}
}

func TestBindClassRejectsUnknownSignatures(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Typed") {
			t.Fatalf("panic = %v, want one naming Typed", r)
		}
	}()
	rt := goja.New()
	bindClass(rt, "bad", badClass{})
}

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
