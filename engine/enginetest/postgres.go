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
	proc     child
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
		unavailable(t, err, "install Debian's postgresql package to run this test")
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
	p.proc = child{name: "postgres", log: filepath.Join(dir, "postgres.log"), signal: syscall.SIGINT}
	startOnFreePort(t, "postgres", func(port int) error {
		p.Addr = "127.0.0.1:" + strconv.Itoa(port)
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1",
			"-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "max_connections=50",
			"-c", "logging_collector=off", "-c", "log_min_messages=warning")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = dir
		return p.proc.run(cmd, 30*time.Second, 20*time.Millisecond, p.ping)
	})
	t.Cleanup(p.Stop)
	return p
}

// ping connects to the server and reports an error unless it takes the connection.
func (p *Postgres) ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, p.URL("postgres"))
	if err != nil {
		return err
	}
	return c.Close(context.Background())
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
	p.proc.stop()
}
