package runtime

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
)

// Program is a bundled and compiled spider: one CommonJS module that every VM runs.
// A goja Program may run in many runtimes at once.
type Program struct {
	// Name is the entry file as the user typed it.
	Name string
	// Code is the bundled JavaScript, with an inline source map.
	Code string
	// Inputs are the absolute paths of the local source files the bundle was built from:
	// the entry and the files it imports, without node_modules packages (what run --watch
	// watches and check reads contracts from). Empty for BundleSource.
	Inputs []string
	prog   *goja.Program
}

// SyntaxError is a bundling or parse error at a position in a source file.
type SyntaxError struct {
	File   string // path as the user typed it, or relative to the working folder
	Line   int    // 1-based
	Column int    // 1-based
	Text   string
	// LineText is the source line, when known.
	LineText string
	// Err is the cause, when known: it wraps ErrOutsideRoot for an import the sandbox
	// refused.
	Err error
}

// Error formats the error as file:line:col: message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Text)
}

// Unwrap returns the cause, if any.
func (e *SyntaxError) Unwrap() error { return e.Err }

// ErrNotFound is returned by Bundle when the entry file does not exist.
var ErrNotFound = errors.New("spider file not found")

// BundleOptions adjust Bundle.
type BundleOptions struct {
	// External lists module names left to require() at run time (native modules such as
	// "jscrawl").
	External []string
	// Minify makes the output smaller (for sharing a spider as one file).
	Minify bool
	// AllowRead lists folders whose files the spider may import besides those of its
	// root (see Bundle): the operator's --allow-read. Each must exist.
	AllowRead []string
}

// helperRewrites wrap esbuild's helpers for lowered async generators and async functions
// with the prelude's: __asyncGenerator so the engine can drive generators without a
// promise per value, __async so the steps of an async function run in the scope of the
// callback that called it. Each declaration ("var __async = ") becomes the wrapper
// followed by the original helper under a new name, on the same line.
var helperRewrites = []struct {
	name string         // the helper's name in esbuild's output
	decl *regexp.Regexp // its declaration
	used *regexp.Regexp // any use of the name
	repl string         // what replaces the declaration's "var name = "
}{
	{"__asyncGenerator", regexp.MustCompile(`\bvar\s+__asyncGenerator\s*=\s*`), regexp.MustCompile(`\b__asyncGenerator\b`),
		"var __asyncGenerator = (t, a, g) => __jscrawlAsyncGen(__asyncGenerator0, t, a, g, __await); var __asyncGenerator0 = "},
	{"__async", regexp.MustCompile(`\bvar\s+__async\s*=\s*`), regexp.MustCompile(`\b__async\b`),
		"var __async = (t, a, g) => __jscrawlAsync(__async0, t, a, g); var __async0 = "},
}

// rewriteHelpers applies helperRewrites to a bundle. A helper that the code uses but whose
// declaration does not have the expected form (a newer esbuild writing it differently) is
// an error: left unwrapped, async callbacks would run outside the engine's control.
func rewriteHelpers(code string) (string, error) {
	for _, h := range helperRewrites {
		if h.decl.MatchString(code) {
			code = h.decl.ReplaceAllLiteralString(code, h.repl)
		} else if h.used.MatchString(code) {
			return "", fmt.Errorf("esbuild's %s helper is used but not declared as \"var %s = \" (esbuild's output changed): cannot wrap it", h.name, h.name)
		}
	}
	return code, nil
}

