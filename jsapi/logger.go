package jsapi

import (
	"context"
	"log/slog"
	"strings"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// loggerClass holds the native that makes this.logger (the prelude's helper logger).
type loggerClass struct{ st *vmState }

// NewLogger(name) makes a spider's this.logger: { debug, info, warn, warning, error, name },
// plain enumerable properties in that order (as the JS object it replaced had).
func (x loggerClass) NewLogger(c goja.FunctionCall) (goja.Value, error) {
	rt := x.st.rt
	m := rt.NewObject()
	bindMethods(rt, m, loggerMethods{x.st}, &bindOptions{visible: true, aliases: map[string][]string{"warn": {"warning"}}})
	o := rt.NewObject()
	for _, k := range []string{"debug", "info", "warn", "warning", "error"} {
		_ = o.Set(k, m.Get(k))
	}
	_ = o.Set("name", c.Argument(0))
	return o, nil
}

// loggerMethods are the functions of this.logger, which write to the spider's log/slog
// logger. Each joins its arguments with spaces, each rendered as console.log renders it
// (an Error's stack shows the spider's frames only). The paragraphs after this one, the
// //jscrawl:ts lines (warning, an alias NewLogger binds, and name), its methods and their
// doc comments are jscrawl_gen.d.ts.
//
// `this.logger`: writes to the crawl log tagged with the spider's name.
//
//jscrawl:doc Logs at the warn level (Python's logging name of `warn`).
//jscrawl:ts warning(...args: unknown[]): void;
//jscrawl:doc The spider's name.
//jscrawl:ts readonly name: string;
//jscrawl:class interface Logger
type loggerMethods struct{ st *vmState }

// Debug logs at the debug level (shown with LOG_LEVEL=DEBUG).
//
//jscrawl:ts debug(...args: unknown[]): void;
func (m loggerMethods) Debug(c goja.FunctionCall) (goja.Value, error) {
	return m.log(slog.LevelDebug, c)
}

// Info logs at the info level.
//
//jscrawl:ts info(...args: unknown[]): void;
func (m loggerMethods) Info(c goja.FunctionCall) (goja.Value, error) { return m.log(slog.LevelInfo, c) }

// Warn logs at the warn level.
//
//jscrawl:ts warn(...args: unknown[]): void;
func (m loggerMethods) Warn(c goja.FunctionCall) (goja.Value, error) { return m.log(slog.LevelWarn, c) }

// Error logs at the error level.
//
//jscrawl:ts error(...args: unknown[]): void;
func (m loggerMethods) Error(c goja.FunctionCall) (goja.Value, error) {
	return m.log(slog.LevelError, c)
}

// log logs c's arguments at level.
func (m loggerMethods) log(level slog.Level, c goja.FunctionCall) (goja.Value, error) {
	m.st.s.logger.Log(context.Background(), level, m.message(c))
	return goja.Undefined(), nil
}

// message renders c's arguments, joined with spaces.
func (m loggerMethods) message(c goja.FunctionCall) string {
	parts := make([]string, len(c.Arguments))
	for i, v := range c.Arguments {
		s := m.st.vm.Inspect(v)
		if o, ok := v.(*goja.Object); ok && o.ClassName() == "Error" {
			s = runtime.CleanStack(s)
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}
