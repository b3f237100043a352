package enginetest

import (
	"bufio"
	"fmt"
	"net"
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
	proc child
}

// StartRedis starts a redis-server for the test and waits until it answers PING. When no
// redis-server is on PATH the test is skipped with the reason, unless the environment has
// CI=true: then it fails (CI installs one: see .ci/run).
func StartRedis(t testing.TB, opts RedisOptions) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		unavailable(t, err, "install Debian's redis-server package to run this test")
	}
	r := &Redis{t: t, bin: bin, Dir: t.TempDir(), opts: opts}
	r.proc = child{name: "redis-server", log: filepath.Join(r.Dir, "redis.log"), ownLog: true, signal: syscall.SIGTERM}
	startOnFreePort(t, "redis-server", func(port int) error {
		r.Addr = "127.0.0.1:" + strconv.Itoa(port)
		r.args = []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", r.Dir,
			"--save", "", "--daemonize", "no", "--protected-mode", "no",
			"--logfile", r.proc.log}
		if opts.AOF {
			r.args = append(r.args, "--appendonly", "yes", "--appendfsync", "always")
		} else {
			r.args = append(r.args, "--appendonly", "no")
		}
		if opts.Password != "" {
			r.args = append(r.args, "--requirepass", opts.Password)
		}
		return r.start()
	})
	t.Cleanup(r.Stop)
	return r
}

// URL returns the redis:// URL of database db, with the password when the server has one.
func (r *Redis) URL(db int) string {
	if r.opts.Password != "" {
		return fmt.Sprintf("redis://:%s@%s/%d", r.opts.Password, r.Addr, db)
	}
	return fmt.Sprintf("redis://%s/%d", r.Addr, db)
}

// start runs the server and waits until it answers PING.
func (r *Redis) start() error {
	return r.proc.run(exec.Command(r.bin, r.args...), 15*time.Second, 10*time.Millisecond, r.Ping)
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
	r.proc.stop()
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