// Bundle builds entry (.ts, .js, .mjs, .cjs) with its relative imports and node_modules
// packages into one CommonJS program, lowering what goja lacks (async generators,
// for-await, ES modules), and compiles it. Errors name file:line:col. It reads only the
// entry and what it imports; it is called once per crawl, not per VM.
//
// A spider file is untrusted code, so its imports stay in its root: the folder of the
// nearest package.json at or above the entry's folder, or else the entry's folder, with
// the node_modules in it, plus the opts.AllowRead folders. An import that leads outside
// (an absolute path, "../" out of the root, a symbolic link whose target is outside, the
// entry itself being such a link) fails with a *SyntaxError at the import that wraps
// ErrOutsideRoot, and esbuild never reads the file. The tsconfig.json esbuild applies is
// the nearest at or above the entry's folder within the root, none above it.
func Bundle(entry string, opts BundleOptions) (*Program, error) {
	res, abs, cwd, err := buildEntry(entry, opts, func(b *api.BuildOptions) {
		b.Format = api.FormatCommonJS
		b.Sourcemap = api.SourceMapExternal
		b.SourcesContent = api.SourcesContentExclude
		b.Supported = map[string]bool{"async-generator": false, "for-await": false, "async-await": false}
		b.Metafile = true
	})
	if err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		if strings.HasPrefix(res.Errors[0].Text, "Top-level await is ") {
			return bundleScript(entry, opts, messageError(res.Errors[0], entry, abs, cwd))
		}
		return nil, messageError(res.Errors[0], entry, abs, cwd)
	}
	return finishBundle(entry, abs, cwd, res, res.Metafile)
}

// finishBundle compiles esbuild's CommonJS output res into a Program; metafile lists its
// inputs.
func finishBundle(entry, abs, cwd string, res api.BuildResult, metafile string) (*Program, error) {
	code, srcMap := outputs(res)
	srcMap, err := renameSources(srcMap, entry, abs, cwd)
	if err != nil {
		return nil, err
	}
	p, err := compileBundle(entry, string(code), srcMap)
	if err != nil {
		return nil, err
	}
	if p.Inputs, err = localInputs(metafile, abs, cwd); err != nil {
		return nil, err
	}
	return p, nil
}

// localInputs lists the local files of esbuild's metafile (its "inputs", relative to cwd)
// as absolute paths, the entry abs first, leaving out node_modules packages and esbuild's
// virtual modules.
func localInputs(metafile, abs, cwd string) ([]string, error) {
	var m struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &m); err != nil {
		return nil, fmt.Errorf("esbuild metafile: %w", err)
	}
	out := []string{abs}
	for p := range m.Inputs {
		if strings.Contains(p, ":") && !filepath.IsAbs(p) { // a namespace such as "<stdin>" or "data:"
			continue
		}
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(cwd, p)
		}
		if full == abs || slices.Contains(strings.Split(filepath.ToSlash(full), "/"), "node_modules") {
			continue
		}
		out = append(out, full)
	}
	slices.Sort(out[1:])
	return out, nil
}

// buildEntry runs esbuild on entry with the options Bundle and BundleFile share (bundling
// relative imports and node_modules, the externals, the minify flags, NODE_ENV), adjusted by
// set; it returns the result with entry's absolute path and the working folder.
func buildEntry(entry string, opts BundleOptions, set func(*api.BuildOptions)) (res api.BuildResult, abs, cwd string, err error) {
	if abs, err = filepath.Abs(entry); err != nil {
		return res, "", "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return res, "", "", fmt.Errorf("%w: %s", ErrNotFound, entry)
	}
	if cwd, err = os.Getwd(); err != nil {
		return res, "", "", err
	}
	sb, err := newSandbox(spiderRoot(abs), opts.AllowRead)
	if err != nil {
		return res, "", "", err
	}
	if real := realPath(abs); !sb.allows(real) {
		return res, "", "", fmt.Errorf("%s is a link to %s, outside its folder %s: %w", entry, real, sb.root, ErrOutsideRoot)
	}
	tsconfig, err := sb.tsconfig(filepath.Dir(abs))
	if err != nil {
		return res, "", "", err
	}
	b := api.BuildOptions{
		EntryPoints:       []string{abs},
		AbsWorkingDir:     cwd,
		Outdir:            cwd,
		Bundle:            true,
		Write:             false,
		Platform:          api.PlatformNeutral,
		MainFields:        []string{"module", "main"},
		ResolveExtensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"},
		External:          opts.External,
		Target:            api.ESNext,
		Charset:           api.CharsetUTF8,
		LogLevel:          api.LogLevelSilent,
		MinifyWhitespace:  opts.Minify,
		MinifySyntax:      opts.Minify,
		KeepNames:         true,
		Define:            map[string]string{"process.env.NODE_ENV": `"production"`},
		Plugins:           []api.Plugin{sb.plugin()},
	}
	if tsconfig != "" {
		b.Tsconfig = tsconfig
	} else {
		b.TsconfigRaw = "{}" // no tsconfig.json: esbuild must not look for one above the root
	}
	set(&b)
	res = api.Build(b)
	for i := range res.Errors {
		sb.redact(&res.Errors[i], cwd)
	}
	return res, abs, cwd, nil
}

