//go:build !unix

package main

import (
	"fmt"
	"os"
)

// checkPrivateDir makes sure dir is a folder (permissions are the temp folder's).
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

// termWidth returns 0: tables are not truncated.
func termWidth(*os.File) int { return 0 }
