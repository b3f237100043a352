package runtime

import (
	"github.com/evanw/esbuild/pkg/api"
)

// BundleFile builds entry with its relative imports and node_modules packages into one
// self-contained ES module, as source text: the modules in opts.External (such as
// "jscrawl") stay imports, and nothing is lowered, so the file reads like the spider and
// Bundle accepts it like any spider file. Errors are *SyntaxError or wrap ErrNotFound.
func BundleFile(entry string, opts BundleOptions) ([]byte, error) {
	res, abs, cwd, err := buildEntry(entry, opts, func(b *api.BuildOptions) {
		b.Format = api.FormatESModule
		b.MinifyIdentifiers = opts.Minify
	})
	if err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		return nil, messageError(res.Errors[0], entry, abs, cwd)
	}
	code, _ := outputs(res)
	return code, nil
}
