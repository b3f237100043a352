package frontier

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble"
)

// The pebble store underneath: its files on disk, its logger (pebble's fatal errors kept), and
// small reads and commits.

// hasStoreFiles reports whether dir holds files of a pebble store.
func hasStoreFiles(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if n == "CURRENT" || strings.HasPrefix(n, "MANIFEST-") || strings.HasPrefix(n, "OPTIONS-") ||
			strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".sst") {
			return true
		}
	}
	return false
}

// unfinished reports whether dir holds the files of a store pebble never finished
// creating: pebble writes CURRENT (by a rename) once the first MANIFEST is whole, and the
// OPTIONS file after it, so a store without either, with no table and no commit marker,
// never held a commit. A store that lost its CURRENT file later still has its OPTIONS file:
// that one is damaged.
func unfinished(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if n == "CURRENT" || n == markerFile || strings.HasPrefix(n, "OPTIONS-") || strings.HasSuffix(n, ".sst") {
			return false
		}
	}
	return true
}

// removeStoreFiles removes the files of a store that was never created whole.
func removeStoreFiles(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// closeWait is how long Close waits for a store that failed to close.
const closeWait = 5 * time.Second

// storeLogger is the store's pebble Logger: quiet, and the end of pebble's failures.
// pebble calls Fatalf where it cannot go on (its own logger exits the process), above all
// "fatal commit error": a write to the store's log failed, a full disk for one. That one is
// kept and Fatalf returns (pebble's commit then returns nil, and the Frontier's caller
// reads the kept error); any other Fatalf is kept too and panics, which Open recovers.
// After a kept error, nothing calls the store again: its commit pipeline is stuck.
type storeLogger struct {
	fatal atomic.Pointer[fatalError]
}

// fatalError is an error pebble reported through Fatalf, wrapping the first error among
// its arguments (the file system's, for errors.Is).
type fatalError struct {
	msg string
	err error
}

func (e *fatalError) Error() string { return e.msg }

func (e *fatalError) Unwrap() error { return e.err }

func (*storeLogger) Infof(string, ...any) {}

func (l *storeLogger) Fatalf(format string, args ...any) {
	fe := &fatalError{msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			fe.err = err
			break
		}
	}
	l.fatal.CompareAndSwap(nil, fe)
	if strings.HasPrefix(format, "pebble: fatal commit error") {
		return
	}
	panic(fe.msg)
}

// err returns the error kept by Fatalf, or nil.
func (l *storeLogger) err() error {
	if fe := l.fatal.Load(); fe != nil {
		return fe
	}
	return nil
}

// commitBatch commits b, returning the store's failure whether pebble returned it or
// reported it through Fatalf.
func (f *Frontier) commitBatch(b *pebble.Batch, wo *pebble.WriteOptions) error {
	if err := f.log.err(); err != nil {
		return err
	}
	if err := b.Commit(wo); err != nil {
		return err
	}
	return f.log.err()
}

func (f *Frontier) get(key []byte) ([]byte, error) {
	v, c, err := f.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v = bytes.Clone(v)
	return v, c.Close()
}

func (f *Frontier) isEmpty() (bool, error) {
	it, err := f.db.NewIter(nil)
	if err != nil {
		return false, err
	}
	empty := !it.First()
	return empty, it.Close()
}
