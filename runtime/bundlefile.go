package runtime

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/evanw/esbuild/pkg/api"
)

// BundleFile builds entry with its relative imports and node_modules packages into one
// self-contained ES module, as source text: the modules in opts.External (such as
// "jscrawl") stay imports, and nothing is lowered, so the file reads like the spider and
// Bundle accepts it like any spider file. Errors are *SyntaxError or wrap ErrNotFound.
func BundleFile(entry string, opts BundleOptions) ([]byte, error) {
	abs, err := filepath.Abs(entry)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, entry)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{abs},
		AbsWorkingDir:     cwd,
		Outdir:            cwd,
		Bundle:            true,
		Write:             false,
		Format:            api.FormatESModule,
		Platform:          api.PlatformNeutral,
		MainFields:        []string{"module", "main"},
		ResolveExtensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"},
		External:          opts.External,
		Target:            api.ESNext,
		Charset:           api.CharsetUTF8,
		LogLevel:          api.LogLevelSilent,
		MinifyWhitespace:  opts.Minify,
		MinifySyntax:      opts.Minify,
		MinifyIdentifiers: opts.Minify,
		KeepNames:         true,
		Define:            map[string]string{"process.env.NODE_ENV": `"production"`},
	})
	if len(res.Errors) > 0 {
		return nil, messageError(res.Errors[0], entry, abs, cwd)
	}
	code, _ := outputs(res)
	return code, nil
}