// BundleSource builds a program from source text (JavaScript or TypeScript, no imports
// other than externals); name is used in positions. For tests and the REPL.
func BundleSource(name, source string, opts BundleOptions) (*Program, error) {
	loader := api.LoaderJS
	if strings.HasSuffix(name, ".ts") {
		loader = api.LoaderTS
	}
	res := api.Build(api.BuildOptions{
		Stdin:     &api.StdinOptions{Contents: source, Sourcefile: name, Loader: loader},
		Bundle:    true,
		Write:     false,
		Outdir:    "/",
		Format:    api.FormatCommonJS,
		Platform:  api.PlatformNeutral,
		External:  opts.External,
		Sourcemap: api.SourceMapExternal,
		Target:    api.ESNext,
		Supported: map[string]bool{"async-generator": false, "for-await": false, "async-await": false},
		Charset:   api.CharsetUTF8,
		LogLevel:  api.LogLevelSilent,
		KeepNames: true,
	})
	if len(res.Errors) > 0 {
		return nil, messageError(res.Errors[0], name, name, "")
	}
	code, srcMap := outputs(res)
	return compileBundle(name, string(code), srcMap)
}

// outputs returns the bundle's code and its source map.
func outputs(res api.BuildResult) (code, srcMap []byte) {
	for _, f := range res.OutputFiles {
		if strings.HasSuffix(f.Path, ".map") {
			srcMap = f.Contents
		} else {
			code = f.Contents
		}
	}
	return code, srcMap
}

func compileBundle(name, code string, srcMap []byte) (*Program, error) {
	// Strip esbuild's external map reference and inline ours, so goja maps stack positions
	// to the original files.
	if i := strings.LastIndex(code, "//# sourceMappingURL="); i >= 0 {
		code = code[:i]
	}
	code, err := rewriteHelpers(code)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	// The module wrapper stays on line 1 so line numbers are unchanged.
	wrapped := "(function (exports, require, module, __filename, __dirname) {" + code +
		"\n})\n//# sourceMappingURL=data:application/json;base64," + base64.StdEncoding.EncodeToString(srcMap) + "\n"
	prog, err := goja.Compile(name, wrapped, false)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", name, err)
	}
	return &Program{Name: name, Code: code, prog: prog}, nil
}

// renameSources rewrites the source map's paths so positions show the entry as the user
// typed it and other files relative to the working folder.
func renameSources(srcMap []byte, entry, abs, cwd string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(srcMap, &m); err != nil {
		return nil, fmt.Errorf("source map: %w", err)
	}
	srcs, _ := m["sources"].([]any)
	for i, s := range srcs {
		p, _ := s.(string)
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(cwd, p)
		}
		if full == abs {
			srcs[i] = entry
		} else if rel, err := filepath.Rel(cwd, full); err == nil {
			srcs[i] = rel
		}
	}
	m["sourceRoot"] = ""
	return json.Marshal(m)
}

func messageError(msg api.Message, entry, abs, cwd string) error {
	e := &SyntaxError{File: entry, Text: msg.Text}
	if loc := msg.Location; loc != nil {
		file := loc.File
		full := file
		if !filepath.IsAbs(full) && cwd != "" {
			full = filepath.Join(cwd, file)
		}
		if full == abs || file == "<stdin>" {
			file = entry
		}
		e.File, e.Line, e.Column, e.LineText = file, loc.Line, loc.Column+1, loc.LineText
	}
	if cause, ok := msg.Detail.(error); ok {
		e.Err = cause
	}
	return e
}
