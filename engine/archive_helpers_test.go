package engine

// This file holds the WARC helpers that the package's tests, inside and outside it, share:
// opening an archive for replay and writing a one-response archive.

import (
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// OpenArchive opens the WARC files at paths for replay; the archive is closed when the
// test ends.
func OpenArchive(t testing.TB, paths ...string) *warc.Archive {
	t.Helper()
	a, err := warc.Open(paths...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// WriteArchive writes a WARC file at path that holds resp as the answer to req, and opens
// it with OpenArchive.
func WriteArchive(t testing.TB, path string, req *types.Request, resp *types.Response) *warc.Archive {
	t.Helper()
	w, err := warc.Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(req, nil, resp, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return OpenArchive(t, path)
}
