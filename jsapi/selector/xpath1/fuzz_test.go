package xpath1

import (
	"errors"
	"testing"
)

// FuzzParse compiles random expressions: Compile must never panic, must return an *Error
// on failure, and what compiles must evaluate without panicking (errors are fine).
func FuzzParse(f *testing.F) {
	for _, tc := range libxml2Cases {
		f.Add(tc.expr)
	}
	for _, tc := range elementpathCases {
		f.Add(tc.expr)
	}
	for _, s := range []string{"//a[@href][1]/@href", "/x//y/../z[last()]", "a|b|c", "$v", "p:*", "has-class('x')",
		"processing-instruction('x')", "namespace::*", "1e3", "'a", "(", "[", "@", "..[1]", "-", "--1", "a/-"} {
		f.Add(s)
	}
	doc := parseHTML(f, `<div id="a" class="x"><p>1</p><!--c--><p lang="en">2<b>3</b></p></div>`)
	f.Fuzz(func(t *testing.T, src string) {
		x, err := Compile(src, testOptions)
		if err != nil {
			var xe *Error
			if !errors.As(err, &xe) || xe.Pos < 0 || xe.Pos > len(src) {
				t.Fatalf("Compile(%q): %v", src, err)
			}
			return
		}
		_, err = x.Evaluate(HTML, NodeOf(doc), &Env{MaxSteps: 100000, Variables: map[string]Value{"v": NumberValue(1)}})
		var xe *Error
		if err != nil && !errors.As(err, &xe) {
			t.Fatalf("Evaluate(%q): %v", src, err)
		}
	})
}
