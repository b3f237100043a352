package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// ErrOutsideRoot is wrapped by the error of a bundle that imports a file outside the
// folders it may read: the spider's root (see Bundle) with its node_modules, and the
// BundleOptions.AllowRead folders.
var ErrOutsideRoot = errors.New("import outside the spider's folder")

// sandbox is the set of folders a bundle may read files from, as real paths (symbolic
// links resolved).
type sandbox struct {
	root    string   // the spider's root, for messages
	allowed []string // root first, then the AllowRead folders
}

// sandboxMarker is the PluginData of the resolutions the sandbox plugin asks esbuild for
// itself, so that its own callback lets them through to esbuild's resolver.
type sandboxMarker struct{}

// spiderRoot returns the folder a spider file's imports stay in: the folder of the
// nearest package.json at or above the file's folder, or else the file's folder. The
// path is the file's as given (made absolute), not its target's when it is a symbolic
// link: a link out of the folder is refused like any import out of it.
func spiderRoot(abs string) string {
	dir := filepath.Dir(abs)
	for d := dir; ; {
		if fi, err := os.Stat(filepath.Join(d, "package.json")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// newSandbox returns the sandbox of a spider whose root is root, widened by the allow
// folders, which must exist.
func newSandbox(root string, allow []string) (*sandbox, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("spider folder: %w", err)
	}
	s := &sandbox{root: real, allowed: []string{real}}
	for _, d := range allow {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("allow-read %s: %w", d, err)
		}
		r, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("allow-read %s: %w", d, err)
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("allow-read %s: not a folder", d)
		}
		s.allowed = append(s.allowed, r)
	}
	return s, nil
}

// allows reports whether the real path p is in one of the sandbox's folders.
func (s *sandbox) allows(p string) bool {
	for _, d := range s.allowed {
		if within(d, p) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it (both clean absolute paths).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// realPath resolves the symbolic links of p's longest existing leading part and appends
// the rest, so a path that does not exist (yet) still resolves its folders' links.
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// refuse is the error for an import of path that reads real, outside the sandbox. It
// names the import and where it leads, never what the file holds.
func (s *sandbox) refuse(path, real string) api.OnResolveResult {
	text := fmt.Sprintf("import %q is refused: it reads %s, outside the spider's folder %s", path, real, s.root)
	if len(s.allowed) > 1 {
		text += " and the folders allowed to be read"
	}
	return api.OnResolveResult{Errors: []api.Message{{Text: text, Detail: fmt.Errorf("%w: %s", ErrOutsideRoot, path)}}}
}

// redact replaces the text of an esbuild message about a file outside the sandbox (a
// malformed package.json in a folder above the root, which esbuild reads on its own to
// learn the module type) with a note that names the file: esbuild quotes the file's
// content in such messages. cwd is the folder esbuild's relative paths start from.
func (s *sandbox) redact(msg *api.Message, cwd string) {
	loc := msg.Location
	if loc == nil || loc.File == "" || strings.HasPrefix(loc.File, "<") {
		return
	}
	full := loc.File
	if !filepath.IsAbs(full) {
		full = filepath.Join(cwd, full)
	}
	if real := realPath(full); !s.allows(real) {
		msg.Text = fmt.Sprintf("esbuild could not read %s, outside the spider's folder %s (its content is not shown)", real, s.root)
		loc.LineText, loc.Length = "", 0
		msg.Notes = nil
		msg.Detail = fmt.Errorf("%w: %s", ErrOutsideRoot, real)
	}
}

// plugin is the esbuild plugin that keeps a build inside the sandbox. Every import goes
// through its OnResolve: a file path (relative or absolute) that leads outside is refused
// before esbuild looks at it, and whatever esbuild resolves an import to (a package in
// node_modules, a tsconfig "paths" alias) is refused when its real path is outside. Its
// OnLoad checks each file again just before esbuild reads it.
func (s *sandbox) plugin() api.Plugin {
	return api.Plugin{Name: "jscrawl-sandbox", Setup: func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if _, mine := args.PluginData.(sandboxMarker); mine {
				return api.OnResolveResult{}, nil // esbuild's own resolution, asked for below
			}
			if args.Namespace == "file" || args.Namespace == "" {
				if p := args.Path; filepath.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
					full := p
					if !filepath.IsAbs(full) {
						full = filepath.Join(args.ResolveDir, p)
					}
					if real := realPath(full); !s.allows(real) {
						return s.refuse(args.Path, real), nil
					}
				}
			}
			res := build.Resolve(args.Path, api.ResolveOptions{
				Importer: args.Importer, Namespace: args.Namespace, ResolveDir: args.ResolveDir,
				Kind: args.Kind, With: args.With, PluginData: sandboxMarker{},
			})
			if len(res.Errors) > 0 {
				return api.OnResolveResult{Errors: res.Errors, Warnings: res.Warnings}, nil
			}
			if !res.External && res.Namespace == "file" {
				if real := realPath(res.Path); !s.allows(real) {
					return s.refuse(args.Path, real), nil
				}
			}
			out := api.OnResolveResult{Warnings: res.Warnings, Path: res.Path, External: res.External,
				Namespace: res.Namespace, Suffix: res.Suffix, PluginData: res.PluginData}
			if !res.SideEffects {
				out.SideEffects = api.SideEffectsFalse
			}
			return out, nil
		})
		build.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			if real := realPath(args.Path); !s.allows(real) {
				return api.OnLoadResult{Errors: []api.Message{{
					Text:   fmt.Sprintf("reading %s is refused: it is outside the spider's folder %s", real, s.root),
					Detail: fmt.Errorf("%w: %s", ErrOutsideRoot, args.Path),
				}}}, nil
			}
			return api.OnLoadResult{}, nil // esbuild reads it
		})
	}}
}

