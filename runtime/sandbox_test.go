package runtime_test

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/jscrawl/jscrawl/runtime"
)

// secret is in every file outside the spider's folder: no error may show it.
const secret = "SECRET-7f3a-FIRST-LINE"

// defaultExport runs prog's module in a VM and returns its default export as a string.
func defaultExport(t *testing.T, prog *runtime.Program) string {
	t.Helper()
	vm := newVM(t, runtime.Options{})
	ex := loadExports(t, vm, prog)
	var got string
	if err := vm.Do(context.Background(), func(*goja.Runtime) error {
		got = ex.Get("default").String()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestBundleSandbox(t *testing.T) {
	t.Parallel()
	// Each case builds a folder: base/proj is the spider's project, base/out is outside it
	// and holds the secret. $BASE in a file or a link target is the folder's path; a link
	// target is relative to the link's folder unless it starts with $BASE.
	outside := map[string]string{
		"out/secret.txt":    secret + "\nline two\n",
		"out/creds.json":    `{"key": "` + secret + `"}`,
		"out/passwd":        secret + ":x:0:0:root:/root:/bin/sh\n",
		"out/evil.ts":       "export default " + "`" + secret + "`;\n",
		"out/tsconfig.json": secret + " {\n",
		"out/pkg/index.js":  "module.exports = '" + secret + "';\n",
		"out/shared.json":   `{"shared": "allowed"}`,
	}
	tests := []struct {
		name  string
		files map[string]string // besides outside's
		links map[string]string // link → target
		entry string            // default proj/spider.ts
		allow []string          // AllowRead, relative to base
		// want is the default export of a bundle that builds; refused, the import the
		// error names (empty: the error needs no import, as for the entry).
		want, refused string
	}{
		{name: "absolute import", files: map[string]string{
			"proj/spider.ts": "import c from \"$BASE/out/creds.json\";\nexport default c.key;\n"},
			refused: "$BASE/out/creds.json"},
		{name: "absolute import of a passwd-like file", files: map[string]string{
			"proj/spider.ts": "import pw from \"$BASE/out/passwd\";\nexport default pw;\n"},
			refused: "$BASE/out/passwd"},
		{name: "../ out of the root", files: map[string]string{
			"proj/a/b/spider.ts": "import s from \"../../../out/secret.txt\";\nexport default s;\n"},
			entry: "proj/a/b/spider.ts", refused: "../../../out/secret.txt"},
		{name: "require out of the root", files: map[string]string{
			"proj/spider.js": "const s = require(\"../out/secret.txt\");\nexport default s;\n"},
			entry: "proj/spider.js", refused: "../out/secret.txt"},
		{name: "symlink out", files: map[string]string{
			"proj/spider.ts": "import s from \"./data.txt\";\nexport default s;\n"},
			links: map[string]string{"proj/data.txt": "../out/secret.txt"}, refused: "./data.txt"},
		{name: "absolute symlink out", files: map[string]string{
			"proj/spider.ts": "import s from \"./data.txt\";\nexport default s;\n"},
			links: map[string]string{"proj/data.txt": "$BASE/out/secret.txt"}, refused: "./data.txt"},
		{name: "symlinked folder out", files: map[string]string{
			"proj/spider.ts": "import s from \"./lib/secret.txt\";\nexport default s;\n"},
			links: map[string]string{"proj/lib": "../out"}, refused: "./lib/secret.txt"},
		{name: "entry is a symlink out", links: map[string]string{"proj/spider.ts": "../out/evil.ts"}, refused: ""},
		{name: "package from a node_modules above the root", files: map[string]string{
			"proj/spider.ts":            "import p from \"pkg\";\nexport default p;\n",
			"node_modules/pkg/index.js": "module.exports = '" + secret + "';\n"},
			refused: "pkg"},
		{name: "malformed package.json of a package above the root is not quoted", files: map[string]string{
			"proj/spider.ts":                "import p from \"pkg\";\nexport default p;\n",
			"node_modules/pkg/package.json": secret + " {\n"},
			refused: ""},
		{name: "node_modules package linked out", files: map[string]string{
			"proj/spider.ts": "import p from \"pkg\";\nexport default p;\n"},
			links: map[string]string{"proj/node_modules/pkg": "../../out/pkg"}, refused: "pkg"},
		{name: "node_modules linked out", files: map[string]string{
			"proj/spider.ts": "import p from \"pkg\";\nexport default p;\n"},
			links: map[string]string{"proj/node_modules": "../out"}, refused: "pkg"},
		{name: "tsconfig paths alias out", files: map[string]string{
			"proj/spider.ts":     "import s from \"@out/secret.txt\";\nexport default s;\n",
			"proj/tsconfig.json": `{"compilerOptions": {"baseUrl": ".", "paths": {"@out/*": ["../out/*"]}}}`},
			refused: "@out/secret.txt"},
		{name: "tsconfig extends out", files: map[string]string{
			"proj/spider.ts":     "export default 'x';\n",
			"proj/tsconfig.json": "{\n  // the base\n  \"extends\": \"../out/tsconfig.json\",\n}\n"},
			refused: ""},
		{name: "malformed package.json above the root is not quoted", files: map[string]string{
			"package.json":      secret + " {\n",
			"proj/package.json": `{"name": "proj"}`,
			"proj/spider.ts":    "export default 'x';\n"},
			refused: ""},
		{name: "allow-read of another folder", files: map[string]string{
			"proj/spider.ts": "import s from \"../out/shared.json\";\nexport default s.shared;\n",
			"other/x.txt":    "x"},
			allow: []string{"other"}, refused: "../out/shared.json"},

		{name: "imports inside the root", files: map[string]string{
			"proj/spider.ts":    "import { twice } from \"./lib/twice\";\nimport d from \"./data.json\";\nimport n from \"./note.txt\";\nexport default twice(d.n) + n.trim();\n",
			"proj/lib/twice.ts": "export const twice = (n: number) => n * 2;\n",
			"proj/data.json":    `{"n": 21}`,
			"proj/note.txt":     "!\n"},
			want: "42!"},
		{name: "symlink inside the root", files: map[string]string{
			"proj/spider.ts":    "import { v } from \"./alias\";\nexport default v;\n",
			"proj/lib/value.ts": "export const v = 'linked';\n"},
			links: map[string]string{"proj/alias.ts": "lib/value.ts"}, want: "linked"},
		{name: "node_modules package", files: map[string]string{
			"proj/spider.ts":                     "import pad from \"pad\";\nexport default pad('x');\n",
			"proj/node_modules/pad/package.json": `{"name": "pad", "main": "index.js"}`,
			"proj/node_modules/pad/index.js":     "module.exports = (s) => '[' + s + ']';\n"},
			want: "[x]"},
		{name: "pnpm-style node_modules", files: map[string]string{
			"proj/spider.ts": "import pad from \"pad\";\nexport default pad('x');\n",
			"proj/node_modules/.pnpm/pad@1.0.0/node_modules/pad/package.json":   `{"name": "pad", "main": "index.js"}`,
			"proj/node_modules/.pnpm/pad@1.0.0/node_modules/pad/index.js":       "const r = require('repeat'); module.exports = (s) => r('[' + s + ']');\n",
			"proj/node_modules/.pnpm/repeat@2.0.0/node_modules/repeat/index.js": "module.exports = (s) => s + s;\n"},
			links: map[string]string{
				"proj/node_modules/pad":                                 ".pnpm/pad@1.0.0/node_modules/pad",
				"proj/node_modules/.pnpm/pad@1.0.0/node_modules/repeat": "../../repeat@2.0.0/node_modules/repeat",
			},
			want: "[x][x]"},
		{name: "tsconfig paths alias inside", files: map[string]string{
			"proj/spider.ts":     "import { v } from \"@lib/value\";\nexport default v;\n",
			"proj/lib/value.ts":  "export const v = 'aliased';\n",
			"proj/tsconfig.json": "{\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@lib/*\": [\"lib/*\"]}}, // trailing\n}\n"},
			want: "aliased"},
		{name: "tsconfig above the root is not read", files: map[string]string{
			"tsconfig.json":  secret + " {\n",
			"proj/spider.ts": "export default 'fine';\n"},
			want: "fine"},
		{name: "nearest package.json widens the root", files: map[string]string{
			"proj/package.json":      `{"name": "proj"}`,
			"proj/spiders/spider.ts": "import { v } from \"../shared/value\";\nexport default v;\n",
			"proj/shared/value.ts":   "export const v = 'shared';\n"},
			entry: "proj/spiders/spider.ts", want: "shared"},
		{name: "without package.json the root is the spider's folder", files: map[string]string{
			"proj/spiders/spider.ts": "import { v } from \"../shared/value\";\nexport default v;\n",
			"proj/shared/value.ts":   "export const v = 'shared';\n"},
			entry: "proj/spiders/spider.ts", refused: "../shared/value"},
		{name: "allow-read widens", files: map[string]string{
			"proj/spider.ts": "import s from \"../out/shared.json\";\nexport default s.shared;\n"},
			allow: []string{"out"}, want: "allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			expand := func(s string) string { return strings.ReplaceAll(s, "$BASE", base) }
			write := func(files map[string]string) {
				for name, src := range files {
					p := filepath.Join(base, name)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(expand(src)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(outside)
			write(tc.files)
			for link, target := range tc.links {
				p := filepath.Join(base, link)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(expand(target), p); err != nil {
					t.Fatal(err)
				}
			}
			entry := cmp.Or(tc.entry, "proj/spider.ts")
			opts := runtime.BundleOptions{External: []string{"jscrawl"}}
			for _, d := range tc.allow {
				opts.AllowRead = append(opts.AllowRead, filepath.Join(base, d))
			}
			prog, err := runtime.Bundle(filepath.Join(base, entry), opts)
			if tc.want != "" {
				if err != nil {
					t.Fatalf("bundle: %v", err)
				}
				if got := defaultExport(t, prog); got != tc.want {
					t.Fatalf("default export %q, want %q", got, tc.want)
				}
				return
			}
			checkRefused(t, err, expand(tc.refused))
			_, err = runtime.BundleFile(filepath.Join(base, entry), opts)
			checkRefused(t, err, expand(tc.refused))
		})
	}
}

// checkRefused checks that err refuses an import outside the spider's folder: it wraps
// ErrOutsideRoot, names the import at its position (when imp is not empty) and does not
// show the secret.
func checkRefused(t *testing.T, err error, imp string) {
	t.Helper()
	if err == nil {
		t.Fatal("bundled, want the import refused")
	}
	if !errors.Is(err, runtime.ErrOutsideRoot) {
		t.Fatalf("error %q does not wrap ErrOutsideRoot", err)
	}
	var se *runtime.SyntaxError
	if errors.As(err, &se) && strings.Contains(se.LineText, secret) {
		t.Fatalf("the error's line shows the secret: %q", se.LineText)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the error shows the secret: %v", err)
	}
	if imp == "" {
		return
	}
	if se == nil || se.Line < 1 || !strings.Contains(se.Text, `import "`+imp+`" is refused`) {
		t.Fatalf("error %q: want import %q named at its file:line:col", err, imp)
	}
}
