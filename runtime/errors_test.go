package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// TestScriptErrorStack: the stack of a *ScriptError shows the user's frames only (no Go
// function, no jscrawl prelude), and a Go error thrown as is reads as an Error, not a
// GoError.
func TestScriptErrorStack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, throw string
		wantName    string
		wantStack   string
	}{
		{name: "TypeError from Go", throw: "type", wantName: "TypeError",
			wantStack: "TypeError: bad value\n\tat inner (spider.ts:2:30)\n\tat outer (spider.ts:3:32)"},
		{name: "GoError", throw: "go", wantName: "Error",
			wantStack: "Error: disk on fire\n\tat inner (spider.ts:2:30)\n\tat outer (spider.ts:3:32)"},
		{name: "string thrown", throw: "string", wantName: "Error", wantStack: "oops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rt := goja.New()
			_ = rt.Set("native", func(c goja.FunctionCall) goja.Value {
				switch tc.throw {
				case "type":
					panic(rt.NewTypeError("bad value"))
				case "go":
					panic(rt.NewGoError(errors.New("disk on fire")))
				}
				panic(rt.ToValue("oops"))
			})
			// The prelude calls the spider, which calls back into the prelude, which calls Go.
			for name, src := range map[string]string{
				"prelude.js":         `function drive(f) { return f(); }`,
				"jscrawl-prelude.js": `function api() { return native(); }`,
			} {
				if _, err := rt.RunProgram(goja.MustCompile(name, src, false)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := rt.RunProgram(goja.MustCompile("spider.ts", "\nfunction inner() { return api(); }\nfunction outer() { return inner(); }\ndrive(outer);", false))
			var se *runtime.ScriptError
			if !errors.As(runtime.ToScriptError(err), &se) {
				t.Fatalf("error %v is not a *ScriptError", err)
			}
			if se.Name != tc.wantName {
				t.Errorf("Name = %q, want %q", se.Name, tc.wantName)
			}
			if !strings.HasPrefix(se.Stack, tc.wantStack) {
				t.Errorf("Stack =\n%s\nwant it to start with\n%s", se.Stack, tc.wantStack)
			}
			for _, bad := range []string{"GoError", "(native)", "prelude.js", "github.com"} {
				if strings.Contains(se.Stack, bad) {
					t.Errorf("Stack shows %q:\n%s", bad, se.Stack)
				}
			}
		})
	}
}

// TestInterruptErrorsWrapErrInterrupted: the error of an interrupted script and the errors
// built for callbacks cut short by an interrupt are told apart with errors.Is, not by name.
func TestInterruptErrorsWrapErrInterrupted(t *testing.T) {
	t.Parallel()
	rt := goja.New()
	rt.Interrupt("stop")
	_, err := rt.RunString("while (true) {}")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"interrupted script", runtime.ToScriptError(err), true},
		{"InterruptError", runtime.InterruptError("InterruptedError", "callback parse interrupted", nil), true},
		{"thrown TimeoutError", &runtime.ScriptError{Name: "TimeoutError", Message: "download timed out"}, false},
	}
	for _, tc := range tests {
		if got := errors.Is(tc.err, runtime.ErrInterrupted); got != tc.want {
			t.Errorf("%s: errors.Is(%v, ErrInterrupted) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
