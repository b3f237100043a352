package warc_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/warc"
	"github.com/jscrawl/jscrawl/types"
)

// TestStorageWARCWriter: the disk of a WARC file fills while downloads are recorded
// (plain and gzipped files): the failed Write returns a *warc.WriteError naming the file
// and wrapping ENOSPC, every later Write returns it without writing, even once space is
// back, and the file reads cleanly with every exchange written before the failure.
func TestStorageWARCWriter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"crawl.warc", "crawl.warc.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			disk := enginetest.TmpDisk(t, 1)
			path := filepath.Join(disk, name)
			w, err := warc.Create(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			filler := filepath.Join(disk, "filler")
			// Bodies of random-looking text: gzip cannot shrink them below a page.
			body := func(i int) []byte {
				var b strings.Builder
				for j := range 600 {
					fmt.Fprintf(&b, "%x", (i*7919+j)*2654435761%4294967291)
				}
				return []byte(b.String())
			}
			written := 0
			var werr error
			for i := range 5000 {
				if i == 5 {
					if err := enginetest.Fill(filler, 0); err != nil {
						t.Fatal(err)
					}
				}
				u := fmt.Sprintf("http://example.com/%d", i)
				_, werr = w.Write(&types.Request{URL: u}, http.Header{}, &types.Response{URL: u, Status: 200, Body: body(i)}, time.Now())
				if werr != nil {
					break
				}
				written++
			}
			var we *warc.WriteError
			if !errors.As(werr, &we) || !errors.Is(werr, syscall.ENOSPC) || !strings.Contains(werr.Error(), path) {
				t.Fatalf("write on a full disk: %v, want a *warc.WriteError naming %s and wrapping ENOSPC", werr, path)
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			u := "http://example.com/after"
			if _, err := w.Write(&types.Request{URL: u}, http.Header{}, &types.Response{URL: u, Status: 200}, time.Now()); !errors.As(err, &we) {
				t.Errorf("write after the failure: %v, want the *warc.WriteError", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			a, err := warc.Open(path)
			if err != nil {
				t.Fatalf("the WARC file does not read: %v", err)
			}
			defer a.Close()
			if a.Len() != written {
				t.Errorf("the file holds %d exchanges, want the %d written before the failure", a.Len(), written)
			}
		})
	}
}
