package types

import (
	"errors"
	"syscall"
)

// IsStorageError reports whether err is a storage failure that freeing space or fixing the
// disk cures: no space left (ENOSPC, or EFBIG past a file size limit), a disk quota, an I/O
// error or a read-only file system. The job store, feeds and WARC writer end the crawl on
// one (finish_reason jobdir_error, feed_error, warc_error), and the job resumes once the
// disk is fixed.
func IsStorageError(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EFBIG, syscall.EDQUOT, syscall.EIO, syscall.EROFS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
