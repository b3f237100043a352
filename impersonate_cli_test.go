package main

import (
	"strings"
	"testing"
)

// TestImpersonateUnknownProfile: an HTTP_IMPERSONATE naming no profile is a usage error
// (exit code 2) before any download, listing the known profiles; so is a profile.json that
// is missing.
func TestImpersonateUnknownProfile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ value, want string }{
		{"chrome,netscape", `unknown HTTP_IMPERSONATE profile "netscape" (known: chrome, chrome_120, chrome_124,`},
		{"missing.json", "HTTP_IMPERSONATE: open missing.json: no such file or directory"},
	} {
		_, stderr, code := jscrawl(t, "fetch", "-s", "HTTP_IMPERSONATE="+tc.value, "http://127.0.0.1:1/")
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("HTTP_IMPERSONATE=%s: exit code %d, stderr %q", tc.value, code, stderr)
		}
	}
}
