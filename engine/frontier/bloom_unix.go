//go:build unix

package frontier

import (
	"syscall"
	"unsafe"
)

// allocBlocks allocates n filter blocks outside the Go heap (anonymous memory, zeroed by
// the kernel and resident only once touched), as pebble does for its cache and memtables:
// a 10M-request seen-set's filter is 25 MiB the garbage collector need not pace for.
func allocBlocks(n int) [][8]uint64 {
	if n == 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, n*64, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([][8]uint64, n)
	}
	return unsafe.Slice((*[8]uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func freeBlocks(blocks [][8]uint64) {
	if len(blocks) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(blocks))), len(blocks)*64)
	_ = syscall.Munmap(b) // fails harmlessly for a heap fallback
}