// tsconfig returns the tsconfig.json (or jsconfig.json) esbuild is to use for a spider
// whose file is in dir: the nearest at or above dir up to the root, "" for none. esbuild
// would otherwise look for one in every folder up to the file system's root and follow
// its "extends" anywhere, so Bundle names the file itself (or none) and this checks
// that each file its "extends" chain reads is in the sandbox.
func (s *sandbox) tsconfig(dir string) (string, error) {
	dir = realPath(dir)
	for d := dir; s.allows(d); d = filepath.Dir(d) {
		for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				if err := s.checkExtends(p, 0); err != nil {
					return "", err
				}
				return p, nil
			}
		}
		if d == s.root || filepath.Dir(d) == d {
			break
		}
	}
	return "", nil
}

// checkExtends checks that the "extends" of the tsconfig file p, and theirs, are files in
// the sandbox. depth bounds a cycle.
func (s *sandbox) checkExtends(p string, depth int) error {
	if real := realPath(p); !s.allows(real) {
		return fmt.Errorf("tsconfig extends %s: %w", p, ErrOutsideRoot)
	}
	if depth > 16 {
		return fmt.Errorf("%s: tsconfig extends nest too deep", p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("tsconfig: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var cfg struct {
		Extends json.RawMessage `json:"extends"`
	}
	if err := json.Unmarshal(jsonc(b), &cfg); err != nil {
		return fmt.Errorf("%s: cannot read its extends: %w", p, err)
	}
	if len(cfg.Extends) == 0 || string(cfg.Extends) == "null" {
		return nil
	}
	var exts []string
	var one string
	if json.Unmarshal(cfg.Extends, &one) == nil {
		exts = []string{one}
	} else if err := json.Unmarshal(cfg.Extends, &exts); err != nil {
		return fmt.Errorf("%s: extends is neither a string nor a list of strings: %w", p, err)
	}
	dir := filepath.Dir(p)
	for _, ext := range exts {
		var cands []string
		if filepath.IsAbs(ext) || strings.HasPrefix(ext, "./") || strings.HasPrefix(ext, "../") || ext == "." || ext == ".." {
			full := ext
			if !filepath.IsAbs(full) {
				full = filepath.Join(dir, ext)
			}
			if real := realPath(full); !s.allows(real) {
				return fmt.Errorf("%s: extends %q reads %s: %w", p, ext, real, ErrOutsideRoot)
			}
			cands = []string{full, full + ".json", filepath.Join(full, "tsconfig.json")}
		} else {
			// A package: esbuild looks in node_modules folders from dir up to the file
			// system's root, so it must be found in the sandbox first.
			for d := dir; s.allows(realPath(d)); d = filepath.Dir(d) {
				full := filepath.Join(d, "node_modules", filepath.FromSlash(ext))
				cands = append(cands, full, full+".json", filepath.Join(full, "tsconfig.json"))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
		found := ""
		for _, c := range cands {
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
				found = c
				break
			}
		}
		if found == "" {
			return fmt.Errorf("%s: extends %q is not a file in the spider's folder: %w", p, ext, ErrOutsideRoot)
		}
		if err := s.checkExtends(found, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// jsonc turns the JSON with comments and trailing commas of a tsconfig file into JSON:
// comments become spaces, then commas followed only by space and a closing bracket go.
func jsonc(b []byte) []byte {
	var out bytes.Buffer
	eachToken(b, func(tok []byte, str bool) {
		switch {
		case str:
			out.Write(tok)
		case bytes.HasPrefix(tok, []byte("//")) || bytes.HasPrefix(tok, []byte("/*")):
			out.WriteByte(' ')
		default:
			out.Write(tok)
		}
	})
	b = append([]byte(nil), out.Bytes()...)
	out.Reset()
	var comma []byte // a comma and the space after it, held until the next token shows whether it trails
	eachToken(b, func(tok []byte, str bool) {
		if !str && len(bytes.TrimSpace(tok)) == 0 {
			if comma != nil {
				comma = append(comma, tok...)
			} else {
				out.Write(tok)
			}
			return
		}
		if comma != nil {
			if !str && (tok[0] == '}' || tok[0] == ']') {
				comma = comma[1:]
			}
			out.Write(comma)
			comma = nil
		}
		if !str && tok[0] == ',' {
			comma = []byte{','}
			return
		}
		out.Write(tok)
	})
	out.Write(comma)
	return out.Bytes()
}

// eachToken calls f with each piece of b: a string literal (str), a comment, a run of
// white space or any other single byte.
func eachToken(b []byte, f func(tok []byte, str bool)) {
	for i := 0; i < len(b); {
		j := i + 1
		switch c := b[i]; {
		case c == '"':
			for ; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			j = min(j+1, len(b))
			f(b[i:j], true)
			i = j
			continue
		case c == '/' && j < len(b) && b[j] == '/':
			for j < len(b) && b[j] != '\n' {
				j++
			}
		case c == '/' && j < len(b) && b[j] == '*':
			if end := bytes.Index(b[j+1:], []byte("*/")); end >= 0 {
				j += end + 3
			} else {
				j = len(b)
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
		}
		f(b[i:j], false)
		i = j
	}
}
