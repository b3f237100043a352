package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// gitRepo makes a git repository with one commit of files, committed at when, and returns
// its folder and the commit's hash.
func gitRepo(t *testing.T, when time.Time, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	date := when.Format(time.RFC3339)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	hash, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSpace(string(hash))
}

// goDownload runs `go mod download -json mod@version` with out as the only proxy and a
// fresh module cache, as go install would fetch the module, and returns the go command's
// answer and the module cache.
func goDownload(t *testing.T, proxy, modVersion string) (map[string]string, string) {
	t.Helper()
	cache := t.TempDir()
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy), "GOMODCACHE="+cache,
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", modVersion, err, out)
	}
	var res map[string]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res, cache
}

// TestWrite: the proxy directory of a commit holds its pseudo-version, its go.mod and a
// module zip of the committed files only (not a file changed or added since, nor a nested
// module), and the go command downloads the module from it.
func TestWrite(t *testing.T) {
	t.Parallel()
	when := time.Date(2024, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 2*3600))
	gomod := "module example.com/m\n\ngo 1.21\n"
	repo, hash := gitRepo(t, when, map[string]string{
		"go.mod": gomod, "a.go": "package m\n", "sub/go.mod": "module example.com/m/sub\n", "sub/s.go": "package sub\n",
		"testdata/x.txt": "x",
	})
	// Uncommitted changes never go in.
	if err := os.WriteFile(filepath.Join(repo, "a.go"), []byte("package changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "b.go"), []byte("package m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	m, err := write(repo, "HEAD", out)
	if err != nil {
		t.Fatal(err)
	}
	// 05:06:07 at UTC+2 is 03:06:07 UTC.
	want := module.Version{Path: "example.com/m", Version: "v0.0.0-20240304030607-" + hash[:12]}
	if m != want {
		t.Fatalf("write = %v, want %v", m, want)
	}
	dir := filepath.Join(out, "example.com", "m", "@v")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("list"); got != m.Version+"\n" {
		t.Errorf("list = %q", got)
	}
	if got := read(m.Version + ".mod"); got != gomod {
		t.Errorf(".mod = %q", got)
	}
	var info struct {
		Version string
		Time    time.Time
	}
	if err := json.Unmarshal([]byte(read(m.Version+".info")), &info); err != nil || info.Version != m.Version || !info.Time.Equal(when) {
		t.Errorf(".info = %+v (%v)", info, err)
	}
	cf, err := modzip.CheckZip(m, filepath.Join(dir, m.Version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := m.Path + "@" + m.Version + "/"
	if want := []string{prefix + "a.go", prefix + "go.mod", prefix + "testdata/x.txt"}; !slices.Equal(cf.Valid, want) {
		t.Errorf("zip files = %q, want %q", cf.Valid, want)
	}

	res, _ := goDownload(t, out, "example.com/m@"+m.Version)
	if res["Version"] != m.Version || res["Error"] != "" {
		t.Fatalf("go mod download: %v", res)
	}
	if b, err := os.ReadFile(filepath.Join(res["Dir"], "a.go")); err != nil || string(b) != "package m\n" {
		t.Errorf("downloaded a.go = %q (%v), want the committed one", b, err)
	}
	if _, err := os.Stat(filepath.Join(res["Dir"], "b.go")); err == nil {
		t.Error("an uncommitted file is in the module")
	}
}

// TestVerify: the module files of a download directory must be lines of the go.sum.
func TestVerify(t *testing.T) {
	t.Parallel()
	repo, _ := gitRepo(t, time.Unix(1700000000, 0), map[string]string{"go.mod": "module example.com/Dep\n\ngo 1.21\n", "d.go": "package dep\n"})
	proxy := t.TempDir()
	m, err := write(repo, "HEAD", proxy)
	if err != nil {
		t.Fatal(err)
	}
	res, cache := goDownload(t, proxy, m.String())
	download := filepath.Join(cache, "cache", "download")
	good := m.Path + " " + m.Version + " " + res["Sum"] + "\n" + m.Path + " " + m.Version + "/go.mod " + res["GoModSum"] + "\n"
	for _, tc := range []struct {
		name, sum, skip string
		wantErr         string // "" for none
	}{
		{"match", good, "", ""},
		{"zip hash differs", strings.Replace(good, res["Sum"], "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", 1), "", m.Path + " " + m.Version + " " + res["Sum"]},
		{"go.mod line missing", strings.SplitAfter(good, "\n")[0], "", m.Version + "/go.mod"},
		{"skipped module", "", m.Path, "no module files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sum := filepath.Join(t.TempDir(), "go.sum")
			if err := os.WriteFile(sum, []byte(tc.sum), 0o644); err != nil {
				t.Fatal(err)
			}
			n, err := verify(download, sum, tc.skip)
			switch {
			case tc.wantErr == "" && (err != nil || n != 2):
				t.Errorf("verify = %d, %v; want 2 files, no error", n, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("verify = %d, %v; want an error with %q", n, err, tc.wantErr)
			}
		})
	}
}
