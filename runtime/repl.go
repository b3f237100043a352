package runtime

import (
	"strings"

	"github.com/dop251/goja"
)

// Incomplete reports whether src is a script cut short: it fails to parse only because its
// input ended too soon (an open bracket, block, template or comment, a trailing operator),
// so a REPL should read another line before running it.
func Incomplete(src string) bool {
	if strings.TrimSpace(src) == "" {
		return false
	}
	_, err := goja.Compile("<shell>", src, false)
	if err == nil {
		return false
	}
	msg := err.Error()
	if i := strings.Index(msg, " (and "); i >= 0 {
		msg = msg[:i] // only the first error counts
	}
	return strings.HasSuffix(msg, "Unexpected end of input")
}
