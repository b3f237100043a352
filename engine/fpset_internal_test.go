package engine

import (
	"crypto/sha1"
	"encoding/binary"
	"testing"
)

// TestFPSet adds fingerprints through several growths (SHA-1 prefixes, as the filter's,
// plus the all-zero one and one whose hash is 0 and one whose hash is all ones, which
// probe from the table's ends): each is new once and a duplicate after, Len counts them,
// and all yields each exactly once.
func TestFPSet(t *testing.T) {
	var fps [][16]byte
	for i := range 5000 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		sum := sha1.Sum(b[:])
		fps = append(fps, [16]byte(sum[:16]))
	}
	var low, high [16]byte
	low[15] = 1
	for i := range 8 {
		high[i] = 0xff
	}
	fps = append(fps, [16]byte{}, low, high)
	var s fpSet
	for i, fp := range fps {
		if !s.add(fp) {
			t.Fatalf("fingerprint %d (%x) reported seen before it was added", i, fp)
		}
		if s.add(fp) {
			t.Fatalf("fingerprint %d (%x) added twice", i, fp)
		}
		if s.len() != i+1 {
			t.Fatalf("len %d after %d fingerprints", s.len(), i+1)
		}
	}
	for i, fp := range fps {
		if s.add(fp) {
			t.Fatalf("fingerprint %d (%x) lost after the table grew", i, fp)
		}
	}
	got := map[[16]byte]int{}
	for fp := range s.all() {
		got[fp]++
	}
	if len(got) != len(fps) {
		t.Fatalf("all yields %d fingerprints, want %d", len(got), len(fps))
	}
	for _, fp := range fps {
		if got[fp] != 1 {
			t.Fatalf("all yields %x %d times", fp, got[fp])
		}
	}
}
