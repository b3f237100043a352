package jsapi_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
	"github.com/jscrawl/jscrawl/runtime/vmtest"
)

// The WHATWG URL Standard's own tests, run through the URL global a spider sees: the
// web-platform-tests files url/resources/urltestdata.json and setters_tests.json
// (https://github.com/web-platform-tests/wpt, BSD-3-Clause; see testdata/wpt/README.md),
// ported as table tests: each case is one row, run in one VM.

// wptModule serves the JSON file name as require("wpt").data and takes the script's
// results through require("wpt").report.
func wptModule(t *testing.T, name string, got *[]string) map[string]runtime.ModuleLoader {
	data, err := os.ReadFile("testdata/wpt/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]runtime.ModuleLoader{"wpt": func(rt *goja.Runtime, module *goja.Object) {
		exp := rt.NewObject()
		_ = exp.Set("data", string(data))
		_ = exp.Set("report", func(s string) { *got = append(*got, s) })
		_ = module.Set("exports", exp)
	}}
}

// wptURLKnownFailures are the urltestdata.json inputs the parser (github.com/nlnwa/whatwg-url
// v0.6.2) gets wrong: an opaque path's trailing space before "?" or "#" (written "%20" since
// 2024) and labels that UTS 46 now lets through ("xn--", "xn--pokxncvks"). Node 22 fails
// 15 cases; TestWPTURL fails when one of these passes or another case fails.
var wptURLKnownFailures = []string{
	"non-special:opaque  ?hi",
	"non-special:opaque  #hi",
	"non-special:opaque \t\t  \t#hi",
	"non-special:opaque \t\t  #hi",
	"non-special:opaque\t\t  \r #hi",
	"http://a.b.c.xn--pokxncvks",
	"http://10.0.0.xn--pokxncvks",
	"http://a.b.c.XN--pokxncvks",
	"http://a.b.c.Xn--pokxncvks",
	"http://10.0.0.XN--pokxncvks",
	"http://10.0.0.xN--pokxncvks",
	"file://xn--/p",
	"https://xn--/",
}

// TestWPTURL runs the 891 cases of web-platform-tests' url/resources/urltestdata.json
// (as url/url-constructor.any.js and url-origin.any.js do) through new URL(input, base):
// every listed attribute and the origin must match, a "failure" case must throw a
// TypeError, and URL.canParse must agree. 878 pass.
func TestWPTURL(t *testing.T) {
	t.Parallel()
	var got []string
	vmtest.Run(t, `
		import { data, report } from "wpt";
		export default function () {
			const attrs = ["href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
			for (const c of JSON.parse(data)) {
				if (typeof c === "string") continue;
				const base = c.base === null ? undefined : c.base;
				let u, err = null;
				try { u = new URL(c.input, base); } catch (e) { err = e; }
				const bad = [];
				if (URL.canParse(c.input, base) !== !c.failure) bad.push("canParse");
				if (c.failure) {
					if (!err) bad.push("no failure: " + u.href);
					else if (!(err instanceof TypeError)) bad.push("not a TypeError: " + err);
				} else if (err) {
					bad.push("threw " + err);
				} else {
					for (const a of attrs) if (u[a] !== c[a]) bad.push(a + " " + JSON.stringify(u[a]) + " want " + JSON.stringify(c[a]));
					if ("origin" in c && u.origin !== c.origin) bad.push("origin " + u.origin + " want " + c.origin);
					if (u.toString() !== u.href || u.toJSON() !== u.href) bad.push("toString/toJSON");
				}
				report(JSON.stringify({ input: c.input, bad }));
			}
		}`, wptModule(t, "urltestdata.json", &got))
	pass := 0
	var failed []string
	for _, r := range got {
		var res struct {
			Input string
			Bad   []string
		}
		if err := json.Unmarshal([]byte(r), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Bad) == 0 {
			pass++
			if slices.Contains(wptURLKnownFailures, res.Input) {
				t.Errorf("%q now passes: take it off wptURLKnownFailures and update the pass count in the docs", res.Input)
			}
			continue
		}
		failed = append(failed, res.Input)
		if !slices.Contains(wptURLKnownFailures, res.Input) {
			t.Errorf("new URL(%q): %s", res.Input, strings.Join(res.Bad, "; "))
		}
	}
	if len(got) != 891 {
		t.Errorf("ran %d cases, want 891", len(got))
	}
	t.Logf("urltestdata.json: %d of %d pass", pass, len(got))
	if pass < 876 {
		t.Errorf("%d cases pass, fewer than Node's 876", pass)
	}
}

// TestWPTURLSetters runs web-platform-tests' url/resources/setters_tests.json (as
// url/url-setters.any.js does): set one attribute of new URL(href), then every expected
// attribute must match. It pins the number that pass, wptSettersPass.
func TestWPTURLSetters(t *testing.T) {
	t.Parallel()
	var got []string
	vmtest.Run(t, `
		import { data, report } from "wpt";
		export default function () {
			const all = JSON.parse(data);
			for (const attr of Object.keys(all)) {
				if (attr === "comment") continue;
				for (const c of all[attr]) {
					const bad = [];
					try {
						const u = new URL(c.href);
						u[attr] = c.new_value;
						for (const [k, v] of Object.entries(c.expected)) if (u[k] !== v) bad.push(k + " " + JSON.stringify(u[k]) + " want " + JSON.stringify(v));
					} catch (e) { bad.push("threw " + e); }
					report(JSON.stringify({ input: attr + " = " + JSON.stringify(c.new_value) + " on " + c.href, bad }));
				}
			}
		}`, wptModule(t, "setters_tests.json", &got))
	pass := 0
	for _, r := range got {
		var res struct {
			Input string
			Bad   []string
		}
		if err := json.Unmarshal([]byte(r), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Bad) == 0 {
			pass++
		} else {
			t.Logf("%s: %s", res.Input, strings.Join(res.Bad, "; "))
		}
	}
	t.Logf("setters_tests.json: %d of %d pass", pass, len(got))
	if pass != wptSettersPass {
		t.Errorf("%d setter cases pass, want %d", pass, wptSettersPass)
	}
}

// wptSettersPass is how many of the 278 setter cases pass; the 10 others are the same two
// gaps as wptURLKnownFailures ("%20" in opaque paths, "xn--" labels).
const wptSettersPass = 268
