package frontier

import (
	"encoding/hex"
	"errors"

	"github.com/cockroachdb/pebble"
)

// The seen-set: fingerprints in memory (hot, warm, newSeen), behind a Bloom filter, then in
// the store.

// AddFingerprint records a fingerprint as returned by types.Request.Fingerprint (a hex
// SHA-1), as Enqueue does, and reports whether it was new.
func (f *Frontier) AddFingerprint(fingerprint string) bool {
	var fp [16]byte
	if len(fingerprint) < 32 {
		copy(fp[:], fingerprint)
	} else if _, err := hex.Decode(fp[:], []byte(fingerprint[:32])); err != nil {
		copy(fp[:], fingerprint)
	}
	return f.AddSum(fp)
}

// AddSum records a fingerprint given as the first 16 bytes of
// types.Request.FingerprintSum, as Enqueue does, and reports whether it was new.
func (f *Frontier) AddSum(fp [16]byte) bool {
	if f.seen(&fp) {
		return false
	}
	f.newSeen[fp] = struct{}{}
	f.bloom.add(&fp)
	f.seenN++
	if f.buffered+len(f.newSeen) > f.limit {
		f.spill()
	}
	return true
}

func (f *Frontier) seen(fp *[16]byte) bool {
	if !f.bloom.test(fp) {
		return false
	}
	if _, ok := f.newSeen[*fp]; ok {
		return true
	}
	if _, ok := f.hot[*fp]; ok {
		return true
	}
	if _, ok := f.warm[*fp]; ok {
		return true
	}
	f.kbuf = skey(f.kbuf[:0], fp)
	_, c, err := f.db.Get(f.kbuf)
	if err == nil {
		_ = c.Close()
		f.remember(fp)
		return true
	}
	if !errors.Is(err, pebble.ErrNotFound) {
		f.setErr(err)
	}
	return false
}

// hotSize is how many fingerprints hot holds before it becomes warm and a new hot starts.
const hotSize = 1 << 17

// remember keeps fp in the hot set of recent fingerprints.
func (f *Frontier) remember(fp *[16]byte) {
	if len(f.hot) >= hotSize || f.hot == nil {
		f.warm, f.hot = f.hot, make(map[[16]byte]struct{}, hotSize/4)
	}
	f.hot[*fp] = struct{}{}
}
