package jsapi

import (
	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// loggerClass holds the natives of this.logger (prelude.js makeLogger): the spider's
// log/slog logger.
type loggerClass struct{ st *vmState }

// Inspect(value) renders a this.logger argument; an Error's stack shows the spider's
// frames only.
func (x loggerClass) Inspect(c goja.FunctionCall) (goja.Value, error) {
	s := x.st.vm.Inspect(c.Argument(0))
	if o, ok := c.Argument(0).(*goja.Object); ok && o.ClassName() == "Error" {
		s = runtime.CleanStack(s)
	}
	return x.st.rt.ToValue(s), nil
}

// Log(level, message) logs at "debug", "info", "warn" or "error".
func (x loggerClass) Log(c goja.FunctionCall) (goja.Value, error) {
	logger := x.st.s.logger
	msg := c.Argument(1).String()
	switch c.Argument(0).String() {
	case "debug":
		logger.Debug(msg)
	case "warn":
		logger.Warn(msg)
	case "error":
		logger.Error(msg)
	default:
		logger.Info(msg)
	}
	return goja.Undefined(), nil
}
