package enginetest

// This file holds the helpers that start a child process whose output a test reads.

import (
	"io"
	"os/exec"
	"testing"
)

// StartStdout starts cmd with a pipe from its stdout and its stderr collected in the
// returned Buffer (for the failure messages); it fails the test when cmd cannot start.
// The caller reads stdout to its end before it calls cmd.Wait, which closes the pipe.
func StartStdout(t testing.TB, cmd *exec.Cmd) (io.ReadCloser, *Buffer) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdout, stderr
}

// StartPiped is StartStdout with a pipe to cmd's stdin as well: the test writes the
// child's input and closes it when done.
func StartPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, *Buffer) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := StartStdout(t, cmd)
	return stdin, stdout, stderr
}
