package engine

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTPCacheFolderName: whatever the spider's name, its cache folder is one local path
// element under HTTPCACHE_DIR, never the folder itself or a way out of it.
func TestHTTPCacheFolderName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, want string }{
		{"quotes", "quotes"},
		{"../../victim/evil", "_.._victim_evil"},
		{`..\x`, `_x`},
		{"..", "_"},
		{".", "_"},
		{"", "_"},
		{"a\x00b:c", "a_b_c"},
	} {
		got := safeName(tc.name)
		if got != tc.want || !filepath.IsLocal(got) || strings.ContainsAny(got, `/\`) {
			t.Errorf("safeName(%q) = %q, want %q (one local path element)", tc.name, got, tc.want)
		}
	}
}
