package jsapi

// Crawlee's key-value stores: one set per crawl, shared by every VM, held in Go. With a
// job (JOBDIR) each record is also a file of JOBDIR/key_value_stores/<store>/, written to
// a temporary file, synced and renamed into place before setValue's promise resolves, so
// a record survives a kill -9 once its write resolved and a resumed job reads it back.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/jscrawl/jscrawl/types"
)

// KVStoresDir is the folder of a job (JOBDIR) that holds Crawlee's key-value stores.
const KVStoresDir = "key_value_stores"

// record is one value of a key-value store with its content type.
type record struct {
	data        []byte
	contentType string
}

// kvStores are the crawl's key-value stores: in memory, and in dir when a job runs.
type kvStores struct {
	mu     sync.Mutex
	loaded bool
	dir    string                       // JOBDIR/key_value_stores, or "" (memory only)
	stores map[string]map[string]record // store name → key → record
	seq    map[string]uint64            // store/key → the sequence number of its last set
	wmu    sync.Mutex                   // serialises file writes
	wrote  map[string]uint64            // store/key → the sequence number last written
	next   uint64
}

// Crawlee's rules for names and keys (its key-value store refuses others), which keep
// them safe as file names.
var (
	kvKeyPattern   = regexp.MustCompile(`^[a-zA-Z0-9!\-_.'()]{1,256}$`)
	kvStorePattern = regexp.MustCompile(`^[a-zA-Z0-9\-_]{1,63}$`)
)

// kvs returns the crawl's stores, reading the job's folder on first use once the crawler
// is bound.
func (s *Spider) kvs() *kvStores {
	kv := &s.crawlee.kv
	kv.mu.Lock()
	defer kv.mu.Unlock()
	if kv.stores == nil {
		kv.stores = map[string]map[string]record{}
		kv.seq = map[string]uint64{}
		kv.wrote = map[string]uint64{}
	}
	if !kv.loaded && s.crawler != nil {
		kv.loaded = true
		if dir := s.crawler.Settings().String(types.JobDir); dir != "" {
			kv.dir = filepath.Join(dir, KVStoresDir)
			if err := kv.load(); err != nil {
				s.logger.Error(fmt.Sprintf("key-value stores in %s: %v", kv.dir, err))
			}
		}
	}
	return kv
}

// load reads the records of dir; called with mu held. Records set before the job's
// folder was known (at load time) are newer and win; they are written out.
func (kv *kvStores) load() error {
	ents, err := os.ReadDir(kv.dir)
	if errors.Is(err, os.ErrNotExist) {
		ents, err = nil, nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir() || !kvStorePattern.MatchString(e.Name()) {
			continue
		}
		files, err := os.ReadDir(filepath.Join(kv.dir, e.Name()))
		if err != nil {
			return err
		}
		m := kv.stores[e.Name()]
		if m == nil {
			m = map[string]record{}
			kv.stores[e.Name()] = m
		}
		for _, f := range files {
			key, ok := strings.CutSuffix(f.Name(), ".record")
			if !ok || !kvKeyPattern.MatchString(key) {
				continue // a temporary file of a write cut short
			}
			if _, newer := m[key]; newer {
				continue
			}
			b, err := os.ReadFile(filepath.Join(kv.dir, e.Name(), f.Name()))
			if err != nil {
				return err
			}
			rec, ok := decodeRecord(b)
			if !ok {
				continue
			}
			m[key] = rec
		}
	}
	for name, m := range kv.stores {
		for key, rec := range m {
			if err := kv.writeFile(name, key, rec, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// A record file is its content type, a newline, and the data.
func encodeRecord(rec record) []byte {
	b := make([]byte, 0, len(rec.contentType)+1+len(rec.data))
	b = append(b, rec.contentType...)
	b = append(b, '\n')
	return append(b, rec.data...)
}

func decodeRecord(b []byte) (record, bool) {
	i := slices.Index(b, '\n')
	if i < 0 {
		return record{}, false
	}
	return record{contentType: string(b[:i]), data: b[i+1:]}, true
}

func checkStore(name, key string) error {
	if !kvStorePattern.MatchString(name) {
		return typeError("key-value store name %q: use letters, digits, '-' and '_' (at most 63)", name)
	}
	if key != "" && !kvKeyPattern.MatchString(key) {
		return typeError("key-value store key %q: a key is 1 to 256 of a-zA-Z0-9!-_.'() (Crawlee's rule)", key)
	}
	return nil
}

func (kv *kvStores) get(name, key string) (record, bool, error) {
	if err := checkStore(name, key); err != nil {
		return record{}, false, err
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	rec, ok := kv.stores[name][key]
	return rec, ok, nil
}

func (kv *kvStores) keys(name string) ([]string, error) {
	if err := checkStore(name, ""); err != nil {
		return nil, err
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	out := make([]string, 0, len(kv.stores[name]))
	for k := range kv.stores[name] {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// set sets (or with del, deletes) a record in memory at once and returns the file write
// to run off the loop (nil without a job). Writes of one key that finish out of order
// never leave an older value on disk.
func (kv *kvStores) set(name, key string, rec record, del bool) (func() error, error) {
	if err := checkStore(name, key); err != nil {
		return nil, err
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	m := kv.stores[name]
	if m == nil {
		m = map[string]record{}
		kv.stores[name] = m
	}
	if del {
		delete(m, key)
	} else {
		m[key] = rec
	}
	kv.next++
	seq := kv.next
	id := name + "/" + key
	kv.seq[id] = seq
	if kv.dir == "" {
		return nil, nil
	}
	return func() error {
		kv.wmu.Lock()
		defer kv.wmu.Unlock()
		if kv.wrote[id] > seq {
			return nil // a later set of the key is on disk already
		}
		kv.wrote[id] = seq
		return kv.writeFile(name, key, rec, del)
	}, nil
}

// writeFile writes (or removes) a record's file durably: a temporary file synced, renamed
// over the record, and the folder synced.
func (kv *kvStores) writeFile(name, key string, rec record, del bool) error {
	dir := filepath.Join(kv.dir, name)
	path := filepath.Join(dir, key+".record")
	if del {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return syncDir(dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(encodeRecord(rec))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	return syncDir(kv.dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
