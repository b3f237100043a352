package frontier

import "encoding/binary"

// bloomChain is a scalable Bloom filter over 16-byte fingerprints, in front of the store's
// seen-set so that most new URLs never read the disk: a chain of filters of doubling
// capacity, each with 10 bits and 7 probes per element (about 1% false positives each).
// The fingerprints are SHA-1 bytes already, so the probes come from the fingerprint
// itself (double hashing), with no hashing of their own.
type bloomChain struct {
	filters []*bloomFilter
}

type bloomFilter struct {
	bits     []uint64
	m        uint64 // bits
	n, limit int
}

const bloomProbes = 7

func newBloomChain(capacity int) *bloomChain {
	c := &bloomChain{}
	c.grow(max(capacity, 1<<16))
	return c
}

func (c *bloomChain) grow(capacity int) {
	m := uint64(capacity) * 10
	m = (m + 63) &^ 63
	c.filters = append(c.filters, &bloomFilter{bits: make([]uint64, m/64), m: m, limit: capacity})
}

func probes(fp *[16]byte) (h1, h2 uint64) {
	return binary.LittleEndian.Uint64(fp[:8]), binary.LittleEndian.Uint64(fp[8:]) | 1
}

func (c *bloomChain) add(fp *[16]byte) {
	f := c.filters[len(c.filters)-1]
	if f.n >= f.limit {
		c.grow(f.limit * 2)
		f = c.filters[len(c.filters)-1]
	}
	h1, h2 := probes(fp)
	for i := range uint64(bloomProbes) {
		p := (h1 + i*h2) % f.m
		f.bits[p/64] |= 1 << (p % 64)
	}
	f.n++
}

// test reports whether fp may have been added (false: it was not).
func (c *bloomChain) test(fp *[16]byte) bool {
	h1, h2 := probes(fp)
	for _, f := range c.filters {
		hit := true
		for i := range uint64(bloomProbes) {
			p := (h1 + i*h2) % f.m
			if f.bits[p/64]&(1<<(p%64)) == 0 {
				hit = false
				break
			}
		}
		if hit {
			return true
		}
	}
	return false
}
