// Command modproxy writes one version of the module in a git checkout as a module proxy
// serves it, into a directory that GOPROXY=file://DIR reads: DIR/<module>/@v/list,
// <version>.info, <version>.mod and <version>.zip. The version is the commit's
// pseudo-version, v0.0.0-<commit time, UTC, yyyymmddhhmmss>-<12-hex hash>, as the go
// command gives an untagged commit; the zip holds the committed tree only (git archive of
// the revision, so uncommitted files never go in), in the module zip format of
// golang.org/x/mod/zip, which checks the names and sizes as the go command does.
//
// scripts/go-install-check.sh uses it to check `go install github.com/jscrawl/jscrawl@VERSION`
// without the network. It prints the version:
//
//	go run ./scripts/modproxy -repo . -rev HEAD -out /tmp/proxy
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the git checkout")
	rev := flag.String("rev", "HEAD", "the revision to write")
	out := flag.String("out", "", "the proxy directory to write (created if missing)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy [-repo DIR] [-rev REV] -out DIR")
		os.Exit(2)
	}
	v, err := write(*repo, *rev, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
	fmt.Println(v.Version)
}

// write puts revision rev of the module in repo into the proxy directory out and returns
// its module path and version.
func write(repo, rev, out string) (module.Version, error) {
	meta, err := git(repo, "show", "-s", "--format=%H %ct", rev+"^{commit}")
	if err != nil {
		return module.Version{}, err
	}
	hash, secs, _ := strings.Cut(strings.TrimSpace(string(meta)), " ")
	unix, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || len(hash) < 12 {
		return module.Version{}, fmt.Errorf("commit of %s: unexpected %q", rev, meta)
	}
	when := time.Unix(unix, 0).UTC()
	gomod, err := git(repo, "show", hash+":go.mod")
	if err != nil {
		return module.Version{}, err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return module.Version{}, errors.New("go.mod has no module line")
	}
	m := module.Version{Path: path, Version: module.PseudoVersion("", "", when, hash[:12])}
	// The same flags as the go command and x/mod/zip.CreateFromVCS, which cannot be used
	// itself: it refuses a git worktree (its .git is a file).
	archive, err := git(repo, "-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=zip", hash)
	if err != nil {
		return module.Version{}, err
	}
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return module.Version{}, fmt.Errorf("git archive: %w", err)
	}
	var files []modzip.File
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") {
			files = append(files, archived{f})
		}
	}

	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return module.Version{}, err
	}
	dir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return module.Version{}, err
	}
	var zipped bytes.Buffer
	if err := modzip.Create(&zipped, m, files); err != nil {
		return module.Version{}, err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, when})
	if err != nil {
		return module.Version{}, err
	}
	for name, data := range map[string][]byte{
		m.Version + ".zip":  zipped.Bytes(),
		m.Version + ".mod":  gomod,
		m.Version + ".info": info,
		"list":              []byte(m.Version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return module.Version{}, err
		}
	}
	return m, nil
}

// git runs git in repo and returns its standard output.
func git(repo string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// archived is a file of git's zip archive as x/mod/zip reads it.
type archived struct{ f *zip.File }

func (a archived) Path() string                 { return a.f.Name }
func (a archived) Lstat() (os.FileInfo, error)  { return a.f.FileInfo(), nil }
func (a archived) Open() (io.ReadCloser, error) { return a.f.Open() }

// Interface guards
var _ modzip.File = archived{}
