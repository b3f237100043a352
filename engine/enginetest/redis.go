package enginetest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RedisOptions configure StartRedis.
type RedisOptions struct {
	// AOF turns on the append-only file (fsynced at every write), so that Restart keeps
	// the data; without it the server keeps nothing on disk.
	AOF bool
	// Password makes the server require it (requirepass).
	Password string
}

// Redis is a real redis-server process started for one test on a free loopback port, with
// its data in a folder of t.TempDir(). It is stopped when the test ends.
type Redis struct {
	t    testing.TB
	bin  string
	args []string
	// Addr is the server's host:port.
	Addr string
	// Dir is the server's working folder (its log and, with AOF, its data).
	Dir  string
	opts RedisOptions
	cmd  *exec.Cmd
	exit chan struct{} // closed when cmd has exited
}

// StartRedis starts a redis-server for the test and waits until it answers PING. When no
// redis-server is on PATH the test is skipped with the reason, unless the environment has
// CI=true: then it fails (CI installs one: see .ci/run).
func StartRedis(t testing.TB, opts RedisOptions) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found (CI=true): %v", err)
		}
		t.Skipf("redis-server not found, skipping (install Debian's redis-server package to run this test): %v", err)
	}
	r := &Redis{t: t, bin: bin, Dir: t.TempDir(), opts: opts}
	var lastErr error
	for range 5 { // a free port can be taken between the probe and the server's bind
		port, err := freePort()
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		r.Addr = "127.0.0.1:" + strconv.Itoa(port)
		r.args = []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", r.Dir,
			"--save", "", "--daemonize", "no", "--protected-mode", "no",
			"--logfile", filepath.Join(r.Dir, "redis.log")}
		if opts.AOF {
			r.args = append(r.args, "--appendonly", "yes", "--appendfsync", "always")
		} else {
			r.args = append(r.args, "--appendonly", "no")
		}
		if opts.Password != "" {
			r.args = append(r.args, "--requirepass", opts.Password)
		}
		if lastErr = r.start(); lastErr == nil {
			t.Cleanup(r.Stop)
			return r
		}
	}
	t.Fatalf("start redis-server: %v", lastErr)
	return nil
}

// URL returns the redis:// URL of database db, with the password when the server has one.
func (r *Redis) URL(db int) string {
	if r.opts.Password != "" {
		return fmt.Sprintf("redis://:%s@%s/%d", r.opts.Password, r.Addr, db)
	}
	return fmt.Sprintf("redis://%s/%d", r.Addr, db)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs the server and waits until it answers PING.
func (r *Redis) start() error {
	cmd := exec.Command(r.bin, r.args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exit)
	}()
	r.cmd, r.exit = cmd, exit
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-exit:
			return fmt.Errorf("redis-server exited at start: %s", r.logTail())
		default:
		}
		if err := r.Ping(); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			r.Stop()
			return fmt.Errorf("redis-server does not answer PING on %s: %v; %s", r.Addr, err, r.logTail())
		}
		time.Sleep(10 * time.Millisecond) // polling for the server to come up, not synchronisation
	}
}

// Ping sends PING (after AUTH when the server has a password) and reports an error unless
// the server answers PONG.
func (r *Redis) Ping() error {
	c, err := net.DialTimeout("tcp", r.Addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	br := bufio.NewReader(c)
	if r.opts.Password != "" {
		if _, err := fmt.Fprintf(c, "AUTH %s\r\n", r.opts.Password); err != nil {
			return err
		}
		if line, err := br.ReadString('\n'); err != nil {
			return err
		} else if !strings.HasPrefix(line, "+OK") {
			return fmt.Errorf("auth: %s", strings.TrimSpace(line))
		}
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("ping: %s", strings.TrimSpace(line))
	}
	return nil
}

// Stop stops the server gracefully (SIGTERM: with AOF, everything written is kept) and
// waits until it has exited. Stopping a stopped server does nothing.
func (r *Redis) Stop() {
	if r.cmd == nil {
		return
	}
	stopProcess(r.cmd, r.exit, syscall.SIGTERM)
	r.cmd = nil
}

// Restart stops the server and starts it again on the same port and folder (with AOF, with
// the same data), and waits until it answers PING.
func (r *Redis) Restart() {
	r.t.Helper()
	r.Stop()
	var err error
	for range 50 { // the old socket may linger a moment
		if err = r.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond) // retry pacing, not synchronisation
	}
	r.t.Fatalf("restart redis-server: %v", err)
}

func (r *Redis) logTail() string {
	b, _ := os.ReadFile(filepath.Join(r.Dir, "redis.log"))
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	if s == "" {
		return "(empty log)"
	}
	return "log: " + s
}
