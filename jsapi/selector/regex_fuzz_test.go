package selector_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/jscrawl/jscrawl/jsapi/selector"
)

// expected reports whether err is one a match may end with on hostile input: its timeout
// or regexp2's backtracking limit.
func expected(err error) bool {
	return errors.Is(err, selector.ErrMatchTimeout) || errors.Is(err, regexp2.ErrBacktrackingStackLimit)
}

// fuzzMatchBudget bounds each match of FuzzRe as JS_CALLBACK_TIMEOUT bounds a spider's.
const fuzzMatchBudget = 50 * time.Millisecond

// FuzzRe runs re() (Regex.Extract) with random Python patterns, flags and texts: it must
// never panic, and a match, however much it backtracks, ends at its time bound with an
// error wrapping ErrMatchTimeout. CI runs it for a bounded time (.ci/run).
func FuzzRe(f *testing.F) {
	for _, seed := range []struct{ pattern, flags, text string }{
		{`^(a+)+$`, "", strings.Repeat("a", 34) + "!"},
		{`(?P<extract>\d+)`, "i", "price: 12, 13"},
		{`(\w+)@(\w+)\.com`, "m", "a@b.com\nc@d.com"},
		{`(?=(a+))+\1*$`, "s", strings.Repeat("a", 30) + "b"},
		{`(?P<x>a)(?P=x)\Z`, "", "aa"},
		{`[`, "", "x"},
		{`&(#\d+|\w+);`, "", "&amp; &#65; &eacute;"},
	} {
		f.Add(seed.pattern, seed.flags, seed.text)
	}
	f.Fuzz(func(t *testing.T, pattern, flags, text string) {
		re, err := selector.CompileRegex(pattern, flags)
		if err != nil {
			return // an invalid pattern is a SyntaxError in JS: nothing runs
		}
		re = re.Within(fuzzMatchBudget)
		start := time.Now()
		out, err := re.Extract(text, true, false)
		took := time.Since(start)
		// One match is cut at the budget (regexp2 reads its clock every 100 ms or so); a
		// text of many cheap matches takes a little longer: a generous bound for a
		// loaded machine, far below a runaway's.
		if took > 5*time.Second {
			t.Fatalf("Extract(%q, %q) took %v", pattern, text, took)
		}
		if err != nil && !expected(err) {
			t.Fatalf("Extract(%q, %q): unexpected error %v", pattern, text, err)
		}
		if err == nil && len(out) > len(text)+1 && !strings.Contains(pattern, "(") {
			// Without groups each result is a match: at most one per position of the
			// text, plus the empty one at its end.
			t.Fatalf("Extract(%q, %q): %d matches", pattern, text, len(out))
		}
		if _, err := re.Extract(text, false, true); err != nil && !expected(err) {
			t.Fatalf("Extract(%q, %q, first): unexpected error %v", pattern, text, err)
		}
	})
}

// TestRegexMatchTimeout: a backtracking match on hostile text ends at Within's bound with
// an error wrapping ErrMatchTimeout that names the pattern, in re() and in XPath's
// re:test(); without the bound it ran for minutes.
func TestRegexMatchTimeout(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("a", 34) + "!"
	re, err := selector.CompileRegex(`^(a+)+$`, "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = re.Within(300*time.Millisecond).Extract(text, true, false)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the match took %v, want about 300ms", took)
	}
	if !errors.Is(err, selector.ErrMatchTimeout) || !strings.Contains(err.Error(), "^(a+)+$") {
		t.Errorf("error %v, want ErrMatchTimeout naming the pattern", err)
	}

	doc, err := selector.ParseText("<p>" + text + "</p>")
	if err != nil {
		t.Fatal(err)
	}
	q, err := selector.CompileXPath(`re:test(string(//p), '^(a+)+$')`, nil)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = q.SelectWithin(300*time.Millisecond, doc.Root())
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("re:test took %v, want about 300ms", took)
	}
	if !errors.Is(err, selector.ErrMatchTimeout) {
		t.Errorf("re:test error %v, want ErrMatchTimeout", err)
	}
}
