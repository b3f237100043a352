package jsapi

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/dop251/goja"
)

// SpiderTest is one case of a spider module's `tests` export, which `jscrawl test` runs:
// Name names the case's snapshot files, Args and Settings are the spider arguments and
// settings it runs with, and TestKey is the item field that matches items between a
// snapshot and a run ("": the item's url).
type SpiderTest struct {
	Name     string
	Args     map[string]string
	Settings map[string]any
	TestKey  string
}

// testName is what a case's name may be: it names files.
var testName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Tests returns the cases of the spider module's `tests` export, in order (nil when the
// module has none).
func (d *DevTools) Tests() []SpiderTest { return d.s.tests }

// readTests reads the module's `tests` export: an array of { name, args?, settings?,
// testKey? }.
func (st *vmState) readTests() ([]SpiderTest, error) {
	rt := st.rt
	v := st.module.Get("tests")
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	arr, ok := v.(*goja.Object)
	if !ok || arr.ClassName() != "Array" {
		return nil, errors.New("export tests must be an array of { name, args?, settings?, testKey? }")
	}
	var out []SpiderTest
	seen := map[string]bool{}
	for i := range int(arr.Get("length").ToInteger()) {
		c, ok := arr.Get(fmt.Sprint(i)).(*goja.Object)
		if !ok {
			return nil, fmt.Errorf("tests[%d] must be an object { name, args?, settings?, testKey? }", i)
		}
		t := SpiderTest{Args: map[string]string{}, Settings: map[string]any{}}
		if n := c.Get("name"); n != nil && !goja.IsUndefined(n) {
			t.Name = n.String()
		}
		if !testName.MatchString(t.Name) {
			return nil, fmt.Errorf("tests[%d].name %q: want a name of letters, digits, '.', '_' and '-' (it names the snapshot files)", i, t.Name)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("tests[%d].name %q: two cases have this name", i, t.Name)
		}
		seen[t.Name] = true
		if a, ok := c.Get("args").(*goja.Object); ok {
			for _, k := range a.Keys() {
				t.Args[k] = a.Get(k).String()
			}
		}
		if o, ok := c.Get("settings").(*goja.Object); ok {
			for _, k := range o.Keys() {
				t.Settings[k] = exportSetting(rt, o.Get(k))
			}
		}
		if k := c.Get("testKey"); k != nil && !goja.IsUndefined(k) && !goja.IsNull(k) {
			t.TestKey = k.String()
		}
		out = append(out, t)
	}
	return out, nil
}
