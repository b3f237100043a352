//go:build !unix

package frontier

func allocBlocks(n int) [][8]uint64 { return make([][8]uint64, n) }

func freeBlocks([][8]uint64) {}
