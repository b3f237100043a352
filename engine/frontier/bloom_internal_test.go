package frontier

import (
	"crypto/sha1"
	"encoding/binary"
	"testing"
)

// TestBloomFalsePositives fills a chain past several growths and measures its false
// positive rate on fingerprints never added: no false negative, and under 0.1%.
func TestBloomFalsePositives(t *testing.T) {
	c := newBloomChain(1 << 16)
	defer c.free()
	fp := func(i uint64) *[16]byte {
		sum := sha1.Sum(binary.LittleEndian.AppendUint64(nil, i))
		return (*[16]byte)(sum[:16])
	}
	const n = 400_000 // 1<<16, then 2^17, 2^18, 2^19: four filters
	for i := range uint64(n) {
		c.add(fp(i))
	}
	for i := range uint64(n) {
		if !c.test(fp(i)) {
			t.Fatalf("false negative for %d", i)
		}
	}
	fps := 0
	for i := uint64(n); i < 2*n; i++ {
		if c.test(fp(i)) {
			fps++
		}
	}
	rate := float64(fps) / n
	t.Logf("%d filters, false positive rate %.4f%%", len(c.filters), 100*rate)
	if rate > 0.001 {
		t.Fatalf("false positive rate %.4f%%", 100*rate)
	}
}
