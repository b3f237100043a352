//go:build !unix

package main

import "os"

// keepPrivate does nothing: permissions are the temp folder's.
func keepPrivate(string, os.FileInfo) error { return nil }

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
