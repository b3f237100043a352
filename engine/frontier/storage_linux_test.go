package frontier_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jscrawl/jscrawl/engine/enginetest"
	"github.com/jscrawl/jscrawl/engine/frontier"
	"github.com/jscrawl/jscrawl/types"
)

// TestStorageFullDisk: a commit on a full disk (pebble's "fatal commit error", which its
// own logger ends the process with) returns an error wrapping ENOSPC, Close returns
// without waiting on the stuck store, and once space is freed the store opens at its last
// commit.
func TestStorageFullDisk(t *testing.T) {
	t.Parallel()
	disk := enginetest.TmpDisk(t, 2)
	dir := filepath.Join(disk, "frontier")
	f, err := frontier.Open(dir, frontier.Options{Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 1000)
	for i := range 10 {
		f.Enqueue(&types.Request{URL: fmt.Sprintf("http://h/%d", i), Meta: types.Item{{Key: "pad", Value: pad}}})
	}
	if err := f.Commit(nil); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(disk, "filler")
	if err := enginetest.Fill(filler, 0); err != nil {
		t.Fatal(err)
	}
	var cerr error
	for i := 10; i < 2000 && cerr == nil; i++ {
		f.Enqueue(&types.Request{URL: fmt.Sprintf("http://h/%d", i), Meta: types.Item{{Key: "pad", Value: pad}}})
		cerr = f.Commit(nil)
	}
	if !errors.Is(cerr, syscall.ENOSPC) || !types.IsStorageError(cerr) {
		t.Fatalf("commit on a full disk: %v, want an error wrapping ENOSPC", cerr)
	}
	if !strings.Contains(cerr.Error(), dir) {
		t.Errorf("the error does not name the store: %v", cerr)
	}
	if err := f.Commit(nil); err == nil {
		t.Error("a commit after the failure succeeded")
	}
	if err := f.Close(); err == nil {
		t.Error("Close of the failed store returned nil")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	f, err = frontier.Open(dir, frontier.Options{Sync: true})
	if err != nil {
		t.Fatalf("open once space is freed: %v", err)
	}
	defer f.Close()
	if f.Len() < 10 {
		t.Errorf("the reopened store holds %d requests, want at least the 10 of the first commit", f.Len())
	}
}

// TestStorageUnfinishedStore: a store that pebble never finished creating (the disk
// filled before its CURRENT file was written) is created again, not reported damaged.
func TestStorageUnfinishedStore(t *testing.T) {
	t.Parallel()
	for _, free := range []int64{0, 4 << 10, 8 << 10} {
		t.Run(fmt.Sprint(free), func(t *testing.T) {
			t.Parallel()
			disk := enginetest.TmpDisk(t, 1)
			dir := filepath.Join(disk, "frontier")
			filler := filepath.Join(disk, "filler")
			if err := enginetest.Fill(filler, free); err != nil {
				t.Fatal(err)
			}
			_, err := frontier.Open(dir, frontier.Options{Sync: true})
			var ce *frontier.CorruptError
			if err == nil || errors.As(err, &ce) || !types.IsStorageError(err) {
				t.Fatalf("open on a full disk: %v, want a storage error, not a *CorruptError", err)
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			f, err := frontier.Open(dir, frontier.Options{Sync: true})
			if err != nil {
				t.Fatalf("open once space is freed: %v", err)
			}
			f.Enqueue(&types.Request{URL: "http://h/1"})
			if err := f.Commit(nil); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
