package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jscrawl/jscrawl/jsapi"
	"github.com/urfave/cli/v2"
)

// tsconfig is written next to jscrawl.d.ts when the folder has none: strict checking, no
// DOM library (fetch, Request and Response are jscrawl's), nothing emitted.
const tsconfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "lib": ["ES2022"],
    "types": [],
    "strict": true,
    "noEmit": true
  },
  "include": ["**/*.ts"]
}
`

func typesCommand() *cli.Command {
	return &cli.Command{
		Name:      "types",
		Usage:     "write jscrawl.d.ts (and a tsconfig.json when there is none) so TypeScript checks your spiders",
		ArgsUsage: "[DIR]",
		Description: `Writes DIR/jscrawl.d.ts (DIR defaults to the current folder), replacing an older one, and
DIR/tsconfig.json unless one exists. Then any editor or "npx tsc" type-checks the spiders.

Examples:
   jscrawl types
   jscrawl types spiders && npx -p typescript@5 tsc -p spiders`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageError("types takes at most one folder (got %d)", c.NArg())
			}
			dir := c.Args().First()
			if dir == "" {
				dir = "."
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return cli.Exit(fmt.Sprintf("types: %v", err), 1)
			}
			_, out := stdio(c)
			dts := filepath.Join(dir, "jscrawl.d.ts")
			if err := os.WriteFile(dts, []byte(jsapi.TypeDefinitions), 0o644); err != nil {
				return cli.Exit(fmt.Sprintf("types: %v", err), 1)
			}
			fmt.Fprintln(out, "wrote "+dts)
			cfg := filepath.Join(dir, "tsconfig.json")
			if _, err := os.Stat(cfg); errors.Is(err, fs.ErrNotExist) {
				if err := os.WriteFile(cfg, []byte(tsconfig), 0o644); err != nil {
					return cli.Exit(fmt.Sprintf("types: %v", err), 1)
				}
				fmt.Fprintln(out, "wrote "+cfg)
			}
			return nil
		},
	}
}
