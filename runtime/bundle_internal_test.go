package runtime

import (
	"strings"
	"testing"
)

// TestRewriteHelpersFailsLoudly checks that the esbuild helpers are wrapped when declared
// as expected, and that a bundle using a helper declared in another form is an error
// instead of running unwrapped.
func TestRewriteHelpersFailsLoudly(t *testing.T) {
	t.Parallel()
	lowered, err := BundleSource("s.js", "export default async function* () { await 1; yield 2; }\nexport async function f() { await 1; }\n", BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"__jscrawlAsyncGen(__asyncGenerator0", "__jscrawlAsync(__async0"} {
		if !strings.Contains(lowered.Code, want) {
			t.Errorf("bundle of an async generator and an async function does not contain %q:\n%s", want, lowered.Code)
		}
	}
	tests := []struct {
		name, code, wantErr string
	}{
		{"no helpers", "module.exports = 1;", ""},
		{"both declared", "var __async = (a, b, c) => 0;\nvar __asyncGenerator = (a, b, c) => 0;\n__async(); __asyncGenerator();", ""},
		{"asyncGenerator declared with let", "let __asyncGenerator = (a, b, c) => 0;\n__asyncGenerator();", "__asyncGenerator helper is used"},
		{"async in a merged var list", "var __defProp = 1, __async = (a, b, c) => 0;\n__async();", "__async helper is used"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileBundle("s.js", tc.code, []byte(`{"version":3,"sources":[],"mappings":""}`))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("compile: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("compile error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
