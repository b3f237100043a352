package enginetest

// This file holds what the test servers (Redis, PostgreSQL, S3) share: finding a free
// port, starting the process and polling it until it is ready, stopping it, and skipping
// a test when a server is not installed.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// unavailable skips the test because what it needs is missing (why), with a hint on how
// to get it, unless the environment has CI=true: then it fails (CI installs all of them:
// see .ci/run).
func unavailable(t testing.TB, why error, hint string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v (CI=true)", why)
	}
	t.Skipf("skipping: %v (%s)", why, hint)
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startOnFreePort calls start with a free loopback port until it returns nil, at most 5
// times (a free port can be taken between the probe and the server's bind), and fails
// the test with start's last error, naming the server name.
func startOnFreePort(t testing.TB, name string, start func(port int) error) {
	t.Helper()
	var err error
	for range 5 {
		port, perr := freePort()
		if perr != nil {
			t.Fatalf("find a free port: %v", perr)
		}
		if err = start(port); err == nil {
			return
		}
	}
	t.Fatalf("start %s: %v", name, err)
}

// child is a test server's process.
type child struct {
	name string // the program, in messages ("redis-server")
	// log is the server's log file, whose end the errors quote. Unless ownLog, run
	// creates it for the server's standard output and error.
	log    string
	ownLog bool      // the server writes log itself (redis-server --logfile)
	signal os.Signal // the signal that stops the server gracefully
	cmd    *exec.Cmd // nil when not running
	exit   chan struct{}
}

// run starts cmd and calls ready every poll until it returns nil. When the process exits
// first, or ready still fails after timeout, run stops the process and returns an error
// ending with the tail of the log.
func (c *child) run(cmd *exec.Cmd, timeout, poll time.Duration, ready func() error) error {
	if !c.ownLog {
		logf, err := os.Create(c.log)
		if err != nil {
			return err
		}
		defer logf.Close() // the process has its own copy
		cmd.Stdout, cmd.Stderr = logf, logf
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exit)
	}()
	c.cmd, c.exit = cmd, exit
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-exit:
			c.cmd = nil
			return fmt.Errorf("%s exited at start: %s", c.name, c.logTail())
		default:
		}
		err := ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			c.stop()
			return fmt.Errorf("%s is not ready after %v: %v; %s", c.name, timeout, err, c.logTail())
		}
		time.Sleep(poll) // polling for the server to come up, not synchronisation
	}
}

// stop sends the process c.signal and waits until it has exited, killing it if it has
// not exited 30 seconds later. Stopping a stopped process does nothing.
func (c *child) stop() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(c.signal)
	select {
	case <-c.exit:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exit
	}
	c.cmd = nil
}

// logTail returns the last 2000 bytes of the log, for an error message.
func (c *child) logTail() string {
	b, _ := os.ReadFile(c.log)
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	if s == "" {
		return "(empty log)"
	}
	return "log: " + s
}
