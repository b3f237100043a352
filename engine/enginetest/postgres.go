package enginetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Postgres is a real PostgreSQL server (Debian's postgresql package) started for one test:
// initdb in a temporary folder, then postgres on a free loopback port with password
// authentication, no Unix socket and no system service. It is stopped and its folder
// removed when the test ends. As root, both run as the user nobody (postgres refuses to
// run as root).
type Postgres struct {
	// Addr is the server's host:port.
	Addr string
	// Password is the password of the superuser postgres.
	Password string
	dir      string
	cmd      *exec.Cmd
	exit     chan struct{}
	dbs      atomic.Int64
}

// postgresBin returns the folder of initdb and postgres: PATH's, or the newest under
// /usr/lib/postgresql (Debian keeps them off PATH).
func postgresBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("no initdb on PATH nor under /usr/lib/postgresql/*/bin")
}

// StartPostgres starts a PostgreSQL server for the test and waits until it takes a
// connection. When PostgreSQL is not installed the test is skipped with the reason, unless
// the environment has CI=true: then it fails (CI installs it: see .ci/run).
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bin, err := postgresBin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL not found (CI=true): %v", err)
		}
		t.Skipf("PostgreSQL not found, skipping (install Debian's postgresql package to run this test): %v", err)
	}
	// Not t.TempDir: its parents are closed to the user nobody.
	dir, err := os.MkdirTemp("", "jscrawl-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Fatalf("postgres cannot run as root, and there is no user nobody: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	p := &Postgres{Password: "pg-Secret-7", dir: dir}
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(p.Password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--pwfile", pwfile,
		"--auth", "scram-sha-256", "-E", "UTF8", "--locale", "C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	var lastErr error
	for range 5 { // a free port can be taken between the probe and the server's bind
		port, err := freePort()
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		p.Addr = "127.0.0.1:" + strconv.Itoa(port)
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1",
			"-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "max_connections=50",
			"-c", "logging_collector=off", "-c", "log_min_messages=warning")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = dir
		logf, err := os.Create(filepath.Join(dir, "postgres.log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			logf.Close()
			t.Fatalf("start postgres: %v", err)
		}
		exit := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			logf.Close()
			close(exit)
		}()
		p.cmd, p.exit = cmd, exit
		if lastErr = p.waitReady(); lastErr == nil {
			t.Cleanup(p.Stop)
			return p
		}
		p.Stop()
	}
	t.Fatalf("start postgres: %v", lastErr)
	return nil
}

// waitReady waits until the server takes a connection, or has exited.
func (p *Postgres) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.exit:
			return fmt.Errorf("postgres exited at start: %s", p.logTail())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, p.URL("postgres"))
		cancel()
		if err == nil {
			_ = c.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres does not take connections on %s: %v; %s", p.Addr, err, p.logTail())
		}
		time.Sleep(20 * time.Millisecond) // polling for the server to come up, not synchronisation
	}
}

// URL returns the postgres:// URL of database db, with the superuser's password.
func (p *Postgres) URL(db string) string {
	return fmt.Sprintf("postgres://postgres:%s@%s/%s?sslmode=disable", p.Password, p.Addr, db)
}

// NewDatabase creates an empty database and returns its name.
func (p *Postgres) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("db%d", p.dbs.Add(1))
	ctx := context.Background()
	c, err := pgx.Connect(ctx, p.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return name
}

// Stop stops the server (a fast shutdown) and waits until it has exited. Stopping a
// stopped server does nothing.
func (p *Postgres) Stop() {
	if p.cmd == nil {
		return
	}
	stopProcess(p.cmd, p.exit, syscall.SIGINT)
	p.cmd = nil
}

func (p *Postgres) logTail() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "postgres.log"))
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	if s == "" {
		return "(empty log)"
	}
	return "log: " + s
}
