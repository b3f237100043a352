package enginetest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The root credentials of the S3 servers StartS3 starts.
const (
	S3AccessKey = "jscrawltest"
	S3SecretKey = "jscrawltest-secret-key"
)

// S3 is a real S3-compatible server (versitygw with its posix backend) started for one test
// on a free loopback port, its buckets the folders of Dir. It is stopped when the test ends.
type S3 struct {
	// Endpoint is the server's URL, such as http://127.0.0.1:40123 (an IP address, so
	// clients use path-style addressing).
	Endpoint string
	// Dir is the posix backend's folder: bucket b is the folder Dir/b, and its object k the
	// file Dir/b/k.
	Dir  string
	cmd  *exec.Cmd
	exit chan struct{}
	log  string
}

// S3Binary returns the path of versitygw: on PATH, else in the user's cache folder under
// jscrawl/bin (where .ci/run installs it), else an error.
func S3Binary() (string, error) {
	if bin, err := exec.LookPath("versitygw"); err == nil {
		return bin, nil
	}
	if dir, err := os.UserCacheDir(); err == nil {
		bin := filepath.Join(dir, "jscrawl", "bin", "versitygw")
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	return "", errors.New("versitygw is not on PATH nor in the cache folder")
}

// StartS3 starts a versitygw S3 gateway for the test, with the buckets given (empty
// folders of Dir), and waits until it answers HTTP. When no versitygw is found the test is
// skipped with the reason, unless the environment has CI=true: then it fails (CI installs
// one: see .ci/run).
func StartS3(t testing.TB, buckets ...string) *S3 {
	t.Helper()
	bin, err := S3Binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI=true)", err)
		}
		t.Skipf("skipping: %v (install it with `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0`)", err)
	}
	s := &S3{Dir: t.TempDir()}
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(s.Dir, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.log = filepath.Join(t.TempDir(), "versitygw.log")
	var lastErr error
	for range 5 { // a free port can be taken between the probe and the server's bind
		port, err := freePort()
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		s.Endpoint = "http://" + addr
		if lastErr = s.start(bin, addr); lastErr == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("start versitygw: %v", lastErr)
	return nil
}

// start runs the server and waits until it answers HTTP on addr.
func (s *S3) start(bin, addr string) error {
	logf, err := os.Create(s.log)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--port", addr, "--access", S3AccessKey, "--secret", S3SecretKey, "posix", s.Dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exit)
	}()
	s.cmd, s.exit = cmd, exit
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-exit:
			s.cmd = nil
			return fmt.Errorf("versitygw exited at start: %s", s.logTail())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			resp, err := client.Get(s.Endpoint + "/")
			if err == nil {
				resp.Body.Close()
				return nil
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("versitygw does not answer on %s: %s", addr, s.logTail())
		}
		time.Sleep(10 * time.Millisecond) // polling for the server to come up, not synchronisation
	}
}

// Object returns the content of the object key in bucket, read from the backend folder,
// and false when there is none.
func (s *S3) Object(bucket, key string) ([]byte, bool) {
	b, err := os.ReadFile(filepath.Join(s.Dir, bucket, filepath.FromSlash(key)))
	if err != nil {
		return nil, false
	}
	return b, true
}

// Keys returns the keys of the objects in bucket, sorted (the backend's folders of
// unfinished multipart uploads, hidden ones, are left out).
func (s *S3) Keys(bucket string) []string {
	root := filepath.Join(s.Dir, bucket)
	var keys []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			keys = append(keys, filepath.ToSlash(rel))
		}
		return nil
	})
	return keys
}

// Stop stops the server and waits until it has exited. Stopping a stopped server does
// nothing.
func (s *S3) Stop() {
	if s.cmd == nil {
		return
	}
	stopProcess(s.cmd, s.exit, syscall.SIGTERM)
	s.cmd = nil
}

func (s *S3) logTail() string {
	b, _ := os.ReadFile(s.log)
	str := strings.TrimSpace(string(b))
	if len(str) > 2000 {
		str = str[len(str)-2000:]
	}
	if str == "" {
		return "(empty log)"
	}
	return "log: " + str
}
