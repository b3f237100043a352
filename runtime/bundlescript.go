package runtime

// Scripts: an entry file with top-level await and no exports, in the style of Crawlee's
// examples (await crawler.run() at the top level). goja has no top-level await and the
// bundle is CommonJS, so such an entry is bundled to an ES module first, its import
// declarations (esbuild hoists the external ones, the only ones left, to the top) kept
// at the top, and the rest wrapped in an async function whose promise the module exports
// as __jscrawlMain, through the global __jscrawlScript (jsapi's crawlee.js), which keeps
// it for the loader.

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// ScriptExport is the export of a script's promise (the wrapped top level).
const ScriptExport = "__jscrawlMain"

// importDecl matches a top-level import declaration of esbuild's output (at the start of
// a line; the bindings may span lines).
var importDecl = regexp.MustCompile(`(?m)^import\s(?:[^;"']*?\sfrom\s*)?"[^"\n]*";`)

// bundleScript bundles entry as a script; tla is the CommonJS build's error at the first
// top-level await, which positions the errors.
func bundleScript(entry string, opts BundleOptions, tla error) (*Program, error) {
	var at *SyntaxError
	if !errors.As(tla, &at) {
		return nil, tla
	}
	res, abs, cwd, err := buildEntry(entry, opts, func(b *api.BuildOptions) {
		b.Format = api.FormatESModule
		b.Sourcemap = api.SourceMapInline
		b.SourcesContent = api.SourcesContentExclude
		b.Metafile = true
	})
	if err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		return nil, messageError(res.Errors[0], entry, abs, cwd)
	}
	if at.File != entry {
		at.Text = "top-level await is supported in the spider's entry file only (" + entry + "), not in the files it imports"
		return nil, at
	}
	var meta struct {
		Outputs map[string]struct {
			Exports []string `json:"exports"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return nil, fmt.Errorf("esbuild metafile: %w", err)
	}
	for _, o := range meta.Outputs {
		if len(o.Exports) > 0 {
			at.Text = "top-level await in a file with exports (" + strings.Join(o.Exports, ", ") + "): jscrawl runs a file with top-level await as a script " +
				"(Crawlee's style: await crawler.run() at the top level), which cannot export; remove the exports, " +
				"or the top-level await (export default the crawler, a router or a spider class)"
			return nil, at
		}
	}
	code, _ := outputs(res)
	wrapped := wrapScript(string(code))
	res2 := api.Build(api.BuildOptions{
		Stdin:          &api.StdinOptions{Contents: wrapped, Sourcefile: abs, ResolveDir: filepath.Dir(abs), Loader: api.LoaderJS},
		AbsWorkingDir:  cwd,
		Outdir:         cwd,
		Bundle:         true,
		Write:          false,
		Format:         api.FormatCommonJS,
		Platform:       api.PlatformNeutral,
		External:       opts.External,
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentExclude,
		Target:         api.ESNext,
		Supported:      map[string]bool{"async-generator": false, "for-await": false, "async-await": false},
		Charset:        api.CharsetUTF8,
		LogLevel:       api.LogLevelSilent,
		KeepNames:      true,
	})
	if len(res2.Errors) > 0 {
		return nil, messageError(res2.Errors[0], entry, abs, cwd)
	}
	return finishBundle(entry, abs, cwd, res2, res.Metafile)
}

// wrapScript moves the import declarations of an ES module to its first line and wraps the
// rest in an async function whose promise is exported; lines keep their numbers (an
// import becomes as many empty lines), so the module's inline source map still applies.
func wrapScript(code string) string {
	var imports []string
	body := importDecl.ReplaceAllStringFunc(code, func(decl string) string {
		imports = append(imports, strings.ReplaceAll(decl, "\n", " "))
		return strings.Repeat("\n", strings.Count(decl, "\n"))
	})
	mapComment := ""
	if i := strings.LastIndex(body, "\n//# sourceMappingURL="); i >= 0 {
		body, mapComment = body[:i], body[i:]
	}
	return strings.Join(imports, " ") + " export const " + ScriptExport + " = __jscrawlScript((async () => {" + body +
		"\n})());" + mapComment + "\n"
}
