package jsapi

import (
	"fmt"
	"strings"
)

// NameError is a spider name that cannot be one path element. The name becomes a file or
// folder name (%(name)s in feed URIs, the snapshot folder of jscrawl test, the HTTP cache
// folder), so Load refuses a name that is empty, "." or "..", or contains '/', '\' or NUL:
// such a name could write outside the folder the operator gave.
type NameError struct {
	Name string
}

func (e *NameError) Error() string {
	return fmt.Sprintf(`spider name %q: a name must be one path element (not empty, "." or "..", and without '/', '\' or NUL), since feed URIs, snapshot and cache folders use it`, e.Name)
}

// checkName returns a *NameError when name cannot be one path element.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return &NameError{Name: name}
	}
	return nil
}
