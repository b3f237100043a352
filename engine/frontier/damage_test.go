package frontier_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble"
)

func storeFiles(t *testing.T, dir, match string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), match) || strings.HasSuffix(e.Name(), match) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s file in %s", match, dir)
	}
	return out
}

func truncateFiles(t *testing.T, dir, match string, frac float64) {
	for _, p := range storeFiles(t, dir, match) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, int64(float64(fi.Size())*frac)); err != nil {
			t.Fatal(err)
		}
	}
}

// garbleFiles overwrites bytes all over the matching files.
func garbleFiles(t *testing.T, dir, match string) {
	for _, p := range storeFiles(t, dir, match) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(b); i += 7 {
			b[i] ^= 0x5a
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func removeFiles(t *testing.T, dir, match string) {
	for _, p := range storeFiles(t, dir, match) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}

// removeFormat deletes the frontier's format record through pebble itself: a store that
// is sound but not a frontier.
func removeFormat(t *testing.T, dir string) {
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Delete([]byte("f"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

type quiet struct{}

func (quiet) Infof(string, ...any)  {}
func (quiet) Fatalf(string, ...any) {}
