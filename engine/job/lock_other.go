//go:build !unix

package job

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDir creates DIR/lock exclusively; a lock left by a killed process must be removed by
// hand on these systems.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return nil, &ErrRunning{Dir: dir}
		}
		return nil, fmt.Errorf("job lock: %w", err)
	}
	return f, nil
}

func unlockDir(f *os.File) {
	name := f.Name()
	_ = f.Close()
	_ = os.Remove(name)
}

func lockedByOther(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "lock"))
	return err == nil
}
