package selector_test

import (
	"slices"
	"testing"

	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// TestRegexExtract ports test_extract_regex of parsel's tests/test_utils.py (parsel's
// extract_regex is what re() and re_first() run) and adds the Python re semantics that
// parsel's users rely on.
func TestRegexExtract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, re, text string
		replace       bool
		want          []string
	}{
		{"test_utils.py::test_extract_regex", `(?P<month>\w+)\s*(?P<day>\d+)\s*\,?\s*(?P<year>\d+)`, "October  25, 2019", true, []string{"October", "25", "2019"}},
		{"test_utils.py::test_extract_regex", `(?P<month>\w+)\s*(?P<day>\d+)\s*\,?\s*(?P<year>\d+)`, "October  25 2019", true, []string{"October", "25", "2019"}},
		{"test_utils.py::test_extract_regex", `(?P<extract>\w+)\s*(?P<day>\d+)\s*\,?\s*(?P<year>\d+)`, "October  25 2019", true, []string{"October"}},
		{"test_utils.py::test_extract_regex", `\w+\s*\d+\s*\,?\s*\d+`, "October  25 2019", true, []string{"October  25 2019"}},
		{"test_utils.py::test_extract_regex", `^.*$`, "&quot;sometext&quot; &amp; &quot;moretext&quot;", true, []string{`"sometext" &amp; "moretext"`}},
		{"test_utils.py::test_extract_regex", `^.*$`, "&quot;sometext&quot; &amp; &quot;moretext&quot;", false, []string{"&quot;sometext&quot; &amp; &quot;moretext&quot;"}},
		{"test_utils.py::test_extract_regex", `(?P<extract>\d+)`, "no digits here", true, nil},
		// Python's re, as parsel compiles string patterns.
		{"re: Unicode \\w", `\w+`, "hola cumpleaños 12", true, []string{"hola", "cumpleaños", "12"}},
		{"re: Unicode \\d", `\d+`, "x ٣٤ y", true, []string{"٣٤"}},
		{"re: Unicode \\b", `\bños\b`, "cumpleaños ños", true, []string{"ños"}},
		{"re: Unicode \\s", `a\sb`, "a\u00a0b", true, []string{"a\u00a0b"}},
		{"re: named groups numbered in order", `(?P<b>x)(y)`, "xy", true, []string{"x", "y"}},
		{"re: (?P=name)", `(?P<q>['"])(.*?)(?P=q)`, `say "hi" 'yo'`, true, []string{`"`, "hi", `'`, "yo"}},
		{"re: unmatched group is empty", `(a)|(b)`, "ab", true, []string{"a", "", "", "b"}},
		{"re: empty matches (findall)", `x*`, "axxb", true, []string{"", "xx", "", ""}},
		{"re: \\Z", `b\Z`, "ab", true, []string{"b"}},
		{"re: lookbehind", `(?<=\$)\d+`, "$12 and 3", true, []string{"12"}},
	} {
		re, err := selector.CompileRegex(tc.re, "")
		if err != nil {
			t.Errorf("%s: %s: %v", tc.src, tc.re, err)
			continue
		}
		got, err := re.Extract(tc.text, tc.replace, false)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %s on %q\n got %q, %v\nwant %q", tc.src, tc.re, tc.text, got, err, tc.want)
		}
	}
	if _, err := selector.CompileRegex(`(unclosed`, ""); err == nil {
		t.Error("an invalid pattern compiled")
	}
	if re, _ := selector.CompileRegex(`ABC`, "i"); re != nil {
		if got, _ := re.Extract("xabcx", true, false); !slices.Equal(got, []string{"abc"}) {
			t.Errorf("flag i: %q", got)
		}
	}
}
