//go:build !unix

package broadsite

// RaiseFileLimit does nothing where there is no RLIMIT_NOFILE.
func RaiseFileLimit(n uint64) error { return nil }
