package engine

import (
	"encoding/binary"
	"iter"
	"math/bits"
)

// fpSet is a set of 16-byte fingerprints, kept compact: one open-addressing table of
// fingerprints with linear probing, at most 4/5 full and grown by half, so a fingerprint
// costs 20 to 30 bytes of heap (a Go map of [16]byte costs 19 to 39 as it doubles). The
// fingerprints are SHA-1 prefixes: their first 8 bytes are the hash. The all-zero
// fingerprint marks an empty slot and is kept aside.
type fpSet struct {
	slots [][16]byte
	n     int  // fingerprints in slots
	zero  bool // the all-zero fingerprint is in the set
}

// add adds fp and reports whether it was new.
func (s *fpSet) add(fp [16]byte) bool {
	if fp == ([16]byte{}) {
		added := !s.zero
		s.zero = true
		return added
	}
	if (s.n+1)*5 > len(s.slots)*4 {
		s.grow()
	}
	if !s.insert(fp) {
		return false
	}
	s.n++
	return true
}

// insert puts fp in its slot, or reports false if it is there already.
func (s *fpSet) insert(fp [16]byte) bool {
	hi, _ := bits.Mul64(binary.LittleEndian.Uint64(fp[:8]), uint64(len(s.slots)))
	for i := int(hi); ; i++ {
		if i == len(s.slots) {
			i = 0
		}
		switch s.slots[i] {
		case fp:
			return false
		case [16]byte{}:
			s.slots[i] = fp
			return true
		}
	}
}

// grow makes the table half as large again (at least 1024 slots) and moves every
// fingerprint into it.
func (s *fpSet) grow() {
	old := s.slots
	s.slots = make([][16]byte, max(1024, len(old)+len(old)/2))
	for _, fp := range old {
		if fp != ([16]byte{}) {
			s.insert(fp)
		}
	}
}

// len returns the number of fingerprints in the set.
func (s *fpSet) len() int {
	if s.zero {
		return s.n + 1
	}
	return s.n
}

// all yields every fingerprint in the set, in no particular order.
func (s *fpSet) all() iter.Seq[[16]byte] {
	return func(yield func([16]byte) bool) {
		if s.zero && !yield([16]byte{}) {
			return
		}
		for _, fp := range s.slots {
			if fp != ([16]byte{}) && !yield(fp) {
				return
			}
		}
	}
}
