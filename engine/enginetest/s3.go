package enginetest

import (
	"errors"
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
	proc child
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
		unavailable(t, err, "install it with `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0`")
	}
	s := &S3{Dir: t.TempDir()}
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(s.Dir, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.proc = child{name: "versitygw", log: filepath.Join(t.TempDir(), "versitygw.log"), signal: syscall.SIGTERM}
	startOnFreePort(t, "versitygw", func(port int) error {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		s.Endpoint = "http://" + addr
		return s.start(bin, addr)
	})
	t.Cleanup(s.Stop)
	return s
}

// start runs the server and waits until it answers HTTP on addr.
func (s *S3) start(bin, addr string) error {
	cmd := exec.Command(bin, "--port", addr, "--access", S3AccessKey, "--secret", S3SecretKey, "posix", s.Dir)
	client := &http.Client{Timeout: time.Second}
	return s.proc.run(cmd, 20*time.Second, 10*time.Millisecond, func() error {
		resp, err := client.Get(s.Endpoint + "/")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
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
	s.proc.stop()
}
