package enginetest

import (
	"os"
	"os/exec"
	"time"
)

// stopProcess sends cmd's process sig and waits for exit (closed when the process has
// exited), killing the process if it has not exited 30 seconds later.
func stopProcess(cmd *exec.Cmd, exit <-chan struct{}, sig os.Signal) {
	_ = cmd.Process.Signal(sig)
	select {
	case <-exit:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exit
	}
}
