package frontier

import "encoding/binary"

// bloomChain is a scalable Bloom filter over 16-byte fingerprints, in front of the store's
// seen-set so that most new URLs never read the disk: a chain of filters of doubling
// capacity, each with 14 bits and 9 probes per element (about 0.2% false positives each:
// every false positive costs a store lookup, tens of µs when its blocks are not cached).
// Each filter is blocked: an element's probes all fall in one 512-bit block (one cache
// line), so a test costs one cache miss per filter. The fingerprints are SHA-1 bytes
// already, so the block and the probes come from the fingerprint itself, unhashed.
type bloomChain struct {
	filters []*bloomFilter
}

type bloomFilter struct {
	blocks   [][8]uint64
	n, limit int
}

const (
	bloomProbes = 9
	bloomBits   = 14 // per element
)

func newBloomChain(capacity int) *bloomChain {
	c := &bloomChain{}
	c.grow(max(capacity, 1<<16))
	return c
}

func (c *bloomChain) grow(capacity int) {
	nb := (capacity*bloomBits + 511) / 512
	c.filters = append(c.filters, &bloomFilter{blocks: allocBlocks(nb), limit: capacity})
}

// free releases the filters' memory.
func (c *bloomChain) free() {
	for _, f := range c.filters {
		freeBlocks(f.blocks)
	}
	c.filters = nil
}

// probes returns the block index source and the 9-bit probe source of fp.
func probes(fp *[16]byte) (blk, h uint64) {
	return binary.LittleEndian.Uint64(fp[:8]), binary.LittleEndian.Uint64(fp[8:])
}

func (c *bloomChain) add(fp *[16]byte) {
	f := c.filters[len(c.filters)-1]
	if f.n >= f.limit {
		c.grow(f.limit * 2)
		f = c.filters[len(c.filters)-1]
	}
	blk, h := probes(fp)
	b := &f.blocks[blk%uint64(len(f.blocks))]
	for range bloomProbes {
		p := h & 511
		b[p/64] |= 1 << (p % 64)
		h >>= 9
	}
	f.n++
}

// test reports whether fp may have been added (false: it was not).
func (c *bloomChain) test(fp *[16]byte) bool {
	blk, h0 := probes(fp)
	for _, f := range c.filters {
		b := &f.blocks[blk%uint64(len(f.blocks))]
		h, hit := h0, true
		for range bloomProbes {
			p := h & 511
			if b[p/64]&(1<<(p%64)) == 0 {
				hit = false
				break
			}
			h >>= 9
		}
		if hit {
			return true
		}
	}
	return false
}
