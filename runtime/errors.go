package runtime

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja"
)

// ScriptError is a JavaScript exception that reached Go, with the JS error's name, message
// and stack (positions mapped to the original source files).
type ScriptError struct {
	Name    string // the JS error's name: TypeError, Error, DropItem, ...
	Message string
	Stack   string // "Name: message\n\tat fn (file.ts:12:3(45))" lines, as goja prints them
	// Value is the thrown value, exported to Go (nil for non-object throws).
	Value any
	err   error
}

// Error returns the stack when there is one, else "Name: message".
func (e *ScriptError) Error() string {
	if e.Stack != "" {
		return e.Stack
	}
	return e.Name + ": " + e.Message
}

// ErrorName reports the JS error name (used for the spider_exceptions/<name> stats).
func (e *ScriptError) ErrorName() string { return e.Name }

// ErrorMessage returns the JS error's message alone, without its name and stack.
func (e *ScriptError) ErrorMessage() string { return e.Message }

// Unwrap returns the underlying goja error, if any.
func (e *ScriptError) Unwrap() error { return e.err }

// ErrInterrupted names a VM interrupted because a callback ran too long or the crawl was
// stopped at once. The errors of the callbacks cut short wrap it: check with errors.Is.
var ErrInterrupted = errors.New("script interrupted")

// InterruptError returns the error of a callback cut short by an interrupt of its VM: a
// *ScriptError named name (TimeoutError for a runaway, InterruptedError for a crawl
// stopped at once) with message msg and the thrown value, if any, that wraps
// ErrInterrupted.
func InterruptError(name, msg string, value any) *ScriptError {
	return &ScriptError{Name: name, Message: msg, Stack: name + ": " + msg, Value: value, err: ErrInterrupted}
}

// ToScriptError converts an error returned by goja (an *goja.Exception, an interrupt or
// another error) into a *ScriptError. It must run on the VM's loop when err carries a JS
// value. nil stays nil.
func ToScriptError(err error) error {
	if err == nil {
		return nil
	}
	var se *ScriptError
	if errors.As(err, &se) {
		return err
	}
	var intr *goja.InterruptedError
	if errors.As(err, &intr) {
		msg := fmt.Sprint(intr.Value())
		return &ScriptError{Name: "TimeoutError", Message: msg, Stack: "TimeoutError: " + msg + "\n" + cleanStack(stackOf(intr.String())), err: errors.Join(ErrInterrupted, err)}
	}
	var exc *goja.Exception
	if errors.As(err, &exc) {
		return FromValue(exc.Value(), exc)
	}
	return &ScriptError{Name: "Error", Message: err.Error(), err: err}
}

// FromValue converts a thrown or rejected JS value into a *ScriptError. It must run on the
// loop. exc may be nil (a promise rejection has no goja.Exception).
func FromValue(v goja.Value, exc *goja.Exception) *ScriptError {
	se := &ScriptError{Name: "Error"}
	if exc != nil {
		se.err = exc
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		se.Message = fmt.Sprint(v)
		if exc != nil {
			se.Stack = cleanStack(exc.String())
		}
		return se
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		se.Message = v.String()
		se.Stack = "Uncaught " + v.String()
		if exc != nil {
			se.Stack = cleanStack(exc.String())
		}
		return se
	}
	if n := obj.Get("name"); n != nil && !goja.IsUndefined(n) {
		se.Name = n.String()
	}
	goErr := se.Name == "GoError"
	if goErr {
		// A Go error thrown as is: spider authors know it as an Error.
		se.Name = "Error"
	}
	if m := obj.Get("message"); m != nil && !goja.IsUndefined(m) {
		se.Message = m.String()
	}
	if s := obj.Get("stack"); s != nil && !goja.IsUndefined(s) && s.String() != "" {
		se.Stack = cleanStack(strings.TrimRight(s.String(), "\n"))
	} else if exc != nil {
		se.Stack = cleanStack(exc.String())
	} else {
		se.Stack = se.Name + ": " + se.Message
	}
	if goErr {
		se.Stack = "Error" + strings.TrimPrefix(se.Stack, "GoError")
	}
	se.Value = v.Export()
	return se
}

// pcSuffix matches goja's program-counter suffix after a position: "file.ts:12:5(78)".
var pcSuffix = regexp.MustCompile(`(:\d+:\d+)\(\d+\)`)

// InternalSources are the names of jscrawl's own JS sources: their frames, like those of
// Go functions ("native"), are left out of the stacks shown to users.
var InternalSources = map[string]bool{
	"prelude.js": true, "jscrawl-prelude.js": true, "jscrawl-limits.js": true, "jscrawl-spiders.js": true, "jscrawl-shell.js": true,
}

// framePos matches the position at the end of a stack frame: "file.ts:12:5".
var framePos = regexp.MustCompile(`^(.*):\d+:\d+$`)

// internalFrame reports whether a stack line is a frame of a Go function or of jscrawl's
// own JS: "\tat github.com/...natives.func5 (native)", "\tat follow (jscrawl-prelude.js:3:4)".
func internalFrame(line string) bool {
	rest, ok := strings.CutPrefix(line, "\tat ")
	if !ok {
		return false
	}
	if strings.HasSuffix(rest, "(native)") || rest == "native" {
		return true
	}
	loc := rest
	if strings.HasSuffix(rest, ")") {
		if i := strings.LastIndex(rest, " ("); i >= 0 {
			loc = rest[i+2 : len(rest)-1]
		}
	}
	m := framePos.FindStringSubmatch(loc)
	return m != nil && InternalSources[m[1]]
}

// CleanStack returns s, text that may hold a JS stack (an error's stack, a logged error),
// without goja's program counters and without the frames of Go functions and of jscrawl's
// own JS, as the stacks of ScriptErrors are.
func CleanStack(s string) string { return cleanStack(s) }

// cleanStack drops goja's program counters so positions read file:line:col, and the frames
// of Go functions and of jscrawl's own JS, so the stack shows the spider's code only.
func cleanStack(s string) string {
	s = pcSuffix.ReplaceAllString(s, "$1")
	if !strings.Contains(s, "\n\tat ") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !internalFrame(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func stackOf(s string) string {
	if i := strings.Index(s, "\n"); i >= 0 {
		return s[i+1:]
	}
	return ""
}
