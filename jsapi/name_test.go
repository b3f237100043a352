package jsapi_test

import (
	"errors"
	"log/slog"
	"strconv"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi"
)

// TestSpiderNameOnePathElement: Load refuses, with a *NameError, a spider name that could
// not be one path element (it becomes %(name)s in feed URIs and names folders), whether
// the class sets it or -a name=... does; ordinary names, dots inside included, load.
func TestSpiderNameOnePathElement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		arg  bool // given with -a name=... instead of in the class
		ok   bool
	}{
		{"../../victim/evil", false, false},
		{"a/b", false, false},
		{`a\b`, false, false},
		{"a\x00b", false, false},
		{".", false, false},
		{"..", false, false},
		{"../up", true, false},
		{"quotes", false, true},
		{"my.spider-v2_x", false, true},
		{"..x", false, true},
	} {
		t.Run(strconv.Quote(tc.name), func(t *testing.T) {
			t.Parallel()
			sp := spec{src: `export default class S { name = ` + strconv.Quote(tc.name) + `; parse() {} }`}
			if tc.arg {
				sp = spec{src: `export default class S { name = "ok"; parse() {} }`, args: map[string]string{"name": tc.name}}
			}
			spider, _, err := load(t, sp, "", slog.New(slog.DiscardHandler))
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				spider.Close()
				return
			}
			if err == nil {
				spider.Close()
				t.Fatal("loaded, want a NameError")
			}
			var ne *jsapi.NameError
			if !errors.As(err, &ne) || ne.Name != tc.name {
				t.Fatalf("err = %v (%T), want a NameError for %q", err, err, tc.name)
			}
		})
	}
}
