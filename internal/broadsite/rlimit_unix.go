//go:build unix

package broadsite

import (
	"fmt"
	"syscall"
)

// RaiseFileLimit raises the process's soft limit on open files (RLIMIT_NOFILE) to at
// least n when the hard limit allows it, and fails when it does not: a site of N hosts
// needs N listeners, and a crawl of it a connection at each end per host.
func RaiseFileLimit(n uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("read the open-file limit: %w", err)
	}
	if lim.Cur >= n {
		return nil
	}
	if lim.Max < n {
		return fmt.Errorf("%d open files needed, the hard limit is %d (ulimit -Hn; raise it as root)", n, lim.Max)
	}
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("raise the open-file limit to %d: %w", n, err)
	}
	return nil
}
