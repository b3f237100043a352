package enginetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TmpDisk mounts a tmpfs of sizeMB on a new folder of t.TempDir() and returns it; it is
// unmounted when the test ends. A test of a full disk fills it with Fill. Without the
// right to mount (not root, a container without CAP_SYS_ADMIN) the test is skipped with
// the reason, unless the environment has CI=true: then it fails.
func TmpDisk(t testing.TB, sizeMB int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(sizeMB)+"m"); err != nil {
		unavailable(t, fmt.Errorf("mount a tmpfs: %w", err), "a full disk needs a tmpfs: run as root, or in a container with CAP_SYS_ADMIN")
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// Fill appends to the file path until its disk has less than leave bytes free (0: until
// a write fails with ENOSPC). Safe from any goroutine.
func Fill(path string, leave int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return err
	}
	free := int64(st.Bavail) * st.Bsize
	chunk := make([]byte, 4096)
	for free-4096 >= leave {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
		free -= 4096
	}
	return f.Close()
}
