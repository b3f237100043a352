// Command modproxy serves scripts/go-install-check.sh, which checks
// `go install github.com/jscrawl/jscrawl@VERSION` without the network beyond the module
// proxy. It has two modes.
//
// write puts one version of the module in a git checkout, as a module proxy serves it, into
// a directory that GOPROXY=file://DIR reads: DIR/<module>/@v/list, <version>.info,
// <version>.mod and <version>.zip. The version is the commit's pseudo-version,
// v0.0.0-<commit time, UTC, yyyymmddhhmmss>-<12-hex hash>, as the go command gives an
// untagged commit; the zip holds the committed tree only (git archive of the revision, so
// uncommitted files never go in), in the module zip format of golang.org/x/mod/zip, which
// checks the names and sizes as the go command does. It prints the version:
//
//	go run ./scripts/modproxy write -repo . -rev HEAD -out /tmp/proxy
//
// verify checks every module in a module cache's download directory against a go.sum:
// each zip's and each go.mod's hash (dirhash's h1, as the go command computes them) must
// be one of its lines. go install of a version runs outside any module, so the go command
// reads no go.sum and asks the checksum database instead; with GOSUMDB=off and this check
// the dependencies are held to our go.sum, as a build in the checkout is, offline:
//
//	go run ./scripts/modproxy verify -cache $GOMODCACHE/cache/download -sum go.sum -skip github.com/jscrawl/jscrawl
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	var err error
	switch os.Args[1] {
	case "write":
		repo := flags.String("repo", ".", "the git checkout")
		rev := flags.String("rev", "HEAD", "the revision to write")
		out := flags.String("out", "", "the proxy directory to write (created if missing)")
		_ = flags.Parse(os.Args[2:])
		if *out == "" || flags.NArg() > 0 {
			usage()
		}
		var m module.Version
		if m, err = write(*repo, *rev, *out); err == nil {
			fmt.Println(m.Version)
		}
	case "verify":
		cache := flags.String("cache", "", "a module cache's download directory ($GOMODCACHE/cache/download)")
		sum := flags.String("sum", "go.sum", "the go.sum to hold the modules to")
		skip := flags.String("skip", "", "a module path not to check (the module installed)")
		_ = flags.Parse(os.Args[2:])
		if *cache == "" || flags.NArg() > 0 {
			usage()
		}
		var n int
		if n, err = verify(*cache, *sum, *skip); err == nil {
			fmt.Printf("%d module files match %s\n", n, *sum)
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: modproxy write [-repo DIR] [-rev REV] -out DIR\n       modproxy verify -cache DIR [-sum FILE] [-skip MODULE]")
	os.Exit(2)
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

// verify checks the .zip and .mod files under cache (a module download directory) other
// than module skip's against the lines of the go.sum file sum, and returns how many it
// checked.
func verify(cache, sum, skip string) (int, error) {
	data, err := os.ReadFile(sum)
	if err != nil {
		return 0, err
	}
	known := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			known[f[0]+" "+f[1]+" "+f[2]] = true
		}
	}
	n := 0
	var bad []string
	err = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "sumdb" && filepath.Dir(p) == filepath.Clean(cache) {
			return filepath.SkipDir // the checksum database's cache, not modules
		}
		ext := filepath.Ext(p)
		if d.IsDir() || ext != ".zip" && ext != ".mod" || filepath.Base(filepath.Dir(p)) != "@v" {
			return nil
		}
		rel, err := filepath.Rel(cache, filepath.Dir(filepath.Dir(p)))
		if err != nil {
			return err
		}
		path, err := module.UnescapePath(filepath.ToSlash(rel))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		version, err := module.UnescapeVersion(strings.TrimSuffix(d.Name(), ext))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if path == skip {
			return nil
		}
		var h string
		if ext == ".zip" {
			h, err = dirhash.HashZip(p, dirhash.Hash1)
		} else {
			version += "/go.mod"
			h, err = dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) { return os.Open(p) })
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		n++
		if !known[path+" "+version+" "+h] {
			bad = append(bad, path+" "+version+" "+h)
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	if len(bad) > 0 {
		return n, fmt.Errorf("not in %s (a dependency changed, or go.sum misses it):\n\t%s", sum, strings.Join(bad, "\n\t"))
	}
	if n == 0 {
		return 0, fmt.Errorf("no module files under %s", cache)
	}
	return n, nil
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
