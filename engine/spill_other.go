//go:build !unix

package engine

// processAlive cannot tell here: a spill folder is never taken as stale.
func processAlive(int) bool { return true }
